//! Types: `tensor<2x3xf32>`, `tensor<complex<f64>>`, `tuple<...>`, `!stablehlo.token`, and
//! bare element types (`i32`, `f32`) as attribute types use them.

use super::{PResult, Parser};
use crate::mlir::lexer::Tok;
use crate::mlir::MlirErrorKind;
use crate::shape::Shape;
use crate::types::PrimitiveType;

/// The element type an MLIR type name stands for.
pub(crate) fn element_type(name: &str) -> Option<PrimitiveType> {
    use PrimitiveType::*;
    Some(match name {
        "i1" => Pred,
        "i8" | "si8" => S8,
        "i16" | "si16" => S16,
        "i32" | "si32" => S32,
        "i64" | "si64" => S64,
        "ui8" => U8,
        "ui16" => U16,
        "ui32" => U32,
        "ui64" => U64,
        "f16" => F16,
        "bf16" => Bf16,
        "f32" => F32,
        "f64" => F64,
        _ => return None,
    })
}

impl Parser<'_> {
    /// Any type.
    pub(crate) fn ty(&mut self) -> PResult<Shape> {
        self.enter()?;
        let t = self.ty_inner();
        self.leave();
        t
    }

    fn ty_inner(&mut self) -> PResult<Shape> {
        match self.peek() {
            Tok::Bang(name) if name == "stablehlo.token" || name == "mhlo.token" => {
                self.bump();
                Ok(Shape::Token)
            }
            Tok::Word(w) if w == "tensor" => {
                self.bump();
                self.tensor()
            }
            Tok::Word(w) if w == "tuple" => {
                self.bump();
                self.expect('<')?;
                let mut elems = Vec::new();
                while !self.eat('>') {
                    elems.push(self.ty()?);
                    if !self.eat(',') {
                        self.expect('>')?;
                        break;
                    }
                }
                Ok(Shape::tuple(elems))
            }
            Tok::Word(_) => {
                let ty = self.element()?;
                Ok(Shape::scalar(ty))
            }
            t => self.err(
                MlirErrorKind::Syntax,
                format!("expected a type but found {t}"),
            ),
        }
    }

    /// An element type name, `complex<f32>` included.
    fn element(&mut self) -> PResult<PrimitiveType> {
        let pos = self.here();
        let w = self.word("an element type")?;
        self.element_named(&w, pos)
    }

    fn element_named(&mut self, w: &str, pos: crate::mlir::lexer::Pos) -> PResult<PrimitiveType> {
        if w == "complex" {
            self.expect('<')?;
            let inner = self.element()?;
            self.expect('>')?;
            return match inner {
                PrimitiveType::F32 => Ok(PrimitiveType::C64),
                PrimitiveType::F64 => Ok(PrimitiveType::C128),
                t => Err(crate::mlir::MlirError::new(
                    pos,
                    MlirErrorKind::Type,
                    format!(
                        "complex<{}> is not supported (complex<f32> and complex<f64> are)",
                        t.name()
                    ),
                )),
            };
        }
        if w == "index" {
            return Ok(PrimitiveType::S64);
        }
        element_type(w).ok_or_else(|| {
            crate::mlir::MlirError::new(
                pos,
                MlirErrorKind::Type,
                format!("element type '{w}' is not supported"),
            )
        })
    }

    /// `<dims x elem [, encoding]>` after `tensor`.
    fn tensor(&mut self) -> PResult<Shape> {
        self.expect('<')?;
        let pos = self.here();
        if self.is('?') || self.is('*') {
            return self.err(
                MlirErrorKind::Type,
                "dynamic and unranked tensors are not supported",
            );
        }
        let w = self.word("tensor dimensions")?;
        let (head, last) = match (w.strip_suffix("complex"), w.strip_suffix("index")) {
            (Some(d), _) => (d, "complex"),
            (_, Some(d)) => (d, "index"),
            _ => w.rsplit_once('x').unwrap_or(("", w.as_str())),
        };
        let mut dims = Vec::new();
        for p in head.split('x').filter(|p| !p.is_empty()) {
            let d = p.parse::<i64>().map_err(|_| {
                crate::mlir::MlirError::new(
                    pos,
                    MlirErrorKind::Type,
                    format!("bad tensor dimensions '{w}'"),
                )
            })?;
            dims.push(d);
        }
        if last.is_empty() && self.is('?') {
            return self.err(MlirErrorKind::Type, "dynamic dimensions are not supported");
        }
        let ty = self.element_named(last, pos)?;
        if self.eat(',') {
            self.attr_value(true)?;
        }
        self.expect('>')?;
        Ok(Shape::array(ty, dims))
    }
}
