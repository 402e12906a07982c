//! Shape rules: structural ops — leaves (parameter, constant, iota), tuples, broadcast,
//! reshape, transpose, reverse, slices, concatenate, pad, bitcast, copy, dimension sizes and
//! the optimisation barrier.

use super::validators::*;
use super::ShapeError;
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
            return Err(ShapeError::new(
                "constant",
                format!("literal of shape {literal} does not match the declared shape {d}"),
            ));
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
        return Err(ShapeError::new(
            name,
            format!("shape must have rank at least 1, got {a}"),
        ));
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
        ShapeError::at_operand(name, 0, format!("operand must be a tuple, got {operand}"))
    })?;
    usize::try_from(index)
        .ok()
        .and_then(|i| elements.get(i))
        .map(Shape::without_layout)
        .ok_or_else(|| {
            ShapeError::new(
                name,
                format!(
                    "index {index} is out of range for {operand} ({} elements)",
                    elements.len()
                ),
            )
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
        return Err(ShapeError::new(
            name,
            format!(
                "dimensions {} must have one entry per dimension of operand {a}",
                fmt_dims(dimensions)
            ),
        ));
    }
    expect_dims_in_range(name, "dimensions", dimensions, out_dims.len(), &out)?;
    expect_unique_dims(name, "dimensions", dimensions, &out)?;
    let mut dynamic = vec![false; out_dims.len()];
    for (i, (&d, &size)) in dimensions.iter().zip(&a.dims).enumerate() {
        let j = dim_index(name, "dimension", d, &out)?;
        let target = dim_size(name, "dimension", d, &out)?;
        if size != target && size != 1 {
            return Err(ShapeError::new(name, format!("operand {a} dim {i} (size {size}) cannot broadcast to result {out} dim {d} (size {target})")));
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
        return Err(ShapeError::new(
            name,
            format!("cannot reshape {a} ({from} elements) to {out} ({to} elements)"),
        ));
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
        return Err(ShapeError::new(
            name,
            format!(
                "start {}, limit {} and stride {} must each have one entry per dimension of {a}",
                fmt_dims(start),
                fmt_dims(limit),
                fmt_dims(stride)
            ),
        ));
    }
    let mut dims = Vec::with_capacity(rank);
    let mut dynamic = Vec::with_capacity(rank);
    for (i, (((&s, &l), &st), &size)) in
        start.iter().zip(limit).zip(stride).zip(&a.dims).enumerate()
    {
        if s < 0 || s > l || l > size {
            return Err(ShapeError::new(
                name,
                format!(
                    "dimension {i} of {a}: need 0 <= start ({s}) <= limit ({l}) <= size ({size})"
                ),
            ));
        }
        if st < 1 {
            return Err(ShapeError::new(
                name,
                format!("dimension {i} of {a}: stride must be at least 1, got {st}"),
            ));
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
        return Err(ShapeError::new(
            name,
            format!(
                "expects one start index per dimension of {a} ({}), got {}",
                a.dims.len(),
                starts.len()
            ),
        ));
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
                return Err(ShapeError::at_operand(
                    name,
                    first + k,
                    format!(
                        "start indices must all have the same type, got {t} and {}",
                        idx.ty
                    ),
                ));
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
        return Err(ShapeError::new(
            name,
            format!(
                "dynamic_slice_sizes {} must have one entry per dimension of {a}",
                fmt_dims(slice_sizes)
            ),
        ));
    }
    for (i, (&s, &size)) in slice_sizes.iter().zip(&a.dims).enumerate() {
        if s < 0 || s > size {
            return Err(ShapeError::new(
                name,
                format!("slice size {s} of dimension {i} must be in [0, {size}] for {a}"),
            ));
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
            return Err(ShapeError::at_operand(
                name,
                1,
                format!("update {u} dim {i} ({us}) exceeds operand {a} dim {i} ({size})"),
            ));
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
    let first = *arrays
        .first()
        .ok_or_else(|| ShapeError::new(name, "expects at least 1 operand, got 0"))?;
    let d = dim_index(name, "dimension", dimension, first)?;
    let mut dims = first.dims.clone();
    let mut total: i64 = 0;
    for (k, a) in arrays.iter().enumerate() {
        expect_same_type(name, "operand 0", first, &format!("operand {k}"), a)?;
        if a.dims.len() != first.dims.len() {
            return Err(ShapeError::at_operand(
                name,
                k,
                format!("operands must have the same rank, got {first} and {a}"),
            ));
        }
        for (i, (&x, &y)) in first.dims.iter().zip(&a.dims).enumerate() {
            if i != d && x != y {
                return Err(ShapeError::at_operand(name, k, format!("operands {first} and {a} differ in dimension {i}, which is not the concatenate dimension {d}")));
            }
        }
        total = checked_add(
            name,
            "concatenated size",
            total,
            a.dims.get(d).copied().unwrap_or(0),
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
        return Err(ShapeError::new(
            name,
            format!(
                "padding has {} entries but operand {a} has rank {}",
                padding.len(),
                a.dims.len()
            ),
        ));
    }
    let mut dims = Vec::with_capacity(padding.len());
    for (i, (p, &size)) in padding.iter().zip(&a.dims).enumerate() {
        if p.interior < 0 {
            return Err(ShapeError::new(
                name,
                format!(
                    "interior padding of dimension {i} of {a} must be non-negative, got {}",
                    p.interior
                ),
            ));
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
            return Err(ShapeError::new(
                name,
                format!(
                    "padding {}_{}_{} makes dimension {i} of {a} negative ({n})",
                    p.low, p.high, p.interior
                ),
            ));
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
        return Err(ShapeError::new(
            name,
            format!("operand {a} and result {d} must have the same byte size"),
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
        return Err(ShapeError::new(
            name,
            format!("dimension {d} of {a} does not fit in s32"),
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
        return Err(ShapeError::new(
            name,
            format!("dimension {d} of {a} does not fit in s32"),
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
        return Err(ShapeError::new(
            name,
            format!(
                "collapse dimensions {} must be consecutive and in order",
                fmt_dims(dimensions)
            ),
        ));
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
