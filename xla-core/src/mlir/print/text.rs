//! Spelling values in MLIR: types, symbols, integer arrays and exact hex constants.

use super::{fail, PResult};
use crate::literal::{ArrayData, Literal};
use crate::shape::Shape;
use crate::types::PrimitiveType;

/// The MLIR element type name.
pub(super) fn element(t: PrimitiveType) -> PResult<&'static str> {
    use PrimitiveType as P;
    Ok(match t {
        P::Pred => "i1",
        P::S8 => "i8",
        P::S16 => "i16",
        P::S32 => "i32",
        P::S64 => "i64",
        P::U8 => "ui8",
        P::U16 => "ui16",
        P::U32 => "ui32",
        P::U64 => "ui64",
        P::F16 => "f16",
        P::Bf16 => "bf16",
        P::F32 => "f32",
        P::F64 => "f64",
        P::C64 => "complex<f32>",
        P::C128 => "complex<f64>",
        P::Tuple | P::Token => return fail(format!("{t} is not an element type")),
    })
}

/// The MLIR type of a shape.
pub(super) fn ty(s: &Shape) -> PResult<String> {
    match s {
        Shape::Token => Ok("!stablehlo.token".into()),
        Shape::Tuple(t) => Ok(format!(
            "tuple<{}>",
            t.iter().map(ty).collect::<PResult<Vec<_>>>()?.join(", ")
        )),
        Shape::Array(a) => {
            let mut out = String::from("tensor<");
            for d in &a.dims {
                out.push_str(&format!("{d}x"));
            }
            out.push_str(element(a.ty)?);
            out.push('>');
            Ok(out)
        }
    }
}

/// A symbol name MLIR accepts bare, or quoted.
pub(super) fn symbol(name: &str) -> String {
    let bare = name
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '$'))
        && name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_');
    if bare {
        name.to_string()
    } else {
        format!("\"{}\"", name.replace('\\', "\\\\").replace('"', "\\\""))
    }
}

/// `array<i64: 1, 2>`.
pub(super) fn i64s(v: &[i64]) -> String {
    if v.is_empty() {
        return "array<i64>".into();
    }
    format!(
        "array<i64: {}>",
        v.iter().map(i64::to_string).collect::<Vec<_>>().join(", ")
    )
}

/// `[1, 2]` (inside `#stablehlo.gather<...>` and friends).
pub(super) fn list(v: &[i64]) -> String {
    format!(
        "[{}]",
        v.iter().map(i64::to_string).collect::<Vec<_>>().join(", ")
    )
}

/// `dense<[[lo, hi], ...]> : tensor<Nx2xi64>`.
pub(super) fn pairs(v: &[(i64, i64)]) -> String {
    let rows: Vec<String> = v.iter().map(|(a, b)| format!("[{a}, {b}]")).collect();
    format!("dense<[{}]> : tensor<{}x2xi64>", rows.join(", "), v.len())
}

/// The little-endian bytes of every element, as MLIR's hex form wants them.
fn bytes(d: &ArrayData) -> Vec<u8> {
    let mut out = Vec::new();
    match d {
        ArrayData::Pred(v) => out.extend(v.iter().map(|&b| u8::from(b))),
        ArrayData::S8(v) => out.extend(v.iter().flat_map(|x| x.to_le_bytes())),
        ArrayData::S16(v) => out.extend(v.iter().flat_map(|x| x.to_le_bytes())),
        ArrayData::S32(v) => out.extend(v.iter().flat_map(|x| x.to_le_bytes())),
        ArrayData::S64(v) => out.extend(v.iter().flat_map(|x| x.to_le_bytes())),
        ArrayData::U8(v) => out.extend(v.iter()),
        ArrayData::U16(v) => out.extend(v.iter().flat_map(|x| x.to_le_bytes())),
        ArrayData::U32(v) => out.extend(v.iter().flat_map(|x| x.to_le_bytes())),
        ArrayData::U64(v) => out.extend(v.iter().flat_map(|x| x.to_le_bytes())),
        ArrayData::F16(v) => out.extend(v.iter().flat_map(|x| x.to_bits().to_le_bytes())),
        ArrayData::Bf16(v) => out.extend(v.iter().flat_map(|x| x.to_bits().to_le_bytes())),
        ArrayData::F32(v) => out.extend(v.iter().flat_map(|x| x.to_bits().to_le_bytes())),
        ArrayData::F64(v) => out.extend(v.iter().flat_map(|x| x.to_bits().to_le_bytes())),
        ArrayData::C64(v) => out.extend(
            v.iter()
                .flat_map(|c| [c.re.to_bits().to_le_bytes(), c.im.to_bits().to_le_bytes()])
                .flatten(),
        ),
        ArrayData::C128(v) => out.extend(
            v.iter()
                .flat_map(|c| [c.re.to_bits().to_le_bytes(), c.im.to_bits().to_le_bytes()])
                .flatten(),
        ),
    }
    out
}

/// `dense<"0x...">` (or `dense<>` when empty) for an array literal.
pub(super) fn dense(lit: &Literal) -> PResult<String> {
    let Some(d) = lit.array_data() else {
        return fail("a tuple constant (split it into array constants)");
    };
    if d.is_empty() {
        return Ok("dense<>".into());
    }
    let hex: String = bytes(d).iter().map(|b| format!("{b:02X}")).collect();
    Ok(format!("dense<\"0x{hex}\">"))
}
