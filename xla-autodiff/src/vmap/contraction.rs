//! Contractions: dot-general (a batch dimension when both sides are batched, a free
//! dimension when one is) and convolution (a batched input folded into the input batch
//! dimension, as JAX does; a batched kernel runs per lane).

use super::error::VmapError;
use super::rules::Cx;
use super::value::{fold, move_axis, shift, with_zero, Bt, Val};
use xla_core::builder::XlaOp;
use xla_core::ir::{ConvConfig, DotDims, PrecisionConfig};
use xla_core::{Op, Shape};

/// `dot`.
pub(crate) fn dot(cx: &Cx, dims: &DotDims, precision: &PrecisionConfig) -> Result<Val, VmapError> {
    let (lb, rb) = (cx.is_b(0), cx.is_b(1));
    let nb = dims.lhs_batch_dims.len();
    let lhs_free = cx.shape(0).rank() - nb - dims.lhs_contracting_dims.len();
    let mut d = dims.clone();
    if lb {
        d.lhs_batch_dims = shift(&dims.lhs_batch_dims);
        d.lhs_contracting_dims = shift(&dims.lhs_contracting_dims);
    }
    if rb {
        d.rhs_batch_dims = shift(&dims.rhs_batch_dims);
        d.rhs_contracting_dims = shift(&dims.rhs_contracting_dims);
    }
    let at = if lb && rb {
        d.lhs_batch_dims = with_zero(&dims.lhs_batch_dims);
        d.rhs_batch_dims = with_zero(&dims.rhs_batch_dims);
        0
    } else if lb {
        nb
    } else {
        nb + lhs_free
    };
    let op = Op::Dot {
        dims: d,
        precision: precision.clone(),
    };
    let mut dims = cx.ins.shape.dims().to_vec();
    dims.insert(at.min(dims.len()), cx.n());
    let raw = Shape::array(cx.ins.shape.element_type(), dims);
    let v = cx.b.add_op(op, &[cx.v(0), cx.v(1)], Some(raw));
    let rank = cx.ins.shape.rank() + 1;
    Ok(Val {
        v: move_axis(cx.b, &v, rank, at, 0),
        bt: Bt::Leaf(true),
    })
}

/// The convolution `conv` on `lhs` and `rhs` with the result's dimension `t` holding the
/// batch (batch-major), unfolded and moved to dimension 0.
fn conv_unfold(
    cx: &Cx,
    conv: ConvConfig,
    lhs: XlaOp,
    rhs: XlaOp,
    t: usize,
) -> Result<Val, VmapError> {
    let (b, n) = (cx.b, cx.n());
    let out = &cx.ins.shape;
    let mut raw = out.dims().to_vec();
    if let Some(d) = raw.get_mut(t) {
        *d *= n;
    }
    let raw = Shape::array(out.element_type(), raw);
    let r = b.add_op(Op::Convolution(conv), &[lhs, rhs], Some(raw));
    let mut split = out.dims().to_vec();
    split.insert(t.min(split.len()), n);
    let r = b.reshape(r, &split);
    Ok(Val {
        v: move_axis(b, &r, split.len(), t, 0),
        bt: Bt::Leaf(true),
    })
}

/// `convolution`, as JAX batches it: a batched input alone is folded into the input batch
/// dimension; a batched kernel alone into the kernel's output features (ungrouped
/// convolutions); both batched into the feature groups (or the batch groups when there
/// are several), a shared operand of a grouped convolution broadcast first.
pub(crate) fn convolution(cx: &Cx, conv: &ConvConfig) -> Result<Val, VmapError> {
    let (lb, rb) = (cx.is_b(0), cx.is_b(1));
    let d = &conv.dnums;
    let idx = |x: i64| usize::try_from(x).unwrap_or(0);
    let (ls, rs) = (cx.shape(0), cx.shape(1));
    let ungrouped = conv.feature_group_count == 1 && conv.batch_group_count == 1;
    match (lb, rb) {
        (true, false) if conv.batch_group_count == 1 => {
            let lhs = fold(cx.b, cx.n(), &cx.v(0), &ls, idx(d.input_batch_dimension));
            conv_unfold(
                cx,
                conv.clone(),
                lhs,
                cx.v(1),
                idx(d.output_batch_dimension),
            )
        }
        (false, true) if ungrouped => {
            let rhs = fold(
                cx.b,
                cx.n(),
                &cx.full(1),
                &rs,
                idx(d.kernel_output_feature_dimension),
            );
            conv_unfold(
                cx,
                conv.clone(),
                cx.v(0),
                rhs,
                idx(d.output_feature_dimension),
            )
        }
        _ => {
            // Both batched (a shared operand broadcast first: grouped convolutions).
            let mut c = conv.clone();
            let lhs = if conv.batch_group_count > 1 {
                c.batch_group_count *= cx.n();
                fold(cx.b, cx.n(), &cx.full(0), &ls, idx(d.input_batch_dimension))
            } else {
                c.feature_group_count *= cx.n();
                fold(
                    cx.b,
                    cx.n(),
                    &cx.full(0),
                    &ls,
                    idx(d.input_feature_dimension),
                )
            };
            let rhs = fold(
                cx.b,
                cx.n(),
                &cx.full(1),
                &rs,
                idx(d.kernel_output_feature_dimension),
            );
            conv_unfold(cx, c, lhs, rhs, idx(d.output_feature_dimension))
        }
    }
}
