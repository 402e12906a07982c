//! Reductions and windows: reduce, reduce-window, select-and-scatter, and the SAME / VALID
//! padding helpers.

use super::callee::{reducer_params, Callee};
use super::{collect_ops, refs, XlaBuilder, XlaOp};
use crate::ir::{Op, Window, WindowDim};
use crate::shape::Shape;
use crate::shape_inference::{ShapeError, ShapeRule, WindowRule};
use std::borrow::Borrow;

/// Padding of windowed ops (XLA's `Padding`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Padding {
    /// Pad so that the output has `ceil(input / stride)` elements, splitting the padding
    /// evenly (the extra element, if any, at the high end).
    Same,
    /// No padding.
    Valid,
}

/// The `(low, high)` padding per dimension for `padding` (XLA's `MakePadding`); missing
/// strides count as 1.
pub fn make_padding(
    input_dims: &[i64],
    window_dims: &[i64],
    strides: &[i64],
    padding: Padding,
) -> Vec<(i64, i64)> {
    input_dims
        .iter()
        .zip(window_dims)
        .enumerate()
        .map(|(i, (&input, &window))| match padding {
            Padding::Valid => (0, 0),
            Padding::Same => {
                let stride = strides.get(i).copied().unwrap_or(1).max(1);
                let output = (input + stride - 1) / stride;
                let total = ((output - 1) * stride + window - input).max(0);
                (total / 2, total - total / 2)
            }
        })
        .collect()
}

/// A window from per-dimension lists; empty lists mean the default (stride 1, no padding,
/// no dilation).
///
/// # Errors
/// When a non-empty list's length differs from `window_dims`'.
pub(super) fn make_window(
    op: &str,
    window_dims: &[i64],
    strides: &[i64],
    padding: &[(i64, i64)],
    base_dilations: &[i64],
    window_dilations: &[i64],
) -> Result<Window, ShapeError> {
    let n = window_dims.len();
    let lists = [
        ("window_strides", strides.len()),
        ("padding", padding.len()),
    ];
    let more = [
        ("base_dilations", base_dilations.len()),
        ("window_dilations", window_dilations.len()),
    ];
    for (what, len) in lists.into_iter().chain(more) {
        if len != 0 && len != n {
            let rule = WindowRule::AttributeLength {
                what,
                len,
                window: n,
            };
            return Err(ShapeError::rule(op, ShapeRule::Window(rule)));
        }
    }
    let dims = (0..n)
        .map(|i| WindowDim {
            size: window_dims[i],
            stride: strides.get(i).copied().unwrap_or(1),
            padding_low: padding.get(i).map_or(0, |p| p.0),
            padding_high: padding.get(i).map_or(0, |p| p.1),
            window_dilation: window_dilations.get(i).copied().unwrap_or(1),
            base_dilation: base_dilations.get(i).copied().unwrap_or(1),
            window_reversal: false,
        })
        .collect();
    Ok(Window { dims })
}

/// The window part of a reduce-window or select-and-scatter, as given to the builder.
struct WindowArgs<'a> {
    dims: &'a [i64],
    strides: &'a [i64],
    padding: PaddingArg<'a>,
    base_dilations: &'a [i64],
    window_dilations: &'a [i64],
}

enum PaddingArg<'a> {
    Named(Padding),
    Explicit(&'a [(i64, i64)]),
}

impl WindowArgs<'_> {
    fn window(&self, op: &str, operand: &Shape) -> Result<Window, ShapeError> {
        let pads = match self.padding {
            PaddingArg::Named(p) => make_padding(operand.dims(), self.dims, self.strides, p),
            PaddingArg::Explicit(p) => p.to_vec(),
        };
        make_window(
            op,
            self.dims,
            self.strides,
            &pads,
            self.base_dilations,
            self.window_dilations,
        )
    }
}

impl XlaBuilder {
    /// Reduces `dimensions` of `operand` with `computation`, starting from `init_value`.
    pub fn reduce(
        &self,
        operand: impl Borrow<XlaOp>,
        init_value: impl Borrow<XlaOp>,
        dimensions: &[i64],
        computation: impl Callee,
    ) -> XlaOp {
        let (o, i) = (operand.borrow().clone(), init_value.borrow().clone());
        self.reduce_variadic([o], [i], dimensions, computation)
    }

    /// Reduces N operands together (the combiner takes `2N` scalars and returns an N-tuple).
    pub fn reduce_variadic<I, J>(
        &self,
        operands: I,
        init_values: J,
        dimensions: &[i64],
        computation: impl Callee,
    ) -> XlaOp
    where
        I: IntoIterator,
        I::Item: Borrow<XlaOp>,
        J: IntoIterator,
        J::Item: Borrow<XlaOp>,
    {
        let mut ops = collect_ops(operands);
        ops.extend(collect_ops(init_values));
        let Some(shapes) = self.shapes_of("reduce", &refs(&ops)) else {
            return self.poisoned();
        };
        let params = reducer_params(&shapes[..shapes.len() / 2]);
        let Some(to_apply) = self.callee(computation, "reducer", &params) else {
            return self.poisoned();
        };
        self.emit(
            Op::Reduce {
                dimensions: dimensions.to_vec(),
                to_apply,
            },
            &refs(&ops),
            None,
        )
    }

    /// Reduces every dimension of `operand` to a scalar (XLA's `ReduceAll`).
    pub fn reduce_all(
        &self,
        operand: impl Borrow<XlaOp>,
        init_value: impl Borrow<XlaOp>,
        computation: impl Callee,
    ) -> XlaOp {
        let operand = operand.borrow();
        let Some(s) = self.shape_of("reduce", operand) else {
            return self.poisoned();
        };
        let all: Vec<i64> = (0..s.rank() as i64).collect();
        self.reduce(operand, init_value, &all, computation)
    }

    /// Reduces each window of `operand` (XLA's `ReduceWindow` with SAME / VALID padding).
    pub fn reduce_window(
        &self,
        operand: impl Borrow<XlaOp>,
        init_value: impl Borrow<XlaOp>,
        window_dimensions: &[i64],
        window_strides: &[i64],
        padding: Padding,
        computation: impl Callee,
    ) -> XlaOp {
        let args = WindowArgs {
            dims: window_dimensions,
            strides: window_strides,
            padding: PaddingArg::Named(padding),
            base_dilations: &[],
            window_dilations: &[],
        };
        let (o, i) = (operand.borrow().clone(), init_value.borrow().clone());
        self.reduce_window_impl(vec![o, i], &args, computation)
    }

    /// Reduce-window with explicit padding and base / window dilations (XLA's
    /// `ReduceWindowWithGeneralPadding`); empty dilation lists mean no dilation.
    #[allow(clippy::too_many_arguments)]
    pub fn reduce_window_with_general_padding(
        &self,
        operand: impl Borrow<XlaOp>,
        init_value: impl Borrow<XlaOp>,
        window_dimensions: &[i64],
        window_strides: &[i64],
        base_dilations: &[i64],
        window_dilations: &[i64],
        padding: &[(i64, i64)],
        computation: impl Callee,
    ) -> XlaOp {
        let args = WindowArgs {
            dims: window_dimensions,
            strides: window_strides,
            padding: PaddingArg::Explicit(padding),
            base_dilations,
            window_dilations,
        };
        let (o, i) = (operand.borrow().clone(), init_value.borrow().clone());
        self.reduce_window_impl(vec![o, i], &args, computation)
    }

    /// Reduce-window over N operands together, SAME / VALID padding.
    #[allow(clippy::too_many_arguments)]
    pub fn reduce_window_variadic(
        &self,
        operands: &[XlaOp],
        init_values: &[XlaOp],
        window_dimensions: &[i64],
        window_strides: &[i64],
        padding: Padding,
        computation: impl Callee,
    ) -> XlaOp {
        let args = WindowArgs {
            dims: window_dimensions,
            strides: window_strides,
            padding: PaddingArg::Named(padding),
            base_dilations: &[],
            window_dilations: &[],
        };
        let ops = operands.iter().chain(init_values).cloned().collect();
        self.reduce_window_impl(ops, &args, computation)
    }

    /// Reduce-window over N operands together with explicit padding and dilations.
    #[allow(clippy::too_many_arguments)]
    pub fn reduce_window_variadic_with_general_padding(
        &self,
        operands: &[XlaOp],
        init_values: &[XlaOp],
        window_dimensions: &[i64],
        window_strides: &[i64],
        base_dilations: &[i64],
        window_dilations: &[i64],
        padding: &[(i64, i64)],
        computation: impl Callee,
    ) -> XlaOp {
        let args = WindowArgs {
            dims: window_dimensions,
            strides: window_strides,
            padding: PaddingArg::Explicit(padding),
            base_dilations,
            window_dilations,
        };
        let ops = operands.iter().chain(init_values).cloned().collect();
        self.reduce_window_impl(ops, &args, computation)
    }

    fn reduce_window_impl(
        &self,
        ops: Vec<XlaOp>,
        args: &WindowArgs<'_>,
        computation: impl Callee,
    ) -> XlaOp {
        let Some(shapes) = self.shapes_of("reduce-window", &refs(&ops)) else {
            return self.poisoned();
        };
        let Some(first) = shapes.first() else {
            return self.misuse("reduce-window", "no operands");
        };
        let window = match args.window("reduce-window", first) {
            Ok(w) => w,
            Err(e) => return self.fail(e),
        };
        let params = reducer_params(&shapes[..shapes.len() / 2]);
        let Some(to_apply) = self.callee(computation, "reducer", &params) else {
            return self.poisoned();
        };
        self.emit(Op::ReduceWindow { window, to_apply }, &refs(&ops), None)
    }

    /// Select-and-scatter with SAME / VALID padding (XLA's `SelectAndScatter`): in each
    /// window of `operand`, `select` picks an element; `source`'s value for the window is
    /// combined with `scatter` into the result at that element, which starts at `init_value`.
    #[allow(clippy::too_many_arguments)]
    pub fn select_and_scatter(
        &self,
        operand: impl Borrow<XlaOp>,
        window_dimensions: &[i64],
        window_strides: &[i64],
        padding: Padding,
        source: impl Borrow<XlaOp>,
        init_value: impl Borrow<XlaOp>,
        select: impl Callee,
        scatter: impl Callee,
    ) -> XlaOp {
        let args = WindowArgs {
            dims: window_dimensions,
            strides: window_strides,
            padding: PaddingArg::Named(padding),
            base_dilations: &[],
            window_dilations: &[],
        };
        let ops = [operand.borrow(), source.borrow(), init_value.borrow()];
        self.select_and_scatter_impl(ops, &args, select, scatter)
    }

    /// Select-and-scatter with explicit `(low, high)` padding.
    #[allow(clippy::too_many_arguments)]
    pub fn select_and_scatter_with_general_padding(
        &self,
        operand: impl Borrow<XlaOp>,
        window_dimensions: &[i64],
        window_strides: &[i64],
        padding: &[(i64, i64)],
        source: impl Borrow<XlaOp>,
        init_value: impl Borrow<XlaOp>,
        select: impl Callee,
        scatter: impl Callee,
    ) -> XlaOp {
        let args = WindowArgs {
            dims: window_dimensions,
            strides: window_strides,
            padding: PaddingArg::Explicit(padding),
            base_dilations: &[],
            window_dilations: &[],
        };
        let ops = [operand.borrow(), source.borrow(), init_value.borrow()];
        self.select_and_scatter_impl(ops, &args, select, scatter)
    }

    fn select_and_scatter_impl(
        &self,
        ops: [&XlaOp; 3],
        args: &WindowArgs<'_>,
        select: impl Callee,
        scatter: impl Callee,
    ) -> XlaOp {
        let Some(shapes) = self.shapes_of("select-and-scatter", &ops) else {
            return self.poisoned();
        };
        let window = match args.window("select-and-scatter", &shapes[0]) {
            Ok(w) => w,
            Err(e) => return self.fail(e),
        };
        let operand_scalar = Shape::scalar(shapes[0].element_type());
        let source_scalar = Shape::scalar(shapes[1].element_type());
        let select = self.callee(select, "select", &[operand_scalar.clone(), operand_scalar]);
        let scatter = self.callee(scatter, "scatter", &[source_scalar.clone(), source_scalar]);
        let (Some(select), Some(scatter)) = (select, scatter) else {
            return self.poisoned();
        };
        self.emit(
            Op::SelectAndScatter {
                window,
                select,
                scatter,
            },
            &ops,
            None,
        )
    }
}
