//! Elementwise ops (unary, binary, compare, select, clamp, convert, bitcast-convert,
//! reduce-precision, map): operands brought to one batched shape, the op unchanged.

use super::error::VmapError;
use super::rules::Cx;
use super::value::{shift, with_batch, Val};
use xla_core::builder::XlaOp;
use xla_core::{CompId, Op};

/// Operand `i` as a batched array of the result's dims (scalar operands of `clamp` and
/// `select` are broadcast; a batched scalar along the batch dimension).
fn operand(cx: &Cx, i: usize) -> XlaOp {
    let s = cx.shape(i);
    let out = &cx.ins.shape;
    if s.dims() == out.dims() {
        if let Some(spread) = spread(cx, i) {
            return spread;
        }
    }
    if s.dims() == out.dims() || cx.args.len() == 1 {
        return cx.full(i);
    }
    let target: Vec<i64> = with_batch(out, cx.n()).dims().to_vec();
    let map: &[i64] = if cx.is_b(i) { &[0] } else { &[] };
    cx.b.broadcast_in_dim(cx.v(i), &target, map)
}

/// An unbatched operand `i` that is a broadcast (of a broadcast ...) of a value `y`, as
/// ONE broadcast of `y` to the batched shape; `None` for other operands.
///
/// Why: broadcasting the operand along the batch dimension would make a broadcast of a
/// broadcast, and the executor fuses a broadcast only of a value it can read: the inner
/// one (ReLU's `f32[256,512]` zeros, a learning rate over a weight matrix, a bias over
/// the rows) was materialised every run and read back by every kernel using it, where
/// the unbatched program reads a scalar or a row. Broadcasting `y` itself keeps the
/// memory traffic per lane what the unbatched program's is (XLA's algebraic simplifier
/// merges such pairs the same way). A broadcast only copies: the values are the same.
fn spread(cx: &Cx, i: usize) -> Option<XlaOp> {
    let (src, dims) = cx.sources.get(i)?.as_ref()?;
    if cx.is_b(i) || src.bt.any() || !cx.shape(i).is_array() {
        return None;
    }
    let out = with_batch(&cx.shape(i), cx.n());
    Some(cx.b.broadcast_in_dim(&src.v, out.dims(), &shift(dims)))
}

/// The rule of every elementwise op but `map`.
pub(crate) fn elementwise(cx: &Cx) -> Result<Val, VmapError> {
    let ops: Vec<XlaOp> = (0..cx.args.len()).map(|i| operand(cx, i)).collect();
    cx.same(&ops, cx.out())
}

/// `map`: mapped over every dimension, the batch one included.
pub(crate) fn map(cx: &Cx, to_apply: CompId) -> Result<Val, VmapError> {
    let ops: Vec<XlaOp> = (0..cx.args.len()).map(|i| operand(cx, i)).collect();
    let dimensions = (0..=cx.ins.shape.rank() as i64).collect();
    let op = Op::Map {
        dimensions,
        to_apply,
    };
    cx.emit(op, &ops, Some(cx.out()))
}
