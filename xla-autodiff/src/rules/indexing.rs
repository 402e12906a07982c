//! Indexing rules: gather → scatter-add (with the indices clamped as gather clamps them).
//! Scatter's rules are in `scatter.rs`.

use super::{Cts, Cx};
use crate::backward::Ct;
use crate::error::AutodiffError;
use xla_core::builder::{Combiner, XlaOp};
use xla_core::ir::{GatherDims, ScatterDims};

/// Start indices clamped so each slice fits, as gather does (scatter would drop them).
fn clamp_indices(cx: &Cx<'_>, d: &GatherDims) -> XlaOp {
    let b = cx.b;
    let (os, is) = (cx.s(0), cx.s(1));
    let ity = is.element_type();
    let maxes: Vec<i64> = d
        .start_index_map
        .iter()
        .map(|&od| {
            let od = od as usize;
            let dim = os.dims().get(od).copied().unwrap_or(0);
            let size = d.slice_sizes.get(od).copied().unwrap_or(0);
            (dim - size).max(0)
        })
        .collect();
    let idx = cx.x(1);
    let ivd = d.index_vector_dim as usize;
    let hi = if ivd >= is.rank() {
        b.broadcast(
            b.constant_scalar(ity, maxes.first().copied().unwrap_or(0)),
            is.dims(),
        )
    } else {
        let v: Vec<XlaOp> = maxes
            .iter()
            .map(|&m| b.reshape(b.constant_scalar(ity, m), &[1]))
            .collect();
        b.broadcast_in_dim(b.concat_in_dim(v, 0), is.dims(), &[d.index_vector_dim])
    };
    b.clamp(b.constant_scalar(ity, 0), idx, hi)
}

/// `gather`: scatter-add the cotangent into zeros at the (clamped) same indices.
pub(super) fn gather(cx: &Cx<'_>, d: &GatherDims, g: &XlaOp) -> Result<Cts, AutodiffError> {
    if !cx.wants(0) {
        return Ok(vec![None, None]);
    }
    let b = cx.b;
    let dims = ScatterDims {
        update_window_dims: d.offset_dims.clone(),
        inserted_window_dims: d.collapsed_slice_dims.clone(),
        scatter_dims_to_operand_dims: d.start_index_map.clone(),
        index_vector_dim: d.index_vector_dim,
        input_batching_dims: d.operand_batching_dims.clone(),
        scatter_indices_batching_dims: d.start_indices_batching_dims.clone(),
        indices_are_sorted: d.indices_are_sorted,
        unique_indices: false,
    };
    let idx = clamp_indices(cx, d);
    let zeros = b.zeros(&cx.s(0));
    Ok(vec![
        Ct::some(b.scatter(zeros, idx, g, &dims, Combiner::Add)),
        None,
    ])
}
