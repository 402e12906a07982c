//! Linear algebra and sorting: cholesky, triangular-solve and FFT take the batch dimension
//! as one more leading batch dimension; sort and top-k sort within each lane; the
//! batch-norm ops fold the batch into the feature dimension (statistics per lane).

use super::error::VmapError;
use super::rules::Cx;
use super::value::{fold, unfold, Bt, Val};
use xla_core::builder::XlaOp;
use xla_core::Shape;
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

/// The batch-norm ops: the batch dimension is folded into the feature dimension
/// (batch-major) of every operand and result, so each lane gets its own statistics and
/// the op runs once; per-feature vectors (unbatched ones broadcast) become `[n·C]`.
pub(crate) fn batch_norm(cx: &Cx, feature_index: i64) -> Result<Val, VmapError> {
    let (b, n) = (cx.b, cx.n());
    let rank = cx.shape(0).rank();
    let f = usize::try_from(feature_index).unwrap_or(0);
    let at = |s: &Shape| if s.rank() == rank { f } else { 0 };
    let ops: Vec<XlaOp> = (0..cx.args.len())
        .map(|i| {
            let s = cx.shape(i);
            fold(b, n, &cx.full(i), &s, at(&s))
        })
        .collect();
    let folded = |s: &Shape| {
        let mut d = s.dims().to_vec();
        if let Some(x) = d.get_mut(at(s)) {
            *x *= n;
        }
        Shape::array(s.element_type(), d)
    };
    let out = &cx.ins.shape;
    let op = cx.bat.import(b, &cx.ins.op)?;
    let v = match out.tuple_elements() {
        Some(es) => {
            let declared = Shape::tuple(es.iter().map(folded).collect::<Vec<_>>());
            let r = b.add_op(op, &ops, Some(declared));
            let parts: Vec<XlaOp> = es
                .iter()
                .enumerate()
                .map(|(i, e)| unfold(b, n, &b.get_tuple_element(&r, i as i64), e, at(e)))
                .collect();
            b.tuple(parts)
        }
        None => {
            let r = b.add_op(op, &ops, Some(folded(out)));
            unfold(b, n, &r, out, at(out))
        }
    };
    Ok(Val {
        v,
        bt: Bt::uniform(out, true),
    })
}
