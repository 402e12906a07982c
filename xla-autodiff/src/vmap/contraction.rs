//! Contractions: dot-general (a batch dimension when both sides are batched, a free
//! dimension when one is) and convolution (a batched input folded into the input batch
//! dimension, as JAX does; a batched kernel runs per lane).

use super::error::VmapError;
use super::rules::Cx;
use super::value::{move_axis, shift, with_zero, Bt, Val};
use xla_core::ir::{ConvConfig, DotDims, PrecisionConfig};
use xla_core::Op;

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
    let v = cx.b.add_op(op, &[cx.v(0), cx.v(1)], None);
    let rank = cx.ins.shape.rank() + 1;
    Ok(Val {
        v: move_axis(cx.b, &v, rank, at, 0),
        bt: Bt::Leaf(true),
    })
}

/// `convolution`: a batched input (unbatched kernel) is folded into the input batch
/// dimension and unfolded from the output batch dimension.
pub(crate) fn convolution(cx: &Cx, conv: &ConvConfig) -> Result<Val, VmapError> {
    if cx.is_b(1) || conv.batch_group_count != 1 {
        return cx.lanes();
    }
    let b = cx.b;
    let n = cx.n();
    let ls = cx.shape(0);
    let ib = conv.dnums.input_batch_dimension as usize;
    let ob = conv.dnums.output_batch_dimension as usize;
    let moved = move_axis(b, &cx.v(0), ls.rank() + 1, 0, ib);
    let mut folded: Vec<i64> = ls.dims().to_vec();
    if let Some(d) = folded.get_mut(ib) {
        *d *= n;
    }
    let lhs = b.reshape(moved, &folded);
    let out = b.add_op(Op::Convolution(conv.clone()), &[lhs, cx.v(1)], None);
    let mut split: Vec<i64> = cx.ins.shape.dims().to_vec();
    split.insert(ob.min(split.len()), n);
    let out = b.reshape(out, &split);
    Ok(Val {
        v: move_axis(b, &out, split.len(), ob, 0),
        bt: Bt::Leaf(true),
    })
}
