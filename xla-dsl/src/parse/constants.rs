//! Rust's own numeric constants where a literal may stand: `f32::INFINITY`, `f64::MAX`,
//! `std::f32::consts::PI`, `i32::MIN`, ... Each is a literal of its type (as in Rust, the
//! type is fixed: `f32::MAX` meets only `f32` tensors).

use crate::ast::{Lit, LitValue};
use xla_core::PrimitiveType;

/// The literal a path such as `f32::NEG_INFINITY` or `std::f64::consts::PI` names, if it
/// names one of Rust's numeric constants.
pub fn rust_constant(path: &syn::Path) -> Option<Lit> {
    let segments: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
    let names: Vec<&str> = segments.iter().map(String::as_str).collect();
    // `std::f32::X` and `core::f32::X` mean `f32::X`.
    let names = match names.as_slice() {
        ["std" | "core", rest @ ..] => rest,
        all => all,
    };
    match names {
        [ty, "consts", name] => float_const(ty, name, true),
        [ty, name] => float_const(ty, name, false).or_else(|| int_const(ty, name)),
        _ => None,
    }
}

/// `f32::MAX`, `f64::consts::PI`, ...: the value (computed in the named type, so `f32::MAX`
/// is exactly the `f32` maximum) and the type.
fn float_const(ty: &str, name: &str, consts: bool) -> Option<Lit> {
    let (value, ty) = match ty {
        "f32" => (f32_value(name, consts)?, PrimitiveType::F32),
        "f64" => (f64_value(name, consts)?, PrimitiveType::F64),
        _ => return None,
    };
    Some(Lit {
        value: LitValue::Float(value),
        ty: Some(ty),
    })
}

macro_rules! float_values {
    ($fn_name:ident, $t:ident) => {
        fn $fn_name(name: &str, consts: bool) -> Option<f64> {
            use std::$t::consts as c;
            let v: $t = match (consts, name) {
                (false, "INFINITY") => $t::INFINITY,
                (false, "NEG_INFINITY") => $t::NEG_INFINITY,
                (false, "MAX") => $t::MAX,
                (false, "MIN") => $t::MIN,
                (false, "MIN_POSITIVE") => $t::MIN_POSITIVE,
                (false, "EPSILON") => $t::EPSILON,
                (false, "NAN") => $t::NAN,
                (true, "PI") => c::PI,
                (true, "TAU") => c::TAU,
                (true, "E") => c::E,
                (true, "SQRT_2") => c::SQRT_2,
                (true, "FRAC_1_SQRT_2") => c::FRAC_1_SQRT_2,
                (true, "FRAC_2_SQRT_PI") => c::FRAC_2_SQRT_PI,
                (true, "FRAC_1_PI") => c::FRAC_1_PI,
                (true, "FRAC_2_PI") => c::FRAC_2_PI,
                (true, "FRAC_PI_2") => c::FRAC_PI_2,
                (true, "FRAC_PI_3") => c::FRAC_PI_3,
                (true, "FRAC_PI_4") => c::FRAC_PI_4,
                (true, "FRAC_PI_6") => c::FRAC_PI_6,
                (true, "FRAC_PI_8") => c::FRAC_PI_8,
                (true, "LN_2") => c::LN_2,
                (true, "LN_10") => c::LN_10,
                (true, "LOG2_E") => c::LOG2_E,
                (true, "LOG2_10") => c::LOG2_10,
                (true, "LOG10_E") => c::LOG10_E,
                (true, "LOG10_2") => c::LOG10_2,
                _ => return None,
            };
            Some(f64::from(v))
        }
    };
}

float_values!(f32_value, f32);
float_values!(f64_value, f64);

/// `i32::MAX`, `u8::MIN`, ...
fn int_const(ty: &str, name: &str) -> Option<Lit> {
    let (min, max): (i128, i128) = match ty {
        "i8" => (i8::MIN.into(), i8::MAX.into()),
        "i16" => (i16::MIN.into(), i16::MAX.into()),
        "i32" => (i32::MIN.into(), i32::MAX.into()),
        "i64" => (i64::MIN.into(), i64::MAX.into()),
        "u8" => (0, u8::MAX.into()),
        "u16" => (0, u16::MAX.into()),
        "u32" => (0, u32::MAX.into()),
        "u64" => (0, u64::MAX.into()),
        _ => return None,
    };
    let value = match name {
        "MIN" => min,
        "MAX" => max,
        _ => return None,
    };
    Some(Lit {
        value: LitValue::Int(value),
        ty: super::element_type(ty),
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    fn lit(path: &str) -> Option<Lit> {
        rust_constant(&syn::parse_str(path).unwrap())
    }

    #[test]
    fn float_constants_keep_their_type_and_exact_value() {
        let l = lit("f32::NEG_INFINITY").unwrap();
        assert_eq!(l.value, LitValue::Float(f64::NEG_INFINITY));
        assert_eq!(l.ty, Some(PrimitiveType::F32));
        let l = lit("f32::MAX").unwrap();
        assert_eq!(l.value, LitValue::Float(3.4028234663852886e38));
        let l = lit("std::f64::consts::PI").unwrap();
        assert_eq!(l.value, LitValue::Float(std::f64::consts::PI));
        assert_eq!(l.ty, Some(PrimitiveType::F64));
        let l = lit("core::f32::EPSILON").unwrap();
        assert_eq!(l.value, LitValue::Float(1.1920928955078125e-7));
        assert!(matches!(lit("f64::NAN").unwrap().value, LitValue::Float(v) if v.is_nan()));
        assert_eq!(lit("i32::MIN").unwrap().value, LitValue::Int(-2147483648));
        assert_eq!(lit("u8::MAX").unwrap().ty, Some(PrimitiveType::U8));
    }

    #[test]
    fn other_paths_are_not_constants() {
        for p in [
            "f32::PI",
            "f32::consts::INFINITY",
            "x::y",
            "f16::MAX",
            "std::f32",
            "foo::bar::baz::qux",
        ] {
            assert!(lit(p).is_none(), "{p}");
        }
    }
}
