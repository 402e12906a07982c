//! Attribute values: numbers, strings, lists, `array<i64: ...>`, `dense<...>`, dictionaries,
//! `#stablehlo<enum VALUE>`, `#stablehlo.gather<key = value, ...>`, convolution dimension
//! numbers and the pretty forms' `[a] x [b]` pairs. Unknown dialect attributes (`#sdy...`)
//! are skipped whole.

use super::{Dict, PResult, Parser};
use crate::attrs::ConvDimensionNumbers;
use crate::mlir::ast::{Attr, DenseBody, DenseElem};
use crate::mlir::lexer::Tok;
use crate::mlir::MlirErrorKind;

/// A number word as an integer, if it is one (decimal, or `0x` hex as its bit pattern).
pub(crate) fn parse_int(w: &str) -> Option<i128> {
    w.parse::<i128>().ok()
}

fn parse_float(w: &str) -> Option<f64> {
    match w {
        "inf" => Some(f64::INFINITY),
        "nan" => Some(f64::NAN),
        _ if w.starts_with(|c: char| c.is_ascii_digit() || c == '-') => w.parse::<f64>().ok(),
        _ => None,
    }
}

fn hex_bits(w: &str) -> Option<u64> {
    let h = w.strip_prefix("0x").or_else(|| w.strip_prefix("0X"))?;
    u64::from_str_radix(h, 16).ok()
}

impl Parser<'_> {
    /// One attribute value; `typed` lets a trailing `: type` belong to the value (inside
    /// dictionaries) rather than to the op (in pretty forms).
    pub(crate) fn attr_value(&mut self, typed: bool) -> PResult<Attr> {
        self.enter()?;
        let v = self.attr_inner(typed);
        self.leave();
        v
    }

    fn attr_inner(&mut self, typed: bool) -> PResult<Attr> {
        let attr = match self.peek() {
            Tok::Punct('[') => return self.list_attr(),
            Tok::Punct('{') => {
                let (d, raw) = self.attr_dict()?;
                Attr::Dict(d, raw)
            }
            Tok::Punct('<') => {
                self.skip_balanced()?;
                Attr::Unit
            }
            Tok::Str(s) => {
                self.bump();
                Attr::Str(s.clone())
            }
            Tok::Symbol(s) => {
                self.bump();
                Attr::Symbol(s.clone())
            }
            Tok::Hash(name) => {
                self.bump();
                self.dialect_attr(name)?
            }
            Tok::Bang(_) => Attr::Type(self.ty()?),
            Tok::Word(w) => return self.word_attr(&w.clone(), typed),
            t => {
                return self.err(
                    MlirErrorKind::Syntax,
                    format!("expected an attribute value but found {t}"),
                )
            }
        };
        Ok(attr)
    }

    fn word_attr(&mut self, w: &str, typed: bool) -> PResult<Attr> {
        match w {
            "dense" => {
                self.bump();
                return self.dense(typed);
            }
            "array" => {
                self.bump();
                return self.array_attr();
            }
            "true" | "false" => {
                self.bump();
                return Ok(Attr::Bool(w == "true"));
            }
            "unit" => {
                self.bump();
                return Ok(Attr::Unit);
            }
            "tensor" | "tuple" | "complex" => return Ok(Attr::Type(self.ty()?)),
            "dense_resource" | "sparse" => {
                return self.err(
                    MlirErrorKind::Attribute,
                    format!("'{w}' attributes are not supported"),
                )
            }
            _ => {}
        }
        self.bump();
        let v = if let Some(i) = parse_int(w) {
            Attr::Int(i)
        } else if let Some(b) = hex_bits(w) {
            Attr::Int(i128::from(b))
        } else if let Some(f) = parse_float(w) {
            Attr::Float(f)
        } else {
            return Ok(Attr::Word(w.to_string()));
        };
        if typed && self.is(':') {
            self.bump();
            self.ty()?;
        }
        Ok(v)
    }

    /// `[a, b, ...]`, then `x [..]` (a pair) and `-> [..]` (convolution dims).
    fn list_attr(&mut self) -> PResult<Attr> {
        let first = self.plain_list()?;
        if !self.is_word("x") {
            return Ok(Attr::List(first));
        }
        self.bump();
        let second = self.plain_list()?;
        if self.peek() != &Tok::Arrow {
            return Ok(Attr::Pair(first, second));
        }
        let pos = self.here();
        self.bump();
        let third = self.plain_list()?;
        conv_dims(&first, &second, &third)
            .map(|d| Attr::Conv(Box::new(d)))
            .ok_or_else(|| {
                crate::mlir::MlirError::new(
                    pos,
                    MlirErrorKind::Attribute,
                    "malformed convolution dimension numbers",
                )
            })
    }

    fn plain_list(&mut self) -> PResult<Vec<Attr>> {
        self.expect('[')?;
        let mut v = Vec::new();
        while !self.eat(']') {
            v.push(self.attr_value(true)?);
            if !self.eat(',') {
                self.expect(']')?;
                break;
            }
        }
        Ok(v)
    }

    /// `array<i64: 1, 2>` after `array`.
    fn array_attr(&mut self) -> PResult<Attr> {
        self.expect('<')?;
        self.word("an element type")?;
        let mut v = Vec::new();
        if self.eat(':') {
            loop {
                v.push(self.attr_value(false)?);
                if !self.eat(',') {
                    break;
                }
            }
        }
        self.expect('>')?;
        Ok(Attr::List(v))
    }

    /// `{key = value, key2, ...}` and its source text.
    pub(crate) fn attr_dict(&mut self) -> PResult<(Dict, String)> {
        let start = self.offset();
        self.expect('{')?;
        let mut d = Vec::new();
        while !self.eat('}') {
            let key = match self.peek() {
                Tok::Word(w) => w.clone(),
                Tok::Str(s) => String::from_utf8_lossy(s).into_owned(),
                t => {
                    return self.err(
                        MlirErrorKind::Syntax,
                        format!("expected an attribute name but found {t}"),
                    )
                }
            };
            self.bump();
            let v = if self.eat('=') {
                self.attr_value(true)?
            } else {
                Attr::Unit
            };
            d.push((key, v));
            if !self.eat(',') {
                self.expect('}')?;
                break;
            }
        }
        let end = self.offset();
        let raw = self.text_between(start, end);
        Ok((d, raw))
    }

    fn text_between(&self, start: usize, end: usize) -> String {
        let raw = self.text.get(start..end).unwrap_or_default();
        raw.trim_end().to_string()
    }

    /// After `#name`: `<enum VALUE>`, `<key = value, ...>`, `<[..]x[..]->[..]>`, or skipped.
    fn dialect_attr(&mut self, name: &str) -> PResult<Attr> {
        if !self.is('<') {
            return Ok(Attr::Unit);
        }
        let known =
            name.starts_with("stablehlo") || name.starts_with("mhlo") || name.starts_with("chlo");
        if !known {
            self.skip_balanced()?;
            return Ok(Attr::Unit);
        }
        self.bump();
        if self.is('[') {
            let v = self.list_attr()?;
            self.expect('>')?;
            return Ok(v);
        }
        if self.is_word("raw") {
            return self.err(
                MlirErrorKind::Attribute,
                "raw convolution dimension numbers are not supported",
            );
        }
        if matches!(self.peek(), Tok::Word(_)) && self.peek_at(1) == &Tok::Punct('=') {
            let mut fields = Vec::new();
            while !self.eat('>') {
                let key = self.word("a field name")?;
                self.expect('=')?;
                fields.push((key, self.attr_value(true)?));
                if !self.eat(',') {
                    self.expect('>')?;
                    break;
                }
            }
            return Ok(Attr::Struct(name.to_string(), fields));
        }
        let mut last = Attr::Unit;
        while !self.eat('>') {
            match self.peek() {
                Tok::Word(w) => {
                    last = Attr::Word(w.clone());
                    self.bump();
                }
                Tok::Eof => return self.err(MlirErrorKind::Syntax, "unterminated attribute"),
                _ => {
                    self.skip_one()?;
                }
            }
        }
        Ok(last)
    }

    fn skip_one(&mut self) -> PResult<()> {
        if matches!(self.peek(), Tok::Punct('(' | '[' | '{' | '<')) {
            self.skip_balanced()
        } else {
            self.bump();
            Ok(())
        }
    }

    /// `dense<...>` after `dense`, with its `: type` when `typed`.
    fn dense(&mut self, typed: bool) -> PResult<Attr> {
        self.expect('<')?;
        let body = match self.peek() {
            Tok::Str(s) => {
                let pos = self.here();
                self.bump();
                let text = String::from_utf8_lossy(s).into_owned();
                DenseBody::Hex(hex_bytes(&text).ok_or_else(|| {
                    crate::mlir::MlirError::new(
                        pos,
                        MlirErrorKind::Attribute,
                        "malformed hex string in dense<...>",
                    )
                })?)
            }
            Tok::Punct('>') => DenseBody::Elems(Vec::new()),
            Tok::Punct('[') => {
                let mut out = Vec::new();
                self.dense_list(&mut out)?;
                DenseBody::Elems(out)
            }
            _ => DenseBody::Splat(self.dense_elem()?),
        };
        self.expect('>')?;
        let ty = if typed && self.eat(':') {
            Some(self.ty()?)
        } else {
            None
        };
        Ok(Attr::Dense(body, ty))
    }

    fn dense_list(&mut self, out: &mut Vec<DenseElem>) -> PResult<()> {
        self.enter()?;
        self.expect('[')?;
        while !self.eat(']') {
            if self.is('[') {
                self.dense_list(out)?;
            } else {
                out.push(self.dense_elem()?);
            }
            if !self.eat(',') {
                self.expect(']')?;
                break;
            }
        }
        self.leave();
        Ok(())
    }

    fn dense_elem(&mut self) -> PResult<DenseElem> {
        if self.eat('(') {
            let re = self.dense_elem()?;
            self.expect(',')?;
            let im = self.dense_elem()?;
            self.expect(')')?;
            return Ok(DenseElem::Complex(Box::new(re), Box::new(im)));
        }
        let pos = self.here();
        let w = self.word("a dense element")?;
        if w == "true" || w == "false" {
            return Ok(DenseElem::Bool(w == "true"));
        }
        if let Some(i) = parse_int(&w) {
            return Ok(DenseElem::Int(i));
        }
        if let Some(b) = hex_bits(&w) {
            return Ok(DenseElem::Bits(b));
        }
        parse_float(&w).map(DenseElem::Float).ok_or_else(|| {
            crate::mlir::MlirError::new(
                pos,
                MlirErrorKind::Attribute,
                format!("bad dense element '{w}'"),
            )
        })
    }
}

/// The bytes of `0x0011AAFF`.
fn hex_bytes(s: &str) -> Option<Vec<u8>> {
    let h = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X"))?;
    if !h.len().is_multiple_of(2) {
        return None;
    }
    (0..h.len())
        .step_by(2)
        .map(|i| h.get(i..i + 2).and_then(|b| u8::from_str_radix(b, 16).ok()))
        .collect()
}

/// Convolution dimension numbers from `[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]`.
fn conv_dims(lhs: &[Attr], rhs: &[Attr], out: &[Attr]) -> Option<ConvDimensionNumbers> {
    let (ib, ifeat, isp) = labels(lhs, 'b', 'f')?;
    let (ki, ko, ksp) = labels(rhs, 'i', 'o')?;
    let (ob, of, osp) = labels(out, 'b', 'f')?;
    if isp.len() != ksp.len() || isp.len() != osp.len() {
        return None;
    }
    Some(ConvDimensionNumbers {
        input_batch_dimension: ib,
        input_feature_dimension: ifeat,
        input_spatial_dimensions: isp,
        kernel_input_feature_dimension: ki,
        kernel_output_feature_dimension: ko,
        kernel_spatial_dimensions: ksp,
        output_batch_dimension: ob,
        output_feature_dimension: of,
        output_spatial_dimensions: osp,
    })
}

/// Positions of the two letter labels and of spatial dims 0, 1, ... in one label list.
fn labels(list: &[Attr], a: char, b: char) -> Option<(i64, i64, Vec<i64>)> {
    let (mut pa, mut pb) = (None, None);
    let mut spatial: Vec<Option<i64>> = vec![None; list.len().saturating_sub(2)];
    for (i, l) in list.iter().enumerate() {
        let i = i64::try_from(i).ok()?;
        match l {
            Attr::Word(w) if w.len() == 1 && w.starts_with(a) => pa = Some(i),
            Attr::Word(w) if w.len() == 1 && w.starts_with(b) => pb = Some(i),
            Attr::Int(n) => {
                let slot = spatial.get_mut(usize::try_from(*n).ok()?)?;
                if slot.is_some() {
                    return None;
                }
                *slot = Some(i);
            }
            _ => return None,
        }
    }
    let spatial: Option<Vec<i64>> = spatial.into_iter().collect();
    Some((pa?, pb?, spatial?))
}
