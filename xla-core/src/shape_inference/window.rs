//! Shape rules: reductions and windows — reduce, reduce-window, select-and-scatter, the
//! window output size shared with convolution, and the reducer signature check.

use super::validators::*;
use super::{CalleeRule, OperandsRule, ProgramShape, ShapeError, ShapeRule, WindowRule};
use crate::attrs::Window;
use crate::shape::{ArrayShape, Shape};
use crate::types::PrimitiveType;

/// `(size - 1) * dilation + 1`, or 0 for size 0.
fn dilated(op: &str, size: i64, dilation: i64) -> Result<i64, ShapeError> {
    if size == 0 {
        return Ok(0);
    }
    checked_add(
        op,
        "dilated size",
        checked_mul(op, "dilated size", size.saturating_sub(1), dilation)?,
        1,
    )
}

/// The number of valid window positions along each dim of `base` (sizes of the base area):
/// the base is dilated, padded (padding may be negative), and a dilated window of
/// `size` moves with `stride`. Shared by reduce-window, select-and-scatter and convolution.
///
/// # Errors
/// When the window has the wrong number of dims, a non-positive size, stride or dilation,
/// or the arithmetic overflows.
pub fn window_output_dims(op: &str, base: &[i64], window: &Window) -> Result<Vec<i64>, ShapeError> {
    if window.dims.len() != base.len() {
        let rule = WindowRule::Rank {
            window: window.dims.len(),
            base: base.to_vec(),
        };
        return Err(ShapeError::rule(op, ShapeRule::Window(rule)));
    }
    let mut out = Vec::with_capacity(base.len());
    for (i, (w, &b)) in window.dims.iter().zip(base).enumerate() {
        if w.size <= 0 || w.stride <= 0 {
            let rule = WindowRule::SizeStride {
                dimension: i,
                size: w.size,
                stride: w.stride,
                base: base.to_vec(),
            };
            return Err(ShapeError::rule(op, ShapeRule::Window(rule)));
        }
        if w.base_dilation < 1 || w.window_dilation < 1 {
            let rule = WindowRule::Dilation {
                dimension: i,
                base_dilation: w.base_dilation,
                window_dilation: w.window_dilation,
                base: base.to_vec(),
            };
            return Err(ShapeError::rule(op, ShapeRule::Window(rule)));
        }
        let what = "padded base size";
        let padded = checked_add(
            op,
            what,
            checked_add(op, what, w.padding_low, w.padding_high)?,
            dilated(op, b, w.base_dilation)?,
        )?;
        let win = dilated(op, w.size, w.window_dilation)?;
        out.push(if win > padded {
            0
        } else {
            (padded - win) / w.stride + 1
        });
    }
    Ok(out)
}

/// Checks a reducer `(T0..TN-1, T0..TN-1) -> T0 | (T0..TN-1)` of scalars against the element
/// types `types` (`what` names the computation in messages).
///
/// # Errors
/// When the arity, a parameter or the result does not match.
pub fn check_reducer(
    op: &str,
    what: &str,
    comp: &ProgramShape,
    types: &[PrimitiveType],
) -> Result<(), ShapeError> {
    let n = types.len();
    if comp.parameters.len() != 2 * n {
        let rule = CalleeRule::ParameterCount {
            expected: 2 * n,
            per_operand: false,
        };
        return Err(ShapeError::rule(op, callee(what, comp, rule)));
    }
    let results: Vec<&Shape> = match &comp.result {
        Shape::Tuple(t) => t.iter().collect(),
        other => vec![other],
    };
    if results.len() != n {
        let rule = CalleeRule::ScalarResults { count: n };
        return Err(ShapeError::rule(op, callee(what, comp, rule)));
    }
    for (k, &t) in types.iter().enumerate() {
        let scalar = Shape::scalar(t);
        let slots = [
            comp.parameters.get(k),
            comp.parameters.get(n + k),
            results.get(k).copied(),
        ];
        if slots
            .iter()
            .any(|p| !p.is_some_and(|p| p.compatible(&scalar)))
        {
            let rule = CalleeRule::ScalarAt { position: k, ty: t };
            return Err(ShapeError::rule(op, callee(what, comp, rule)));
        }
    }
    Ok(())
}

/// Splits `N` operands and `N` init values, checking that the inits are scalars of the
/// operands' element types and the operands share dims.
fn operands_and_inits<'a>(
    op: &str,
    operands: &[&'a Shape],
    inits: &[&'a Shape],
) -> Result<Vec<&'a ArrayShape>, ShapeError> {
    let n = operands.len();
    if n == 0 || inits.len() != n {
        let rule = OperandsRule::InitValues {
            operands: n,
            inits: inits.len(),
        };
        return Err(ShapeError::rule(op, ShapeRule::Operands(rule)));
    }
    let (arrays, _) = expect_arrays_same_dims(op, operands)?;
    for (k, (a, init)) in arrays.iter().zip(inits).enumerate() {
        let v = expect_scalar(op, n + k, "init value", init)?;
        expect_same_type(
            op,
            &format!("operand {k}"),
            a,
            &format!("init value {k}"),
            v,
        )?;
    }
    Ok(arrays)
}

/// Checks the operands, inits and reducer of a reduction; returns the first operand and the
/// element types.
fn reduction_inputs<'a>(
    op: &str,
    operands: &[&'a Shape],
    inits: &[&'a Shape],
    to_apply: &ProgramShape,
) -> Result<(&'a ArrayShape, Vec<PrimitiveType>), ShapeError> {
    let arrays = operands_and_inits(op, operands, inits)?;
    let first = *arrays.first().ok_or_else(|| no_operand(op))?;
    let types: Vec<PrimitiveType> = arrays.iter().map(|a| a.ty).collect();
    check_reducer(op, "to_apply", to_apply, &types)?;
    Ok((first, types))
}

/// One array per element type with `dims`; a tuple when the reducer returns one.
fn reduction_result(
    types: &[PrimitiveType],
    dims: Vec<i64>,
    dynamic: Vec<bool>,
    to_apply: &ProgramShape,
) -> Shape {
    let results = types
        .iter()
        .map(|&t| array_with_dynamic(t, dims.clone(), dynamic.clone()))
        .collect();
    if to_apply.result.is_tuple() {
        Shape::Tuple(results)
    } else {
        single_or_tuple(results)
    }
}

/// The shape of `reduce(operands..., inits...)` over `dimensions`: each operand without the
/// reduced dims (a tuple for several). Operands share dims; inits are scalars of their types;
/// `to_apply` is `(T..., T...) -> (T...)`; `dimensions` unique and in range.
///
/// # Errors
/// When any of these rules is broken.
pub fn reduce(
    operands: &[&Shape],
    inits: &[&Shape],
    dimensions: &[i64],
    to_apply: &ProgramShape,
) -> Result<Shape, ShapeError> {
    let name = "reduce";
    let (first, types) = reduction_inputs(name, operands, inits, to_apply)?;
    expect_dims_in_range(name, "dimensions", dimensions, first.dims.len(), first)?;
    expect_unique_dims(name, "dimensions", dimensions, first)?;
    let kept: Vec<usize> = (0..first.dims.len())
        .filter(|&i| !dimensions.contains(&(i as i64)))
        .collect();
    let dims: Vec<i64> = kept
        .iter()
        .filter_map(|&i| first.dims.get(i).copied())
        .collect();
    let dynamic: Vec<bool> = kept.iter().map(|&i| first.is_dynamic_dim(i)).collect();
    Ok(reduction_result(&types, dims, dynamic, to_apply))
}

/// The shape of `reduce-window(operands..., inits...)`: per operand, the number of window
/// positions along each dim (see [`window_output_dims`]), a tuple for several.
///
/// # Errors
/// When the operands, inits, reducer or window are invalid.
pub fn reduce_window(
    operands: &[&Shape],
    inits: &[&Shape],
    window: &Window,
    to_apply: &ProgramShape,
) -> Result<Shape, ShapeError> {
    let name = "reduce-window";
    let (first, types) = reduction_inputs(name, operands, inits, to_apply)?;
    let dims = window_output_dims(name, &first.dims, window)?;
    Ok(reduction_result(&types, dims, Vec::new(), to_apply))
}

/// The shape of `select-and-scatter(operand, source, init)`: the operand's. `select` is
/// `(T, T) -> pred[]`, `scatter` is `(T, T) -> T`, `init` a T scalar, and `source` has the
/// shape reduce-window would give for `window` over the operand.
///
/// # Errors
/// When any of these rules is broken.
pub fn select_and_scatter(
    operand: &Shape,
    source: &Shape,
    init: &Shape,
    window: &Window,
    select: &ProgramShape,
    scatter: &ProgramShape,
) -> Result<Shape, ShapeError> {
    let name = "select-and-scatter";
    let a = expect_array(name, 0, "operand", operand)?;
    let s = expect_array(name, 1, "source", source)?;
    let v = expect_scalar(name, 2, "init value", init)?;
    expect_same_type(name, "operand", a, "source", s)?;
    expect_same_type(name, "operand", a, "init value", v)?;
    let scalar = Shape::scalar(a.ty);
    let params_ok =
        select.parameters.len() == 2 && select.parameters.iter().all(|p| p.compatible(&scalar));
    if !params_ok
        || !select
            .result
            .compatible(&Shape::scalar(PrimitiveType::Pred))
    {
        let rule = callee("select", select, CalleeRule::Select { ty: a.ty });
        return Err(ShapeError::rule(name, rule));
    }
    check_reducer(name, "scatter", scatter, &[a.ty])?;
    let dims = window_output_dims(name, &a.dims, window)?;
    if dims != s.dims {
        let expected = Shape::array(a.ty, dims);
        let rule = WindowRule::Source {
            source: s.clone(),
            expected,
            operand: a.clone(),
        };
        return Err(ShapeError::rule_at(name, 1, ShapeRule::Window(rule)));
    }
    Ok(plain(a))
}
