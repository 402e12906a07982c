//! Shape rules: collectives and communication — all-gather, all-reduce, reduce-scatter,
//! all-to-all, collective-permute, replica/partition ids, tokens, send/recv and
//! infeed/outfeed.

use super::validators::*;
use super::window::check_reducer;
use super::{CollectiveRule, ProgramShape, ShapeError, ShapeRule};
use crate::attrs::ReplicaGroups;
use crate::shape::{ArrayShape, Shape};
use crate::types::PrimitiveType;

/// The size of every replica group, or `None` when `groups` is empty (one group of all
/// replicas, whose size the module does not record).
///
/// # Errors
/// When a group is empty or the groups differ in size.
pub fn group_size(op: &str, groups: &ReplicaGroups) -> Result<Option<i64>, ShapeError> {
    let Some(first) = groups.groups.first() else {
        return Ok(None);
    };
    if first.is_empty() || groups.groups.iter().any(|g| g.len() != first.len()) {
        return Err(ShapeError::rule(
            op,
            ShapeRule::Collective(CollectiveRule::ReplicaGroups),
        ));
    }
    Ok(Some(first.len() as i64))
}

fn arrays<'a>(op: &str, operands: &[&'a Shape]) -> Result<Vec<&'a ArrayShape>, ShapeError> {
    expect_min_operands(op, operands, 1)?;
    expect_arrays(op, 0, "operand", operands)
}

/// Scales dimension `dimension` of every operand with `f` (all-gather / reduce-scatter).
fn scale_dim(
    op: &str,
    operands: &[&Shape],
    dimension: i64,
    f: impl Fn(&ArrayShape, i64) -> Result<i64, ShapeError>,
) -> Result<Shape, ShapeError> {
    let mut out = Vec::new();
    for a in arrays(op, operands)? {
        let d = dim_index(op, "dimension", dimension, a)?;
        let mut dims = a.dims.clone();
        if let Some(slot) = dims.get_mut(d) {
            *slot = f(a, *slot)?;
        }
        out.push(Shape::array(a.ty, dims));
    }
    Ok(single_or_tuple(out))
}

/// The shape of `all-gather`: each operand with `dimension` multiplied by `shard_count` (the
/// replica group size).
///
/// # Errors
/// When an operand is not an array, `dimension` is out of range or `shard_count < 1`.
pub fn all_gather(
    operands: &[&Shape],
    dimension: i64,
    shard_count: i64,
) -> Result<Shape, ShapeError> {
    let name = "all-gather";
    if shard_count < 1 {
        let rule = CollectiveRule::Positive {
            what: "shard count",
            count: shard_count,
        };
        return Err(ShapeError::rule(name, ShapeRule::Collective(rule)));
    }
    scale_dim(name, operands, dimension, |_, size| {
        checked_mul(name, "gathered size", size, shard_count)
    })
}

/// The shape of `reduce-scatter`: each operand with `dimension` divided by `shard_count`,
/// which must divide it; `to_apply` is a scalar reducer of the operands' type.
///
/// # Errors
/// When any of these rules is broken.
pub fn reduce_scatter(
    operands: &[&Shape],
    dimension: i64,
    shard_count: i64,
    to_apply: &ProgramShape,
) -> Result<Shape, ShapeError> {
    let name = "reduce-scatter";
    check_collective_reducer(name, &arrays(name, operands)?, to_apply)?;
    if shard_count < 1 {
        let rule = CollectiveRule::Positive {
            what: "shard count",
            count: shard_count,
        };
        return Err(ShapeError::rule(name, ShapeRule::Collective(rule)));
    }
    scale_dim(name, operands, dimension, |a, size| {
        if size % shard_count != 0 {
            return Err(divisible(
                name,
                (dimension, a, size),
                ("shard count", shard_count),
            ));
        }
        Ok(size / shard_count)
    })
}

fn check_collective_reducer(
    op: &str,
    arrays: &[&ArrayShape],
    to_apply: &ProgramShape,
) -> Result<(), ShapeError> {
    match arrays.first() {
        Some(first) if arrays.iter().all(|a| a.ty == first.ty) => {
            check_reducer(op, "to_apply", to_apply, &[first.ty])
        }
        _ => Ok(()),
    }
}

/// The shape of `all-reduce`: the operand (a tuple for several); `to_apply` is a scalar
/// reducer of the operands' type.
///
/// # Errors
/// When an operand is not an array or the reducer does not fit.
pub fn all_reduce(operands: &[&Shape], to_apply: &ProgramShape) -> Result<Shape, ShapeError> {
    let name = "all-reduce";
    let arrays = arrays(name, operands)?;
    check_collective_reducer(name, &arrays, to_apply)?;
    Ok(single_or_tuple(arrays.iter().map(|a| plain(a)).collect()))
}

/// The shape of `all-to-all`: with `dimension` (the array form, one operand) the operand's,
/// whose `dimension` must be divisible by `split_count`; without (the tuple form) a tuple of
/// the operands, which share one shape.
///
/// # Errors
/// When any of these rules is broken.
pub fn all_to_all(
    operands: &[&Shape],
    dimension: Option<i64>,
    split_count: i64,
) -> Result<Shape, ShapeError> {
    let name = "all-to-all";
    let arrays = arrays(name, operands)?;
    let first = arrays.first().copied().ok_or_else(|| no_operand(name))?;
    let Some(dimension) = dimension else {
        for (i, a) in arrays.iter().enumerate() {
            if a.ty != first.ty || a.dims != first.dims {
                let rule = ShapeRule::SameShape {
                    what_a: "operand 0".into(),
                    a: Shape::Array(first.clone()),
                    what_b: format!("operand {i}"),
                    b: Shape::Array((*a).clone()),
                };
                return Err(ShapeError::rule_at(name, i, rule));
            }
        }
        return Ok(Shape::Tuple(arrays.iter().map(|a| plain(a)).collect()));
    };
    expect_operand_count(name, operands, 1)?;
    let d = dim_index(name, "split dimension", dimension, first)?;
    let size = dim_size(name, "split dimension", dimension, first)?;
    if split_count < 1 || size % split_count != 0 {
        let dimension = d as i64;
        return Err(divisible(
            name,
            (dimension, first, size),
            ("split count", split_count),
        ));
    }
    Ok(plain(first))
}

/// The shape of the builder op `AllToAll(operand, split_dimension, concat_dimension,
/// split_count)`: `split_dimension` divided and `concat_dimension` multiplied by
/// `split_count` (the spec's `f32[4,16]` split 4 ways along 1 and concatenated along 0 gives
/// `f32[16,4]`).
///
/// # Errors
/// When a dimension is out of range, `split_count < 1`, or it does not divide the split dim.
pub fn all_to_all_split(
    operand: &Shape,
    split_dimension: i64,
    concat_dimension: i64,
    split_count: i64,
) -> Result<Shape, ShapeError> {
    let name = "all-to-all";
    let a = expect_array(name, 0, "operand", operand)?;
    let s = dim_index(name, "split_dimension", split_dimension, a)?;
    let c = dim_index(name, "concat_dimension", concat_dimension, a)?;
    let size = dim_size(name, "split_dimension", split_dimension, a)?;
    if split_count < 1 || size % split_count != 0 {
        let dimension = s as i64;
        return Err(divisible(
            name,
            (dimension, a, size),
            ("split count", split_count),
        ));
    }
    let mut dims = a.dims.clone();
    if let Some(slot) = dims.get_mut(s) {
        *slot = size / split_count;
    }
    if let Some(slot) = dims.get_mut(c) {
        *slot = checked_mul(name, "concatenated size", *slot, split_count)?;
    }
    Ok(Shape::array(a.ty, dims))
}

/// The shape of `collective-permute`: the operand's. No two source-target pairs share a
/// source or a target.
///
/// # Errors
/// When the operand is not an array or a source or target repeats.
pub fn collective_permute(operand: &Shape, pairs: &[(i64, i64)]) -> Result<Shape, ShapeError> {
    let name = "collective-permute";
    let a = expect_array(name, 0, "operand", operand)?;
    let sources: Vec<i64> = pairs.iter().map(|p| p.0).collect();
    let targets: Vec<i64> = pairs.iter().map(|p| p.1).collect();
    for (what, ids) in [("source", sources), ("target", targets)] {
        if let Some((i, id)) = ids
            .iter()
            .enumerate()
            .find(|(i, id)| ids.get(..*i).is_some_and(|p| p.contains(id)))
        {
            let rule = CollectiveRule::RepeatedPair {
                what,
                replica: *id,
                pair: i,
            };
            return Err(ShapeError::rule(name, ShapeRule::Collective(rule)));
        }
    }
    Ok(plain(a))
}

/// The shape of `all-gather-start`: `(operand, result)` (each a tuple when variadic).
///
/// # Errors
/// As [`all_gather`].
pub fn all_gather_start(
    operands: &[&Shape],
    dimension: i64,
    shard_count: i64,
) -> Result<Shape, ShapeError> {
    let result = all_gather(operands, dimension, shard_count)?;
    let inputs = single_or_tuple(operands.iter().map(|s| s.without_layout()).collect());
    Ok(Shape::Tuple(vec![inputs, result]))
}

/// The shape of `collective-permute-start`: `(operand, result, u32[], u32[])`.
///
/// # Errors
/// As [`collective_permute`].
pub fn collective_permute_start(
    operand: &Shape,
    pairs: &[(i64, i64)],
) -> Result<Shape, ShapeError> {
    let r = collective_permute(operand, pairs)?;
    let u = Shape::scalar(PrimitiveType::U32);
    Ok(Shape::Tuple(vec![r.clone(), r, u.clone(), u]))
}

/// The shape of an async `-done` (`all-gather-done`, `collective-permute-done`): element
/// 1 (the result) of its `-start`'s tuple.
///
/// # Errors
/// When the operand is not such a tuple.
pub fn async_done(op: &str, start: &Shape) -> Result<Shape, ShapeError> {
    match start.tuple_elements() {
        Some([_, result, ..]) => Ok(result.without_layout()),
        _ => Err(ShapeError::rule_at(
            op,
            0,
            form("operand", "the tuple of a -start op", start),
        )),
    }
}

/// The shape of `collective-broadcast`: the operands' (a tuple when variadic).
///
/// # Errors
/// When an operand is not an array.
pub fn collective_broadcast(operands: &[&Shape]) -> Result<Shape, ShapeError> {
    let a = arrays("collective-broadcast", operands)?;
    Ok(single_or_tuple(a.into_iter().map(plain).collect()))
}

/// The shape of `replica-id`: `u32[]`.
pub fn replica_id() -> Shape {
    Shape::scalar(PrimitiveType::U32)
}

/// The shape of `partition-id`: `u32[]`.
pub fn partition_id() -> Shape {
    Shape::scalar(PrimitiveType::U32)
}

/// The shape of `after-all(tokens...)`: a token.
///
/// # Errors
/// When an operand is not a token.
pub fn after_all(operands: &[&Shape]) -> Result<Shape, ShapeError> {
    for (i, s) in operands.iter().enumerate() {
        expect_token("after-all", i, "operand", s)?;
    }
    Ok(Shape::Token)
}

/// The shape of `add-dependency(operand, token)`: the operand's.
///
/// # Errors
/// When the second operand is not a token.
pub fn add_dependency(operand: &Shape, token: &Shape) -> Result<Shape, ShapeError> {
    expect_token("add-dependency", 1, "second operand", token)?;
    Ok(operand.without_layout())
}

/// The shape of `send(data, token)`: `(data, u32[], token[])`.
///
/// # Errors
/// When the second operand is not a token.
pub fn send(data: &Shape, token: &Shape) -> Result<Shape, ShapeError> {
    expect_token("send", 1, "second operand", token)?;
    Ok(Shape::tuple(vec![
        data.without_layout(),
        Shape::scalar(PrimitiveType::U32),
        Shape::Token,
    ]))
}

/// Checks a send/recv context `(data, u32[], token[])` and returns `data`.
fn context<'a>(op: &str, ctx: &'a Shape) -> Result<&'a Shape, ShapeError> {
    match ctx.tuple_elements() {
        Some([data, id, token])
            if id.compatible(&Shape::scalar(PrimitiveType::U32)) && token.is_token() =>
        {
            Ok(data)
        }
        _ => {
            let rule = form("operand", "a (data, u32[], token[]) context", ctx);
            Err(ShapeError::rule_at(op, 0, rule))
        }
    }
}

/// The shape of `send-done(send)`: a token.
///
/// # Errors
/// When the operand is not a send context.
pub fn send_done(send: &Shape) -> Result<Shape, ShapeError> {
    context("send-done", send)?;
    Ok(Shape::Token)
}

/// The shape of `recv(token)`: the declared `(data, u32[], token[])`.
///
/// # Errors
/// When the operand is not a token or the declared shape is not such a context.
pub fn recv(token: &Shape, declared: &Shape) -> Result<Shape, ShapeError> {
    expect_token("recv", 0, "operand", token)?;
    context("recv", declared).map_err(|_| {
        ShapeError::rule("recv", form("result", "(data, u32[], token[])", declared))
    })?;
    expect_valid_shape("recv", "result", declared)?;
    Ok(declared.without_layout())
}

/// The shape of `recv-done(recv)`: `(data, token[])`.
///
/// # Errors
/// When the operand is not a recv context.
pub fn recv_done(recv: &Shape) -> Result<Shape, ShapeError> {
    let data = context("recv-done", recv)?;
    Ok(Shape::tuple(vec![data.without_layout(), Shape::Token]))
}

/// The shape of `infeed(token)`: the declared `(data, token[])`; the data is not a nested
/// tuple.
///
/// # Errors
/// When the operand is not a token or the declared shape is not `(data, token[])`.
pub fn infeed(token: &Shape, declared: &Shape) -> Result<Shape, ShapeError> {
    let name = "infeed";
    expect_token(name, 0, "operand", token)?;
    match declared.tuple_elements() {
        Some([data, t]) if t.is_token() => {
            if data
                .tuple_elements()
                .is_some_and(|e| e.iter().any(Shape::is_tuple))
            {
                let rule = CollectiveRule::NestedTuple { data: data.clone() };
                return Err(ShapeError::rule(name, ShapeRule::Collective(rule)));
            }
        }
        _ => {
            return Err(ShapeError::rule(
                name,
                form("result", "(data, token[])", declared),
            ))
        }
    }
    expect_valid_shape(name, "result", declared)?;
    Ok(declared.without_layout())
}

/// The shape of `outfeed(data, token)`: a token; the data matches `outfeed_shape` if given.
///
/// # Errors
/// When the second operand is not a token or the data does not match.
pub fn outfeed(
    data: &Shape,
    token: &Shape,
    outfeed_shape: Option<&Shape>,
) -> Result<Shape, ShapeError> {
    let name = "outfeed";
    expect_token(name, 1, "second operand", token)?;
    if let Some(s) = outfeed_shape {
        if !s.compatible(data) {
            let (data, declared) = (data.clone(), s.clone());
            let rule = CollectiveRule::Outfeed { data, declared };
            return Err(ShapeError::rule_at(name, 0, ShapeRule::Collective(rule)));
        }
    }
    Ok(Shape::Token)
}

/// `dimension` of `shape` (of size `size`) is not divisible by the `by` count `count`.
fn divisible(
    op: &str,
    (dimension, shape, size): (i64, &ArrayShape, i64),
    (by, count): (&'static str, i64),
) -> ShapeError {
    let rule = CollectiveRule::Divisible {
        dimension,
        shape: shape.clone(),
        size,
        by,
        count,
    };
    ShapeError::rule(op, ShapeRule::Collective(rule))
}

/// `what` must have the form `expected`, but is `found`.
fn form(what: &str, expected: &str, found: &Shape) -> ShapeRule {
    ShapeRule::Form {
        what: what.to_string(),
        expected: expected.to_string(),
        found: found.clone(),
    }
}
