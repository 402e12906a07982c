//! Reductions and windows: reduce (its `applies` form arrives as a region), reduce_window,
//! select_and_scatter, and map.

use super::{attrs, emit, err, untuple, Env, LResult, Lowerer};
use crate::attrs::{Window, WindowDim};
use crate::builder::{XlaBuilder, XlaOp};
use crate::ir::Op;
use crate::mlir::ast::{OpAst, Region};
use crate::mlir::MlirErrorKind;

fn region<'a>(op: &'a OpAst, i: usize, role: &str) -> LResult<&'a Region> {
    op.regions.get(i).ok_or_else(|| {
        err(
            op,
            MlirErrorKind::Syntax,
            format!("{} needs a {role} region", op.name),
        )
    })
}

/// Lowers `op` if it is a reduction, window op or map.
pub(crate) fn lower(
    lw: &Lowerer<'_>,
    b: &XlaBuilder,
    op: &OpAst,
    short: &str,
    ops: &[XlaOp],
    _env: &Env,
) -> LResult<Option<Vec<XlaOp>>> {
    match short {
        "reduce" => {
            let dimensions = attrs::ints(op, &["dimensions"])?;
            let to_apply = lw.region_comp(b, op, region(op, 0, "reducer")?, "reducer")?;
            let v = emit(
                b,
                op,
                Op::Reduce {
                    dimensions,
                    to_apply: to_apply.id(),
                },
                ops,
                None,
            )?;
            Ok(Some(untuple(b, op, v, ops.len() / 2)?))
        }
        "reduce_window" => {
            let window = window(op, ops.len() / 2, b, ops)?;
            let to_apply = lw.region_comp(b, op, region(op, 0, "reducer")?, "reducer")?;
            let v = emit(
                b,
                op,
                Op::ReduceWindow {
                    window,
                    to_apply: to_apply.id(),
                },
                ops,
                None,
            )?;
            Ok(Some(untuple(b, op, v, ops.len() / 2)?))
        }
        "select_and_scatter" => {
            let window = window(op, 1, b, ops)?;
            let select = lw.region_comp(b, op, region(op, 0, "select")?, "select")?;
            let scatter = lw.region_comp(b, op, region(op, 1, "scatter")?, "scatter")?;
            let hlo = Op::SelectAndScatter {
                window,
                select: select.id(),
                scatter: scatter.id(),
            };
            Ok(Some(vec![emit(b, op, hlo, ops, None)?]))
        }
        "map" => {
            let dimensions = attrs::ints(op, &["dimensions"])?;
            let to_apply = lw.region_comp(b, op, region(op, 0, "computation")?, "mapped")?;
            Ok(Some(vec![emit(
                b,
                op,
                Op::Map {
                    dimensions,
                    to_apply: to_apply.id(),
                },
                ops,
                None,
            )?]))
        }
        _ => Ok(None),
    }
}

/// The window of reduce_window / select_and_scatter, rank from the first operand.
fn window(op: &OpAst, _n: usize, _b: &XlaBuilder, ops: &[XlaOp]) -> LResult<Window> {
    let first = ops.first().ok_or_else(|| {
        err(
            op,
            MlirErrorKind::Syntax,
            format!("{} needs operands", op.name),
        )
    })?;
    let rank = super::shape_of(op, first)?
        .as_array()
        .map_or(0, |a| a.dims.len());
    let sizes = attrs::ints(op, &["window_dimensions"])?;
    let get = |names: &[&str]| -> LResult<Vec<i64>> {
        Ok(attrs::opt_ints(op, names)?.unwrap_or_else(|| vec![1; rank]))
    };
    let strides = get(&["window_strides"])?;
    let base = get(&["base_dilations"])?;
    let wdil = get(&["window_dilations"])?;
    let pads = attrs::pairs(op, &["padding"], rank)?;
    if [sizes.len(), strides.len(), base.len(), wdil.len()]
        .iter()
        .any(|&l| l != rank)
    {
        return Err(err(
            op,
            MlirErrorKind::Attribute,
            format!("{}: window attributes must have {rank} entries", op.name),
        ));
    }
    let dims = (0..rank)
        .map(|i| {
            let (lo, hi) = pads.get(i).copied().unwrap_or((0, 0));
            WindowDim {
                size: sizes.get(i).copied().unwrap_or(1),
                stride: strides.get(i).copied().unwrap_or(1),
                padding_low: lo,
                padding_high: hi,
                window_dilation: wdil.get(i).copied().unwrap_or(1),
                base_dilation: base.get(i).copied().unwrap_or(1),
                window_reversal: false,
            }
        })
        .collect();
    Ok(Window { dims })
}
