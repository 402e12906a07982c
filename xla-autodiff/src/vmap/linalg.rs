//! Linear algebra and sorting: cholesky, triangular-solve and FFT take the batch dimension
//! as one more leading batch dimension; sort and top-k sort within each lane;
//! batch-norm-inference shifts its feature dimension (batch-norm-training and -grad, whose
//! statistics are per lane, run per lane).

use super::error::VmapError;
use super::rules::Cx;
use super::value::Val;
use xla_core::{CompId, Op};

/// Ops whose leading dimensions are batch dimensions already (`cholesky`, `fft`,
/// `topk`, `triangular-solve`): every operand batched, the op unchanged.
pub(crate) fn leading_batch(cx: &Cx) -> Result<Val, VmapError> {
    cx.same(&cx.all_full(), cx.out_all())
}

/// `sort` (variadic): every operand batched, the sorted dimension shifted.
pub(crate) fn sort(
    cx: &Cx,
    dimension: i64,
    is_stable: bool,
    to_apply: CompId,
) -> Result<Val, VmapError> {
    let op = Op::Sort {
        dimension: dimension + 1,
        is_stable,
        to_apply,
    };
    cx.emit(op, &cx.all_full(), Some(cx.out_all()))
}

/// `batch-norm-inference`: with only the operand batched, the feature dimension shifts;
/// batched statistics run per lane.
pub(crate) fn batch_norm_inference(
    cx: &Cx,
    epsilon: f32,
    feature_index: i64,
) -> Result<Val, VmapError> {
    if (1..cx.args.len()).any(|i| cx.is_b(i)) {
        return cx.lanes();
    }
    let op = Op::BatchNormInference {
        epsilon,
        feature_index: feature_index + 1,
    };
    let ops: Vec<_> = (0..cx.args.len()).map(|i| cx.v(i)).collect();
    cx.emit(op, &ops, Some(cx.out()))
}
