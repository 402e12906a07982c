//! Indexing ops: gather and scatter with their dimension numbers.

use super::{attrs, emit, err, untuple, Env, LResult, Lowerer};
use crate::attrs::{GatherDims, ScatterDims};
use crate::builder::{XlaBuilder, XlaOp};
use crate::ir::Op;
use crate::mlir::ast::{Attr, OpAst};
use crate::mlir::MlirErrorKind;

fn field_int(s: &[(String, Attr)], key: &str) -> Option<i64> {
    s.iter()
        .find(|(k, _)| k == key)
        .and_then(|(_, a)| attrs::as_int(a))
}

/// Lowers `op` if it is gather or scatter.
pub(crate) fn lower(
    lw: &Lowerer<'_>,
    b: &XlaBuilder,
    op: &OpAst,
    short: &str,
    ops: &[XlaOp],
    _env: &Env,
) -> LResult<Option<Vec<XlaOp>>> {
    match short {
        "gather" => {
            let f = attrs::fields(op, &["dimension_numbers"])?;
            let dims = GatherDims {
                offset_dims: attrs::field_ints(op, f, "offset_dims")?,
                collapsed_slice_dims: attrs::field_ints(op, f, "collapsed_slice_dims")?,
                start_index_map: attrs::field_ints(op, f, "start_index_map")?,
                index_vector_dim: field_int(f, "index_vector_dim").unwrap_or(0),
                operand_batching_dims: attrs::field_ints(op, f, "operand_batching_dims")?,
                start_indices_batching_dims: attrs::field_ints(
                    op,
                    f,
                    "start_indices_batching_dims",
                )?,
                slice_sizes: attrs::ints(op, &["slice_sizes"])?,
                indices_are_sorted: attrs::flag(op, &["indices_are_sorted"], false)?,
            };
            Ok(Some(vec![emit(b, op, Op::Gather(dims), ops, None)?]))
        }
        "scatter" => {
            let f = attrs::fields(op, &["scatter_dimension_numbers"])?;
            let dims = ScatterDims {
                update_window_dims: attrs::field_ints(op, f, "update_window_dims")?,
                inserted_window_dims: attrs::field_ints(op, f, "inserted_window_dims")?,
                scatter_dims_to_operand_dims: attrs::field_ints(
                    op,
                    f,
                    "scatter_dims_to_operand_dims",
                )?,
                index_vector_dim: field_int(f, "index_vector_dim").unwrap_or(0),
                input_batching_dims: attrs::field_ints(op, f, "input_batching_dims")?,
                scatter_indices_batching_dims: attrs::field_ints(
                    op,
                    f,
                    "scatter_indices_batching_dims",
                )?,
                indices_are_sorted: attrs::flag(op, &["indices_are_sorted"], false)?,
                unique_indices: attrs::flag(op, &["unique_indices"], false)?,
            };
            let region = op
                .regions
                .first()
                .ok_or_else(|| err(op, MlirErrorKind::Syntax, "scatter needs an update region"))?;
            let to_apply = lw.region_comp(b, op, region, "update")?;
            let v = emit(
                b,
                op,
                Op::Scatter {
                    dims,
                    to_apply: to_apply.id(),
                },
                ops,
                None,
            )?;
            Ok(Some(untuple(b, op, v, ops.len().saturating_sub(1) / 2)?))
        }
        _ => Ok(None),
    }
}
