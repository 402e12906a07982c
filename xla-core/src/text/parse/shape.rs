//! Shapes: `f32[2,3]{1,0}`, `pred[]`, `s32[<=4,?]`, `(f32[2], (s32[], token[]))`, `token[]`.
//! Layouts are kept; tiling and memory-space suffixes (`{1,0:T(8,128)S(1)}`) are skipped.

use super::{PResult, ParseError, ParseErrorKind, Parser};
use crate::shape::{ArrayShape, Layout, Shape, UNBOUNDED};
use crate::text::lexer::Tok;
use crate::types::PrimitiveType;

impl Parser<'_> {
    /// True when the next tokens start a shape (`f32[`, `token[`, `(`).
    pub(super) fn at_shape(&self) -> bool {
        match self.peek() {
            Tok::LParen => true,
            Tok::Word(w) => {
                self.peek_at(1) == &Tok::LBracket
                    && (w == "token" || PrimitiveType::from_name(w).is_some())
            }
            _ => false,
        }
    }

    /// Parses a shape.
    pub(super) fn shape(&mut self) -> PResult<Shape> {
        if self.peek() == &Tok::LParen {
            return self.tuple_shape();
        }
        let pos = self.here();
        let (w, _) = self.word("a shape")?;
        if w == "token" {
            self.expect(&Tok::LBracket)?;
            self.expect(&Tok::RBracket)?;
            return Ok(Shape::Token);
        }
        let ty = match PrimitiveType::from_name(&w) {
            Some(t) if t.is_array_type() => t,
            _ => {
                return Err(ParseError::new(
                    pos,
                    ParseErrorKind::Syntax,
                    format!("expected a shape but found '{w}' (not an element type)"),
                ))
            }
        };
        self.expect(&Tok::LBracket)?;
        let (dims, dynamic) = self.dims()?;
        let layout = if self.at_layout() {
            Some(self.layout()?)
        } else {
            None
        };
        let dynamic = if dynamic.iter().any(|&d| d) {
            dynamic
        } else {
            Vec::new()
        };
        Ok(Shape::Array(ArrayShape {
            ty,
            dims,
            dynamic,
            layout,
        }))
    }

    fn tuple_shape(&mut self) -> PResult<Shape> {
        self.enter()?;
        self.expect(&Tok::LParen)?;
        let mut elements = Vec::new();
        if !self.eat(&Tok::RParen) {
            loop {
                elements.push(self.shape()?);
                if self.eat(&Tok::RParen) {
                    break;
                }
                if !self.eat(&Tok::Comma) {
                    return Err(self.expected("',' or ')'"));
                }
            }
        }
        self.leave();
        Ok(Shape::Tuple(elements))
    }

    /// Dimensions after `[`, through `]`: sizes, `<=N` bounds and `?`.
    fn dims(&mut self) -> PResult<(Vec<i64>, Vec<bool>)> {
        let mut dims = Vec::new();
        let mut dynamic = Vec::new();
        if self.eat(&Tok::RBracket) {
            return Ok((dims, dynamic));
        }
        loop {
            if self.eat(&Tok::Question) {
                dims.push(UNBOUNDED);
                dynamic.push(true);
            } else {
                let is_dynamic = self.eat(&Tok::Le);
                let pos = self.here();
                let d = self.int()?;
                if d < 0 {
                    return Err(ParseError::new(
                        pos,
                        ParseErrorKind::InvalidValue,
                        format!("dimension size must not be negative, found {d}"),
                    ));
                }
                dims.push(d);
                dynamic.push(is_dynamic);
            }
            if self.eat(&Tok::RBracket) {
                return Ok((dims, dynamic));
            }
            if !self.eat(&Tok::Comma) {
                return Err(self.expected("',' or ']'"));
            }
        }
    }

    /// True at `{` followed by a number, `:` or `}`: a layout, not a computation body
    /// (`-> f32[2] {` ends a computation signature).
    fn at_layout(&self) -> bool {
        self.peek() == &Tok::LBrace
            && match self.peek_at(1) {
                Tok::Word(w) => w.bytes().all(|b| b.is_ascii_digit()),
                Tok::Colon | Tok::RBrace => true,
                _ => false,
            }
    }

    /// A layout `{1,0}`; anything after a `:` (tiles, memory space) is skipped.
    fn layout(&mut self) -> PResult<Layout> {
        self.expect(&Tok::LBrace)?;
        let mut minor_to_major = Vec::new();
        loop {
            match self.peek() {
                Tok::RBrace => {
                    self.bump();
                    return Ok(Layout { minor_to_major });
                }
                Tok::Colon => {
                    self.bump();
                    self.skip_until_brace()?;
                    return Ok(Layout { minor_to_major });
                }
                _ => {}
            }
            if !minor_to_major.is_empty() {
                self.expect(&Tok::Comma)?;
            }
            minor_to_major.push(self.int()?);
        }
    }

    /// Skips tokens through the `}` closing the current layout, over balanced groups.
    fn skip_until_brace(&mut self) -> PResult<()> {
        loop {
            match self.peek() {
                Tok::RBrace => {
                    self.bump();
                    return Ok(());
                }
                Tok::LParen | Tok::LBrace | Tok::LBracket => self.skip_group()?,
                Tok::Eof => return Err(self.expected("'}'")),
                _ => {
                    self.bump();
                }
            }
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use crate::shape::{Layout, Shape, UNBOUNDED};
    use crate::text::parse_shape;
    use crate::types::PrimitiveType::*;

    fn with_layout(mut s: Shape, l: &[i64]) -> Shape {
        if let Shape::Array(a) = &mut s {
            a.layout = Some(Layout {
                minor_to_major: l.to_vec(),
            });
        }
        s
    }

    #[test]
    fn shapes() {
        let cases: Vec<(&str, Shape)> = vec![
            ("f32[]", Shape::scalar(F32)),
            ("f32[2,3]", Shape::array(F32, vec![2, 3])),
            (
                "f32[2,3]{1,0}",
                with_layout(Shape::array(F32, vec![2, 3]), &[1, 0]),
            ),
            (
                "f32[4,3]{0,1:T(8,128)S(1)}",
                with_layout(Shape::array(F32, vec![4, 3]), &[0, 1]),
            ),
            ("token[]", Shape::Token),
            ("()", Shape::tuple(vec![])),
            (
                "(s32[], (pred[1]{0}, token[]))",
                Shape::tuple(vec![
                    Shape::scalar(S32),
                    Shape::tuple(vec![
                        with_layout(Shape::array(Pred, vec![1]), &[0]),
                        Shape::Token,
                    ]),
                ]),
            ),
            (
                "(f32[], /*index=1*/u8[0])",
                Shape::tuple(vec![Shape::scalar(F32), Shape::array(U8, vec![0])]),
            ),
        ];
        for (text, want) in cases {
            assert_eq!(parse_shape(text).unwrap(), want, "{text}");
        }
    }

    #[test]
    fn dynamic_dims() {
        let s = parse_shape("s32[<=4,?,3]").unwrap();
        let a = s.as_array().unwrap();
        assert_eq!(a.dims, vec![4, UNBOUNDED, 3]);
        assert_eq!(a.dynamic, vec![true, true, false]);
        assert_eq!(s.to_string(), "s32[<=4,?,3]");
    }

    #[test]
    fn errors() {
        let cases = [
            ("f32[2", "1:6: expected ',' or ']' but found end of input"),
            (
                "f33[2]",
                "1:1: expected a shape but found 'f33' (not an element type)",
            ),
            (
                "f32[-1]",
                "1:5: dimension size must not be negative, found -1",
            ),
            (
                "f32[2]{1,",
                "1:10: expected an integer but found end of input",
            ),
            (
                "(f32[], s32[]",
                "1:14: expected ',' or ')' but found end of input",
            ),
            ("f32[2] x", "1:8: expected end of value but found 'x'"),
            (
                "tuple[]",
                "1:1: expected a shape but found 'tuple' (not an element type)",
            ),
        ];
        for (text, want) in cases {
            assert_eq!(parse_shape(text).unwrap_err().to_string(), want, "{text}");
        }
    }

    #[test]
    fn deep_tuple_is_an_error() {
        let text = "(".repeat(10_000) + "f32[]" + &")".repeat(10_000);
        let err = parse_shape(&text).unwrap_err();
        assert_eq!(err.kind, super::ParseErrorKind::TooDeep);
    }
}
