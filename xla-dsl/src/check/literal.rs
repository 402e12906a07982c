//! Scalar constants of every element type, from the literals written in a computation and
//! for the initial values of reductions.

use crate::ast::LitValue;
use half::{bf16, f16};
use num_complex::{Complex32, Complex64};
use xla_core::{Literal, PrimitiveType};

/// The scalar literal of element type `ty` holding `value`.
///
/// # Errors
/// A message when `value` is not a value of `ty` (a float as an integer, an out-of-range
/// integer, a number as a predicate, ...).
pub fn scalar(ty: PrimitiveType, value: LitValue) -> Result<Literal, String> {
    use PrimitiveType as P;
    let lit = match ty {
        P::Pred => Literal::scalar(as_bool(ty, value)?),
        P::S8 => Literal::scalar(int::<i8>(ty, value)?),
        P::S16 => Literal::scalar(int::<i16>(ty, value)?),
        P::S32 => Literal::scalar(int::<i32>(ty, value)?),
        P::S64 => Literal::scalar(int::<i64>(ty, value)?),
        P::U8 => Literal::scalar(int::<u8>(ty, value)?),
        P::U16 => Literal::scalar(int::<u16>(ty, value)?),
        P::U32 => Literal::scalar(int::<u32>(ty, value)?),
        P::U64 => Literal::scalar(int::<u64>(ty, value)?),
        P::F16 => Literal::scalar(f16::from_f64(float(ty, value)?)),
        P::Bf16 => Literal::scalar(bf16::from_f64(float(ty, value)?)),
        // Rounding to the nearest f32 is what a Rust `f32` literal does.
        P::F32 => Literal::scalar(float(ty, value)? as f32),
        P::F64 => Literal::scalar(float(ty, value)?),
        P::C64 => Literal::scalar(Complex32::new(float(ty, value)? as f32, 0.0)),
        P::C128 => Literal::scalar(Complex64::new(float(ty, value)?, 0.0)),
        P::Tuple | P::Token => return Err(format!("a literal cannot be of type {ty}")),
    };
    Ok(lit)
}

/// The element type a literal without a suffix takes when nothing else decides it.
pub fn default_type(value: LitValue) -> PrimitiveType {
    match value {
        LitValue::Float(_) => PrimitiveType::F32,
        LitValue::Int(_) => PrimitiveType::S32,
        LitValue::Bool(_) => PrimitiveType::Pred,
    }
}

/// The smallest value of `ty` (−∞ for floats): the initial value of a max-reduction.
pub fn lowest(ty: PrimitiveType) -> Option<LitValue> {
    extreme(ty, false)
}

/// The largest value of `ty` (+∞ for floats): the initial value of a min-reduction.
pub fn highest(ty: PrimitiveType) -> Option<LitValue> {
    extreme(ty, true)
}

fn extreme(ty: PrimitiveType, high: bool) -> Option<LitValue> {
    use PrimitiveType as P;
    let (lo, hi): (i128, i128) = match ty {
        P::Pred => return Some(LitValue::Bool(high)),
        P::S8 => (i8::MIN.into(), i8::MAX.into()),
        P::S16 => (i16::MIN.into(), i16::MAX.into()),
        P::S32 => (i32::MIN.into(), i32::MAX.into()),
        P::S64 => (i64::MIN.into(), i64::MAX.into()),
        P::U8 => (0, u8::MAX.into()),
        P::U16 => (0, u16::MAX.into()),
        P::U32 => (0, u32::MAX.into()),
        P::U64 => (0, u64::MAX.into()),
        P::F16 | P::Bf16 | P::F32 | P::F64 => {
            return Some(LitValue::Float(if high {
                f64::INFINITY
            } else {
                f64::NEG_INFINITY
            }));
        }
        P::C64 | P::C128 | P::Tuple | P::Token => return None,
    };
    Some(LitValue::Int(if high { hi } else { lo }))
}

fn as_bool(ty: PrimitiveType, value: LitValue) -> Result<bool, String> {
    match value {
        LitValue::Bool(b) => Ok(b),
        LitValue::Int(_) | LitValue::Float(_) => Err(format!(
            "a number cannot be a {ty} value; write `true` or `false`"
        )),
    }
}

fn int<T: TryFrom<i128>>(ty: PrimitiveType, value: LitValue) -> Result<T, String> {
    match value {
        LitValue::Int(i) => {
            T::try_from(i).map_err(|_| format!("literal {i} is out of range for {ty}"))
        }
        LitValue::Float(f) => Err(format!("float literal {f:?} cannot be a {ty} value")),
        LitValue::Bool(_) => Err(format!("a boolean cannot be a {ty} value")),
    }
}

fn float(ty: PrimitiveType, value: LitValue) -> Result<f64, String> {
    match value {
        LitValue::Float(f) => Ok(f),
        // Integer literals next to floats read as floats (`x * 2`), as in JAX.
        LitValue::Int(i) => Ok(i as f64),
        LitValue::Bool(_) => Err(format!("a boolean cannot be a {ty} value")),
    }
}
