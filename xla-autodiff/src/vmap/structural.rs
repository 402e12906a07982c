//! Structural ops: tuples, broadcast, reshape, transpose, reverse, slice, concatenate, pad,
//! copies and dimension sizes. The batch dimension stays in front; attributes shift by one.

use super::error::VmapError;
use super::rules::Cx;
use super::value::{shift, with_batch, with_zero, Bt, Val};
use xla_core::builder::XlaOp;
use xla_core::ir::PadDim;
use xla_core::Op;

/// `tuple`: the elements' batching, kept per element.
pub(crate) fn tuple(cx: &Cx) -> Result<Val, VmapError> {
    let vs: Vec<XlaOp> = cx.args.iter().map(|a| a.v.clone()).collect();
    let bt = Bt::Tuple(cx.args.iter().map(|a| a.bt.clone()).collect());
    Ok(Val {
        v: cx.b.tuple(vs),
        bt,
    })
}

/// `get-tuple-element`.
pub(crate) fn get_tuple_element(cx: &Cx, index: i64) -> Result<Val, VmapError> {
    let bt = cx
        .args
        .first()
        .map_or(Bt::Leaf(false), |a| a.bt.elem(index as usize));
    Ok(Val {
        v: cx.b.get_tuple_element(cx.v(0), index),
        bt,
    })
}

/// Ops that pass their operand through (`copy`, `opt-barrier`): same batching.
pub(crate) fn pass_through(cx: &Cx) -> Result<Val, VmapError> {
    let op = cx.bat.import(cx.b, &cx.ins.op)?;
    let v = cx.b.add_op(op, &[cx.v(0)], None);
    let bt = cx.args.first().map_or(Bt::Leaf(false), |a| a.bt.clone());
    Ok(Val { v, bt })
}

/// `broadcast`: the batch dimension maps to result dimension 0.
pub(crate) fn broadcast(cx: &Cx, dimensions: &[i64]) -> Result<Val, VmapError> {
    let op = Op::Broadcast {
        dimensions: with_zero(dimensions),
    };
    cx.emit(op, &[cx.v(0)], Some(cx.out()))
}

/// `reshape` and `bitcast`: a reshape to the batched result dims.
pub(crate) fn reshape(cx: &Cx) -> Result<Val, VmapError> {
    cx.emit(Op::Reshape, &[cx.v(0)], Some(cx.out()))
}

/// `transpose`.
pub(crate) fn transpose(cx: &Cx, permutation: &[i64]) -> Result<Val, VmapError> {
    let op = Op::Transpose {
        permutation: with_zero(permutation),
    };
    cx.emit(op, &[cx.v(0)], Some(cx.out()))
}

/// `reverse`.
pub(crate) fn reverse(cx: &Cx, dimensions: &[i64]) -> Result<Val, VmapError> {
    let op = Op::Reverse {
        dimensions: shift(dimensions),
    };
    cx.emit(op, &[cx.v(0)], Some(cx.out()))
}

/// `slice`: the whole batch dimension.
pub(crate) fn slice(
    cx: &Cx,
    start: &[i64],
    limit: &[i64],
    stride: &[i64],
) -> Result<Val, VmapError> {
    let front = |x: i64, v: &[i64]| std::iter::once(x).chain(v.iter().copied()).collect();
    let op = Op::Slice {
        start: front(0, start),
        limit: front(cx.n(), limit),
        stride: front(1, stride),
    };
    cx.emit(op, &[cx.v(0)], Some(cx.out()))
}

/// `concatenate`: every operand batched, one dimension further.
pub(crate) fn concatenate(cx: &Cx, dimension: i64) -> Result<Val, VmapError> {
    let op = Op::Concatenate {
        dimension: dimension + 1,
    };
    cx.emit(op, &cx.all_full(), Some(cx.out()))
}

/// `pad`: no padding on the batch dimension. A batched padding value (JAX's rule): pad
/// with any value, then select the padding value where a padded mask of `true`s is false.
pub(crate) fn pad(cx: &Cx, padding: &[PadDim]) -> Result<Val, VmapError> {
    let none = PadDim {
        low: 0,
        high: 0,
        interior: 0,
    };
    let padding: Vec<PadDim> = std::iter::once(none)
        .chain(padding.iter().cloned())
        .collect();
    if !cx.is_b(1) {
        let op = Op::Pad { padding };
        return cx.emit(op, &[cx.v(0), cx.v(1)], Some(cx.out()));
    }
    let b = cx.b;
    let (s, out) = (cx.shape(0), cx.out());
    let x = cx.full(0);
    let zero = b.constant_scalar(s.element_type(), 0);
    let padded = b.pad(&x, zero, &padding);
    let ones = b.broadcast(b.constant_r0(true), with_batch(&s, cx.n()).dims());
    let mask = b.pad(ones, b.constant_r0(false), &padding);
    let value = b.broadcast_in_dim(cx.v(1), out.dims(), &[0]);
    Ok(Val {
        v: b.select(mask, padded, value),
        bt: Bt::Leaf(true),
    })
}

/// `get-dimension-size`: the size of the shifted dimension (the same for every lane).
pub(crate) fn get_dimension_size(cx: &Cx, dimension: i64) -> Result<Val, VmapError> {
    let op = Op::GetDimensionSize {
        dimension: dimension + 1,
    };
    cx.emit(op, &[cx.v(0)], Some(cx.ins.shape.clone()))
}
