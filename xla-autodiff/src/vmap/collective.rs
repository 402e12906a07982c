//! Collectives over the batched axis: all-reduce, collective-permute and
//! collective-broadcast act elementwise across devices, so the batched operand goes through
//! unchanged; all-gather, reduce-scatter and all-to-all shift their dimension. Host
//! transfers (send, recv, infeed, outfeed) of batched data have no batched form.

use super::error::VmapError;
use super::rules::Cx;
use super::value::{batched_shape, Bt, Val};
use xla_core::ir::CollectiveConfig;
use xla_core::{CompId, Op};

/// Ops that act on each element independently: every operand batched, the op unchanged.
pub(crate) fn elementwise(cx: &Cx) -> Result<Val, VmapError> {
    let ops: Vec<_> = (0..cx.args.len())
        .map(|i| {
            if cx.shape(i).is_array() {
                cx.full(i)
            } else {
                cx.v(i)
            }
        })
        .collect();
    cx.emit(cx.ins.op.clone(), &ops, None)
}

/// Ops with a dimension attribute: the dimension shifts past the batch dimension. Every
/// result leaf is batched, and its shape is declared: with empty `replica_groups` (all
/// devices) the group size, which sizes an all-gather's or reduce-scatter's result, is not
/// in the op, so it is not inferred.
fn shifted(cx: &Cx, op: Op) -> Result<Val, VmapError> {
    let ops: Vec<_> = (0..cx.args.len()).map(|i| cx.full(i)).collect();
    let all = Bt::uniform(&cx.ins.shape, true);
    cx.emit(op, &ops, Some(batched_shape(&cx.ins.shape, &all, cx.n())))
}

/// `all-gather` (`start`: `all-gather-start`).
pub(crate) fn all_gather(
    cx: &Cx,
    dimension: i64,
    config: &CollectiveConfig,
    start: bool,
) -> Result<Val, VmapError> {
    let (dimension, config) = (dimension + 1, config.clone());
    let op = if start {
        Op::AllGatherStart { dimension, config }
    } else {
        Op::AllGather { dimension, config }
    };
    shifted(cx, op)
}

/// `reduce-scatter`.
pub(crate) fn reduce_scatter(
    cx: &Cx,
    dimension: i64,
    config: &CollectiveConfig,
    to_apply: CompId,
) -> Result<Val, VmapError> {
    let op = Op::ReduceScatter {
        dimension: dimension + 1,
        config: config.clone(),
        to_apply,
    };
    shifted(cx, op)
}

/// `all-to-all` with a split / concat dimension.
pub(crate) fn all_to_all(
    cx: &Cx,
    dimension: i64,
    config: &CollectiveConfig,
) -> Result<Val, VmapError> {
    let op = Op::AllToAll {
        dimension: Some(dimension + 1),
        config: config.clone(),
    };
    shifted(cx, op)
}

/// Ops that pass a batched value on (`-done` of an async pair, `add-dependency`).
pub(crate) fn pass(cx: &Cx) -> Result<Val, VmapError> {
    let ops: Vec<_> = (0..cx.args.len()).map(|i| cx.v(i)).collect();
    cx.emit(cx.ins.op.clone(), &ops, None)
}

/// Host transfers of batched data.
pub(crate) fn host_transfer(cx: &Cx) -> Result<Val, VmapError> {
    Err(cx.no_rule("a host transfer of batched data has no batched form"))
}
