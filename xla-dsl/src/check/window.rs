//! Window operations: `reduce_window` with a closure, `max_pool`, `avg_pool`.

use super::args::{self, WindowPadding};
use super::graph::shape;
use super::{literal, Checker, Elementwise, Val};
use crate::ast::{Arg, LitValue};
use crate::ctxt::Sp;
use xla_core::builder::{Callee, Combiner, XlaOp};
use xla_core::ir::BinaryOp;

/// Window dims, strides and padding, read from the arguments.
struct WindowArgs {
    dims: Vec<i64>,
    strides: Vec<i64>,
    padding: WindowPadding,
}

impl Checker<'_> {
    /// `[window], [strides]` and an optional padding (VALID when omitted).
    fn window_args(&self, args: &[Arg], sp: Sp, n: &str) -> Option<WindowArgs> {
        let (dims, strides, padding) = self.with_padding(args, n, "the window dims", sp)?;
        let (dims, strides) = (
            self.ints(dims, "the window dims"),
            self.ints(strides, "the window strides"),
        );
        Some(WindowArgs {
            dims: dims?,
            strides: strides?,
            padding,
        })
    }

    fn reduce_window_op(
        &mut self,
        x: &XlaOp,
        init: &XlaOp,
        w: &WindowArgs,
        comp: impl Callee,
        sp: Sp,
    ) -> Option<Val> {
        self.val_op(sp, |b| match &w.padding {
            WindowPadding::Named(p) => b.reduce_window(x, init, &w.dims, &w.strides, *p, comp),
            WindowPadding::Explicit(pads) => b.reduce_window_with_general_padding(
                x,
                init,
                &w.dims,
                &w.strides,
                &[],
                &[],
                pads,
                comp,
            ),
        })
    }

    /// `x.reduce_window(init, [window], [strides], [padding,] |a, b| ...)`.
    pub fn reduce_window_with(&mut self, x: Val, args: &[Arg], sp: Sp) -> Option<Val> {
        let Some((f, rest)) = args.split_last() else {
            self.cx.error(sp, "`reduce_window` takes the initial value, the window dims, the strides, optionally the padding, and a closure");
            return None;
        };
        let Some((init, window)) = rest.split_first() else {
            self.cx.error(
                sp,
                "`reduce_window` needs an initial value before the window dims",
            );
            return None;
        };
        let x = self.tensor(x, None, sp)?;
        let ty = shape(&x)?.element_type();
        let init = self.val(init).and_then(|v| self.tensor(v, Some(ty), sp));
        let w = self.window_args(window, sp, "reduce_window");
        let f = self.closure(f)?;
        let scalar = xla_core::Shape::scalar(ty);
        let comp = self.sub_computation("reduce_window", f, &[scalar.clone(), scalar])?;
        self.reduce_window_op(&x, &init?, &w?, &comp, sp)
    }

    /// `reduce_window_together([a, b], [init_a, init_b], [window], [strides], [padding,]
    /// |(a1, b1), (a2, b2)| (.., ..))`: a variadic `reduce-window`, a tuple.
    pub fn reduce_window_together_call(&mut self, args: &[Arg], sp: Sp) -> Option<Val> {
        let n = "reduce_window_together";
        let (Some((f, rest)), true) = (args.split_last(), args.len() >= 5) else {
            self.cx.error(sp, format!("`{n}` takes the operands `[a, b]`, their initial values, the window dims, the strides, optionally the padding, and a closure"));
            return None;
        };
        let [list, inits, window @ ..] = rest else {
            return None;
        };
        let operands = self.operands_and_inits(n, list, inits, sp);
        let w = self.window_args(window, sp, n);
        let (ops, inits, params) = operands?;
        let comp = self.sub_computation(n, self.closure(f)?, &params)?;
        let w = w?;
        self.val_op(sp, |b| match &w.padding {
            WindowPadding::Named(p) => {
                b.reduce_window_variadic(&ops, &inits, &w.dims, &w.strides, *p, &comp)
            }
            WindowPadding::Explicit(pads) => b.reduce_window_variadic_with_general_padding(
                &ops,
                &inits,
                &w.dims,
                &w.strides,
                &[],
                &[],
                pads,
                &comp,
            ),
        })
    }

    /// `x.reduce_window_dilated(init, [window], [strides], [base dilation], [window
    /// dilation], [(low, high), ...], |a, b| ...)`: every window parameter, positionally.
    pub fn reduce_window_dilated(&mut self, x: Val, args: &[Arg], sp: Sp) -> Option<Val> {
        let names = [
            "init",
            "[window]",
            "[strides]",
            "[base dilation]",
            "[window dilation]",
            "[(low, high)]",
            "closure",
        ];
        let [init, dims, strides, base, wdil, pads, f] =
            self.arity("reduce_window_dilated", args, names, sp)?;
        let x = self.tensor(x, None, sp)?;
        let ty = shape(&x)?.element_type();
        let init = self.val(init).and_then(|v| self.tensor(v, Some(ty), sp));
        let (dims, strides) = (
            self.ints(dims, "the window dims"),
            self.ints(strides, "the strides"),
        );
        let (base, wdil) = (
            self.ints(base, "the base dilation"),
            self.ints(wdil, "the window dilation"),
        );
        let pads = match self.window_padding(pads)? {
            WindowPadding::Explicit(p) => p,
            WindowPadding::Named(_) => {
                self.cx.error(
                    args::span(pads),
                    "reduce_window_dilated: give the padding as `[(low, high), ...]`",
                );
                return None;
            }
        };
        let f = self.closure(f)?;
        let scalar = xla_core::Shape::scalar(ty);
        let comp = self.sub_computation("reduce_window", f, &[scalar.clone(), scalar])?;
        let (init, dims, strides, base, wdil) = (init?, dims?, strides?, base?, wdil?);
        self.val_op(sp, |b| {
            b.reduce_window_with_general_padding(
                &x, &init, &dims, &strides, &base, &wdil, &pads, &comp,
            )
        })
    }

    /// `x.select_and_scatter(source, init, [window], [strides], [(low, high)], |a, b|
    /// a.ge(b), |a, b| a + b)`: each `source` value goes to the element the select closure
    /// picks in its window, combined by the scatter closure.
    pub fn select_and_scatter(&mut self, x: Val, args: &[Arg], sp: Sp) -> Option<Val> {
        let names = [
            "source",
            "init",
            "[window]",
            "[strides]",
            "[(low, high)]",
            "select closure",
            "scatter closure",
        ];
        let [source, init, dims, strides, pads, select, scatter] =
            self.arity("select_and_scatter", args, names, sp)?;
        let x = self.tensor(x, None, sp)?;
        let ty = shape(&x)?.element_type();
        let source = self.val(source).and_then(|v| self.tensor(v, Some(ty), sp));
        let init = self.val(init).and_then(|v| self.tensor(v, Some(ty), sp));
        let (dims, strides) = (
            self.ints(dims, "the window dims"),
            self.ints(strides, "the strides"),
        );
        let pads = match self.window_padding(pads)? {
            WindowPadding::Explicit(p) => p,
            WindowPadding::Named(_) => {
                self.cx.error(
                    args::span(pads),
                    "select_and_scatter: give the padding as `[(low, high), ...]`",
                );
                return None;
            }
        };
        let scalar = xla_core::Shape::scalar(ty);
        let pair = [scalar.clone(), scalar];
        let select = self.closure(select)?;
        let select = self.sub_computation("select_and_scatter", select, &pair);
        let scatter = self.closure(scatter)?;
        let scatter = self.sub_computation("select_and_scatter", scatter, &pair);
        let (source, init, dims, strides) = (source?, init?, dims?, strides?);
        let (select, scatter) = (select?, scatter?);
        self.val_op(sp, |b| {
            b.select_and_scatter_with_general_padding(
                &x, &dims, &strides, &pads, &source, &init, &select, &scatter,
            )
        })
    }

    /// `x.max_pool([window], [strides][, padding])`.
    pub fn max_pool(&mut self, x: Val, args: &[Arg], sp: Sp) -> Option<Val> {
        let x = self.tensor(x, None, sp)?;
        let s = shape(&x)?;
        let w = self.window_args(args, sp, "max_pool")?;
        let Some(lowest) = literal::lowest(s.element_type()) else {
            self.cx.error(sp, format!("max_pool: not defined for {s}"));
            return None;
        };
        let init = self.constant(s.element_type(), lowest, sp)?;
        self.reduce_window_op(&x, &init, &w, Combiner::Max, sp)
    }

    /// `x.avg_pool([window], [strides][, padding])`: window sums divided by the window size
    /// (padding counts as zeros).
    pub fn avg_pool(&mut self, x: Val, args: &[Arg], sp: Sp) -> Option<Val> {
        let x = self.tensor(x, None, sp)?;
        let s = shape(&x)?;
        if !s.element_type().is_float_or_complex() {
            self.cx.error(
                sp,
                format!("avg_pool: needs a floating-point tensor, found {s}"),
            );
            return None;
        }
        let w = self.window_args(args, sp, "avg_pool")?;
        let init = self.constant(s.element_type(), LitValue::Int(0), sp)?;
        let sums = self.reduce_window_op(&x, &init, &w, Combiner::Add, sp)?;
        let count: i64 = w.dims.iter().product();
        self.elementwise_binary(
            Elementwise::Binary(BinaryOp::Div),
            sums,
            Val::Weak(LitValue::Int(count.into())),
            sp,
        )
    }
}
