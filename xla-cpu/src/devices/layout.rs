//! How the members' values of a group combine: elementwise reduction in group order,
//! concatenation in group order, and the piece of one member along a dimension. Pure
//! functions of the values (the reduction runs the op's computation through the context).

use super::xla_fold;
use crate::error::{operand_kind, out_of_range, result_shape, CpuError, Result};
use crate::exec::Ctx;
use crate::index::{data, make, scalar_at, set_scalar};
use crate::kernels::combiner::Combiner;
use crate::kernels::structural as st;
use xla_core::ir::CompId;
use xla_core::{Literal, Shape};

/// Checks every value has the shape of the first (devices run the same program, so a
/// difference means a broken transport or mismatched arguments).
fn same_shapes(vs: &[Literal]) -> Result<&Literal> {
    let first = vs
        .first()
        .ok_or_else(|| CpuError::ReplicaGroups("a collective over an empty group".into()))?;
    if let Some((k, v)) = vs
        .iter()
        .enumerate()
        .find(|(_, v)| !v.shape().compatible(first.shape()))
    {
        return Err(CpuError::DeviceMismatch(format!(
            "group member 0 sent {} but member {k} sent {}",
            first.shape(),
            v.shape()
        )));
    }
    Ok(first)
}

/// The elementwise reduction of `vs` with `to_apply` in group order: float add, multiply,
/// maximum and minimum as XLA:CPU computes them ([`super::xla_fold`]), anything else folded
/// left: `f(f(f(v0, v1), v2), ...)`.
///
/// # Errors
/// Shapes differ across members, or the computation fails.
pub fn reduce_members(cx: &Ctx<'_>, to_apply: CompId, mut vs: Vec<Literal>) -> Result<Literal> {
    if vs.len() == 1 {
        // A group of one (every single-device run): the value itself, not a copy.
        if let Some(v) = vs.pop() {
            return Ok(v);
        }
    }
    let first = same_shapes(&vs)?;
    let shape = first.shape().without_layout();
    let arr = shape
        .as_array()
        .ok_or_else(|| operand_kind("all-reduce", "an array", &shape))?;
    let n = data(first)?.len();
    if vs.len() == 1 || n == 0 {
        return Ok(first.clone());
    }
    if let Some(Combiner::Binary(op)) = cx.combiner(to_apply) {
        let members = vs.iter().map(data).collect::<Result<Vec<_>>>()?;
        if let Some(out) = xla_fold::fold(op, &members) {
            return make(&shape, out);
        }
    }
    let flat_shape = Shape::array(arr.ty, vec![n as i64]);
    if cx.vectorizable(to_apply) {
        let flat = |l: &Literal| make(&flat_shape, data(l)?.clone());
        let mut acc = flat(first)?;
        for v in vs.iter().skip(1) {
            acc = cx.call_vec(to_apply, vec![acc, flat(v)?], n)?;
        }
        return make(&shape, data(&acc)?.clone());
    }
    let mut out = data(first)?.clone();
    for i in 0..n {
        let mut acc = scalar_at(data(first)?, i)?;
        for v in vs.iter().skip(1) {
            acc = cx.call(to_apply, vec![acc, scalar_at(data(v)?, i)?])?;
        }
        set_scalar(&mut out, i, &acc)?;
    }
    make(&shape, out)
}

/// The members' values concatenated along `dim` in group order (`op` names the collective
/// in errors).
///
/// # Errors
/// Shapes differ across members, or do not fit `out` (e.g. a module written for more
/// devices than the run has: its group is smaller than the result's dimension implies).
pub fn concat_members(
    op: &'static str,
    mut vs: Vec<Literal>,
    dim: i64,
    out: &Shape,
) -> Result<Literal> {
    if vs.len() == 1 && vs.first().is_some_and(|v| v.shape().compatible(out)) {
        if let Some(v) = vs.pop() {
            return Ok(v);
        }
    }
    let first = same_shapes(&vs)?;
    let size_at = |s: &Shape| {
        usize::try_from(dim)
            .ok()
            .and_then(|d| s.dims().get(d).copied())
    };
    let member = size_at(first.shape())
        .ok_or_else(|| out_of_range(op, "dimension", dim, first.shape().rank()))?;
    let total = member.checked_mul(vs.len() as i64);
    if total.is_none() || total != size_at(out) {
        let expected = format!(
            "its group's {} value(s) of {} joined along dimension {dim} (size {} there)",
            vs.len(),
            first.shape(),
            total.map_or_else(|| "too large".to_string(), |t| t.to_string()),
        );
        return Err(result_shape(op, expected, out));
    }
    let refs: Vec<&Literal> = vs.iter().collect();
    st::concatenate(&refs, dim, &out.without_layout())
}

/// Piece `k` of `x` along `dim`, the piece having the shape `piece`.
///
/// # Errors
/// If the piece does not fit in `x`.
pub fn slice_piece(
    cx: &Ctx<'_>,
    x: &Literal,
    dim: i64,
    k: usize,
    piece: &Shape,
) -> Result<Literal> {
    let dims = x
        .shape()
        .as_array()
        .map(|a| a.dims.clone())
        .ok_or_else(|| operand_kind("collective slice", "an array", x.shape()))?;
    let size = piece
        .as_array()
        .and_then(|a| usize::try_from(dim).ok().and_then(|d| a.dims.get(d)))
        .copied()
        .ok_or_else(|| out_of_range("collective slice", "dimension", dim, dims.len()))?;
    let mut start = vec![0; dims.len()];
    let mut limit = dims.clone();
    if let (Some(s), Some(l)) = (
        usize::try_from(dim).ok().and_then(|d| start.get_mut(d)),
        usize::try_from(dim).ok().and_then(|d| limit.get_mut(d)),
    ) {
        *s = size * k as i64;
        *l = *s + size;
    }
    let stride = vec![1; dims.len()];
    st::slice(
        x,
        &start,
        &limit,
        &stride,
        &piece.without_layout(),
        cx.exe.parallel(),
    )
}
