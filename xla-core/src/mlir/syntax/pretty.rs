//! The pretty (custom assembly) forms of ops: most are read by one item loop (operands,
//! `key = value` pairs, bare keywords, `[0:6, 1:2]` slices, an attribute dictionary) up to
//! the `:` of the type signature. `func.call`, `custom_call`, `while` and `reduce` have
//! their own shapes.

use super::{PResult, Parser};
use crate::mlir::ast::{Attr, OpAst, Region, ValueRef};
use crate::mlir::lexer::{Pos, Tok};
use crate::mlir::MlirErrorKind;
use crate::shape::Shape;

impl Parser<'_> {
    /// The op after its name word.
    pub(crate) fn pretty_op(&mut self, name: String, pos: Pos, results: usize) -> PResult<OpAst> {
        let mut op = OpAst {
            name,
            pos,
            results: vec![(String::new(), results)],
            ..OpAst::default()
        };
        match op.name.as_str() {
            "func.call" | "call" | "stablehlo.custom_call" | "mhlo.custom_call" => {
                op.callee = Some(self.symbol()?);
                self.items(&mut op)?;
            }
            "stablehlo.while" | "mhlo.while" => return self.while_op(op),
            // `sdy.sharding_constraint %x <@mesh, [{"x"}, {}]> : type`.
            "sdy.sharding_constraint" | "sdy.reshard" => {
                op.operands.push(self.value_ref()?);
                if self.is('<') {
                    self.skip_balanced()?;
                }
            }
            n if n.starts_with("sdy.") => {
                return self.err(
                    MlirErrorKind::UnknownOp,
                    format!(
                        "unknown op '{n}': of Shardy's ops only sdy.mesh, \
                         sdy.sharding_constraint and sdy.reshard are read (the program runs \
                         on one device)"
                    ),
                )
            }
            "stablehlo.reduce" | "mhlo.reduce" if self.is('(') => return self.reduce_op(op),
            _ => self.items(&mut op)?,
        }
        if self.eat(':') {
            self.signature(&mut op)?;
        }
        Ok(op)
    }

    /// Operands, `key = value`, keywords, slices and dictionaries up to `:` (or the op's end).
    fn items(&mut self, op: &mut OpAst) -> PResult<()> {
        loop {
            match self.peek() {
                Tok::Value(..) => op.operands.push(self.value_ref()?),
                Tok::Punct(',' | '(' | ')') => {
                    self.bump();
                }
                Tok::Punct('[') => {
                    let s = self.slice_spec()?;
                    op.attrs.push(("slice".into(), s));
                }
                Tok::Punct('{') => {
                    let (d, raw) = self.attr_dict()?;
                    op.attrs.push(("__dict".into(), Attr::Dict(d.clone(), raw)));
                    op.attrs.extend(d);
                }
                Tok::Word(w) if self.peek_at(1) == &Tok::Punct('=') => {
                    let key = w.clone();
                    self.bump();
                    self.bump();
                    let v = self.attr_value(false)?;
                    op.attrs.push((key, v));
                }
                Tok::Word(w) if w == "dense" || w == "array" => {
                    let v = self.attr_value(false)?;
                    op.attrs.push(("value".into(), v));
                }
                Tok::Word(w) if w == "loc" => return Ok(()),
                Tok::Word(w) => {
                    op.words.push(w.clone());
                    self.bump();
                }
                Tok::Str(s) => {
                    op.attrs.push(("name".into(), Attr::Str(s.clone())));
                    self.bump();
                }
                Tok::Symbol(s) => {
                    op.attrs.push(("symbol".into(), Attr::Symbol(s.clone())));
                    self.bump();
                }
                _ => return Ok(()),
            }
        }
    }

    /// `[0:6:2, 1:2]` or `[0]`: a list of `[start, limit, stride?]` lists.
    fn slice_spec(&mut self) -> PResult<Attr> {
        self.expect('[')?;
        let mut dims = Vec::new();
        while !self.eat(']') {
            let mut parts = vec![Attr::Int(i128::from(self.int("a slice bound")?))];
            while self.eat(':') {
                parts.push(Attr::Int(i128::from(self.int("a slice bound")?)));
            }
            dims.push(Attr::List(parts));
            if !self.eat(',') {
                self.expect(']')?;
                break;
            }
        }
        Ok(Attr::List(dims))
    }

    /// `while(%iterArg = %init, ...) : types cond { ... } do { ... }`.
    fn while_op(&mut self, mut op: OpAst) -> PResult<OpAst> {
        self.expect('(')?;
        let mut names = Vec::new();
        while !self.eat(')') {
            let arg = self.value_ref()?;
            self.expect('=')?;
            op.operands.push(self.value_ref()?);
            names.push(arg.name);
            if !self.eat(',') {
                self.expect(')')?;
                break;
            }
        }
        if self.is('{') {
            self.attr_dict()?;
        }
        self.expect(':')?;
        let mut types = Vec::new();
        if !self.is_word("cond") {
            types.push(self.ty()?);
            while self.eat(',') {
                types.push(self.ty()?);
            }
        }
        self.skip_loc()?;
        if types.len() != names.len() {
            return self.err(
                MlirErrorKind::Type,
                format!(
                    "while has {} operands but {} types",
                    names.len(),
                    types.len()
                ),
            );
        }
        let args: Vec<(String, Shape)> = names.into_iter().zip(types.iter().cloned()).collect();
        self.expect_word("cond")?;
        let mut cond = self.region()?;
        cond.args = args.clone();
        self.expect_word("do")?;
        let mut body = self.region()?;
        body.args = args;
        op.operand_types = types.clone();
        op.result_types = types;
        op.regions = vec![cond, body];
        Ok(op)
    }

    /// `reduce(%x init: %i), ... applies stablehlo.add across dimensions = [..] : sig` or
    /// `... across dimensions = [..] : sig reducer(%a: T, %b: T) ... { body }`.
    fn reduce_op(&mut self, mut op: OpAst) -> PResult<OpAst> {
        let mut inits = Vec::new();
        loop {
            self.expect('(')?;
            op.operands.push(self.value_ref()?);
            self.expect_word("init")?;
            self.expect(':')?;
            inits.push(self.value_ref()?);
            self.expect(')')?;
            if !self.eat(',') {
                break;
            }
        }
        op.operands.extend(inits);
        let applies = if self.eat_word("applies") {
            Some((self.here(), self.word("an op name")?))
        } else {
            None
        };
        self.expect_word("across")?;
        self.expect_word("dimensions")?;
        self.expect('=')?;
        let dims = self.attr_value(false)?;
        op.attrs.push(("dimensions".into(), dims));
        if self.is('{') {
            let (d, _) = self.attr_dict()?;
            op.attrs.extend(d);
        }
        self.expect(':')?;
        self.signature(&mut op)?;
        self.skip_loc()?;
        let region = match applies {
            Some((pos, name)) => applies_region(&op, name, pos),
            None => self.reducer()?,
        };
        op.regions.push(region);
        Ok(op)
    }

    /// `reducer(%a0: T, %b0: T) (%a1: T, %b1: T) { body }`: block arguments a0, a1, b0, b1.
    fn reducer(&mut self) -> PResult<Region> {
        self.expect_word("reducer")?;
        let (mut lhs, mut rhs) = (Vec::new(), Vec::new());
        while self.eat('(') {
            let a = self.value_ref()?;
            self.expect(':')?;
            let ta = self.ty()?;
            self.skip_loc()?;
            self.expect(',')?;
            let b = self.value_ref()?;
            self.expect(':')?;
            let tb = self.ty()?;
            self.skip_loc()?;
            self.expect(')')?;
            lhs.push((a.name, ta));
            rhs.push((b.name, tb));
        }
        let pos = self.here();
        self.expect('{')?;
        lhs.extend(rhs);
        let mut r = self.block_body(lhs)?;
        r.pos = pos;
        Ok(r)
    }
}

/// The region `applies stablehlo.add` stands for: `(a, b) -> add(a, b)` on the init type.
fn applies_region(op: &OpAst, name: String, pos: Pos) -> Region {
    let n = op.operands.len() / 2;
    let scalars: Vec<Shape> = op
        .operand_types
        .iter()
        .skip(n)
        .map(|t| Shape::scalar(t.element_type()))
        .collect();
    let names = |side: &'static str| (0..n).map(move |i| format!("__{side}{i}"));
    let mut args: Vec<(String, Shape)> = names("lhs").zip(scalars.iter().cloned()).collect();
    args.extend(names("rhs").zip(scalars.iter().cloned()));
    let arg_refs: Vec<ValueRef> = args
        .iter()
        .map(|(a, _)| ValueRef {
            name: a.clone(),
            index: None,
            pos,
        })
        .collect();
    let apply = OpAst {
        name,
        pos,
        results: vec![("__applied".into(), n)],
        operands: arg_refs,
        result_types: scalars.clone(),
        operand_types: [scalars.clone(), scalars.clone()].concat(),
        ..OpAst::default()
    };
    let outs = (0..n)
        .map(|i| ValueRef {
            name: "__applied".into(),
            index: (n > 1).then_some(i),
            pos,
        })
        .collect();
    let ret = OpAst {
        name: "stablehlo.return".into(),
        pos,
        operands: outs,
        result_types: Vec::new(),
        operand_types: scalars,
        ..OpAst::default()
    };
    Region {
        args,
        ops: vec![apply, ret],
        pos,
    }
}
