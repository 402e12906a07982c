//! Shape rules: elementwise ops (unary, binary, compare, select, clamp, converts, map), and
//! XLA's broadcasting rules for binary ops built with `broadcast_dimensions`.
//!
//! At HLO level elementwise operands have identical dimensions (no implicit broadcasting);
//! the builder first plans the broadcasts with [`broadcast_plan`].

use super::validators::*;
use super::{BroadcastRule, CalleeRule, ConvertRule, ProgramShape, ShapeError, ShapeRule};
use crate::attrs::{BinaryOp, ComparisonType, UnaryOp};
use crate::shape::{ArrayShape, Shape};
use crate::types::PrimitiveType;

/// How the two operands of a binary op combine under XLA's broadcasting rules
/// (`broadcasting.fa.txt`): scalars broadcast implicitly; same-rank operands broadcast their
/// degenerate (size-1) dims; operands of different ranks need `broadcast_dimensions` mapping
/// the lower-rank operand's dims (strictly increasing) into the higher-rank one's; and the
/// combination of both.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BroadcastPlan {
    /// Dimensions of the result (the element type is the caller's business).
    pub dims: Vec<i64>,
    /// `Some(d)`: the lhs must first be broadcast to `dims` with HLO `broadcast` and
    /// `dimensions = d` (size-1 dims of the lhs may expand). `None`: the lhs already has `dims`.
    pub lhs: Option<Vec<i64>>,
    /// The same for the rhs.
    pub rhs: Option<Vec<i64>>,
}

/// Combines two dimension sizes: equal, or one of them degenerate (1).
fn combine_dim(a: i64, b: i64) -> Option<i64> {
    if a == b || b == 1 {
        Some(a)
    } else if a == 1 {
        Some(b)
    } else {
        None
    }
}

/// Plans the broadcast of a binary op `op` (its HLO name, for messages) on `lhs` and `rhs`.
///
/// # Errors
/// A [`ShapeError`] when the shapes are not compatible under the broadcasting rules.
pub fn broadcast_plan(
    op: &str,
    lhs: &Shape,
    rhs: &Shape,
    broadcast_dimensions: &[i64],
) -> Result<BroadcastPlan, ShapeError> {
    let l = expect_array(op, 0, "lhs", lhs)?;
    let r = expect_array(op, 1, "rhs", rhs)?;
    if l.dims.len() == r.dims.len() {
        return same_rank_plan(op, l, r, broadcast_dimensions);
    }
    let lhs_is_small = l.dims.len() < r.dims.len();
    let (small, large) = if lhs_is_small { (l, r) } else { (r, l) };
    let (dims, small_plan, large_plan) = in_dim_plan(op, small, large, broadcast_dimensions)?;
    if lhs_is_small {
        Ok(BroadcastPlan {
            dims,
            lhs: Some(small_plan),
            rhs: large_plan,
        })
    } else {
        Ok(BroadcastPlan {
            dims,
            lhs: large_plan,
            rhs: Some(small_plan),
        })
    }
}

fn same_rank_plan(
    op: &str,
    l: &ArrayShape,
    r: &ArrayShape,
    bdims: &[i64],
) -> Result<BroadcastPlan, ShapeError> {
    let rank = l.dims.len();
    let identity: Vec<i64> = (0..rank as i64).collect();
    if !bdims.is_empty() && bdims != identity.as_slice() {
        let rule = BroadcastRule::SameRank {
            dims: bdims.to_vec(),
            lhs: l.clone(),
            rhs: r.clone(),
        };
        return Err(ShapeError::rule(op, ShapeRule::Broadcast(rule)));
    }
    let mut dims = Vec::with_capacity(rank);
    for (i, (&a, &b)) in l.dims.iter().zip(&r.dims).enumerate() {
        let d = combine_dim(a, b).ok_or_else(|| {
            let rule = ShapeRule::Incompatible {
                lhs: l.clone(),
                rhs: r.clone(),
                dimension: i,
                lhs_size: a,
                rhs_size: b,
            };
            ShapeError::rule(op, rule)
        })?;
        dims.push(d);
    }
    let plan = |a: &ArrayShape| {
        if a.dims == dims {
            None
        } else {
            Some(identity.clone())
        }
    };
    Ok(BroadcastPlan {
        lhs: plan(l),
        rhs: plan(r),
        dims,
    })
}

type InDimPlan = (Vec<i64>, Vec<i64>, Option<Vec<i64>>);

fn in_dim_plan(
    op: &str,
    small: &ArrayShape,
    large: &ArrayShape,
    bdims: &[i64],
) -> Result<InDimPlan, ShapeError> {
    if bdims.is_empty() && !small.dims.is_empty() {
        let (small, large) = (small.clone(), large.clone());
        let rule = BroadcastRule::RanksDiffer { small, large };
        return Err(ShapeError::rule(op, ShapeRule::Broadcast(rule)));
    }
    if bdims.len() != small.dims.len() {
        let (dims, small) = (bdims.to_vec(), small.clone());
        let rule = BroadcastRule::DimensionCount { dims, small };
        return Err(ShapeError::rule(op, ShapeRule::Broadcast(rule)));
    }
    expect_dims_in_range(op, "broadcast_dimensions", bdims, large.dims.len(), large)?;
    expect_strictly_increasing(op, "broadcast_dimensions", bdims, large)?;
    let mut dims = large.dims.clone();
    for (i, (&b, &s)) in bdims.iter().zip(&small.dims).enumerate() {
        let j = dim_index(op, "broadcast dimension", b, large)?;
        let l = dim_size(op, "broadcast dimension", b, large)?;
        let d = combine_dim(s, l).ok_or_else(|| {
            let rule = BroadcastRule::DimensionSize {
                index: i,
                small: small.clone(),
                small_size: s,
                large: large.clone(),
                large_dim: b,
                large_size: l,
            };
            ShapeError::rule(op, ShapeRule::Broadcast(rule))
        })?;
        if let Some(slot) = dims.get_mut(j) {
            *slot = d;
        }
    }
    let large_plan = if large.dims == dims {
        None
    } else {
        Some((0..dims.len() as i64).collect())
    };
    Ok((dims, bdims.to_vec(), large_plan))
}

/// The result of a one-operand elementwise op: the operand's shape, except `is-finite` →
/// PRED and `real`/`imag`/`abs` of complex → the component type. Checks the operand's
/// element type as XLA does.
///
/// # Errors
/// When the operand is not an array or its element type is not allowed for `op`.
pub fn unary(op: UnaryOp, operand: &Shape) -> Result<Shape, ShapeError> {
    let name = op.name();
    let a = expect_array(name, 0, "operand", operand)?;
    let check = |pred: fn(PrimitiveType) -> bool, expected: &str| {
        expect_type(name, 0, "operand", a, pred, expected)
    };
    match op {
        UnaryOp::Floor | UnaryOp::Ceil | UnaryOp::RoundNearestAfz | UnaryOp::RoundNearestEven => {
            check(is_float, "a floating-point")?
        }
        UnaryOp::Cos
        | UnaryOp::Sin
        | UnaryOp::Tan
        | UnaryOp::Exp
        | UnaryOp::Expm1
        | UnaryOp::Log
        | UnaryOp::Log1p
        | UnaryOp::Logistic
        | UnaryOp::Rsqrt
        | UnaryOp::Sqrt
        | UnaryOp::Cbrt
        | UnaryOp::Tanh => check(is_float_or_complex, "a floating-point or complex")?,
        UnaryOp::Erf => check(is_float, "a floating-point")?,
        UnaryOp::Real | UnaryOp::Imag => {
            check(is_float_or_complex, "a floating-point or complex")?;
            return Ok(retype(a, a.ty.component_type()));
        }
        UnaryOp::Abs => {
            check(
                |t| t.is_float_or_complex() || t.is_signed_int(),
                "a signed integer, floating-point or complex",
            )?;
            return Ok(retype(a, a.ty.component_type()));
        }
        UnaryOp::Clz | UnaryOp::Popcnt => check(is_integer, "an integer")?,
        UnaryOp::Neg => check(
            |t| t.is_integer() || t.is_float_or_complex(),
            "an integer, floating-point or complex",
        )?,
        UnaryOp::Sign => check(
            |t| t.is_float_or_complex() || t.is_signed_int(),
            "a signed integer, floating-point or complex",
        )?,
        UnaryOp::Not => check(is_pred_or_integer, "a PRED or integer")?,
        UnaryOp::IsFinite => {
            check(is_float, "a floating-point")?;
            return Ok(retype(a, PrimitiveType::Pred));
        }
    }
    Ok(plain(a))
}

/// Checks that two elementwise operands have identical dimensions and returns the merged
/// dynamic flags.
fn same_dims_dynamic(op: &str, l: &ArrayShape, r: &ArrayShape) -> Result<Vec<bool>, ShapeError> {
    if l.dims != r.dims {
        let rule = ShapeRule::OperandDims {
            lhs: l.clone(),
            rhs: r.clone(),
        };
        return Err(ShapeError::rule(op, rule));
    }
    Ok((0..l.dims.len())
        .map(|i| l.is_dynamic_dim(i) || r.is_dynamic_dim(i))
        .collect())
}

/// The result of a two-operand elementwise op at HLO level: identical dimensions and element
/// types (`complex` takes two F32 or two F64 and gives C64 / C128).
///
/// # Errors
/// When the operands differ in dims or type, or the type is not allowed for `op`
/// (arithmetic ops other than add/multiply/maximum/minimum reject PRED; shifts need integers;
/// and/or/xor need PRED or integers).
pub fn binary(op: BinaryOp, lhs: &Shape, rhs: &Shape) -> Result<Shape, ShapeError> {
    let name = op.name();
    let l = expect_array(name, 0, "lhs", lhs)?;
    let r = expect_array(name, 1, "rhs", rhs)?;
    expect_same_type(name, "lhs", l, "rhs", r)?;
    let dynamic = same_dims_dynamic(name, l, r)?;
    let check = |pred: fn(PrimitiveType) -> bool, expected: &str| {
        expect_type(name, 0, "lhs", l, pred, expected)
    };
    let ty = match op {
        BinaryOp::Add | BinaryOp::Mul | BinaryOp::Max | BinaryOp::Min => l.ty,
        BinaryOp::Sub | BinaryOp::Div | BinaryOp::Pow | BinaryOp::Rem | BinaryOp::Atan2 => {
            check(is_not_pred, "an arithmetic (non-PRED)")?;
            l.ty
        }
        BinaryOp::ShiftLeft | BinaryOp::ShiftRightArithmetic | BinaryOp::ShiftRightLogical => {
            check(is_integer, "an integer")?;
            l.ty
        }
        BinaryOp::And | BinaryOp::Or | BinaryOp::Xor => {
            check(is_pred_or_integer, "a PRED or integer")?;
            l.ty
        }
        BinaryOp::Complex => {
            check(
                |t| matches!(t, PrimitiveType::F32 | PrimitiveType::F64),
                "an F32 or F64",
            )?;
            l.ty.complex_type().unwrap_or(l.ty)
        }
    };
    Ok(array_with_dynamic(ty, l.dims.clone(), dynamic))
}

/// The result of `compare`: PRED with the operands' (identical) dimensions. The comparison
/// type, when given, must suit the element type (FLOAT for floating point and complex,
/// SIGNED for signed integers, UNSIGNED for unsigned integers and PRED; TOTALORDER for any).
///
/// # Errors
/// When the operands differ in dims or type, or the comparison type does not fit.
pub fn compare(
    lhs: &Shape,
    rhs: &Shape,
    comparison_type: Option<ComparisonType>,
) -> Result<Shape, ShapeError> {
    let name = "compare";
    let l = expect_array(name, 0, "lhs", lhs)?;
    let r = expect_array(name, 1, "rhs", rhs)?;
    expect_same_type(name, "lhs", l, "rhs", r)?;
    let dynamic = same_dims_dynamic(name, l, r)?;
    if let Some(ct) = comparison_type {
        let ok = match ct {
            ComparisonType::Float => l.ty.is_float_or_complex(),
            ComparisonType::TotalOrder => true,
            ComparisonType::Signed => l.ty.is_signed_int(),
            ComparisonType::Unsigned => l.ty.is_unsigned_int() || l.ty.is_pred(),
        };
        if !ok {
            let (comparison, operand) = (ct, l.clone());
            let rule = ShapeRule::ComparisonType {
                comparison,
                operand,
            };
            return Err(ShapeError::rule(name, rule));
        }
    }
    Ok(array_with_dynamic(
        PrimitiveType::Pred,
        l.dims.clone(),
        dynamic,
    ))
}

/// The result of `select(pred, on_true, on_false)`: on_true and on_false have the same shape
/// (arrays, or tuples with a scalar pred); pred is PRED with the same dims, or a PRED scalar.
///
/// # Errors
/// When the branches differ, or the predicate is not PRED of the right dims.
pub fn select(pred: &Shape, on_true: &Shape, on_false: &Shape) -> Result<Shape, ShapeError> {
    let name = "select";
    let p = expect_array(name, 0, "pred", pred)?;
    expect_type(name, 0, "pred", p, PrimitiveType::is_pred, "PRED")?;
    if !on_true.same_dims(on_false) || !same_types(on_true, on_false) {
        let rule = ShapeRule::SameShape {
            what_a: "on_true".into(),
            a: on_true.clone(),
            what_b: "on_false".into(),
            b: on_false.clone(),
        };
        return Err(ShapeError::rule(name, rule));
    }
    match on_true {
        Shape::Array(t) => {
            if !p.dims.is_empty() && p.dims != t.dims {
                let (pred, on_true) = (p.clone(), on_true.clone());
                let rule = ShapeRule::Broadcast(BroadcastRule::Predicate { pred, on_true });
                return Err(ShapeError::rule_at(name, 0, rule));
            }
            let dynamic = (0..t.dims.len())
                .map(|i| {
                    t.is_dynamic_dim(i) || on_false.as_array().is_some_and(|f| f.is_dynamic_dim(i))
                })
                .collect();
            Ok(array_with_dynamic(t.ty, t.dims.clone(), dynamic))
        }
        Shape::Tuple(_) | Shape::Token => {
            if !p.dims.is_empty() {
                let (pred, on_true) = (p.clone(), on_true.clone());
                let rule = ShapeRule::Broadcast(BroadcastRule::Predicate { pred, on_true });
                return Err(ShapeError::rule_at(name, 0, rule));
            }
            Ok(on_true.without_layout())
        }
    }
}

/// Element types equal at every leaf (dims checked separately).
fn same_types(a: &Shape, b: &Shape) -> bool {
    match (a, b) {
        (Shape::Array(x), Shape::Array(y)) => x.ty == y.ty,
        (Shape::Tuple(x), Shape::Tuple(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| same_types(p, q))
        }
        (Shape::Token, Shape::Token) => true,
        _ => false,
    }
}

/// The result of `clamp(min, operand, max)`: the operand's shape; min and max have the
/// operand's shape or are scalars of its element type.
///
/// # Errors
/// When a bound has another type, or neither the operand's dims nor rank 0.
pub fn clamp(min: &Shape, operand: &Shape, max: &Shape) -> Result<Shape, ShapeError> {
    let name = "clamp";
    let x = expect_array(name, 1, "operand", operand)?;
    for (index, what, bound) in [(0, "min", min), (2, "max", max)] {
        let b = expect_array(name, index, what, bound)?;
        expect_same_type(name, what, b, "operand", x)?;
        if !b.dims.is_empty() && b.dims != x.dims {
            let (what, bound, operand) = (what.to_string(), b.clone(), x.clone());
            let rule = ShapeRule::Broadcast(BroadcastRule::Bound {
                what,
                bound,
                operand,
            });
            return Err(ShapeError::rule_at(name, index, rule));
        }
    }
    Ok(plain(x))
}

/// The result of `convert` to `new_type`: the operand's dims with the new element type.
///
/// # Errors
/// When the operand is not an array, `new_type` is TUPLE/TOKEN, or the conversion drops the
/// imaginary part (complex → real is not defined in XLA).
pub fn convert(operand: &Shape, new_type: PrimitiveType) -> Result<Shape, ShapeError> {
    let name = "convert";
    let a = expect_array(name, 0, "operand", operand)?;
    if !new_type.is_array_type() {
        return Err(convert_error(name, a, new_type, ConvertRule::NotArrayType));
    }
    if a.ty.is_complex() && !new_type.is_complex() {
        return Err(convert_error(name, a, new_type, ConvertRule::ComplexToReal));
    }
    Ok(retype(a, new_type))
}

/// The result of `bitcast-convert` to `new_type`: same dims for equal widths; converting to a
/// narrower type appends a minor dim of the width ratio; converting to a wider type requires
/// the last dim to equal the ratio and removes it.
///
/// # Errors
/// When the types are not arrays, mix complex and real, have indivisible widths, or the last
/// dim does not match the ratio.
pub fn bitcast_convert(operand: &Shape, new_type: PrimitiveType) -> Result<Shape, ShapeError> {
    let name = "bitcast-convert";
    let a = expect_array(name, 0, "operand", operand)?;
    if !new_type.is_array_type() {
        return Err(convert_error(
            name,
            a,
            new_type,
            ConvertRule::BitcastNotArrayType,
        ));
    }
    if a.ty.is_complex() != new_type.is_complex() {
        return Err(convert_error(
            name,
            a,
            new_type,
            ConvertRule::BitcastComplexReal,
        ));
    }
    let (from, to) = (a.ty.bit_width() as i64, new_type.bit_width() as i64);
    let (big, small) = (from.max(to), from.min(to));
    if small == 0 || big % small != 0 {
        let rule = ConvertRule::BitWidths {
            from_bits: from,
            to_bits: to,
        };
        return Err(convert_error(name, a, new_type, rule));
    }
    let ratio = big / small;
    let mut dims = a.dims.clone();
    let mut dynamic: Vec<bool> = (0..dims.len()).map(|i| a.is_dynamic_dim(i)).collect();
    if from > to {
        dims.push(ratio);
        dynamic.push(false);
    } else if from < to {
        if dims.last() != Some(&ratio) {
            let rule = ConvertRule::LastDimension { ratio };
            return Err(convert_error(name, a, new_type, rule));
        }
        dims.pop();
        dynamic.pop();
    }
    Ok(array_with_dynamic(new_type, dims, dynamic))
}

/// The result of `reduce-precision`: the operand's shape.
///
/// # Errors
/// When the operand is not floating point, `exponent_bits < 1` or `mantissa_bits < 0`.
pub fn reduce_precision(
    operand: &Shape,
    exponent_bits: i64,
    mantissa_bits: i64,
) -> Result<Shape, ShapeError> {
    let name = "reduce-precision";
    let a = expect_array(name, 0, "operand", operand)?;
    expect_type(name, 0, "operand", a, is_float, "a floating-point")?;
    if exponent_bits < 1 {
        return Err(precision_bits(name, "exponent_bits", 1, exponent_bits, a));
    }
    if mantissa_bits < 0 {
        return Err(precision_bits(name, "mantissa_bits", 0, mantissa_bits, a));
    }
    Ok(plain(a))
}

/// The result of `map`: the operands' dims with the element type of `to_apply`'s result.
/// All operands have the same dims; `dimensions` lists every dimension in order; `to_apply`
/// takes one scalar per operand, of the operand's element type, and returns a scalar.
///
/// # Errors
/// When any of these rules is broken.
pub fn map(
    operands: &[&Shape],
    dimensions: &[i64],
    to_apply: &ProgramShape,
) -> Result<Shape, ShapeError> {
    let name = "map";
    let (arrays, first) = expect_arrays_same_dims(name, operands)?;
    let identity: Vec<i64> = (0..first.dims.len() as i64).collect();
    if dimensions != identity.as_slice() {
        let rule = ShapeRule::EveryDimension {
            what: "dimensions".into(),
            dims: dimensions.to_vec(),
            shape: first.clone(),
        };
        return Err(ShapeError::rule(name, rule));
    }
    if to_apply.parameters.len() != operands.len() {
        let rule = CalleeRule::ParameterCount {
            expected: operands.len(),
            per_operand: true,
        };
        return Err(ShapeError::rule(name, callee("to_apply", to_apply, rule)));
    }
    for (i, (p, a)) in to_apply.parameters.iter().zip(&arrays).enumerate() {
        if !p.is_scalar() || p.element_type() != a.ty {
            let rule = CalleeRule::ScalarParameter { index: i, ty: a.ty };
            return Err(ShapeError::rule(name, callee("to_apply", to_apply, rule)));
        }
    }
    let r = to_apply.result.as_array().filter(|r| r.dims.is_empty());
    let r = r.ok_or_else(|| {
        ShapeError::rule(name, callee("to_apply", to_apply, CalleeRule::ScalarResult))
    })?;
    Ok(retype(first, r.ty))
}

/// `op`'s conversion of `from` to `to` breaking `rule`.
fn convert_error(op: &str, from: &ArrayShape, to: PrimitiveType, rule: ConvertRule) -> ShapeError {
    let from = from.clone();
    ShapeError::rule(op, ShapeRule::Convert { from, to, rule })
}

/// `reduce-precision`'s bit count `what` is `value`, below `min`.
fn precision_bits(
    op: &str,
    what: &'static str,
    min: i64,
    value: i64,
    a: &ArrayShape,
) -> ShapeError {
    let operand = a.clone();
    ShapeError::rule(
        op,
        ShapeRule::PrecisionBits {
            what,
            min,
            value,
            operand,
        },
    )
}
