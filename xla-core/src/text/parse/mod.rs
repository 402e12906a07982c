//! The HLO text parser: reads what XLA's HLO printer writes (short and long forms, with or
//! without layouts, comments, debug tables, inline called computations) into a [`Module`].
//!
//! The parser takes shapes from the text and does not check them (the verifier does). It
//! resolves names, orders instructions topologically and computations callee-first. Every
//! failure is a [`ParseError`] with a 1-based line and column; no input makes it panic, and
//! nesting deeper than [`MAX_DEPTH`] is an error rather than a stack overflow.
//!
//! Submodules: `module` (header, computations, name resolution), `instruction` (one
//! instruction line and its operation), `attributes` (attribute values), `shape`, `literal`.

mod attributes;
mod dim_labels;
mod instruction;
mod literal;
mod module;
mod shape;

use super::lexer::{lex, Pos, Tok, Token};
use crate::ir::Module;
use crate::shape::Shape;
use thiserror::Error;

pub use dim_labels::{parse_dim_labels, DimLabelsError, LabelRole};

/// How deeply tuples, tuple literals and inline computations may nest (an inline
/// computation counts as [`COMPUTATION_DEPTH_COST`] levels).
pub const MAX_DEPTH: usize = 256;

/// The nesting levels one computation body uses up: at most `MAX_DEPTH / 8 = 32` nested
/// inline computations, which keeps the recursion well inside a 2 MiB thread stack even in
/// debug builds.
pub const COMPUTATION_DEPTH_COST: usize = 8;

/// What kind of problem a [`ParseError`] reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ParseErrorKind {
    /// The text does not follow the grammar (an unexpected token, a truncated input).
    Syntax,
    /// An opcode name that is not an HLO opcode.
    UnknownOpcode,
    /// A reference to an instruction or computation that is not defined.
    UndefinedName,
    /// A name defined twice (instruction, computation, attribute, `ROOT`, `ENTRY`).
    Duplicate,
    /// A required attribute is missing.
    MissingAttribute,
    /// A value is malformed or out of range (a literal, a window, dim labels, ...).
    InvalidValue,
    /// Operands or called computations form a cycle.
    Cycle,
    /// Nesting deeper than [`MAX_DEPTH`].
    TooDeep,
}

/// A parse error with its position.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
#[error("{line}:{column}: {message}")]
pub struct ParseError {
    /// 1-based line.
    pub line: usize,
    /// 1-based column (in characters).
    pub column: usize,
    /// What was expected and what was found.
    pub message: String,
    /// The kind of problem.
    pub kind: ParseErrorKind,
}

impl ParseError {
    pub(crate) fn new(pos: Pos, kind: ParseErrorKind, message: impl Into<String>) -> ParseError {
        ParseError {
            line: pos.line,
            column: pos.column,
            message: message.into(),
            kind,
        }
    }
}

/// Result of the parser's internal steps.
pub(crate) type PResult<T> = Result<T, ParseError>;

/// Parses an HLO module from text.
///
/// ```
/// use xla_core::text::parse_module;
/// use xla_core::Op;
///
/// let m = parse_module(
///     "HloModule m\n\
///      ENTRY main {\n\
///        ROOT n = f32[2]{0} negate(p)  /* operands may be defined later */\n\
///        p = f32[2]{0} parameter(0)\n\
///      }\n",
/// )?;
/// let main = m.entry_computation().expect("entry");
/// assert_eq!(main.instructions[0].op, Op::Parameter { number: 0 });
/// assert_eq!(main.root_instruction().expect("root").name, "n");
///
/// let err = parse_module("HloModule m\nENTRY e {\n  ROOT x = f32[] frob()\n}").unwrap_err();
/// assert_eq!(err.to_string(), "3:18: unknown opcode 'frob'");
/// # Ok::<(), xla_core::text::ParseError>(())
/// ```
///
/// # Errors
/// A [`ParseError`] with line and column for malformed or truncated text, unknown opcodes,
/// undefined or duplicate names, malformed attribute values and literals.
pub fn parse_module(text: &str) -> Result<Module, ParseError> {
    let toks = lex_all(text)?;
    let mut p = Parser::new(&toks, text);
    module::parse_module(&mut p)
}

/// Parses a shape as written in HLO text (`f32[2,3]{1,0}`, `(s32[], pred[<=4])`, `token[]`).
///
/// ```
/// use xla_core::text::parse_shape;
/// let s = parse_shape("f32[4,3]{0,1}")?;
/// assert_eq!((s.to_string(), s.to_string_with_layout()), ("f32[4,3]".into(), "f32[4,3]{0,1}".into()));
/// # Ok::<(), xla_core::text::ParseError>(())
/// ```
///
/// # Errors
/// A [`ParseError`] if the text is not exactly one shape.
pub fn parse_shape(text: &str) -> Result<Shape, ParseError> {
    let toks = lex_all(text)?;
    let mut p = Parser::new(&toks, text);
    let shape = p.shape()?;
    p.expect_end()?;
    Ok(shape)
}

fn lex_all(text: &str) -> PResult<Vec<Token>> {
    lex(text).map_err(|e| ParseError::new(e.pos, ParseErrorKind::Syntax, e.message))
}

/// A cursor over `toks[pos..end]`; sub-parsers over an attribute's value share the tokens.
#[derive(Clone)]
pub(crate) struct Parser<'t> {
    toks: &'t [Token],
    src: &'t str,
    pos: usize,
    end: usize,
    depth: usize,
    /// XLA's placeholder counters for elided constants (`{...}`), shared with sub-parsers.
    elided: std::rc::Rc<std::cell::Cell<literal::ElidedCounters>>,
}

const EOF: Tok = Tok::Eof;

impl<'t> Parser<'t> {
    /// The source text of tokens `start..end` as written.
    pub(super) fn raw_text(&self, start: usize, end: usize) -> String {
        let from = self.toks.get(start).map(|t| t.start);
        let to = end
            .checked_sub(1)
            .and_then(|e| self.toks.get(e))
            .map(|t| t.end);
        match (from, to) {
            (Some(a), Some(b)) => self.src.get(a..b).unwrap_or_default().to_string(),
            _ => String::new(),
        }
    }

    fn new(toks: &'t [Token], src: &'t str) -> Parser<'t> {
        let end = toks.len().saturating_sub(1);
        Parser {
            toks,
            src,
            pos: 0,
            end,
            depth: 0,
            elided: std::rc::Rc::default(),
        }
    }

    /// A parser over `toks[start..end]` at the current nesting depth.
    fn sub(&self, start: usize, end: usize) -> Parser<'t> {
        Parser {
            pos: start,
            end,
            ..self.clone()
        }
    }

    /// The current token (end of input at the end of this parser's range).
    fn peek(&self) -> &Tok {
        self.peek_at(0)
    }

    /// The token `n` ahead of the current one.
    fn peek_at(&self, n: usize) -> &Tok {
        let i = self.pos.saturating_add(n);
        if i >= self.end {
            return &EOF;
        }
        self.toks.get(i).map_or(&EOF, |t| &t.tok)
    }

    /// The position of the current token.
    fn here(&self) -> Pos {
        self.toks
            .get(self.pos.min(self.end))
            .map_or(Pos::default(), |t| t.pos)
    }

    /// A description of the current token for messages (the real next token, even past the
    /// end of a sub-parser's range).
    fn found(&self) -> String {
        self.toks
            .get(self.pos.min(self.end))
            .map_or_else(|| EOF.to_string(), |t| t.tok.to_string())
    }

    fn at_end(&self) -> bool {
        self.pos >= self.end
    }

    /// Moves past the current token and returns it.
    fn bump(&mut self) -> Tok {
        let t = self.peek().clone();
        if !self.at_end() {
            self.pos += 1;
        }
        t
    }

    /// Consumes the current token if it is `t`.
    fn eat(&mut self, t: &Tok) -> bool {
        if self.peek() == t {
            self.bump();
            true
        } else {
            false
        }
    }

    /// An error at the current token: `expected {what} but found {token}`.
    fn expected(&self, what: &str) -> ParseError {
        ParseError::new(
            self.here(),
            ParseErrorKind::Syntax,
            format!("expected {what} but found {}", self.found()),
        )
    }

    /// An error of `kind` at the current token.
    fn error(&self, kind: ParseErrorKind, message: impl Into<String>) -> ParseError {
        ParseError::new(self.here(), kind, message)
    }

    /// Consumes `t` or fails with `expected 't' but found ...`.
    fn expect(&mut self, t: &Tok) -> PResult<()> {
        if self.eat(t) {
            Ok(())
        } else {
            Err(self.expected(&t.to_string()))
        }
    }

    /// Fails unless this parser's range is used up.
    fn expect_end(&self) -> PResult<()> {
        if self.at_end() {
            Ok(())
        } else {
            Err(self.expected("end of value"))
        }
    }

    /// Consumes a word (`what` names it in the error).
    fn word(&mut self, what: &str) -> PResult<(String, Pos)> {
        let pos = self.here();
        match self.peek() {
            Tok::Word(w) => {
                let w = w.clone();
                self.bump();
                Ok((w, pos))
            }
            _ => Err(self.expected(what)),
        }
    }

    /// Consumes a name: a word, without its `%` sigil.
    fn name(&mut self, what: &str) -> PResult<(String, Pos)> {
        let pos = self.here();
        let (w, _) = self.word(what)?;
        let name = w.strip_prefix('%').unwrap_or(&w);
        if name.is_empty() || name.starts_with('-') || name.contains('%') {
            return Err(ParseError::new(
                pos,
                ParseErrorKind::Syntax,
                format!("expected {what} but found '{w}'"),
            ));
        }
        Ok((name.to_string(), pos))
    }

    /// Consumes a decimal integer.
    fn int(&mut self) -> PResult<i64> {
        let pos = self.here();
        let (w, _) = self.word("an integer")?;
        parse_int(&w).ok_or_else(|| {
            ParseError::new(
                pos,
                ParseErrorKind::Syntax,
                format!("expected an integer but found '{w}'"),
            )
        })
    }

    /// Enters one level of nesting, failing past [`MAX_DEPTH`].
    fn enter(&mut self) -> PResult<()> {
        self.enter_by(1)
    }

    /// Enters `cost` levels of nesting at once (an inline computation recurses through far
    /// larger stack frames than a tuple, so it counts as [`COMPUTATION_DEPTH_COST`] levels).
    fn enter_by(&mut self, cost: usize) -> PResult<()> {
        if self.depth.saturating_add(cost) > MAX_DEPTH {
            return Err(self.error(
                ParseErrorKind::TooDeep,
                format!("nesting deeper than {MAX_DEPTH} levels"),
            ));
        }
        self.depth += cost;
        Ok(())
    }

    fn leave_by(&mut self, cost: usize) {
        self.depth = self.depth.saturating_sub(cost);
    }

    fn leave(&mut self) {
        self.leave_by(1);
    }

    /// Skips one balanced group starting at an opening bracket (no recursion).
    fn skip_group(&mut self) -> PResult<()> {
        let mut closers: Vec<Tok> = Vec::new();
        loop {
            let closer = match self.peek() {
                Tok::LParen => Some(Tok::RParen),
                Tok::LBrace => Some(Tok::RBrace),
                Tok::LBracket => Some(Tok::RBracket),
                _ => None,
            };
            if let Some(c) = closer {
                closers.push(c);
                self.bump();
                continue;
            }
            match self.peek() {
                Tok::RParen | Tok::RBrace | Tok::RBracket => {
                    let want = closers.pop().unwrap_or(Tok::Eof);
                    self.expect(&want)?;
                    if closers.is_empty() {
                        return Ok(());
                    }
                }
                Tok::Eof => {
                    let want = closers.last().cloned().unwrap_or(Tok::Eof);
                    return Err(self.expected(&want.to_string()));
                }
                _ => {
                    self.bump();
                }
            }
        }
    }

    fn at_opener(&self) -> bool {
        matches!(self.peek(), Tok::LParen | Tok::LBrace | Tok::LBracket)
    }

    /// Skips an attribute value: one word, string or group; after a word or a `[...]`, also
    /// the groups written right after it (`f32[2]{0}`, `[2,2]<=[4]`), and by the scalar of a literal written
    /// after its shape (`literal=f32[] 0.1`). Returns its token range.
    fn skip_value(&mut self) -> PResult<(usize, usize)> {
        let start = self.pos;
        let starts_with_shape = self.at_shape();
        let may_continue = matches!(self.peek(), Tok::Word(_) | Tok::LBracket);
        self.skip_atom()?;
        if !may_continue {
            return Ok((start, self.pos));
        }
        loop {
            if self.at_opener() {
                self.skip_group()?;
            } else if self.peek() == &Tok::Le {
                self.bump();
                if !self.at_opener() {
                    return Err(self.expected("'['"));
                }
            } else if matches!(self.peek(), Tok::Word(w) if w == "T")
                && self.peek_at(1) == &Tok::LParen
            {
                self.bump();
            } else if starts_with_shape && self.at_trailing_scalar() {
                self.bump();
                if self.peek() == &Tok::LParen {
                    self.skip_group()?; // nan(0x...)
                }
                return Ok((start, self.pos));
            } else {
                return Ok((start, self.pos));
            }
        }
    }

    /// Skips one word, string or balanced group.
    fn skip_atom(&mut self) -> PResult<()> {
        match self.peek() {
            Tok::Word(_) | Tok::Str(_) => {
                self.bump();
                Ok(())
            }
            Tok::LParen | Tok::LBrace | Tok::LBracket => self.skip_group(),
            _ => Err(self.expected("an attribute value")),
        }
    }

    /// A word after a shape-valued attribute that is not the start of the next instruction
    /// (`name =` or `ROOT`).
    fn at_trailing_scalar(&self) -> bool {
        matches!(self.peek(), Tok::Word(w) if w != "ROOT") && self.peek_at(1) != &Tok::Eq
    }

    /// The source text of tokens `start..end`.
    fn source(&self, start: usize, end: usize) -> &'t str {
        let (Some(a), Some(b)) = (
            self.toks.get(start),
            end.checked_sub(1).and_then(|i| self.toks.get(i)),
        ) else {
            return "";
        };
        self.src.get(a.start..b.end).unwrap_or("")
    }
}

/// Parses a decimal integer word (`-3`, `42`).
fn parse_int(w: &str) -> Option<i64> {
    if w.starts_with('+') {
        return None;
    }
    w.parse::<i64>().ok()
}
