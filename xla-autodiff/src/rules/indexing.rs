//! Indexing rules: gather → scatter-add (with the indices clamped as gather clamps them),
//! scatter-add → the cotangent for the operand and a gather for the updates.

use super::window::combiner_op;
use super::{Cts, Cx};
use crate::backward::Ct;
use crate::error::AutodiffError;
use xla_core::builder::{binary, Combiner, XlaBuilder, XlaOp};
use xla_core::ir::{BinaryOp, GatherDims, ScatterDims};
use xla_core::{CompId, Module, Op, PrimitiveType, Shape};

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

/// How a scatter combines: `add`, or replacing (the combiner returns the update).
#[derive(Clone, Copy, PartialEq, Eq)]
enum ScatterKind {
    Add,
    Replace,
}

fn scatter_kind(module: &Module, comp: CompId) -> Option<ScatterKind> {
    if combiner_op(module, comp) == Some(BinaryOp::Add) {
        return Some(ScatterKind::Add);
    }
    let c = module.get(comp)?;
    let mut root = c.root_instruction()?;
    while matches!(root.op, Op::Copy) {
        root = c.get(*root.operands.first()?)?;
    }
    matches!(root.op, Op::Parameter { number: 1 }).then_some(ScatterKind::Replace)
}

/// The gather that reads back each update's window of a scatter.
fn inverse_gather(d: &ScatterDims, operand: &Shape, updates: &Shape) -> GatherDims {
    let mut slice_sizes = Vec::with_capacity(operand.rank());
    let mut pos = 0;
    for i in 0..operand.rank() as i64 {
        if d.inserted_window_dims.contains(&i) || d.input_batching_dims.contains(&i) {
            slice_sizes.push(1);
        } else {
            let ud = d.update_window_dims.get(pos).copied().unwrap_or(0) as usize;
            slice_sizes.push(updates.dims().get(ud).copied().unwrap_or(0));
            pos += 1;
        }
    }
    GatherDims {
        offset_dims: d.update_window_dims.clone(),
        collapsed_slice_dims: d.inserted_window_dims.clone(),
        start_index_map: d.scatter_dims_to_operand_dims.clone(),
        index_vector_dim: d.index_vector_dim,
        operand_batching_dims: d.input_batching_dims.clone(),
        start_indices_batching_dims: d.scatter_indices_batching_dims.clone(),
        slice_sizes,
        indices_are_sorted: d.indices_are_sorted,
    }
}

/// Per update element: does its window fit in the operand (scatter drops those that do
/// not, where gather would clamp)?
fn in_bounds(cx: &Cx<'_>, d: &ScatterDims, gd: &GatherDims) -> XlaOp {
    let b = cx.b;
    let (os, is, us) = (cx.s(0), cx.s(1), cx.s(2));
    let ity = is.element_type();
    let maxes: Vec<i64> = d
        .scatter_dims_to_operand_dims
        .iter()
        .map(|&od| {
            let od = od as usize;
            let dim = os.dims().get(od).copied().unwrap_or(0);
            dim - gd.slice_sizes.get(od).copied().unwrap_or(0)
        })
        .collect();
    let idx = cx.x(1);
    let ivd = d.index_vector_dim;
    let implicit = ivd as usize >= is.rank();
    let hi = if implicit {
        b.constant_scalar(ity, maxes.first().copied().unwrap_or(0))
    } else {
        let v: Vec<XlaOp> = maxes
            .iter()
            .map(|&m| b.reshape(b.constant_scalar(ity, m), &[1]))
            .collect();
        b.broadcast_in_dim(b.concat_in_dim(v, 0), is.dims(), &[ivd])
    };
    let ok = b.and(b.ge(&idx, b.constant_scalar(ity, 0)), b.le(&idx, hi));
    let ok = if implicit {
        ok
    } else {
        b.reduce(ok, b.constant_r0(true), &[ivd], Combiner::And)
    };
    let scatter_dims: Vec<i64> = (0..us.rank() as i64)
        .filter(|d2| !d.update_window_dims.contains(d2))
        .collect();
    b.broadcast_in_dim(ok, us.dims(), &scatter_dims)
}

/// `scatter` with an add or a replacing combiner. Add: the operand gets the cotangent,
/// each update the cotangent gathered at its window (zero when the window was dropped).
/// Replace (JAX's id scheme): scatter update ids; an operand element gets the cotangent
/// when no update overwrote it, an update when its id is the one that landed.
pub(super) fn scatter(
    cx: &Cx<'_>,
    d: &ScatterDims,
    to_apply: CompId,
    g: &XlaOp,
) -> Result<Cts, AutodiffError> {
    if cx.args.len() != 3 {
        return Err(cx.nd("variadic scatter has no gradient rule"));
    }
    let Some(kind) = scatter_kind(cx.module, to_apply) else {
        return Err(cx.nd("only scatter with an add or a replacing combiner is differentiated"));
    };
    let b = cx.b;
    let (os, us) = (cx.s(0), cx.s(2));
    let gd = inverse_gather(d, &os, &us);
    let idx = cx.x(1);
    let gathered = b.gather(g, &idx, &gd);
    let zeros_u = b.zeros_like(&gathered);
    if kind == ScatterKind::Add {
        let du = cx
            .wants(2)
            .then(|| Ct::Array(b.select(in_bounds(cx, d, &gd), &gathered, &zeros_u)));
        return Ok(vec![Ct::some(g.clone()), None, du]);
    }
    let mut ids_shape = us.dims().to_vec();
    for &w in &d.update_window_dims {
        if let Some(x) = ids_shape.get_mut(w as usize) {
            *x = 1;
        }
    }
    let num: i64 = ids_shape.iter().product();
    let s32 = PrimitiveType::S32;
    let ids = b.reshape(b.iota(Shape::array(s32, [num]), 0) + 1i32, &ids_shape);
    let all: Vec<i64> = (0..us.rank() as i64).collect();
    let ids = b.broadcast_in_dim(ids, us.dims(), &all);
    let replace = binary(|_sb: &XlaBuilder, _old: XlaOp, new: XlaOp| new);
    let landed = b.scatter(
        b.zeros(&Shape::array(s32, os.dims().to_vec())),
        &idx,
        &ids,
        d,
        replace,
    );
    let back = b.gather(&landed, &idx, &gd);
    let d_op = b.select(b.eq(&landed, b.constant_r0(0i32)), g, b.zeros_like(g));
    let du = cx
        .wants(2)
        .then(|| Ct::Array(b.select(b.eq(&ids, back), &gathered, &zeros_u)));
    Ok(vec![Ct::some(d_op), None, du])
}
