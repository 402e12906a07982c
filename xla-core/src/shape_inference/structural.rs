//! Shape rules: structural ops — leaves (parameter, constant, iota), tuples, broadcast,
//! reshape, transpose, reverse, slices, concatenate, pad, bitcast, copy, dimension sizes and
//! the optimisation barrier.

use super::validators::*;
use super::{BroadcastRule, ShapeError, ShapeRule, SliceRule};
use crate::attrs::PadDim;
use crate::shape::{ArrayShape, Shape};
use crate::types::PrimitiveType;

/// The shape of `parameter`: the declared shape, which must be valid.
///
/// # Errors
/// When the shape has a negative dimension.
pub fn parameter(declared: &Shape) -> Result<Shape, ShapeError> {
    expect_valid_shape("parameter", "shape", declared)?;
    Ok(declared.without_layout())
}

/// The shape of `constant`: the literal's shape, which must agree with the declared one.
///
/// # Errors
/// When the two differ.
pub fn constant(literal: &Shape, declared: Option<&Shape>) -> Result<Shape, ShapeError> {
    if let Some(d) = declared {
        if !d.compatible(literal) {
            let (literal, declared) = (literal.clone(), d.clone());
            let rule = ShapeRule::LiteralShape { literal, declared };
            return Err(ShapeError::rule("constant", rule));
        }
    }
    Ok(literal.without_layout())
}

/// The shape of `iota`: the declared array, of rank at least 1, counting along `dimension`.
///
/// # Errors
/// When the shape is not a valid array of rank >= 1 or `dimension` is out of range.
pub fn iota(shape: &Shape, dimension: i64) -> Result<Shape, ShapeError> {
    let name = "iota";
    let a = expect_valid_array(name, "shape", shape)?;
    if a.dims.is_empty() {
        return Err(min_rank(name, None, "shape", 1, a));
    }
    dim_index(name, "iota_dimension", dimension, a)?;
    Ok(plain(a))
}

/// The shape of `tuple(...)`: the tuple of the operand shapes.
pub fn tuple(elements: &[&Shape]) -> Shape {
    Shape::Tuple(elements.iter().map(|s| s.without_layout()).collect())
}

/// The shape of element `index` of a tuple.
///
/// # Errors
/// When the operand is not a tuple or `index` is out of range.
pub fn get_tuple_element(operand: &Shape, index: i64) -> Result<Shape, ShapeError> {
    let name = "get-tuple-element";
    let elements = operand.tuple_elements().ok_or_else(|| {
        let rule = ShapeRule::Form {
            what: "operand".into(),
            expected: "a tuple".into(),
            found: operand.clone(),
        };
        ShapeError::rule_at(name, 0, rule)
    })?;
    usize::try_from(index)
        .ok()
        .and_then(|i| elements.get(i))
        .map(Shape::without_layout)
        .ok_or_else(|| {
            let (tuple, len) = (operand.clone(), elements.len());
            ShapeError::rule(name, ShapeRule::TupleIndex { index, tuple, len })
        })
}

/// The shape of `broadcast(operand), dimensions=...` to `out` (the declared dims): operand
/// dim `i` maps to result dim `dimensions[i]` (unique, in range) whose size equals the
/// operand's or the operand's is 1 (XLA accepts size-1 expansion).
///
/// # Errors
/// When any of these rules is broken.
pub fn broadcast(
    operand: &Shape,
    out_dims: &[i64],
    dimensions: &[i64],
) -> Result<Shape, ShapeError> {
    let name = "broadcast";
    let a = expect_array(name, 0, "operand", operand)?;
    let out = ArrayShape {
        ty: a.ty,
        dims: out_dims.to_vec(),
        dynamic: Vec::new(),
        layout: None,
    };
    expect_nonnegative_dims(name, "result dimensions", out_dims)?;
    if dimensions.len() != a.dims.len() {
        return Err(entry_per_dimension(
            name,
            "dimensions",
            dimensions,
            "operand",
            a,
        ));
    }
    expect_dims_in_range(name, "dimensions", dimensions, out_dims.len(), &out)?;
    expect_unique_dims(name, "dimensions", dimensions, &out)?;
    let mut dynamic = vec![false; out_dims.len()];
    for (i, (&d, &size)) in dimensions.iter().zip(&a.dims).enumerate() {
        let j = dim_index(name, "dimension", d, &out)?;
        let target = dim_size(name, "dimension", d, &out)?;
        if size != target && size != 1 {
            let rule = BroadcastRule::ToResult {
                operand: a.clone(),
                dim: i,
                size,
                result: out,
                result_dim: d,
                result_size: target,
            };
            return Err(ShapeError::rule(name, ShapeRule::Broadcast(rule)));
        }
        if let Some(slot) = dynamic.get_mut(j) {
            *slot = a.is_dynamic_dim(i) && size == target;
        }
    }
    Ok(array_with_dynamic(a.ty, out_dims.to_vec(), dynamic))
}

/// The shape of `reshape` to `new_dims`: same element type and element count.
///
/// # Errors
/// When the element counts differ or a size is negative.
pub fn reshape(operand: &Shape, new_dims: &[i64]) -> Result<Shape, ShapeError> {
    let name = "reshape";
    let a = expect_array(name, 0, "operand", operand)?;
    expect_nonnegative_dims(name, "result dimensions", new_dims)?;
    let out = Shape::array(a.ty, new_dims.to_vec());
    let from = checked_product(name, a, &a.dims)?;
    let to = checked_product(name, &out, new_dims)?;
    if from != to {
        let rule = ShapeRule::ElementCounts {
            from: a.clone(),
            from_count: from,
            to: ArrayShape {
                ty: a.ty,
                dims: new_dims.to_vec(),
                dynamic: Vec::new(),
                layout: None,
            },
            to_count: to,
        };
        return Err(ShapeError::rule(name, rule));
    }
    Ok(out)
}

/// The shape of `transpose`: result dim `i` is operand dim `permutation[i]`.
///
/// # Errors
/// When `permutation` is not a permutation of the operand's dims.
pub fn transpose(operand: &Shape, permutation: &[i64]) -> Result<Shape, ShapeError> {
    let name = "transpose";
    let a = expect_array(name, 0, "operand", operand)?;
    expect_permutation(name, "permutation", permutation, a)?;
    let mut dims = Vec::with_capacity(permutation.len());
    let mut dynamic = Vec::with_capacity(permutation.len());
    for &p in permutation {
        let i = dim_index(name, "permutation entry", p, a)?;
        dims.push(dim_size(name, "permutation entry", p, a)?);
        dynamic.push(a.is_dynamic_dim(i));
    }
    Ok(array_with_dynamic(a.ty, dims, dynamic))
}

/// The shape of `reverse`: the operand's; `dimensions` unique and in range.
///
/// # Errors
/// When a dimension is out of range or repeats.
pub fn reverse(operand: &Shape, dimensions: &[i64]) -> Result<Shape, ShapeError> {
    let name = "reverse";
    let a = expect_array(name, 0, "operand", operand)?;
    expect_dims_in_range(name, "dimensions", dimensions, a.dims.len(), a)?;
    expect_unique_dims(name, "dimensions", dimensions, a)?;
    Ok(plain(a))
}

/// The shape of a strided `slice`: per dim `ceil((limit - start) / stride)`, with
/// `0 <= start <= limit <= size` and `stride >= 1`.
///
/// # Errors
/// When the lists do not have one entry per dim or a bound is broken.
pub fn slice(
    operand: &Shape,
    start: &[i64],
    limit: &[i64],
    stride: &[i64],
) -> Result<Shape, ShapeError> {
    let name = "slice";
    let a = expect_array(name, 0, "operand", operand)?;
    let rank = a.dims.len();
    if start.len() != rank || limit.len() != rank || stride.len() != rank {
        let rule = SliceRule::Lists {
            start: start.to_vec(),
            limit: limit.to_vec(),
            stride: stride.to_vec(),
            shape: a.clone(),
        };
        return Err(ShapeError::rule(name, ShapeRule::Slice(rule)));
    }
    let mut dims = Vec::with_capacity(rank);
    let mut dynamic = Vec::with_capacity(rank);
    for (i, (((&s, &l), &st), &size)) in
        start.iter().zip(limit).zip(stride).zip(&a.dims).enumerate()
    {
        if s < 0 || s > l || l > size {
            let rule = SliceRule::Bounds {
                dimension: i,
                start: s,
                limit: l,
                size,
                shape: a.clone(),
            };
            return Err(ShapeError::rule(name, ShapeRule::Slice(rule)));
        }
        if st < 1 {
            let rule = SliceRule::Stride {
                dimension: i,
                stride: st,
                shape: a.clone(),
            };
            return Err(ShapeError::rule(name, ShapeRule::Slice(rule)));
        }
        let n = (l - s).div_euclid(st) + i64::from((l - s).rem_euclid(st) != 0);
        dims.push(n);
        dynamic.push(a.is_dynamic_dim(i) && n != 1);
    }
    Ok(array_with_dynamic(a.ty, dims, dynamic))
}

/// Checks the scalar start-index operands of dynamic-slice / dynamic-update-slice: one per
/// operand dimension, all scalars of the same integer type. `first` is the operand index of
/// the first start index.
fn check_start_indices(
    name: &str,
    a: &ArrayShape,
    starts: &[&Shape],
    first: usize,
) -> Result<(), ShapeError> {
    if starts.len() != a.dims.len() {
        let (found, shape) = (starts.len(), a.clone());
        let rule = ShapeRule::Slice(SliceRule::StartCount { found, shape });
        return Err(ShapeError::rule(name, rule));
    }
    let mut ty: Option<PrimitiveType> = None;
    for (k, s) in starts.iter().enumerate() {
        let idx = expect_scalar(name, first + k, "start index", s)?;
        expect_type(
            name,
            first + k,
            "start index",
            idx,
            is_integer,
            "an integer",
        )?;
        match ty {
            Some(t) if t != idx.ty => {
                let rule = SliceRule::StartTypes {
                    first: t,
                    found: idx.ty,
                };
                return Err(ShapeError::rule_at(name, first + k, ShapeRule::Slice(rule)));
            }
            _ => ty = Some(idx.ty),
        }
    }
    Ok(())
}

/// The shape of `dynamic-slice(operand, starts...)`: `slice_sizes`, one per dim, each in
/// `[0, size]`; the starts are one integer scalar per dim, all of one type.
///
/// # Errors
/// When any of these rules is broken.
pub fn dynamic_slice(
    operand: &Shape,
    start_indices: &[&Shape],
    slice_sizes: &[i64],
) -> Result<Shape, ShapeError> {
    let name = "dynamic-slice";
    let a = expect_array(name, 0, "operand", operand)?;
    check_start_indices(name, a, start_indices, 1)?;
    if slice_sizes.len() != a.dims.len() {
        let what = "dynamic_slice_sizes";
        return Err(entry_per_dimension(name, what, slice_sizes, "", a));
    }
    for (i, (&s, &size)) in slice_sizes.iter().zip(&a.dims).enumerate() {
        if s < 0 || s > size {
            return Err(slice_size(name, (s, i, size), "", a));
        }
    }
    Ok(Shape::array(a.ty, slice_sizes.to_vec()))
}

/// The shape of `dynamic-update-slice(operand, update, starts...)`: the operand's; the update
/// has the operand's rank and type and no larger dims.
///
/// # Errors
/// When any of these rules is broken.
pub fn dynamic_update_slice(
    operand: &Shape,
    update: &Shape,
    start_indices: &[&Shape],
) -> Result<Shape, ShapeError> {
    let name = "dynamic-update-slice";
    let a = expect_array(name, 0, "operand", operand)?;
    let u = expect_array(name, 1, "update", update)?;
    expect_same_type(name, "operand", a, "update", u)?;
    expect_rank(name, 1, "update", u, a.dims.len())?;
    for (i, (&us, &size)) in u.dims.iter().zip(&a.dims).enumerate() {
        if us > size {
            let rule = SliceRule::UpdateSize {
                update: u.clone(),
                operand: a.clone(),
                dimension: i,
                update_size: us,
                size,
            };
            return Err(ShapeError::rule_at(name, 1, ShapeRule::Slice(rule)));
        }
    }
    check_start_indices(name, a, start_indices, 2)?;
    Ok(plain(a))
}

/// The shape of `concatenate` along `dimension`: operands of one rank and type whose dims
/// agree except along `dimension`, which adds up.
///
/// # Errors
/// When there is no operand or any of these rules is broken.
pub fn concatenate(operands: &[&Shape], dimension: i64) -> Result<Shape, ShapeError> {
    let name = "concatenate";
    let arrays = expect_arrays(name, 0, "operand", operands)?;
    let first = *arrays.first().ok_or_else(|| no_operand(name))?;
    let d = dim_index(name, "dimension", dimension, first)?;
    let mut dims = first.dims.clone();
    let mut total: i64 = 0;
    for (k, a) in arrays.iter().enumerate() {
        expect_same_type(name, "operand 0", first, &format!("operand {k}"), a)?;
        if a.dims.len() != first.dims.len() {
            let rule = ShapeRule::Rank {
                what: format!("operand {k} (as operand 0 {first})"),
                expected: first.dims.len(),
                found: (*a).clone(),
            };
            return Err(ShapeError::rule_at(name, k, rule));
        }
        for (i, (&x, &y)) in first.dims.iter().zip(&a.dims).enumerate() {
            if i != d && x != y {
                let rule = SliceRule::ConcatDims {
                    first: first.clone(),
                    other: (*a).clone(),
                    dimension: i,
                    concat_dimension: d,
                };
                return Err(ShapeError::rule_at(name, k, ShapeRule::Slice(rule)));
            }
        }
        total = checked_add(
            name,
            "concatenated size",
            total,
            // Every operand has operand 0's rank (checked above) and d < that rank.
            a.dims.get(d).copied().unwrap_or_else(|| {
                debug_assert!(
                    false,
                    "the concatenate dimension is in range of every operand"
                );
                0
            }),
        )?;
    }
    if let Some(slot) = dims.get_mut(d) {
        *slot = total;
    }
    Ok(Shape::array(first.ty, dims))
}

/// The shape of `pad(operand, padding_value)`: per dim `low + high + size + (size-1)*interior`
/// (edges may be negative, interior may not, the result may not be negative); the padding
/// value is a scalar of the operand's type.
///
/// # Errors
/// When any of these rules is broken.
pub fn pad(
    operand: &Shape,
    padding_value: &Shape,
    padding: &[PadDim],
) -> Result<Shape, ShapeError> {
    let name = "pad";
    let a = expect_array(name, 0, "operand", operand)?;
    let v = expect_scalar(name, 1, "padding value", padding_value)?;
    expect_same_type(name, "operand", a, "padding value", v)?;
    if padding.len() != a.dims.len() {
        let (entries, shape) = (padding.len(), a.clone());
        let rule = ShapeRule::Slice(SliceRule::PaddingCount { entries, shape });
        return Err(ShapeError::rule(name, rule));
    }
    let mut dims = Vec::with_capacity(padding.len());
    for (i, (p, &size)) in padding.iter().zip(&a.dims).enumerate() {
        if p.interior < 0 {
            let rule = SliceRule::InteriorPadding {
                dimension: i,
                interior: p.interior,
                shape: a.clone(),
            };
            return Err(ShapeError::rule(name, ShapeRule::Slice(rule)));
        }
        let what = "padded size";
        let interior = checked_mul(name, what, size.saturating_sub(1).max(0), p.interior)?;
        let n = checked_add(
            name,
            what,
            checked_add(name, what, p.low, p.high)?,
            checked_add(name, what, size, interior)?,
        )?;
        if n < 0 {
            let rule = SliceRule::PaddedSize {
                dimension: i,
                low: p.low,
                high: p.high,
                interior: p.interior,
                size: n,
                shape: a.clone(),
            };
            return Err(ShapeError::rule(name, ShapeRule::Slice(rule)));
        }
        dims.push(n);
    }
    Ok(Shape::array(a.ty, dims))
}

/// The shape of `bitcast`: the declared shape, which must hold the same number of bytes.
///
/// # Errors
/// When the byte sizes differ.
pub fn bitcast(operand: &Shape, declared: &Shape) -> Result<Shape, ShapeError> {
    let name = "bitcast";
    let a = expect_array(name, 0, "operand", operand)?;
    let d = expect_valid_array(name, "result", declared)?;
    let bytes = |x: &ArrayShape| {
        checked_product(name, x, &x.dims)
            .and_then(|n| checked_mul(name, "byte size", n, x.ty.byte_size() as i64))
    };
    if bytes(a)? != bytes(d)? {
        let (operand, result) = (a.clone(), d.clone());
        return Err(ShapeError::rule(
            name,
            ShapeRule::ByteSizes { operand, result },
        ));
    }
    Ok(plain(d))
}

/// The shape of `copy`: the operand's.
pub fn copy(operand: &Shape) -> Shape {
    operand.without_layout()
}

/// The shape of `opt-barrier`: the operand's.
pub fn optimization_barrier(operand: &Shape) -> Shape {
    operand.without_layout()
}

/// The shape of `get-dimension-size`: S32 scalar; `dimension` in range and its size fits in
/// S32.
///
/// # Errors
/// When `dimension` is out of range or the size does not fit.
pub fn get_dimension_size(operand: &Shape, dimension: i64) -> Result<Shape, ShapeError> {
    let name = "get-dimension-size";
    let a = expect_array(name, 0, "operand", operand)?;
    let d = dim_index(name, "dimension", dimension, a)?;
    if dim_size(name, "dimension", dimension, a)? > i64::from(i32::MAX) {
        let (dimension, shape) = (d, a.clone());
        return Err(ShapeError::rule(
            name,
            ShapeRule::FitsS32 { dimension, shape },
        ));
    }
    Ok(Shape::scalar(PrimitiveType::S32))
}

/// The shape of `set-dimension-size(operand, size)`: the operand's with `dimension` marked
/// dynamic; `size` is an S32 scalar.
///
/// # Errors
/// When `dimension` is out of range or `size` is not an S32 scalar.
pub fn set_dimension_size(
    operand: &Shape,
    size: &Shape,
    dimension: i64,
) -> Result<Shape, ShapeError> {
    let name = "set-dimension-size";
    let a = expect_array(name, 0, "operand", operand)?;
    let d = dim_index(name, "dimension", dimension, a)?;
    let s = expect_scalar(name, 1, "size", size)?;
    expect_type(name, 1, "size", s, |t| t == PrimitiveType::S32, "an S32")?;
    if dim_size(name, "dimension", dimension, a)? > i64::from(i32::MAX) {
        let (dimension, shape) = (d, a.clone());
        return Err(ShapeError::rule(
            name,
            ShapeRule::FitsS32 { dimension, shape },
        ));
    }
    let mut dynamic: Vec<bool> = (0..a.dims.len()).map(|i| a.is_dynamic_dim(i)).collect();
    if let Some(slot) = dynamic.get_mut(d) {
        *slot = true;
    }
    Ok(array_with_dynamic(a.ty, a.dims.clone(), dynamic))
}

/// The shape of the builder op `Broadcast(operand, broadcast_sizes)`: the new sizes in front
/// of the operand's dims (`{a0..aN} ++ {b0..bM}`), lowered to HLO `broadcast` with
/// `dimensions = {N+1, ..., N+M}`.
///
/// # Errors
/// When the operand is not an array or a size is negative.
pub fn broadcast_in_front(operand: &Shape, broadcast_sizes: &[i64]) -> Result<Shape, ShapeError> {
    let name = "broadcast";
    let a = expect_array(name, 0, "operand", operand)?;
    expect_nonnegative_dims(name, "broadcast_sizes", broadcast_sizes)?;
    let dims: Vec<i64> = broadcast_sizes.iter().chain(&a.dims).copied().collect();
    let dynamic = std::iter::repeat_n(false, broadcast_sizes.len())
        .chain((0..a.dims.len()).map(|i| a.is_dynamic_dim(i)))
        .collect();
    Ok(array_with_dynamic(a.ty, dims, dynamic))
}

/// The shape of the builder op `Collapse(operand, dimensions)` (lowered to `reshape`): the
/// consecutive, in-order `dimensions` are replaced by one dim of their product, in place.
///
/// # Errors
/// When `dimensions` is not an increasing run of consecutive dims of the operand, or the
/// product overflows.
pub fn collapse(operand: &Shape, dimensions: &[i64]) -> Result<Shape, ShapeError> {
    let name = "reshape";
    let a = expect_array(name, 0, "operand", operand)?;
    expect_dims_in_range(name, "collapse dimensions", dimensions, a.dims.len(), a)?;
    let consecutive = dimensions
        .windows(2)
        .all(|w| matches!(w, [x, y] if *y == *x + 1));
    if !consecutive {
        let rule = SliceRule::CollapseDims {
            dims: dimensions.to_vec(),
            shape: Shape::Array(a.clone()),
        };
        return Err(ShapeError::rule(name, ShapeRule::Slice(rule)));
    }
    let (Some(&first), Some(&last)) = (dimensions.first(), dimensions.last()) else {
        return Ok(plain(a));
    };
    let (lo, hi) = (first as usize, last as usize + 1);
    let product = checked_product(name, a, a.dims.get(lo..hi).unwrap_or(&[]))?;
    let mut dims: Vec<i64> = a.dims.get(..lo).unwrap_or(&[]).to_vec();
    dims.push(product);
    dims.extend_from_slice(a.dims.get(hi..).unwrap_or(&[]));
    Ok(Shape::array(a.ty, dims))
}
