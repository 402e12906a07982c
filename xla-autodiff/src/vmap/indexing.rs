//! Indexing ops: dynamic-slice and dynamic-update-slice (batched starts become a gather or
//! a scatter with batching dimensions), gather and scatter (batching dimensions for
//! batched operands and indices, offset / window dimensions for a batched operand alone).

use super::error::VmapError;
use super::rules::Cx;
use super::value::{shift, with_zero, Bt, Val};
use xla_core::builder::XlaOp;
use xla_core::ir::{GatherDims, ScatterDims};
use xla_core::{CompId, Op, Shape};

/// The start indices `cx.args[first..]` as one `[n, k]` array (batched or broadcast),
/// each clamped to `[0, dim - size]` when `clamp_to` gives the operand dims and sizes.
fn stacked_starts(cx: &Cx, first: usize, clamp_to: Option<(&[i64], &[i64])>) -> XlaOp {
    let b = cx.b;
    let n = cx.n();
    let ty = cx.shape(first).element_type();
    let cols: Vec<XlaOp> = (first..cx.args.len())
        .enumerate()
        .map(|(k, i)| {
            let mut x = cx.b.convert_element_type(cx.full(i), ty);
            if let Some((dims, sizes)) = clamp_to {
                let hi = dims.get(k).copied().unwrap_or(0) - sizes.get(k).copied().unwrap_or(0);
                let lo = b.constant_scalar(ty, 0);
                let hi = b.constant_scalar(ty, hi.max(0));
                x = b.clamp(lo, x, hi);
            }
            b.reshape(x, &[n, 1])
        })
        .collect();
    b.concat_in_dim(cols, 1)
}

/// `dynamic-slice`.
pub(crate) fn dynamic_slice(cx: &Cx, slice_sizes: &[i64]) -> Result<Val, VmapError> {
    let k = slice_sizes.len() as i64;
    if !(1..cx.args.len()).any(|i| cx.is_b(i)) {
        let ty = cx.shape(1).element_type();
        let ty = if cx.args.len() > 1 {
            ty
        } else {
            xla_core::PrimitiveType::S32
        };
        let mut ops = vec![cx.v(0), cx.b.constant_scalar(ty, 0)];
        ops.extend((1..cx.args.len()).map(|i| cx.v(i)));
        let op = Op::DynamicSlice {
            slice_sizes: front(cx.n(), slice_sizes),
        };
        return cx.emit(op, &ops, Some(cx.out()));
    }
    let dims = GatherDims {
        offset_dims: (1..=k).collect(),
        collapsed_slice_dims: Vec::new(),
        start_index_map: (1..=k).collect(),
        index_vector_dim: 1,
        operand_batching_dims: vec![0],
        start_indices_batching_dims: vec![0],
        slice_sizes: front(1, slice_sizes),
        indices_are_sorted: false,
    };
    let idx = stacked_starts(cx, 1, None);
    cx.emit(Op::Gather(dims), &[cx.full(0), idx], Some(cx.out()))
}

/// `dynamic-update-slice`.
pub(crate) fn dynamic_update_slice(cx: &Cx) -> Result<Val, VmapError> {
    let (operand, update) = (cx.full(0), cx.full(1));
    if !(2..cx.args.len()).any(|i| cx.is_b(i)) {
        let ty = if cx.args.len() > 2 {
            cx.shape(2).element_type()
        } else {
            xla_core::PrimitiveType::S32
        };
        let mut ops = vec![operand, update, cx.b.constant_scalar(ty, 0)];
        ops.extend((2..cx.args.len()).map(|i| cx.v(i)));
        return cx.same(&ops, cx.out());
    }
    let (os, us) = (cx.shape(0), cx.shape(1));
    let k = os.rank() as i64;
    let idx = stacked_starts(cx, 2, Some((os.dims(), us.dims())));
    let dims = ScatterDims {
        update_window_dims: (1..=k).collect(),
        inserted_window_dims: Vec::new(),
        scatter_dims_to_operand_dims: (1..=k).collect(),
        index_vector_dim: 1,
        input_batching_dims: vec![0],
        scatter_indices_batching_dims: vec![0],
        indices_are_sorted: false,
        unique_indices: true,
    };
    let s = Shape::scalar(os.element_type());
    let sb = cx.b.sub_builder("replace");
    let _old = sb.parameter(0, s.clone(), "old");
    let new = sb.parameter(1, s, "new");
    let to_apply = sb.build_sub(&new)?.id();
    let op = Op::Scatter { dims, to_apply };
    let v = cx.b.add_op(op, &[operand, idx, update], Some(cx.out()));
    Ok(Val {
        v,
        bt: Bt::Leaf(true),
    })
}

/// `gather`.
pub(crate) fn gather(cx: &Cx, g: &GatherDims) -> Result<Val, VmapError> {
    let (ob, ib) = (cx.is_b(0), cx.is_b(1));
    let mut d = g.clone();
    d.collapsed_slice_dims = shift(&g.collapsed_slice_dims);
    d.start_index_map = shift(&g.start_index_map);
    d.operand_batching_dims = shift(&g.operand_batching_dims);
    d.offset_dims = shift(&g.offset_dims);
    if ib {
        d.index_vector_dim = g.index_vector_dim + 1;
        d.start_indices_batching_dims = shift(&g.start_indices_batching_dims);
    }
    match (ob, ib) {
        (true, true) => {
            d.operand_batching_dims = with_zero(&g.operand_batching_dims);
            d.start_indices_batching_dims = with_zero(&g.start_indices_batching_dims);
            d.slice_sizes = front(1, &g.slice_sizes);
        }
        (true, false) => {
            d.offset_dims = with_zero(&g.offset_dims);
            d.slice_sizes = front(cx.n(), &g.slice_sizes);
        }
        (false, _) => {
            d.collapsed_slice_dims = g.collapsed_slice_dims.clone();
            d.start_index_map = g.start_index_map.clone();
            d.operand_batching_dims = g.operand_batching_dims.clone();
        }
    }
    cx.emit(Op::Gather(d), &[cx.v(0), cx.v(1)], Some(cx.out()))
}

/// `scatter` (one or several operands): every operand and update batched; batched
/// indices become batching dimensions, unbatched ones leave the batch dimension a window
/// dimension.
pub(crate) fn scatter(cx: &Cx, s: &ScatterDims, to_apply: CompId) -> Result<Val, VmapError> {
    let k = (cx.args.len().saturating_sub(1)) / 2;
    let ib = cx.is_b(k);
    let mut d = s.clone();
    d.inserted_window_dims = shift(&s.inserted_window_dims);
    d.scatter_dims_to_operand_dims = shift(&s.scatter_dims_to_operand_dims);
    if ib {
        d.update_window_dims = shift(&s.update_window_dims);
        d.index_vector_dim = s.index_vector_dim + 1;
        d.input_batching_dims = with_zero(&s.input_batching_dims);
        d.scatter_indices_batching_dims = with_zero(&s.scatter_indices_batching_dims);
    } else {
        d.update_window_dims = with_zero(&s.update_window_dims);
        d.input_batching_dims = shift(&s.input_batching_dims);
    }
    let ops: Vec<XlaOp> = (0..cx.args.len())
        .map(|i| if i == k { cx.v(i) } else { cx.full(i) })
        .collect();
    let op = Op::Scatter { dims: d, to_apply };
    cx.emit(op, &ops, Some(cx.out_all()))
}

fn front(x: i64, v: &[i64]) -> Vec<i64> {
    std::iter::once(x).chain(v.iter().copied()).collect()
}
