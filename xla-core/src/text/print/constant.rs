//! The body of `constant(...)`. Temporary: replaced by `Literal::hlo_constant_body` when the
//! literal printer lands.

use super::format_float_g;
use crate::literal::{ArrayData, Literal, LiteralValue};

/// The text between the parentheses of `constant(...)`.
pub(super) fn constant_body(lit: &Literal) -> String {
    match lit.value() {
        LiteralValue::Array(data) => {
            let elems = elements(data);
            let dims = lit.shape().dims().to_vec();
            if dims.is_empty() {
                elems.into_iter().next().unwrap_or_default()
            } else {
                let mut it = elems.into_iter();
                nested(&dims, &mut it)
            }
        }
        LiteralValue::Tuple(t) => {
            let parts: Vec<String> = t.iter().map(constant_body).collect();
            format!("({})", parts.join(", "))
        }
        LiteralValue::Token => String::new(),
    }
}

fn nested(dims: &[i64], it: &mut impl Iterator<Item = String>) -> String {
    match dims {
        [] => it.next().unwrap_or_default(),
        [n] => {
            let v: Vec<String> = (0..*n).map(|_| it.next().unwrap_or_default()).collect();
            format!("{{{}}}", v.join(", "))
        }
        [n, rest @ ..] => {
            let v: Vec<String> = (0..*n).map(|_| nested(rest, it)).collect();
            format!("{{ {} }}", v.join(", "))
        }
    }
}

fn f64_text(x: f64) -> String {
    if x.is_nan() {
        "nan".into()
    } else if x.is_infinite() {
        if x > 0.0 {
            "inf".into()
        } else {
            "-inf".into()
        }
    } else {
        format!("{x:e}")
    }
}

fn elements(data: &ArrayData) -> Vec<String> {
    match data {
        ArrayData::Pred(v) => v
            .iter()
            .map(|&b| if b { "true" } else { "false" }.into())
            .collect(),
        ArrayData::S8(v) => v.iter().map(|x| x.to_string()).collect(),
        ArrayData::S16(v) => v.iter().map(|x| x.to_string()).collect(),
        ArrayData::S32(v) => v.iter().map(|x| x.to_string()).collect(),
        ArrayData::S64(v) => v.iter().map(|x| x.to_string()).collect(),
        ArrayData::U8(v) => v.iter().map(|x| x.to_string()).collect(),
        ArrayData::U16(v) => v.iter().map(|x| x.to_string()).collect(),
        ArrayData::U32(v) => v.iter().map(|x| x.to_string()).collect(),
        ArrayData::U64(v) => v.iter().map(|x| x.to_string()).collect(),
        ArrayData::F16(v) => v.iter().map(|x| format_float_g(x.to_f32())).collect(),
        ArrayData::Bf16(v) => v.iter().map(|x| format_float_g(x.to_f32())).collect(),
        ArrayData::F32(v) => v.iter().map(|&x| format_float_g(x)).collect(),
        ArrayData::F64(v) => v.iter().map(|&x| f64_text(x)).collect(),
        ArrayData::C64(v) => v
            .iter()
            .map(|c| format!("({}, {})", format_float_g(c.re), format_float_g(c.im)))
            .collect(),
        ArrayData::C128(v) => v
            .iter()
            .map(|c| format!("({}, {})", f64_text(c.re), f64_text(c.im)))
            .collect(),
    }
}
