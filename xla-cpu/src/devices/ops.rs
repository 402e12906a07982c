//! The collectives on one device: find the device's group ([`super::groups`]), exchange
//! values with it ([`super::comm`]), and compute the result from the members' values in group
//! order ([`super::layout`]). Without a device (a single-device run) every group is this
//! device alone and nothing is locked or sent.

use super::comm::exchange;
use super::groups::{group_mode, group_of, permute_plan, Topology};
use super::layout::{concat_members, reduce_members, slice_piece};
use crate::error::{
    operand_count, operand_kind, operand_shapes, out_of_range, result_shape, CpuError, Result,
};
use crate::exec::Ctx;
use crate::kernels::combiner::Combiner;
use xla_core::attrs::CollectiveConfig;
use xla_core::ir::CompId;
use xla_core::{Literal, Shape};

const SOLO: Topology = Topology {
    replicas: 1,
    partitions: 1,
};

/// The topology and this device's id (1×1 and 0 without a device).
fn here(cx: &Ctx<'_>) -> (Topology, usize) {
    cx.device.map_or((SOLO, 0), |d| (d.topology, d.id))
}

/// The group of this device for a collective with `config`, and its position in it.
fn my_group(
    cx: &Ctx<'_>,
    config: &CollectiveConfig,
    global_ids: Option<bool>,
) -> Result<(Vec<usize>, usize)> {
    let mode = group_mode(config.channel_id.is_some(), global_ids)?;
    let (topo, me) = here(cx);
    group_of(topo, &config.replica_groups.groups, mode, me)
}

/// The operands as one value to exchange (a tuple when there are several).
fn pack(a: &[&Literal]) -> Result<Literal> {
    match a {
        [x] => Ok((*x).clone()),
        [] => Err(operand_count("collective", "at least 1 operand", 0)),
        many => Ok(Literal::tuple(many.iter().map(|l| (*l).clone()).collect())),
    }
}

/// Members' packed values → per operand, the members' values in group order.
fn unpack(values: Vec<Literal>, operands: usize) -> Result<Vec<Vec<Literal>>> {
    if operands == 1 {
        return Ok(vec![values]);
    }
    let mut out = vec![Vec::with_capacity(values.len()); operands];
    for v in values {
        let parts = v
            .tuple_elements()
            .filter(|t| t.len() == operands)
            .ok_or_else(|| {
                CpuError::DeviceMismatch(format!(
                    "expected {operands} operands from every device, got {}",
                    v.shape()
                ))
            })?;
        for (slot, p) in out.iter_mut().zip(parts) {
            slot.push(p.clone());
        }
    }
    Ok(out)
}

/// The shape of result `j` of `n`: `out` itself or its tuple element.
fn out_at(out: &Shape, j: usize, n: usize) -> Result<&Shape> {
    if n == 1 {
        return Ok(out);
    }
    out.tuple_elements()
        .and_then(|t| t.get(j))
        .ok_or_else(|| result_shape("collective", format!("a tuple of {n} results"), out))
}

fn single_or_tuple(mut v: Vec<Literal>) -> Literal {
    if v.len() == 1 {
        if let Some(x) = v.pop() {
            return x;
        }
    }
    Literal::tuple(v)
}

/// `all-reduce`: each operand reduced elementwise with `to_apply` over the group, in group
/// order (so every device gets the same bits).
///
/// # Errors
/// Bad groups, a failed exchange, or shapes that differ across devices.
pub fn all_reduce(
    cx: &Ctx<'_>,
    a: &[&Literal],
    config: &CollectiveConfig,
    to_apply: CompId,
) -> Result<Literal> {
    let (group, _) = my_group(cx, config, Some(config.use_global_device_ids))?;
    if let (Some(d), [x], Some(Combiner::Binary(op))) = (cx.device, a, cx.combiner(to_apply)) {
        if let Some(r) = d.all_reduce(&group, x, op)? {
            return Ok(r);
        }
    }
    let values = exchange(cx.device, "all-reduce", &group, pack(a)?)?;
    let results = unpack(values, a.len())?
        .into_iter()
        .map(|vs| reduce_members(cx, to_apply, vs))
        .collect::<Result<Vec<_>>>()?;
    Ok(single_or_tuple(results))
}

/// `all-gather`: each operand concatenated over the group along `dimension`.
///
/// # Errors
/// As [`all_reduce`].
pub fn all_gather(
    cx: &Ctx<'_>,
    a: &[&Literal],
    dimension: i64,
    config: &CollectiveConfig,
    out: &Shape,
) -> Result<Literal> {
    let (group, _) = my_group(cx, config, Some(config.use_global_device_ids))?;
    let values = exchange(cx.device, "all-gather", &group, pack(a)?)?;
    let n = a.len();
    let results = unpack(values, n)?
        .into_iter()
        .enumerate()
        .map(|(j, vs)| concat_members("all-gather", vs, dimension, out_at(out, j, n)?))
        .collect::<Result<Vec<_>>>()?;
    Ok(single_or_tuple(results))
}

/// `reduce-scatter`: the all-reduce of each operand, of which this device keeps piece `k`
/// along `dimension` (k = its position in the group).
///
/// # Errors
/// As [`all_reduce`].
pub fn reduce_scatter(
    cx: &Ctx<'_>,
    a: &[&Literal],
    dimension: i64,
    config: &CollectiveConfig,
    to_apply: CompId,
    out: &Shape,
) -> Result<Literal> {
    let (group, pos) = my_group(cx, config, Some(config.use_global_device_ids))?;
    let values = exchange(cx.device, "reduce-scatter", &group, pack(a)?)?;
    let n = a.len();
    let mut results = Vec::with_capacity(n);
    for (j, vs) in unpack(values, n)?.into_iter().enumerate() {
        let full = reduce_members(cx, to_apply, vs)?;
        results.push(slice_piece(cx, &full, dimension, pos, out_at(out, j, n)?)?);
    }
    Ok(single_or_tuple(results))
}

/// `all-to-all`. Array form (`dimension` set): each operand split into one piece per member
/// along `dimension`; member i's piece k goes to member k, which concatenates the pieces it
/// gets in group order. Tuple form: operand k goes to member k; result i came from member i.
///
/// # Errors
/// As [`all_reduce`], or a tuple form whose operand count is not the group size.
pub fn all_to_all(
    cx: &Ctx<'_>,
    a: &[&Literal],
    dimension: Option<i64>,
    config: &CollectiveConfig,
    out: &Shape,
) -> Result<Literal> {
    let (group, pos) = my_group(cx, config, None)?;
    let n = a.len();
    let Some(dim) = dimension else {
        if n != group.len() {
            return Err(operand_count(
                "all-to-all",
                format!(
                    "one operand per device of its group of {} (tuple form)",
                    group.len()
                ),
                n,
            ));
        }
        // Operand k goes to member k; result i is member i's operand `pos`.
        let pieces = a.iter().map(|l| (*l).clone()).collect();
        return Ok(single_or_tuple(send_pieces(cx, &group, pos, pieces)?));
    };
    // Piece k of every operand goes to member k, packed as one value.
    let mut pieces = Vec::with_capacity(group.len());
    for k in 0..group.len() {
        let parts = a
            .iter()
            .map(|v| slice_piece(cx, v, dim, k, &piece_shape(v, dim, group.len())?))
            .collect::<Result<Vec<_>>>()?;
        pieces.push(single_or_tuple(parts));
    }
    let got = send_pieces(cx, &group, pos, pieces)?;
    let mut results = Vec::with_capacity(n);
    for (j, vs) in unpack(got, n)?.into_iter().enumerate() {
        results.push(concat_members("all-to-all", vs, dim, out_at(out, j, n)?)?);
    }
    Ok(single_or_tuple(results))
}

/// Piece k to member k; the pieces this device got, in group order. Without a device the
/// group is this device alone.
fn send_pieces(
    cx: &Ctx<'_>,
    group: &[usize],
    pos: usize,
    mut pieces: Vec<Literal>,
) -> Result<Vec<Literal>> {
    match cx.device {
        Some(d) => d.all_to_all(group, pieces),
        None if pos == 0 && pieces.len() == 1 => Ok(pieces.drain(..).collect()),
        None => Err(CpuError::ReplicaGroups(format!(
            "all-to-all on a single device has a group of {} devices",
            group.len()
        ))),
    }
}

/// The shape of one of `parts` pieces of `v` along `dim`.
fn piece_shape(v: &Literal, dim: i64, parts: usize) -> Result<Shape> {
    let a = v
        .shape()
        .as_array()
        .ok_or_else(|| operand_kind("all-to-all", "an array", v.shape()))?;
    let mut dims = a.dims.clone();
    let d = usize::try_from(dim)
        .ok()
        .and_then(|d| dims.get_mut(d))
        .ok_or_else(|| out_of_range("all-to-all", "dimension", dim, a.dims.len()))?;
    if parts == 0 || *d % parts as i64 != 0 {
        return Err(operand_shapes(
            "all-to-all",
            [v.shape()],
            format!("does not split into {parts} pieces along dimension {dim}"),
        ));
    }
    *d /= parts as i64;
    Ok(Shape::array(a.ty, dims))
}

/// `collective-permute`: the operand of the device this one receives from, or zeros.
///
/// # Errors
/// An id out of range, a repeated source or target, or a failed exchange.
pub fn collective_permute(
    cx: &Ctx<'_>,
    x: &Literal,
    pairs: &[(i64, i64)],
    channel_id: Option<i64>,
    out: &Shape,
) -> Result<Literal> {
    let (topo, me) = here(cx);
    let (peers, to, from) = permute_plan(topo, pairs, channel_id.is_some(), me)?;
    let global = |k: Option<usize>| k.and_then(|k| peers.get(k).copied());
    let got = match cx.device {
        Some(d) => d.permute(&peers, x.clone(), global(to), global(from))?,
        // One device: it receives its own value when it is its own source.
        None => from.filter(|&k| k == me).map(|_| x.clone()),
    };
    match got {
        Some(v) => Ok(v),
        None => Ok(Literal::zeros(out)?),
    }
}

/// `collective-broadcast`: the operand(s) of the group's first device.
///
/// # Errors
/// As [`all_reduce`].
pub fn collective_broadcast(
    cx: &Ctx<'_>,
    a: &[&Literal],
    config: &CollectiveConfig,
) -> Result<Literal> {
    let (group, _) = my_group(cx, config, None)?;
    let values = exchange(cx.device, "collective-broadcast", &group, pack(a)?)?;
    values
        .into_iter()
        .next()
        .ok_or_else(|| CpuError::ReplicaGroups("collective-broadcast: an empty group".into()))
}

/// `all-gather-start`: `(operand(s), result)`.
///
/// # Errors
/// As [`all_gather`].
pub fn all_gather_start(
    cx: &Ctx<'_>,
    a: &[&Literal],
    dimension: i64,
    config: &CollectiveConfig,
    out: &Shape,
) -> Result<Literal> {
    let result_shape = out_at(out, 1, 2)?;
    let r = all_gather(cx, a, dimension, config, result_shape)?;
    Ok(Literal::tuple(vec![pack(a)?, r]))
}

/// `collective-permute-start`: `(operand, result, u32[], u32[])`.
///
/// # Errors
/// As [`collective_permute`].
pub fn collective_permute_start(
    cx: &Ctx<'_>,
    x: &Literal,
    pairs: &[(i64, i64)],
    channel_id: Option<i64>,
) -> Result<Literal> {
    let r = collective_permute(cx, x, pairs, channel_id, x.shape())?;
    Ok(Literal::tuple(vec![
        x.clone(),
        r,
        Literal::scalar(0u32),
        Literal::scalar(0u32),
    ]))
}

/// `all-gather-done` / `collective-permute-done`: element 1 (the result) of the start.
///
/// # Errors
/// If the operand is not a start's tuple.
pub fn async_done(start: &Literal) -> Result<Literal> {
    start
        .tuple_elements()
        .and_then(|t| t.get(1))
        .cloned()
        .ok_or_else(|| operand_kind("async -done", "the tuple of its -start", start.shape()))
}

/// `replica-id` (`partition = false`) or `partition-id`.
pub fn device_id(cx: &Ctx<'_>, partition: bool) -> Literal {
    let id = cx.device.map_or(0, |d| {
        if partition {
            d.partition()
        } else {
            d.replica()
        }
    });
    Literal::scalar(u32::try_from(id).unwrap_or(u32::MAX))
}
