//! Text to syntax tree: the module, functions, regions and the generic op form. The pretty
//! forms are in `pretty`, types in `types`, attribute values in `attrs`.

mod attrs;
mod pretty;
mod types;

use super::ast::{Attr, FuncAst, ModuleAst, OpAst, Region, ValueRef};
use super::lexer::{Pos, Tok, Token};
use super::{MlirError, MlirErrorKind, MAX_NESTING};
use crate::shape::Shape;

/// Result of the parser's steps.
pub(crate) type PResult<T> = Result<T, MlirError>;

/// A cursor over the tokens.
pub(crate) struct Parser<'a> {
    toks: &'a [Token],
    i: usize,
    text: &'a str,
    depth: usize,
}

/// Parses the tokens of `text` into a module tree.
pub(crate) fn parse(toks: &[Token], text: &str) -> PResult<ModuleAst> {
    let mut p = Parser {
        toks,
        i: 0,
        text,
        depth: 0,
    };
    p.module()
}

impl<'a> Parser<'a> {
    pub(crate) fn peek(&self) -> &'a Tok {
        self.peek_at(0)
    }

    pub(crate) fn peek_at(&self, k: usize) -> &'a Tok {
        let last = self.toks.len().saturating_sub(1);
        self.toks
            .get((self.i + k).min(last))
            .map_or(&Tok::Eof, |t| &t.tok)
    }

    pub(crate) fn here(&self) -> Pos {
        let last = self.toks.len().saturating_sub(1);
        self.toks
            .get(self.i.min(last))
            .map_or(Pos::default(), |t| t.pos)
    }

    fn offset(&self) -> usize {
        let last = self.toks.len().saturating_sub(1);
        self.toks
            .get(self.i.min(last))
            .map_or(self.text.len(), |t| t.offset)
    }

    pub(crate) fn bump(&mut self) -> &'a Tok {
        let t = self.peek();
        if self.i < self.toks.len() {
            self.i += 1;
        }
        t
    }

    pub(crate) fn err<T>(&self, kind: MlirErrorKind, msg: impl Into<String>) -> PResult<T> {
        Err(MlirError::new(self.here(), kind, msg))
    }

    pub(crate) fn is(&self, c: char) -> bool {
        self.peek() == &Tok::Punct(c)
    }

    pub(crate) fn is_word(&self, w: &str) -> bool {
        matches!(self.peek(), Tok::Word(x) if x == w)
    }

    pub(crate) fn eat(&mut self, c: char) -> bool {
        let hit = self.is(c);
        if hit {
            self.bump();
        }
        hit
    }

    pub(crate) fn eat_word(&mut self, w: &str) -> bool {
        let hit = self.is_word(w);
        if hit {
            self.bump();
        }
        hit
    }

    pub(crate) fn expect(&mut self, c: char) -> PResult<()> {
        if self.eat(c) {
            return Ok(());
        }
        self.err(
            MlirErrorKind::Syntax,
            format!("expected '{c}' but found {}", self.peek()),
        )
    }

    pub(crate) fn expect_word(&mut self, w: &str) -> PResult<()> {
        if self.eat_word(w) {
            return Ok(());
        }
        self.err(
            MlirErrorKind::Syntax,
            format!("expected '{w}' but found {}", self.peek()),
        )
    }

    pub(crate) fn word(&mut self, what: &str) -> PResult<String> {
        match self.peek() {
            Tok::Word(w) => {
                self.bump();
                Ok(w.clone())
            }
            t => self.err(
                MlirErrorKind::Syntax,
                format!("expected {what} but found {t}"),
            ),
        }
    }

    pub(crate) fn int(&mut self, what: &str) -> PResult<i64> {
        let pos = self.here();
        let w = self.word(what)?;
        w.parse::<i64>().map_err(|_| {
            MlirError::new(
                pos,
                MlirErrorKind::Syntax,
                format!("expected {what} but found '{w}'"),
            )
        })
    }

    pub(crate) fn value_ref(&mut self) -> PResult<ValueRef> {
        let pos = self.here();
        match self.peek() {
            Tok::Value(name, index) => {
                self.bump();
                Ok(ValueRef {
                    name: name.clone(),
                    index: *index,
                    pos,
                })
            }
            t => self.err(
                MlirErrorKind::Syntax,
                format!("expected a value but found {t}"),
            ),
        }
    }

    pub(crate) fn symbol(&mut self) -> PResult<String> {
        match self.peek() {
            Tok::Symbol(s) => {
                self.bump();
                Ok(s.clone())
            }
            t => self.err(
                MlirErrorKind::Syntax,
                format!("expected '@name' but found {t}"),
            ),
        }
    }

    /// Enters one nesting level; errors past [`MAX_NESTING`].
    pub(crate) fn enter(&mut self) -> PResult<()> {
        self.depth += 1;
        if self.depth > MAX_NESTING {
            return self.err(
                MlirErrorKind::TooDeep,
                format!("nesting deeper than {MAX_NESTING} levels"),
            );
        }
        Ok(())
    }

    pub(crate) fn leave(&mut self) {
        self.depth = self.depth.saturating_sub(1);
    }

    /// Skips a balanced group starting at an opening bracket (`(`, `[`, `{`, `<`).
    pub(crate) fn skip_balanced(&mut self) -> PResult<()> {
        let mut stack: Vec<char> = Vec::new();
        loop {
            let pos = self.here();
            match self.bump() {
                Tok::Punct(c @ ('(' | '[' | '{' | '<')) => stack.push(*c),
                Tok::Punct(c @ (')' | ']' | '}' | '>')) => {
                    let open = match c {
                        ')' => '(',
                        ']' => '[',
                        '}' => '{',
                        _ => '<',
                    };
                    if stack.pop() != Some(open) {
                        return Err(MlirError::new(
                            pos,
                            MlirErrorKind::Syntax,
                            format!("unbalanced '{c}'"),
                        ));
                    }
                }
                Tok::Eof => {
                    return Err(MlirError::new(
                        pos,
                        MlirErrorKind::Syntax,
                        "unexpected end of input",
                    ))
                }
                _ => {}
            }
            if stack.is_empty() {
                return Ok(());
            }
        }
    }

    /// Skips `loc(...)` if it comes next.
    pub(crate) fn skip_loc(&mut self) -> PResult<()> {
        if self.is_word("loc") && self.peek_at(1) == &Tok::Punct('(') {
            self.bump();
            self.skip_balanced()?;
        }
        Ok(())
    }

    /// Skips top-level alias definitions: `#loc1 = loc(...)`, `#map = ...`, `!t = ...`.
    fn skip_aliases(&mut self) -> PResult<()> {
        while matches!(self.peek(), Tok::Hash(_) | Tok::Bang(_))
            && self.peek_at(1) == &Tok::Punct('=')
        {
            self.bump();
            self.bump();
            if self.is_word("loc") {
                self.skip_loc()?;
            } else {
                self.attr_value(true)?;
            }
        }
        Ok(())
    }

    fn module(&mut self) -> PResult<ModuleAst> {
        self.skip_aliases()?;
        let mut m = ModuleAst {
            name: None,
            funcs: Vec::new(),
        };
        let braced = self.eat_word("module");
        if braced {
            if let Tok::Symbol(s) = self.peek() {
                m.name = Some(s.clone());
                self.bump();
            }
            if self.eat_word("attributes") {
                self.attr_dict()?;
            }
            self.expect('{')?;
        }
        loop {
            self.skip_aliases()?;
            match self.peek() {
                Tok::Punct('}') if braced => {
                    self.bump();
                    break;
                }
                Tok::Eof if !braced => break,
                Tok::Word(w) if w == "func.func" => m.funcs.push(self.func()?),
                Tok::Word(w) if w == "sdy.mesh" => self.skip_mesh()?,
                t => {
                    return self.err(
                        MlirErrorKind::Syntax,
                        format!("expected 'func.func' but found {t}"),
                    )
                }
            }
        }
        self.skip_loc()?;
        self.skip_aliases()?;
        if self.peek() != &Tok::Eof {
            return self.err(
                MlirErrorKind::Syntax,
                format!("unexpected {} after the module", self.peek()),
            );
        }
        Ok(m)
    }

    /// Skips `sdy.mesh @name = <["x"=1]> {attrs} loc(...)`, a sharded export's device mesh
    /// (one device: shardings are dropped).
    fn skip_mesh(&mut self) -> PResult<()> {
        self.expect_word("sdy.mesh")?;
        if let Tok::Symbol(_) = self.peek() {
            self.bump();
        }
        self.expect('=')?;
        if self.is_word("#sdy.mesh") {
            self.bump();
        }
        if self.is('<') {
            self.skip_balanced()?;
        } else {
            self.attr_value(false)?;
        }
        if self.is('{') {
            self.skip_balanced()?;
        }
        self.skip_loc()
    }

    fn func(&mut self) -> PResult<FuncAst> {
        let pos = self.here();
        self.expect_word("func.func")?;
        let private = self.eat_word("private");
        self.eat_word("public");
        self.eat_word("nested");
        let name = self.symbol()?;
        self.expect('(')?;
        let mut args = Vec::new();
        while !self.eat(')') {
            let v = self.value_ref()?;
            self.expect(':')?;
            let ty = self.ty()?;
            if self.is('{') {
                self.attr_dict()?;
            }
            self.skip_loc()?;
            args.push((v.name, ty));
            if !self.eat(',') {
                self.expect(')')?;
                break;
            }
        }
        let results = if self.peek() == &Tok::Arrow {
            self.bump();
            self.func_results()?
        } else {
            Vec::new()
        };
        if self.eat_word("attributes") {
            self.attr_dict()?;
        }
        let region_pos = self.here();
        self.expect('{')?;
        let mut body = self.block_body(args)?;
        body.pos = region_pos;
        self.skip_loc()?;
        Ok(FuncAst {
            name,
            pos,
            private,
            body,
            results,
        })
    }

    fn func_results(&mut self) -> PResult<Vec<Shape>> {
        if !self.eat('(') {
            return Ok(vec![self.ty()?]);
        }
        let mut out = Vec::new();
        while !self.eat(')') {
            out.push(self.ty()?);
            if self.is('{') {
                self.attr_dict()?;
            }
            if !self.eat(',') {
                self.expect(')')?;
                break;
            }
        }
        Ok(out)
    }

    /// A region `{ [^bb0(args):] ops }`, the `{` not yet taken.
    pub(crate) fn region(&mut self) -> PResult<Region> {
        let pos = self.here();
        self.expect('{')?;
        let mut args = Vec::new();
        if let Tok::Caret(_) = self.peek() {
            self.bump();
            if self.eat('(') {
                while !self.eat(')') {
                    let v = self.value_ref()?;
                    self.expect(':')?;
                    args.push((v.name, self.ty()?));
                    self.skip_loc()?;
                    if !self.eat(',') {
                        self.expect(')')?;
                        break;
                    }
                }
            }
            self.expect(':')?;
        }
        let mut r = self.block_body(args)?;
        r.pos = pos;
        Ok(r)
    }

    /// Operations up to and including the closing `}`.
    pub(crate) fn block_body(&mut self, args: Vec<(String, Shape)>) -> PResult<Region> {
        self.enter()?;
        let mut ops = Vec::new();
        while !self.eat('}') {
            if self.peek() == &Tok::Eof {
                return self.err(
                    MlirErrorKind::Syntax,
                    "expected '}' but found the end of the input",
                );
            }
            ops.push(self.op()?);
        }
        self.leave();
        Ok(Region {
            args,
            ops,
            pos: Pos::default(),
        })
    }

    fn op(&mut self) -> PResult<OpAst> {
        let pos = self.here();
        let mut results = Vec::new();
        if let Tok::Value(..) = self.peek() {
            loop {
                let v = self.value_ref()?;
                let n = if self.eat(':') {
                    usize::try_from(self.int("a result count")?).unwrap_or(0)
                } else {
                    1
                };
                results.push((v.name, n));
                if !self.eat(',') {
                    break;
                }
            }
            self.expect('=')?;
        }
        let mut op = match self.peek() {
            Tok::Str(name) => {
                self.bump();
                let name = String::from_utf8_lossy(name).into_owned();
                self.generic_op(name, pos)?
            }
            Tok::Word(name) => {
                self.bump();
                self.pretty_op(name.clone(), pos, results.iter().map(|(_, n)| n).sum())?
            }
            t => {
                return self.err(
                    MlirErrorKind::Syntax,
                    format!("expected an operation but found {t}"),
                )
            }
        };
        op.pos = pos;
        op.results = results;
        self.skip_loc()?;
        Ok(op)
    }

    /// `"name"(operands) <{props}> (regions) {attrs} : (types) -> types`.
    fn generic_op(&mut self, name: String, pos: Pos) -> PResult<OpAst> {
        let mut op = OpAst {
            name,
            pos,
            ..OpAst::default()
        };
        self.expect('(')?;
        while !self.eat(')') {
            op.operands.push(self.value_ref()?);
            if !self.eat(',') {
                self.expect(')')?;
                break;
            }
        }
        if self.is('[') {
            return self.err(MlirErrorKind::Syntax, "successor blocks are not supported");
        }
        if self.is('<') && self.peek_at(1) == &Tok::Punct('{') {
            self.bump();
            let (props, _) = self.attr_dict()?;
            op.attrs.extend(props);
            self.expect('>')?;
        }
        if self.is('(') && self.peek_at(1) == &Tok::Punct('{') {
            self.bump();
            loop {
                op.regions.push(self.region()?);
                if !self.eat(',') {
                    break;
                }
            }
            self.expect(')')?;
        }
        if self.is('{') {
            let (attrs, _) = self.attr_dict()?;
            op.attrs.extend(attrs);
        }
        self.expect(':')?;
        self.signature(&mut op)?;
        Ok(op)
    }

    /// The type signature after `:`: `(T, ...) -> R`, `T -> (R, ...)` or `T, T, ...` (then
    /// the last types are the results').
    pub(crate) fn signature(&mut self, op: &mut OpAst) -> PResult<()> {
        let inputs = if self.is('(') {
            self.bump();
            let mut v = Vec::new();
            while !self.eat(')') {
                v.push(self.ty()?);
                if !self.eat(',') {
                    self.expect(')')?;
                    break;
                }
            }
            if self.peek() != &Tok::Arrow {
                return self.err(
                    MlirErrorKind::Syntax,
                    format!("expected '->' but found {}", self.peek()),
                );
            }
            v
        } else {
            let mut v = vec![self.ty()?];
            while self.eat(',') {
                v.push(self.ty()?);
            }
            v
        };
        if self.peek() == &Tok::Arrow {
            self.bump();
            op.operand_types = inputs;
            op.result_types = self.func_results()?;
        } else {
            let n = op.result_count();
            let start = inputs.len().saturating_sub(n);
            op.result_types = inputs
                .get(start..)
                .map(<[Shape]>::to_vec)
                .unwrap_or_default();
            op.operand_types = inputs;
        }
        Ok(())
    }
}

/// Attribute dictionaries as `(key, value)` pairs.
pub(crate) type Dict = Vec<(String, Attr)>;
