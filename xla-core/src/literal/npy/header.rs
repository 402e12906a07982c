//! The `.npy` header: a Python dict literal such as
//! `{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }`.

use super::{npy_err, parse_descr, Header};
use crate::literal::LiteralError;

/// A value in the header dict.
#[derive(Debug)]
enum Value {
    Str(String),
    Bool(bool),
    Tuple(Vec<i64>),
    /// A list (structured dtypes) or anything else we do not read.
    Other(&'static str),
}

/// A cursor over the header text.
struct Cursor<'a> {
    text: &'a str,
    pos: usize,
    path: &'a str,
}

impl Cursor<'_> {
    fn err(&self, what: &str) -> LiteralError {
        npy_err(
            self.path,
            format!(
                "malformed header at byte {}: {what} in {:?}",
                self.pos,
                self.text.trim_end()
            ),
        )
    }

    fn skip_ws(&mut self) {
        let rest = &self.text[self.pos..];
        self.pos += rest.len() - rest.trim_start().len();
    }

    fn peek(&mut self) -> Option<char> {
        self.skip_ws();
        self.text[self.pos..].chars().next()
    }

    fn eat(&mut self, c: char) -> bool {
        if self.peek() == Some(c) {
            self.pos += c.len_utf8();
            true
        } else {
            false
        }
    }

    fn expect(&mut self, c: char) -> Result<(), LiteralError> {
        if self.eat(c) {
            Ok(())
        } else {
            Err(self.err(&format!("expected '{c}'")))
        }
    }

    fn string(&mut self) -> Result<String, LiteralError> {
        let quote = match self.peek() {
            Some(q @ ('\'' | '"')) => q,
            _ => return Err(self.err("expected a string")),
        };
        let start = self.pos + 1;
        let len = self.text[start..]
            .find(quote)
            .ok_or_else(|| self.err("unterminated string"))?;
        self.pos = start + len + 1;
        Ok(self.text[start..start + len].to_string())
    }

    fn word(&mut self) -> &str {
        self.skip_ws();
        let rest = &self.text[self.pos..];
        let len = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '-'))
            .unwrap_or(rest.len());
        self.pos += len;
        &rest[..len]
    }

    fn int(&mut self) -> Result<i64, LiteralError> {
        let w = self.word();
        // Python 2 wrote longs as `3L`.
        let digits = w.strip_suffix('L').unwrap_or(w);
        let value = digits.parse::<i64>().ok();
        value.ok_or_else(|| self.err("expected an integer"))
    }

    fn tuple(&mut self) -> Result<Vec<i64>, LiteralError> {
        self.expect('(')?;
        let mut items = Vec::new();
        while !self.eat(')') {
            items.push(self.int()?);
            if !self.eat(',') {
                self.expect(')')?;
                break;
            }
        }
        Ok(items)
    }

    fn value(&mut self) -> Result<Value, LiteralError> {
        match self.peek() {
            Some('\'' | '"') => Ok(Value::Str(self.string()?)),
            Some('(') => Ok(Value::Tuple(self.tuple()?)),
            Some('[') => Ok(Value::Other("a list")),
            Some('{') => Ok(Value::Other("a dict")),
            _ => match self.word() {
                "True" => Ok(Value::Bool(true)),
                "False" => Ok(Value::Bool(false)),
                _ => Err(self.err("expected a value")),
            },
        }
    }
}

/// Parses the header dict and checks its three keys.
pub(super) fn parse_header(text: &str, path: &str) -> Result<Header, LiteralError> {
    let mut c = Cursor { text, pos: 0, path };
    c.expect('{')?;
    let (mut descr, mut fortran, mut shape) = (None, None, None);
    while !c.eat('}') {
        let key = c.string()?;
        c.expect(':')?;
        let value = c.value()?;
        match (key.as_str(), value) {
            ("descr", Value::Str(s)) => descr = Some(s),
            ("descr", Value::Other(what)) => {
                return Err(npy_err(
                    path,
                    format!(
                        "unsupported dtype: descr is {what} (structured arrays are not supported)"
                    ),
                ))
            }
            ("fortran_order", Value::Bool(b)) => fortran = Some(b),
            ("shape", Value::Tuple(t)) => shape = Some(t),
            (k @ ("descr" | "fortran_order" | "shape"), v) => {
                return Err(c.err(&format!("unexpected value {v:?} for '{k}'")))
            }
            (k, _) => return Err(c.err(&format!("unknown key '{k}'"))),
        }
        if !c.eat(',') {
            c.expect('}')?;
            break;
        }
    }
    if !text[c.pos..].trim().is_empty() {
        return Err(c.err("text after the header dict"));
    }
    let descr = descr.ok_or_else(|| npy_err(path, "header has no 'descr'"))?;
    let fortran = fortran.ok_or_else(|| npy_err(path, "header has no 'fortran_order'"))?;
    let shape = shape.ok_or_else(|| npy_err(path, "header has no 'shape'"))?;
    let (ty, order) = parse_descr(&descr, path)?;
    let dims: Option<Vec<usize>> = shape.iter().map(|&d| usize::try_from(d).ok()).collect();
    let dims =
        dims.ok_or_else(|| npy_err(path, format!("negative dimension in shape {shape:?}")))?;
    Ok(Header {
        ty,
        order,
        fortran,
        dims,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headers() {
        let h = parse_header(
            "{'descr': '>i4', 'fortran_order': True, 'shape': (2, 3), }   \n",
            "f",
        )
        .ok();
        let h = h.map(|h| (h.ty, h.fortran, h.dims));
        assert_eq!(h, Some((crate::PrimitiveType::S32, true, vec![2, 3])));
        let h = parse_header(
            "{\"shape\": (3L,), \"fortran_order\": False, \"descr\": \"<c16\"}",
            "f",
        )
        .ok();
        assert_eq!(h.map(|h| h.dims), Some(vec![3]));
        let h = parse_header("{'descr': '|b1', 'fortran_order': False, 'shape': ()}", "f").ok();
        assert_eq!(h.map(|h| h.dims), Some(vec![]));
        for bad in [
            "",
            "{",
            "{'descr': '<f4', 'fortran_order': False}",
            "{'descr': '<f4', 'fortran_order': False, 'shape': (2, -1), }",
            "{'descr': '<f4', 'fortran_order': 0, 'shape': (2,), }",
            "{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (2,), }",
            "{'descr': '<U3', 'fortran_order': False, 'shape': (2,), }",
            "{'descr': '|O', 'fortran_order': False, 'shape': (2,), }",
            "{'descr': '|i4', 'fortran_order': False, 'shape': (2,), }",
            "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'x': 1}",
            "{'descr': '<f4', 'fortran_order': False, 'shape': (2,)} junk",
            "{'descr': '<f4', 'fortran_order': False, 'shape': (2 3), }",
            "{'descr: '<f4', 'fortran_order': False, 'shape': (2,), }",
        ] {
            assert!(
                parse_header(bad, "f").is_err(),
                "{bad:?} should be rejected"
            );
        }
    }
}
