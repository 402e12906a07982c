//! Shared validators used by the shape rules: each checks one property and returns a
//! [`ShapeError`] that names the op, the operand and the rule, so every rule reads as a short
//! validate-then-build.

use super::{CalleeRule, ProgramShape, ShapeError, ShapeRule};
use crate::shape::{ArrayShape, Shape};
use crate::types::PrimitiveType;

/// Formats a list of dimension numbers or sizes as XLA prints them: `{0,2,1}`.
pub fn fmt_dims(dims: &[i64]) -> String {
    let inner: Vec<String> = dims.iter().map(i64::to_string).collect();
    format!("{{{}}}", inner.join(","))
}

/// Formats a list of shapes as `f32[2], s32[]`.
pub fn fmt_shapes(shapes: &[&Shape]) -> String {
    let inner: Vec<String> = shapes.iter().map(|s| s.to_string()).collect();
    inner.join(", ")
}

/// Checks that `op` received exactly `expected` operands.
///
/// # Errors
/// `add: expects 2 operands, got 3`.
pub fn expect_operand_count(
    op: &str,
    operands: &[&Shape],
    expected: usize,
) -> Result<(), ShapeError> {
    if operands.len() == expected {
        return Ok(());
    }
    Err(ShapeError::rule(
        op,
        ShapeRule::OperandCount {
            expected,
            at_least: false,
            found: operands.len(),
        },
    ))
}

/// Checks that `op` received at least `min` operands.
///
/// # Errors
/// When fewer operands were given.
pub fn expect_min_operands(op: &str, operands: &[&Shape], min: usize) -> Result<(), ShapeError> {
    if operands.len() >= min {
        return Ok(());
    }
    Err(ShapeError::rule(
        op,
        ShapeRule::OperandCount {
            expected: min,
            at_least: true,
            found: operands.len(),
        },
    ))
}

/// Returns the array part of operand `index` (described as `what`), or an error when it is a
/// tuple or token.
///
/// # Errors
/// When the shape is not an array.
pub fn expect_array<'a>(
    op: &str,
    index: usize,
    what: &str,
    shape: &'a Shape,
) -> Result<&'a ArrayShape, ShapeError> {
    shape.as_array().ok_or_else(|| {
        let (what, found) = (what.to_string(), shape.clone());
        ShapeError::rule_at(op, index, ShapeRule::NotArray { what, found })
    })
}

/// The array parts of `operands`; operand `i` is reported as operand `first + i`.
///
/// # Errors
/// When one of them is not an array.
pub fn expect_arrays<'a>(
    op: &str,
    first: usize,
    what: &str,
    operands: &[&'a Shape],
) -> Result<Vec<&'a ArrayShape>, ShapeError> {
    operands
        .iter()
        .enumerate()
        .map(|(i, s)| expect_array(op, first + i, what, s))
        .collect()
}

/// At least one array operand, all with the dims of the first; returns them and the first.
///
/// # Errors
/// When there is no operand, one is not an array, or the dims differ.
pub fn expect_arrays_same_dims<'a>(
    op: &str,
    operands: &[&'a Shape],
) -> Result<(Vec<&'a ArrayShape>, &'a ArrayShape), ShapeError> {
    let arrays = expect_arrays(op, 0, "operand", operands)?;
    let first = *arrays.first().ok_or_else(|| no_operand(op))?;
    for (k, a) in arrays.iter().enumerate() {
        expect_same_dims(op, "operand 0", first, &format!("operand {k}"), a)?;
    }
    Ok((arrays, first))
}

/// Returns the array part of operand `index`, which must be a scalar (rank 0).
///
/// # Errors
/// When the shape is not a rank-0 array.
pub fn expect_scalar<'a>(
    op: &str,
    index: usize,
    what: &str,
    shape: &'a Shape,
) -> Result<&'a ArrayShape, ShapeError> {
    match shape.as_array() {
        Some(a) if a.dims.is_empty() => Ok(a),
        _ => Err(ShapeError::rule_at(
            op,
            index,
            ShapeRule::NotScalar {
                what: what.to_string(),
                found: shape.clone(),
            },
        )),
    }
}

/// Checks that operand `index` is a token.
///
/// # Errors
/// When the shape is not `token[]`.
pub fn expect_token(op: &str, index: usize, what: &str, shape: &Shape) -> Result<(), ShapeError> {
    if shape.is_token() {
        return Ok(());
    }
    Err(ShapeError::rule_at(
        op,
        index,
        ShapeRule::NotToken {
            what: what.to_string(),
            found: shape.clone(),
        },
    ))
}

/// Checks that array operand `index` has rank `rank`.
///
/// # Errors
/// When the rank differs.
pub fn expect_rank(
    op: &str,
    index: usize,
    what: &str,
    array: &ArrayShape,
    rank: usize,
) -> Result<(), ShapeError> {
    if array.dims.len() == rank {
        return Ok(());
    }
    Err(ShapeError::rule_at(
        op,
        index,
        ShapeRule::Rank {
            what: what.to_string(),
            expected: rank,
            found: array.clone(),
        },
    ))
}

/// Checks that `a` and `b` have the same element type.
///
/// # Errors
/// `select: on_true f32[2] and on_false s32[2] must have the same element type`.
pub fn expect_same_type(
    op: &str,
    what_a: &str,
    a: &ArrayShape,
    what_b: &str,
    b: &ArrayShape,
) -> Result<(), ShapeError> {
    if a.ty == b.ty {
        return Ok(());
    }
    Err(ShapeError::rule(
        op,
        ShapeRule::SameElementType {
            what_a: what_a.to_string(),
            a: a.clone(),
            what_b: what_b.to_string(),
            b: b.clone(),
        },
    ))
}

/// Checks that `a` and `b` have the same dimensions.
///
/// # Errors
/// When the dimensions differ.
pub fn expect_same_dims(
    op: &str,
    what_a: &str,
    a: &ArrayShape,
    what_b: &str,
    b: &ArrayShape,
) -> Result<(), ShapeError> {
    if a.dims == b.dims {
        return Ok(());
    }
    Err(ShapeError::rule(
        op,
        ShapeRule::SameDimensions {
            what_a: what_a.to_string(),
            a: a.clone(),
            what_b: what_b.to_string(),
            b: b.clone(),
        },
    ))
}

/// Checks that the element type of operand `index` satisfies `pred`; `expected` describes the
/// allowed types (`"a floating-point type"`).
///
/// # Errors
/// When the type is not allowed.
pub fn expect_type(
    op: &str,
    index: usize,
    what: &str,
    array: &ArrayShape,
    pred: fn(PrimitiveType) -> bool,
    expected: &str,
) -> Result<(), ShapeError> {
    if pred(array.ty) {
        return Ok(());
    }
    Err(ShapeError::rule_at(
        op,
        index,
        ShapeRule::ElementType {
            what: what.to_string(),
            expected: expected.to_string(),
            found: array.clone(),
        },
    ))
}

/// Checks that dimension number `dim` is in `[0, rank)` and returns it as an index.
///
/// # Errors
/// `transpose: dimension 3 of permutation {0,3} is out of range for f32[2,3] (rank 2)`.
pub fn dim_index(op: &str, what: &str, dim: i64, shape: &ArrayShape) -> Result<usize, ShapeError> {
    match usize::try_from(dim) {
        Ok(d) if d < shape.dims.len() => Ok(d),
        _ => Err(dim_out_of_range(op, what, dim, shape)),
    }
}

/// The size of dimension `dim` of `shape`, checking `dim` as [`dim_index`] does.
///
/// # Errors
/// `dot: lhs contracting dim 2 is out of range for f32[2,3] (rank 2)`.
pub fn dim_size(op: &str, what: &str, dim: i64, shape: &ArrayShape) -> Result<i64, ShapeError> {
    usize::try_from(dim)
        .ok()
        .and_then(|d| shape.dims.get(d))
        .copied()
        .ok_or_else(|| dim_out_of_range(op, what, dim, shape))
}

fn dim_out_of_range(op: &str, what: &str, dim: i64, shape: &ArrayShape) -> ShapeError {
    ShapeError::rule(
        op,
        ShapeRule::DimensionOutOfRange {
            what: what.to_string(),
            dimension: dim,
            shape: shape.clone(),
        },
    )
}

/// Checks that every dimension number in `dims` is in `[0, rank)`; `shape` names the array
/// the numbers refer to (for the message).
///
/// # Errors
/// When a number is negative or too large.
pub fn expect_dims_in_range(
    op: &str,
    what: &str,
    dims: &[i64],
    rank: usize,
    shape: &dyn std::fmt::Display,
) -> Result<(), ShapeError> {
    for &d in dims {
        if d < 0 || d as u64 >= rank as u64 {
            return Err(ShapeError::rule(
                op,
                ShapeRule::DimensionsOutOfRange {
                    what: what.to_string(),
                    dims: dims.to_vec(),
                    dimension: d,
                    rank,
                    of: shape.to_string(),
                },
            ));
        }
    }
    Ok(())
}

/// Checks that no dimension number appears twice in `dims`; `shape` names what the numbers
/// refer to (for the message).
///
/// # Errors
/// When a number repeats.
pub fn expect_unique_dims(
    op: &str,
    what: &str,
    dims: &[i64],
    shape: &dyn std::fmt::Display,
) -> Result<(), ShapeError> {
    for (i, d) in dims.iter().enumerate() {
        if dims.iter().skip(i + 1).any(|e| e == d) {
            return Err(ShapeError::rule(
                op,
                ShapeRule::RepeatedDimension {
                    what: what.to_string(),
                    dims: dims.to_vec(),
                    dimension: *d,
                    of: shape.to_string(),
                },
            ));
        }
    }
    Ok(())
}

/// Checks that `dims` is strictly increasing (sorted without repeats); `shape` names what the
/// numbers refer to (for the message).
///
/// # Errors
/// When two neighbours are out of order or equal.
pub fn expect_strictly_increasing(
    op: &str,
    what: &str,
    dims: &[i64],
    shape: &dyn std::fmt::Display,
) -> Result<(), ShapeError> {
    if dims.windows(2).all(|w| matches!(w, [a, b] if a < b)) {
        return Ok(());
    }
    Err(ShapeError::rule(
        op,
        ShapeRule::NotIncreasing {
            what: what.to_string(),
            dims: dims.to_vec(),
            of: shape.to_string(),
        },
    ))
}

/// Checks that `dims` is a permutation of `0..rank`.
///
/// # Errors
/// When the length is wrong, a number is out of range or repeats.
pub fn expect_permutation(
    op: &str,
    what: &str,
    dims: &[i64],
    shape: &ArrayShape,
) -> Result<(), ShapeError> {
    let rank = shape.dims.len();
    if dims.len() != rank {
        return Err(ShapeError::rule(
            op,
            ShapeRule::NotPermutation {
                what: what.to_string(),
                dims: dims.to_vec(),
                shape: shape.clone(),
            },
        ));
    }
    expect_dims_in_range(op, what, dims, rank, shape)?;
    expect_unique_dims(op, what, dims, shape)
}

/// Checks that every size in `sizes` is non-negative.
///
/// # Errors
/// When a size is negative.
pub fn expect_nonnegative_dims(op: &str, what: &str, sizes: &[i64]) -> Result<(), ShapeError> {
    match sizes.iter().find(|&&s| s < 0) {
        None => Ok(()),
        Some(&size) => Err(ShapeError::rule(
            op,
            ShapeRule::NegativeSize {
                what: what.to_string(),
                sizes: sizes.to_vec(),
                size,
            },
        )),
    }
}

/// Checks that `shape` is a valid array shape (array element type, non-negative dims) —
/// used for shapes that come from the instruction rather than from operands.
///
/// # Errors
/// When the shape is not an array or has a negative dimension.
pub fn expect_valid_array<'a>(
    op: &str,
    what: &str,
    shape: &'a Shape,
) -> Result<&'a ArrayShape, ShapeError> {
    let a = shape.as_array().ok_or_else(|| {
        let (what, found) = (what.to_string(), shape.clone());
        ShapeError::rule(op, ShapeRule::NotArray { what, found })
    })?;
    if !a.ty.is_array_type() {
        return Err(ShapeError::rule(
            op,
            ShapeRule::InvalidElementType {
                what: what.to_string(),
                ty: a.ty,
            },
        ));
    }
    expect_valid_dims(op, what, a)?;
    Ok(a)
}

fn expect_valid_dims(op: &str, what: &str, a: &ArrayShape) -> Result<(), ShapeError> {
    for (i, &d) in a.dims.iter().enumerate() {
        if d < 0 && !(a.is_dynamic_dim(i) && d == crate::shape::UNBOUNDED) {
            return Err(ShapeError::rule(
                op,
                ShapeRule::NegativeDimension {
                    what: what.to_string(),
                    shape: a.clone(),
                    size: d,
                },
            ));
        }
    }
    Ok(())
}

/// Checks that every array inside `shape` (recursively) has non-negative dims.
///
/// # Errors
/// When some dimension is negative.
pub fn expect_valid_shape(op: &str, what: &str, shape: &Shape) -> Result<(), ShapeError> {
    match shape {
        Shape::Array(a) => expect_valid_dims(op, what, a),
        Shape::Tuple(elements) => elements
            .iter()
            .try_for_each(|e| expect_valid_shape(op, what, e)),
        Shape::Token => Ok(()),
    }
}

/// The product of `dims`, or an error on overflow or a negative size.
///
/// # Errors
/// When the product overflows `i64` or a size is negative.
pub fn checked_product(
    op: &str,
    what: &dyn std::fmt::Display,
    dims: &[i64],
) -> Result<i64, ShapeError> {
    dims.iter()
        .try_fold(
            1i64,
            |acc, &d| if d < 0 { None } else { acc.checked_mul(d) },
        )
        .ok_or_else(|| {
            let of = what.to_string();
            ShapeError::rule(op, ShapeRule::ElementCount { of })
        })
}

/// `a + b`, or an error naming `what` on overflow.
///
/// # Errors
/// On `i64` overflow.
pub fn checked_add(op: &str, what: &str, a: i64, b: i64) -> Result<i64, ShapeError> {
    a.checked_add(b).ok_or_else(|| overflow(op, what))
}

/// `a * b`, or an error naming `what` on overflow.
///
/// # Errors
/// On `i64` overflow.
pub fn checked_mul(op: &str, what: &str, a: i64, b: i64) -> Result<i64, ShapeError> {
    a.checked_mul(b).ok_or_else(|| overflow(op, what))
}

fn overflow(op: &str, what: &str) -> ShapeError {
    let what = what.to_string();
    ShapeError::rule(op, ShapeRule::Overflow { what })
}

/// The element type and dims of `array` with element type `ty`, no layout, keeping the
/// dynamic-dimension flags.
pub fn retype(array: &ArrayShape, ty: PrimitiveType) -> Shape {
    Shape::Array(ArrayShape {
        ty,
        dims: array.dims.clone(),
        dynamic: array.dynamic.clone(),
        layout: None,
    })
}

/// `array` without its layout.
pub fn plain(array: &ArrayShape) -> Shape {
    retype(array, array.ty)
}

/// An array of `ty` with `dims` and per-dimension dynamic flags (`dynamic` may be empty).
pub fn array_with_dynamic(ty: PrimitiveType, dims: Vec<i64>, dynamic: Vec<bool>) -> Shape {
    let dynamic = if dynamic.iter().any(|&d| d) {
        dynamic
    } else {
        Vec::new()
    };
    Shape::Array(ArrayShape {
        ty,
        dims,
        dynamic,
        layout: None,
    })
}

/// A tuple of the shapes when there are several, the single shape otherwise (the result
/// convention of variadic reduce, sort, scatter, ...).
pub fn single_or_tuple(mut shapes: Vec<Shape>) -> Shape {
    if shapes.len() == 1 {
        if let Some(s) = shapes.pop() {
            return s;
        }
    }
    Shape::Tuple(shapes)
}

/// Element types that are integers (signed or unsigned).
pub fn is_integer(t: PrimitiveType) -> bool {
    t.is_integer()
}

/// Element types that are real floating point.
pub fn is_float(t: PrimitiveType) -> bool {
    t.is_float()
}

/// Element types that are floating point or complex.
pub fn is_float_or_complex(t: PrimitiveType) -> bool {
    t.is_float_or_complex()
}

/// PRED or an integer type.
pub fn is_pred_or_integer(t: PrimitiveType) -> bool {
    t.is_pred() || t.is_integer()
}

/// Any array element type except PRED.
pub fn is_not_pred(t: PrimitiveType) -> bool {
    t.is_array_type() && !t.is_pred()
}

/// The rule `rule` broken by the computation `what` of signature `signature`.
pub(crate) fn callee(what: &str, signature: &ProgramShape, rule: CalleeRule) -> ShapeRule {
    ShapeRule::Callee {
        what: what.to_string(),
        signature: signature.clone(),
        rule,
    }
}

/// `op`'s `what` must have rank at least `min` (blaming `operand` when given).
pub(crate) fn min_rank(
    op: &str,
    operand: Option<usize>,
    what: &str,
    min: usize,
    found: &ArrayShape,
) -> ShapeError {
    let what = what.to_string();
    let rule = ShapeRule::MinRank {
        what,
        min,
        found: Shape::Array(found.clone()),
    };
    match operand {
        Some(i) => ShapeError::rule_at(op, i, rule),
        None => ShapeError::rule(op, rule),
    }
}

/// `op`'s list `what` must have one entry per dimension of `of` `shape`.
pub(crate) fn entry_per_dimension(
    op: &str,
    what: &str,
    list: &[i64],
    of: &str,
    shape: &ArrayShape,
) -> ShapeError {
    let rule = ShapeRule::EntryPerDimension {
        what: what.to_string(),
        list: list.to_vec(),
        of: of.to_string(),
        shape: shape.clone(),
    };
    ShapeError::rule(op, rule)
}

/// `op`'s slice size `size` of dimension `dimension` (of size `bound`) of (`of`) `shape` is
/// outside `[0, bound]`.
pub(crate) fn slice_size(
    op: &str,
    (size, dimension, bound): (i64, usize, i64),
    of: &str,
    shape: &ArrayShape,
) -> ShapeError {
    let rule = super::SliceRule::Size {
        size,
        dimension,
        bound,
        of: of.to_string(),
        shape: shape.clone(),
    };
    ShapeError::rule(op, ShapeRule::Slice(rule))
}

/// Operand `operand` of `op`: `what` `dimension` is out of range for `shape` (or `shape` is
/// not an array at all).
pub(crate) fn dimension_out_of_range(
    op: &str,
    operand: usize,
    what: &str,
    dimension: i64,
    shape: &Shape,
) -> ShapeError {
    let what = what.to_string();
    let rule = match shape.as_array() {
        Some(a) => ShapeRule::DimensionOutOfRange {
            what,
            dimension,
            shape: a.clone(),
        },
        None => ShapeRule::NotArray {
            what: "operand".to_string(),
            found: shape.clone(),
        },
    };
    ShapeError::rule_at(op, operand, rule)
}

/// `op` was given no operand but takes at least one.
pub(crate) fn no_operand(op: &str) -> ShapeError {
    let rule = ShapeRule::OperandCount {
        expected: 1,
        at_least: true,
        found: 0,
    };
    ShapeError::rule(op, rule)
}
