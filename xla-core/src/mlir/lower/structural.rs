//! Structural ops: constant, iota, broadcast_in_dim, reshape, transpose, reverse, slice,
//! dynamic_slice, dynamic_update_slice, concatenate, pad, tuple, get_tuple_element,
//! optimization_barrier, get_dimension_size.

use super::literal::dense_literal;
use super::{attrs, emit, err, result_type, LResult};
use crate::attrs::PadDim;
use crate::builder::{XlaBuilder, XlaOp};
use crate::ir::Op;
use crate::mlir::ast::{Attr, OpAst};
use crate::mlir::MlirErrorKind;

/// Lowers `op` if it is structural.
pub(crate) fn lower(
    b: &XlaBuilder,
    op: &OpAst,
    short: &str,
    ops: &[XlaOp],
) -> LResult<Option<Vec<XlaOp>>> {
    let v = match short {
        "constant" => constant(b, op)?,
        "iota" => {
            let dimension = attrs::int(op, &["dim", "iota_dimension"])?;
            emit(
                b,
                op,
                Op::Iota { dimension },
                ops,
                Some(result_type(op, 0)?),
            )?
        }
        "broadcast_in_dim" => {
            let dimensions = attrs::ints(op, &["dims", "broadcast_dimensions"])?;
            emit(
                b,
                op,
                Op::Broadcast { dimensions },
                ops,
                Some(result_type(op, 0)?),
            )?
        }
        "reshape" => emit(b, op, Op::Reshape, ops, Some(result_type(op, 0)?))?,
        "transpose" => {
            let permutation = attrs::ints(op, &["dims", "permutation"])?;
            emit(b, op, Op::Transpose { permutation }, ops, None)?
        }
        "reverse" => {
            let dimensions = attrs::ints(op, &["dims", "dimensions"])?;
            emit(b, op, Op::Reverse { dimensions }, ops, None)?
        }
        "slice" => slice(b, op, ops)?,
        "dynamic_slice" => {
            let slice_sizes = attrs::ints(op, &["sizes", "slice_sizes"])?;
            emit(b, op, Op::DynamicSlice { slice_sizes }, ops, None)?
        }
        "dynamic_update_slice" => emit(b, op, Op::DynamicUpdateSlice, ops, None)?,
        "concatenate" => {
            let dimension = attrs::int(op, &["dim", "dimension"])?;
            emit(b, op, Op::Concatenate { dimension }, ops, None)?
        }
        "pad" => pad(b, op, ops)?,
        "tuple" => emit(b, op, Op::Tuple, ops, None)?,
        "get_tuple_element" => {
            let index = match op.attr(&["slice"]) {
                Some(Attr::List(v)) => v.first().and_then(attrs::as_int),
                _ => None,
            };
            let index = match index {
                Some(i) => i,
                None => attrs::int(op, &["index"])?,
            };
            emit(b, op, Op::GetTupleElement { index }, ops, None)?
        }
        "optimization_barrier" => {
            let t = emit(b, op, Op::Tuple, ops, None)?;
            let ob = emit(b, op, Op::OptimizationBarrier, &[t], None)?;
            return untuple_all(b, op, ob, ops.len()).map(Some);
        }
        "get_dimension_size" => {
            let dimension = attrs::int(op, &["dimension"])?;
            emit(b, op, Op::GetDimensionSize { dimension }, ops, None)?
        }
        _ => return Ok(None),
    };
    Ok(Some(vec![v]))
}

/// Every element of a tuple value.
fn untuple_all(b: &XlaBuilder, op: &OpAst, v: XlaOp, n: usize) -> LResult<Vec<XlaOp>> {
    (0..n)
        .map(|i| {
            super::check(
                b,
                op,
                b.get_tuple_element(&v, i64::try_from(i).unwrap_or(0)),
            )
        })
        .collect()
}

fn constant(b: &XlaBuilder, op: &OpAst) -> LResult<XlaOp> {
    let Some(Attr::Dense(body, ty)) = op.attr(&["value"]) else {
        return Err(err(
            op,
            MlirErrorKind::Attribute,
            "constant needs a dense<...> value",
        ));
    };
    let shape = match op.result_types.first() {
        Some(t) => t.clone(),
        None => ty
            .clone()
            .ok_or_else(|| err(op, MlirErrorKind::Type, "constant needs its type"))?,
    };
    let lit = dense_literal(body, &shape)
        .map_err(|m| err(op, MlirErrorKind::Attribute, format!("constant: {m}")))?;
    emit(b, op, Op::Constant { literal: lit }, &[], Some(shape))
}

fn slice(b: &XlaBuilder, op: &OpAst, ops: &[XlaOp]) -> LResult<XlaOp> {
    let (start, limit, stride) = match op.attr(&["slice"]) {
        Some(Attr::List(dims)) => {
            let mut s = (Vec::new(), Vec::new(), Vec::new());
            for d in dims {
                let v = attrs::as_ints(d).unwrap_or_default();
                match v.as_slice() {
                    [a, l] => (s.0.push(*a), s.1.push(*l), s.2.push(1)),
                    [a, l, st] => (s.0.push(*a), s.1.push(*l), s.2.push(*st)),
                    _ => {
                        return Err(err(
                            op,
                            MlirErrorKind::Attribute,
                            "slice bounds must be start:limit[:stride]",
                        ))
                    }
                };
            }
            s
        }
        _ => (
            attrs::ints(op, &["start_indices"])?,
            attrs::ints(op, &["limit_indices"])?,
            attrs::ints(op, &["strides"])?,
        ),
    };
    emit(
        b,
        op,
        Op::Slice {
            start,
            limit,
            stride,
        },
        ops,
        None,
    )
}

fn pad(b: &XlaBuilder, op: &OpAst, ops: &[XlaOp]) -> LResult<XlaOp> {
    let low = attrs::ints(op, &["low", "edge_padding_low"])?;
    let high = attrs::ints(op, &["high", "edge_padding_high"])?;
    let interior = attrs::ints(op, &["interior", "interior_padding"])?;
    if low.len() != high.len() || low.len() != interior.len() {
        return Err(err(
            op,
            MlirErrorKind::Attribute,
            "pad: low, high and interior differ in length",
        ));
    }
    let padding = low
        .iter()
        .zip(&high)
        .zip(&interior)
        .map(|((&low, &high), &interior)| PadDim {
            low,
            high,
            interior,
        })
        .collect();
    emit(b, op, Op::Pad { padding }, ops, None)
}
