//! Shape rules: random numbers — rng, rng-bit-generator and rng-get-and-update-state.

use super::validators::*;
use super::{ShapeError, ShapeRule};
use crate::attrs::RngDistribution;
use crate::shape::Shape;
use crate::types::PrimitiveType;

/// The shape of `rng(a, b)`: the declared array, whose element type is that of the scalar
/// parameters `a` and `b`. Uniform takes PRED, integer or floating-point types; normal takes
/// floating point.
///
/// # Errors
/// When any of these rules is broken.
pub fn rng(
    a: &Shape,
    b: &Shape,
    distribution: RngDistribution,
    declared: &Shape,
) -> Result<Shape, ShapeError> {
    let name = "rng";
    let x = expect_scalar(name, 0, "a", a)?;
    let y = expect_scalar(name, 1, "b", b)?;
    expect_same_type(name, "a", x, "b", y)?;
    match distribution {
        RngDistribution::Uniform => expect_type(
            name,
            0,
            "a",
            x,
            |t| t.is_pred() || t.is_integer() || t.is_float(),
            "a PRED, integer or floating-point",
        )?,
        RngDistribution::Normal => expect_type(name, 0, "a", x, is_float, "a floating-point")?,
    }
    let out = expect_valid_array(name, "result", declared)?;
    expect_same_type(name, "result", out, "parameters", x)?;
    Ok(plain(out))
}

/// The shape of `rng-bit-generator(state)`: the declared `(state, bits)`; the state is a
/// rank-1 U64 array and the first result element has its shape; the bits are an integer or
/// floating-point array (raw generator bits, as XLA allows).
///
/// # Errors
/// When any of these rules is broken.
pub fn rng_bit_generator(state: &Shape, declared: &Shape) -> Result<Shape, ShapeError> {
    let name = "rng-bit-generator";
    let s = expect_array(name, 0, "state", state)?;
    expect_rank(name, 0, "state", s, 1)?;
    expect_type(name, 0, "state", s, |t| t == PrimitiveType::U64, "a U64")?;
    match declared.tuple_elements() {
        Some([new_state, bits])
            if new_state.compatible(&plain(s))
                && bits
                    .as_array()
                    .is_some_and(|b| b.ty.is_integer() || b.ty.is_float()) => {}
        _ => {
            let rule = ShapeRule::Form {
                what: "result".into(),
                expected: format!("({s}, an integer or floating-point array)"),
                found: declared.clone(),
            };
            return Err(ShapeError::rule(name, rule));
        }
    }
    expect_valid_shape(name, "result", declared)?;
    Ok(declared.without_layout())
}

/// The shape of `rng-get-and-update-state`: `u64[2]`.
pub fn rng_get_and_update_state() -> Shape {
    Shape::array(PrimitiveType::U64, vec![2])
}
