//! Printing literals in XLA notation.
//!
//! Follows XLA's `Literal::ToString` (`literal.cc`) and `RoundTripFpToString` (`util.cc`):
//!
//! * `Display` is `ToString`: the shape, a space, then the elements, one row of the innermost
//!   dimension per line for rank ≥ 2 (`f32[2,2] {\n  { 1, 2 },\n  { 3, 4 }\n}`); tuples are
//!   `(\nf32[] 1,\ns32[2] {1, 2}\n)`, tokens `token`.
//! * [`Literal::to_string_oneline`] is `ToStringOneline` (`f32[2,2] { { 1, 2 }, { 3, 4 } }`,
//!   tuples `( f32[] 1, s32[2] {1, 2} )`).
//! * [`Literal::hlo_constant_body`] is `ToStringWithoutShapeOneline`, the text XLA's HLO
//!   printer writes inside `constant(...)` and its parser reads back.
//!
//! Elements: integers in decimal; PRED as `true`/`false` for a scalar and `1`/`0` inside an
//! array; complex numbers as `(re, im)`. Floats are written like C's `%.*g`: f32 with 6
//! significant digits when that parses back to the same value, else 9; f64 with 15, else 17;
//! f16 always with 5 and bf16 with 4. Infinities are `inf`/`-inf`; NaN is `nan`, `-nan` when
//! the sign bit is set, followed by `(0x<payload>)` when the mantissa is not the default
//! quiet-NaN pattern (e.g. `nan(0x400001)`). Arrays of rank ≥ 4 carry `/*i0=1*/` index
//! comments after their inner opening braces, as XLA writes them.

use super::{ArrayData, Literal, LiteralValue};
use half::{bf16, f16};
use std::fmt::{self, Write};

impl fmt::Display for Literal {
    /// XLA's `Literal::ToString`: the shape and the elements, one innermost row per line.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_literal(
            f,
            self,
            Style {
                shape: true,
                oneline: false,
            },
        )
    }
}

impl Literal {
    /// XLA's `Literal::ToStringOneline`: shape and elements on one line,
    /// e.g. `f32[2,2] { { 1, 2 }, { 3, 4 } }`.
    pub fn to_string_oneline(&self) -> String {
        let mut s = String::new();
        // Writing to a String never fails.
        let _ = write_literal(
            &mut s,
            self,
            Style {
                shape: true,
                oneline: true,
            },
        );
        s
    }

    /// The text XLA's HLO printer writes inside `constant(...)`: `1.5`, `-inf`, `true`,
    /// `{13, 15, 26, 6}`, `{ { 1.5, -2.25 }, { inf, nan } }`, `(1, 2)` for a complex
    /// scalar, `( 1.5, {1, 2} )` for a tuple. XLA's HLO parser reads it back to the same bits.
    pub fn hlo_constant_body(&self) -> String {
        let mut s = String::new();
        // Writing to a String never fails.
        let _ = write_literal(
            &mut s,
            self,
            Style {
                shape: false,
                oneline: true,
            },
        );
        s
    }
}

#[derive(Clone, Copy)]
struct Style {
    shape: bool,
    oneline: bool,
}

fn write_literal(out: &mut impl Write, lit: &Literal, style: Style) -> fmt::Result {
    match lit.value() {
        LiteralValue::Tuple(elements) => {
            out.write_str(if style.oneline { "( " } else { "(\n" })?;
            for (i, e) in elements.iter().enumerate() {
                if i > 0 {
                    out.write_str(if style.oneline { ", " } else { ",\n" })?;
                }
                write_literal(out, e, style)?;
            }
            out.write_str(if style.oneline { " )" } else { "\n)" })
        }
        LiteralValue::Token => out.write_str("token"),
        LiteralValue::Array(data) => {
            if style.shape {
                write!(out, "{} ", lit.shape())?;
            }
            let dims = lit.shape().dims();
            if dims.is_empty() {
                return write_element(out, data, 0, true);
            }
            let mut printer = ArrayPrinter {
                out,
                data,
                dims,
                oneline: style.oneline,
                next: 0,
            };
            let mut index = Vec::with_capacity(dims.len());
            printer.print(&mut index)
        }
    }
}

/// Walks an array in row-major order, writing braces and separators as XLA's
/// `DenseArrayToStringHelper` does.
struct ArrayPrinter<'a, W: Write> {
    out: &'a mut W,
    data: &'a ArrayData,
    dims: &'a [i64],
    oneline: bool,
    /// Row-major position of the next element to print.
    next: usize,
}

impl<W: Write> ArrayPrinter<'_, W> {
    fn linebreak(&self) -> &'static str {
        if self.oneline {
            " "
        } else {
            "\n"
        }
    }

    /// Prints the sub-array at `index` (a prefix of a full index).
    fn print(&mut self, index: &mut Vec<i64>) -> fmt::Result {
        let depth = index.len();
        let Some((&size, rest)) = self.dims.get(depth..).and_then(|d| d.split_first()) else {
            let at = self.next;
            self.next += 1;
            return write_element(self.out, self.data, at, false);
        };
        self.open_brace(index, size, rest.is_empty())?;
        for i in 0..size {
            index.push(i);
            self.print(index)?;
            index.pop();
            if i + 1 < size {
                self.out.write_char(',')?;
                let sep = if rest.is_empty() {
                    " "
                } else {
                    self.linebreak()
                };
                self.out.write_str(sep)?;
            }
        }
        self.close_brace(size, rest.is_empty())
    }

    fn open_brace(&mut self, index: &[i64], size: i64, innermost: bool) -> fmt::Result {
        let rank = self.dims.len();
        if rank == 1 {
            return self.out.write_char('{');
        }
        if innermost {
            let indent = if self.oneline { "" } else { "  " };
            let space = if size <= 1 { "" } else { " " };
            return write!(self.out, "{indent}{{{space}");
        }
        self.out.write_char('{')?;
        if let (true, Some(&value)) = (rank > 3, index.last()) {
            write!(self.out, " /*i{}={}*/", index.len() - 1, value)?;
            if size > 0 {
                self.out.write_str(self.linebreak())?;
            }
            return Ok(());
        }
        self.out.write_str(self.linebreak())
    }

    fn close_brace(&mut self, size: i64, innermost: bool) -> fmt::Result {
        if self.dims.len() == 1 {
            return self.out.write_char('}');
        }
        if innermost {
            let space = if size <= 1 { "" } else { " " };
            return write!(self.out, "{space}}}");
        }
        let lb = self.linebreak();
        write!(self.out, "{lb}}}")
    }
}

/// Writes element `at` of `data`; PRED prints `true`/`false` for scalars, `1`/`0` in arrays.
/// A missing element (only possible if the data was replaced by a shorter vector through
/// [`Literal::array_data_mut`]) prints as `?` rather than failing the formatter.
fn write_element(out: &mut impl Write, data: &ArrayData, at: usize, scalar: bool) -> fmt::Result {
    out.write_str(element_text(data, at, scalar).as_deref().unwrap_or("?"))
}

fn element_text(data: &ArrayData, at: usize, scalar: bool) -> Option<String> {
    Some(match data {
        ArrayData::Pred(v) => {
            let b = *v.get(at)?;
            let text = match (b, scalar) {
                (true, true) => "true",
                (false, true) => "false",
                (true, false) => "1",
                (false, false) => "0",
            };
            text.to_string()
        }
        ArrayData::S8(v) => v.get(at)?.to_string(),
        ArrayData::S16(v) => v.get(at)?.to_string(),
        ArrayData::S32(v) => v.get(at)?.to_string(),
        ArrayData::S64(v) => v.get(at)?.to_string(),
        ArrayData::U8(v) => v.get(at)?.to_string(),
        ArrayData::U16(v) => v.get(at)?.to_string(),
        ArrayData::U32(v) => v.get(at)?.to_string(),
        ArrayData::U64(v) => v.get(at)?.to_string(),
        ArrayData::F16(v) => format_f16(*v.get(at)?),
        ArrayData::Bf16(v) => format_bf16(*v.get(at)?),
        ArrayData::F32(v) => format_f32(*v.get(at)?),
        ArrayData::F64(v) => format_f64(*v.get(at)?),
        ArrayData::C64(v) => {
            let c = v.get(at)?;
            format!("({}, {})", format_f32(c.re), format_f32(c.im))
        }
        ArrayData::C128(v) => {
            let c = v.get(at)?;
            format!("({}, {})", format_f64(c.re), format_f64(c.im))
        }
    })
}

/// An f32 as XLA prints it: `%.6g` when that reads back exactly, else `%.9g`.
pub fn format_f32(v: f32) -> String {
    if v.is_nan() {
        return format_nan(v.is_sign_negative(), u64::from(v.to_bits()), 23);
    }
    let short = format_g(f64::from(v), 6);
    if short.parse::<f32>().ok() == Some(v) {
        short
    } else {
        format_g(f64::from(v), 9)
    }
}

/// An f64 as XLA prints it: `%.15g` when that reads back exactly, else `%.17g`.
pub fn format_f64(v: f64) -> String {
    if v.is_nan() {
        return format_nan(v.is_sign_negative(), v.to_bits(), 52);
    }
    let short = format_g(v, 15);
    if short.parse::<f64>().ok() == Some(v) {
        short
    } else {
        format_g(v, 17)
    }
}

/// An f16 as XLA prints it: `%.5g`.
pub fn format_f16(v: f16) -> String {
    if v.is_nan() {
        return format_nan(v.is_sign_negative(), u64::from(v.to_bits()), 10);
    }
    format_g(v.to_f64(), 5)
}

/// A bf16 as XLA prints it: `%.4g`.
pub fn format_bf16(v: bf16) -> String {
    if v.is_nan() {
        return format_nan(v.is_sign_negative(), u64::from(v.to_bits()), 7);
    }
    format_g(v.to_f64(), 4)
}

/// `nan` / `-nan`, plus `(0x<payload>)` unless the mantissa is the plain quiet-NaN pattern.
fn format_nan(negative: bool, bits: u64, mantissa_bits: u32) -> String {
    let payload = bits & ((1u64 << mantissa_bits) - 1);
    let sign = if negative { "-" } else { "" };
    if payload == 1u64 << (mantissa_bits - 1) {
        format!("{sign}nan")
    } else {
        format!("{sign}nan({payload:#x})")
    }
}

/// C's `printf("%.*g", precision, v)` for finite and infinite `v` (`precision` ≥ 1).
pub fn format_g(v: f64, precision: usize) -> String {
    if v.is_infinite() {
        return if v < 0.0 { "-inf".into() } else { "inf".into() };
    }
    let p = precision.max(1);
    // Scientific form with p significant digits fixes the decimal exponent after rounding.
    let sci = format!("{:.*e}", p - 1, v);
    let (mantissa, exp) = sci.split_once('e').unwrap_or((sci.as_str(), "0"));
    let exp: i64 = exp.parse().unwrap_or(0);
    if exp < -4 || exp >= p as i64 {
        let mantissa = strip_zeros(mantissa);
        let sign = if exp < 0 { '-' } else { '+' };
        format!("{mantissa}e{sign}{:02}", exp.unsigned_abs())
    } else {
        let decimals = usize::try_from(p as i64 - 1 - exp).unwrap_or(0);
        strip_zeros(&format!("{v:.decimals$}")).to_string()
    }
}

/// Removes trailing zeros after a decimal point, and the point itself if nothing follows.
fn strip_zeros(s: &str) -> &str {
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.')
    } else {
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shape::Shape;

    #[test]
    fn printf_g() {
        // Expected values are what C's printf prints.
        let cases: &[(f64, usize, &str)] = &[
            (1.0, 6, "1"),
            (0.1, 6, "0.1"),
            (1e-5, 6, "1e-05"),
            (1e-4, 6, "0.0001"),
            (123456.0, 6, "123456"),
            (1234567.0, 6, "1.23457e+06"),
            (1e100, 15, "1e+100"),
            (-0.0, 6, "-0"),
            (0.0, 6, "0"),
            (9.9999996e-5, 6, "0.0001"),
            (999999.5, 6, "1e+06"),
        ];
        for &(v, p, want) in cases {
            assert_eq!(format_g(v, p), want, "%.{p}g of {v}");
        }
    }

    /// Every printed value reads back to the same bits (through a double for f16 and bf16, as
    /// XLA's parser does): all f16 and bf16 values, and a stride through f32 and f64.
    #[test]
    fn formats_round_trip() {
        for bits in 0..=u16::MAX {
            let h = f16::from_bits(bits);
            if !h.is_nan() {
                let back = format_f16(h).parse::<f64>().map(f16::from_f64);
                assert_eq!(back.map(f16::to_bits), Ok(bits), "f16 {bits:#x}");
            }
            let b = bf16::from_bits(bits);
            if !b.is_nan() {
                let back = format_bf16(b).parse::<f64>().map(bf16::from_f64);
                assert_eq!(back.map(bf16::to_bits), Ok(bits), "bf16 {bits:#x}");
            }
        }
        for bits in (0..=u32::MAX).step_by(40_009) {
            let x = f32::from_bits(bits);
            if !x.is_nan() {
                assert_eq!(
                    format_f32(x).parse::<f32>().map(f32::to_bits),
                    Ok(bits),
                    "f32 {bits:#x}"
                );
            }
            let y = f64::from_bits(u64::from(bits).wrapping_mul(0x9e37_79b9_7f4a_7c15));
            if !y.is_nan() {
                assert_eq!(
                    format_f64(y).parse::<f64>().map(f64::to_bits),
                    Ok(y.to_bits()),
                    "{y:e}"
                );
            }
        }
    }

    #[test]
    fn broken_invariant_does_not_panic() {
        let mut lit = Literal::vec1(&[1i32, 2, 3]);
        if let Some(d) = lit.array_data_mut() {
            *d = ArrayData::S32(vec![7]);
        }
        assert_eq!(lit.hlo_constant_body(), "{7, ?, ?}");
    }

    #[test]
    fn shape_prefix() {
        let lit = Literal::scalar(1.5f32);
        assert_eq!(lit.to_string(), "f32[] 1.5");
        assert_eq!(
            Shape::scalar(crate::PrimitiveType::F32).to_string(),
            "f32[]"
        );
    }
}
