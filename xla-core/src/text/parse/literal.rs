//! Constant literals: `1.5`, `-inf`, `nan`, `-nan(0x1)`, `true`, `{1, 2}`,
//! `{ { 1.5, -2.25 }, { inf, nan } }`, complex `(1, 2)`, tuples `(1, {2, 3})`.
//! The shape comes from the instruction; values are parsed as XLA does (floats through a
//! double, then rounded to the element type).

use super::{PResult, ParseError, ParseErrorKind, Parser};
use crate::literal::{ArrayData, Literal};
use crate::shape::Shape;
use crate::text::lexer::{Pos, Tok};
use half::{bf16, f16};
use num_complex::{Complex32, Complex64};

/// A parsed floating-point value: a number, or a NaN with its sign and optional payload.
#[derive(Clone, Copy, Debug)]
enum FloatVal {
    Num(f64),
    Nan {
        negative: bool,
        payload: Option<u64>,
    },
}

/// Bit layout of a float format: exponent mask, mantissa mask, sign bit, quiet bit.
struct FloatBits {
    exp: u64,
    mantissa: u64,
    sign: u64,
}

const F16_BITS: FloatBits = FloatBits {
    exp: 0x7c00,
    mantissa: 0x3ff,
    sign: 0x8000,
};
const BF16_BITS: FloatBits = FloatBits {
    exp: 0x7f80,
    mantissa: 0x7f,
    sign: 0x8000,
};
const F32_BITS: FloatBits = FloatBits {
    exp: 0x7f80_0000,
    mantissa: 0x7f_ffff,
    sign: 0x8000_0000,
};
const F64_BITS: FloatBits = FloatBits {
    exp: 0x7ff0_0000_0000_0000,
    mantissa: 0x000f_ffff_ffff_ffff,
    sign: 0x8000_0000_0000_0000,
};

impl FloatVal {
    /// The NaN bits in format `b`, or `None` if the payload does not fit.
    fn nan_bits(negative: bool, payload: Option<u64>, b: &FloatBits) -> Option<u64> {
        let quiet = (b.mantissa + 1) >> 1;
        let payload = payload.unwrap_or(quiet);
        if payload == 0 || payload > b.mantissa {
            return None;
        }
        Some(b.exp | payload | if negative { b.sign } else { 0 })
    }
}

impl Parser<'_> {
    /// Parses a literal of `shape` (the text inside `constant(...)`).
    pub(super) fn literal(&mut self, shape: &Shape) -> PResult<Literal> {
        match shape {
            Shape::Tuple(elements) => self.tuple_literal(elements),
            Shape::Token => Err(self.error(
                ParseErrorKind::InvalidValue,
                "a constant cannot have a token shape",
            )),
            Shape::Array(a) if self.at_elided() => {
                let pos = self.here();
                for _ in 0..3 {
                    self.bump();
                }
                let mut next = self.elided.get();
                let lit = elided_literal(a.ty, &a.dims, &mut next)
                    .map_err(|e| ParseError::new(pos, ParseErrorKind::InvalidValue, e))?;
                self.elided.set(next);
                Ok(lit)
            }
            Shape::Array(a) => {
                let pos = self.here();
                let Some(mut data) = ArrayData::zeros(a.ty, 0) else {
                    return Err(self.error(ParseErrorKind::InvalidValue, "not an array type"));
                };
                if a.dims.is_empty() {
                    self.value_into(&mut data)?;
                } else {
                    self.dense(&a.dims, &mut data)?;
                }
                Literal::from_array_data(shape.clone(), data)
                    .map_err(|e| ParseError::new(pos, ParseErrorKind::InvalidValue, e.to_string()))
            }
        }
    }

    /// True at `{...}`: a constant XLA's printer elided.
    fn at_elided(&self) -> bool {
        self.peek() == &Tok::LBrace
            && matches!(self.peek_at(1), Tok::Word(w) if w == "...")
            && self.peek_at(2) == &Tok::RBrace
    }

    fn tuple_literal(&mut self, elements: &[Shape]) -> PResult<Literal> {
        self.enter()?;
        self.expect(&Tok::LParen)?;
        let mut values = Vec::with_capacity(elements.len());
        for (i, shape) in elements.iter().enumerate() {
            if i > 0 {
                self.expect(&Tok::Comma)?;
            }
            if self.at_shape() && self.peek() != &Tok::LParen {
                self.shape()?;
            }
            values.push(self.literal(shape)?);
        }
        self.expect(&Tok::RParen)?;
        self.leave();
        Ok(Literal::tuple(values))
    }

    /// Nested braces matching `dims`, without recursion: `counts[l]` is the number of
    /// children seen so far in the open brace at level `l`.
    fn dense(&mut self, dims: &[i64], data: &mut ArrayData) -> PResult<()> {
        self.expect(&Tok::LBrace)?;
        let mut counts: Vec<i64> = vec![0];
        while let Some(&count) = counts.last() {
            let level = counts.len() - 1;
            let want = dims.get(level).copied().unwrap_or(0);
            if self.peek() == &Tok::RBrace {
                if count != want {
                    return Err(self.count_error(want, count));
                }
                self.bump();
                counts.pop();
                if let Some(parent) = counts.last_mut() {
                    *parent += 1;
                }
                continue;
            }
            if count > 0 && !self.eat(&Tok::Comma) {
                return Err(self.expected("',' or '}'"));
            }
            if count >= want {
                return Err(self.count_error(want, count + 1));
            }
            if level + 1 < dims.len() {
                self.expect(&Tok::LBrace)?;
                counts.push(0);
            } else {
                self.value_into(data)?;
                if let Some(c) = counts.last_mut() {
                    *c += 1;
                }
            }
        }
        Ok(())
    }

    fn count_error(&self, want: i64, found: i64) -> ParseError {
        self.error(
            ParseErrorKind::InvalidValue,
            format!("literal: expected {want} elements in this dimension but found {found}"),
        )
    }

    /// Parses one element and appends it to `data`.
    fn value_into(&mut self, data: &mut ArrayData) -> PResult<()> {
        match data {
            ArrayData::Pred(v) => v.push(self.pred_value()?),
            ArrayData::S8(v) => v.push(self.int_value()?),
            ArrayData::S16(v) => v.push(self.int_value()?),
            ArrayData::S32(v) => v.push(self.int_value()?),
            ArrayData::S64(v) => v.push(self.int_value()?),
            ArrayData::U8(v) => v.push(self.int_value()?),
            ArrayData::U16(v) => v.push(self.int_value()?),
            ArrayData::U32(v) => v.push(self.int_value()?),
            ArrayData::U64(v) => v.push(self.int_value()?),
            ArrayData::F16(v) => {
                v.push(self.float_as(&F16_BITS, f16::from_f64, |b| f16::from_bits(b as u16))?)
            }
            ArrayData::Bf16(v) => {
                v.push(self.float_as(&BF16_BITS, bf16::from_f64, |b| bf16::from_bits(b as u16))?)
            }
            ArrayData::F32(v) => v.push(self.f32_value()?),
            ArrayData::F64(v) => v.push(self.f64_value()?),
            ArrayData::C64(v) => {
                let (re, im) = self.complex(Self::f32_value)?;
                v.push(Complex32::new(re, im));
            }
            ArrayData::C128(v) => {
                let (re, im) = self.complex(Self::f64_value)?;
                v.push(Complex64::new(re, im));
            }
        }
        Ok(())
    }

    fn complex<T>(&mut self, part: fn(&mut Self) -> PResult<T>) -> PResult<(T, T)> {
        self.expect(&Tok::LParen)?;
        let re = part(self)?;
        self.expect(&Tok::Comma)?;
        let im = part(self)?;
        self.expect(&Tok::RParen)?;
        Ok((re, im))
    }

    fn f32_value(&mut self) -> PResult<f32> {
        self.float_as(&F32_BITS, |x| x as f32, |b| f32::from_bits(b as u32))
    }

    fn f64_value(&mut self) -> PResult<f64> {
        self.float_as(&F64_BITS, |x| x, f64::from_bits)
    }

    fn float_as<T>(
        &mut self,
        bits: &FloatBits,
        from_f64: impl Fn(f64) -> T,
        from_bits: impl Fn(u64) -> T,
    ) -> PResult<T> {
        let pos = self.here();
        match self.float_value()? {
            FloatVal::Num(x) => Ok(from_f64(x)),
            FloatVal::Nan { negative, payload } => FloatVal::nan_bits(negative, payload, bits)
                .map(from_bits)
                .ok_or_else(|| {
                    ParseError::new(
                        pos,
                        ParseErrorKind::InvalidValue,
                        "NaN payload does not fit the type",
                    )
                }),
        }
    }

    /// A float: a decimal number, `inf`, `-inf`, `nan`, `-nan`, `nan(0x...)`.
    fn float_value(&mut self) -> PResult<FloatVal> {
        let pos = self.here();
        let (w, _) = self.word("a number")?;
        let (negative, body) = match w.strip_prefix('-') {
            Some(rest) => (true, rest),
            None => (false, w.strip_prefix('+').unwrap_or(&w)),
        };
        if body == "nan" {
            let payload = if self.eat(&Tok::LParen) {
                Some(self.nan_payload()?)
            } else {
                None
            };
            return Ok(FloatVal::Nan { negative, payload });
        }
        let valid = body
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '+'));
        match w.parse::<f64>() {
            Ok(x) if valid && !x.is_nan() => Ok(FloatVal::Num(x)),
            _ => Err(bad_number(pos, &w, "a number")),
        }
    }

    fn nan_payload(&mut self) -> PResult<u64> {
        let pos = self.here();
        let (w, _) = self.word("a NaN payload")?;
        let hex = w
            .strip_prefix("0x")
            .ok_or_else(|| bad_number(pos, &w, "a hex NaN payload"))?;
        let v =
            u64::from_str_radix(hex, 16).map_err(|_| bad_number(pos, &w, "a hex NaN payload"))?;
        self.expect(&Tok::RParen)?;
        Ok(v)
    }

    fn int_value<T: TryFrom<i128>>(&mut self) -> PResult<T> {
        let pos = self.here();
        let (w, _) = self.word("an integer")?;
        let v: i128 = w.parse().map_err(|_| bad_number(pos, &w, "an integer"))?;
        T::try_from(v).map_err(|_| {
            ParseError::new(
                pos,
                ParseErrorKind::InvalidValue,
                format!("integer {w} is out of range for the element type"),
            )
        })
    }

    fn pred_value(&mut self) -> PResult<bool> {
        let pos = self.here();
        let (w, _) = self.word("true or false")?;
        match w.as_str() {
            "true" | "1" => Ok(true),
            "false" | "0" => Ok(false),
            _ => Err(bad_number(pos, &w, "true or false")),
        }
    }
}

fn bad_number(pos: Pos, w: &str, what: &str) -> ParseError {
    ParseError::new(
        pos,
        ParseErrorKind::InvalidValue,
        format!("expected {what} but found '{w}'"),
    )
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn nan_bits_per_format() {
        let cases: [(&FloatBits, bool, Option<u64>, Option<u64>); 8] = [
            (&F32_BITS, false, None, Some(0x7fc0_0000)),
            (&F32_BITS, true, None, Some(0xffc0_0000)),
            (&F32_BITS, false, Some(1), Some(0x7f80_0001)),
            (&F32_BITS, false, Some(0x80_0000), None),
            (&F64_BITS, false, None, Some(0x7ff8_0000_0000_0000)),
            (&F16_BITS, true, Some(0x3ff), Some(0xfc00 | 0x3ff)),
            (&BF16_BITS, false, None, Some(0x7fc0)),
            (&BF16_BITS, false, Some(0), None),
        ];
        for (bits, negative, payload, want) in cases {
            assert_eq!(
                FloatVal::nan_bits(negative, payload, bits),
                want,
                "{payload:?}"
            );
        }
    }
}

/// XLA's two placeholder counters for elided constants, both running on across a module's
/// constants (XLA's run across the process): one of 32-bit words and one of the bytes that
/// follow a constant's last whole word.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct ElidedCounters {
    words: u32,
    bytes: u32,
}

/// The placeholder value XLA's HLO parser gives an elided constant (`constant({...})`), bit
/// for bit: its first `n = size / 4` words hold little-endian 32-bit words counting up from
/// `next.words`; then its `size % 4` tail bytes take the byte counter `next.bytes`, written,
/// as XLA writes them, at *byte* offset `n` (over the words' bytes when `n > 0`; the last
/// bytes stay zero). PRED words and bytes hold their count modulo 2. Checked against real
/// XLA by `testdata/hlo_elided` and `testdata/hlo_elided_tail`.
pub(crate) fn elided_literal(
    ty: crate::types::PrimitiveType,
    dims: &[i64],
    next: &mut ElidedCounters,
) -> Result<Literal, String> {
    use crate::types::PrimitiveType as P;
    let count: usize = dims
        .iter()
        .map(|&d| usize::try_from(d).unwrap_or(0))
        .product();
    let size = ty.byte_size();
    let mut bytes = vec![0u8; count.checked_mul(size).ok_or("the constant is too large")?];
    let pred = ty == P::Pred;
    for word in bytes.chunks_exact_mut(4) {
        let v = if pred { next.words % 2 } else { next.words };
        word.copy_from_slice(&v.to_le_bytes());
        next.words = next.words.wrapping_add(1);
    }
    let whole = bytes.len() / 4;
    for j in 0..bytes.len() % 4 {
        if let Some(b) = bytes.get_mut(whole + j) {
            let v = if pred { next.bytes % 2 } else { next.bytes };
            *b = v.to_le_bytes()[0];
        }
        next.bytes = next.bytes.wrapping_add(1);
    }
    macro_rules! read {
        ($t:ty, $n:literal) => {
            bytes
                .chunks_exact($n)
                .map(|c| {
                    let mut b = [0u8; $n];
                    b.copy_from_slice(c);
                    <$t>::from_le_bytes(b)
                })
                .collect::<Vec<$t>>()
        };
    }
    let data = match ty {
        P::Pred => ArrayData::Pred(bytes.iter().map(|&b| b != 0).collect()),
        P::S8 => ArrayData::S8(read!(i8, 1)),
        P::U8 => ArrayData::U8(bytes.clone()),
        P::S16 => ArrayData::S16(read!(i16, 2)),
        P::U16 => ArrayData::U16(read!(u16, 2)),
        P::F16 => ArrayData::F16(read!(u16, 2).into_iter().map(f16::from_bits).collect()),
        P::Bf16 => ArrayData::Bf16(read!(u16, 2).into_iter().map(bf16::from_bits).collect()),
        P::S32 => ArrayData::S32(read!(i32, 4)),
        P::U32 => ArrayData::U32(read!(u32, 4)),
        P::F32 => ArrayData::F32(read!(u32, 4).into_iter().map(f32::from_bits).collect()),
        P::S64 => ArrayData::S64(read!(i64, 8)),
        P::U64 => ArrayData::U64(read!(u64, 8)),
        P::F64 => ArrayData::F64(read!(u64, 8).into_iter().map(f64::from_bits).collect()),
        P::C64 => {
            let parts: Vec<f32> = read!(u32, 4).into_iter().map(f32::from_bits).collect();
            ArrayData::C64(
                parts
                    .chunks_exact(2)
                    .map(|c| Complex32::new(c[0], c[1]))
                    .collect(),
            )
        }
        P::C128 => {
            let parts: Vec<f64> = read!(u64, 8).into_iter().map(f64::from_bits).collect();
            ArrayData::C128(
                parts
                    .chunks_exact(2)
                    .map(|c| Complex64::new(c[0], c[1]))
                    .collect(),
            )
        }
        P::Tuple | P::Token => return Err(format!("no constant of type {ty}")),
    };
    Literal::from_array_data(Shape::array(ty, dims.to_vec()), data).map_err(|e| e.to_string())
}
