//! Control flow: `if`/`else` on a scalar predicate becomes `conditional`, and
//! `for i in a..b` over `let mut` names becomes `while`. Each branch and the loop body is a
//! sub-computation; the values it uses from outside are passed in as a tuple.

use super::graph::shape;
use super::{Checker, Val};
use crate::ast::{assigned_names, Block, Expr, LitValue, Stmt, Walk};
use crate::ctxt::Sp;
use proc_macro2::Ident;
use xla_core::builder::XlaOp;
use xla_core::{PrimitiveType, Shape};

/// A value a sub-computation uses from outside: a graph value (passed in the operand tuple)
/// or a weak literal (copied in).
enum Capture {
    Op(String, XlaOp),
    Weak(String, LitValue),
    Poisoned(String),
}

impl<'a> Checker<'a> {
    /// The outer values the nodes use, in order of first use, without repeats.
    fn captures(&self, names: Vec<String>) -> Vec<Capture> {
        let mut seen = std::collections::HashSet::new();
        names
            .into_iter()
            .filter(|n| seen.insert(n.clone()))
            .filter_map(|n| match self.env.get(&n)? {
                Some(Val::Tensor(op)) => Some(Capture::Op(n, op.clone())),
                Some(Val::Weak(v)) => Some(Capture::Weak(n, *v)),
                None => Some(Capture::Poisoned(n)),
            })
            .collect()
    }

    /// A sub-checker whose parameter 0 is a tuple holding, from index `offset` on, the
    /// captured ops, each bound to its name; also returns the parameter.
    fn sub_with_captures(
        &self,
        role: &str,
        captures: &[Capture],
        tuple: &Shape,
        offset: i64,
        sp: Sp,
    ) -> (Checker<'a>, Option<XlaOp>) {
        let mut sub = self.sub_checker(role);
        let param = sub.op(sp, |b| b.parameter(0, tuple.clone(), "state"));
        let mut index = offset;
        for c in captures {
            let (name, v) = match c {
                Capture::Op(name, _) => {
                    let i = index;
                    index += 1;
                    let v = param
                        .as_ref()
                        .and_then(|p| sub.op(sp, |b| b.get_tuple_element(p, i)));
                    (name, v.map(Val::Tensor))
                }
                Capture::Weak(name, v) => (name, Some(Val::Weak(*v))),
                Capture::Poisoned(name) => (name, None),
            };
            sub.env.insert(name.clone(), v);
        }
        (sub, param)
    }

    /// `if cond { then } else { els }`.
    pub fn if_else(&mut self, cond: &Expr, then: &Block, els: &Block, sp: Sp) -> Option<Val> {
        let pred = self
            .expr(cond)
            .and_then(|v| self.tensor(v, Some(PrimitiveType::Pred), cond.span));
        let mut names = Vec::new();
        then.names(&mut names);
        els.names(&mut names);
        let captures = self.captures(names);
        let ops: Vec<XlaOp> = captures
            .iter()
            .filter_map(|c| {
                if let Capture::Op(_, op) = c {
                    Some(op.clone())
                } else {
                    None
                }
            })
            .collect();
        let operand = self.op(sp, |b| b.tuple(&ops))?;
        let tuple = shape(&operand)?;
        let pred = pred?;
        let ps = shape(&pred)?;
        if !(ps.is_scalar() && ps.element_type().is_pred()) {
            self.cx.error(cond.span, format!("if: the condition must be a scalar bool (pred[]), found {ps}; use `p.select(a, b)` to choose elementwise"));
            return None;
        }
        let (mut t, _) = self.sub_with_captures("if_true", &captures, &tuple, 0, sp);
        let (mut f, _) = self.sub_with_captures("if_false", &captures, &tuple, 0, sp);
        let (tv, fv) = (t.block_value(then), f.block_value(els));
        let (tv, fv) = (tv?, fv?);
        // A literal branch takes the other branch's type and dims.
        let like = [&tv, &fv].into_iter().find_map(|v| {
            if let Val::Tensor(op) = v {
                shape(op)
            } else {
                None
            }
        });
        let (tr, fr) = (
            t.materialize(tv, like.as_ref(), sp),
            f.materialize(fv, like.as_ref(), sp),
        );
        let (tc, fc) = (t.finish(tr?, "if", sp)?, f.finish(fr?, "if", sp)?);
        self.val_op(sp, |b| b.conditional(&pred, &operand, &tc, &operand, &fc))
    }

    /// Checks a block's statements and returns its value.
    fn block_value(&mut self, block: &Block) -> Option<Val> {
        for stmt in &block.stmts {
            self.stmt(stmt);
        }
        let tail = block.tail.as_ref()?;
        self.expr(tail)
    }

    /// The value as an op shaped `like` (a literal becomes a constant broadcast to it).
    fn materialize(&mut self, v: Val, like: Option<&Shape>, sp: Sp) -> Option<XlaOp> {
        let weak = matches!(v, Val::Weak(_));
        let op = self.tensor(v, like.map(Shape::element_type), sp)?;
        match like {
            Some(s) if weak && !s.is_scalar() => {
                self.op(sp, |b| b.broadcast_in_dim(&op, s.dims(), &[]))
            }
            _ => Some(op),
        }
    }

    /// Builds this (sub-)checker's computation with `root`.
    fn finish(self, root: XlaOp, role: &str, sp: Sp) -> Option<xla_core::builder::XlaComputation> {
        let cx = self.cx;
        match self.g.finish_sub(&root) {
            Ok(c) => Some(c),
            Err(e) => {
                cx.error(sp, format!("{role}: {e}"));
                None
            }
        }
    }

    /// `name = value` for a `let mut` name: the value keeps the name's shape.
    pub fn assign(&mut self, name: &Ident, value: &Expr, sp: Sp) {
        let key = name.to_string();
        if !self.mutable.contains(&key) {
            self.cx.error(sp, format!("cannot assign to `{name}`: only names declared with `let mut` in this computation can be assigned"));
            return;
        }
        let old = self.env.get(&key).cloned().flatten();
        let new = self.expr(value);
        let new = match (old, new) {
            (Some(Val::Tensor(old)), Some(new)) => {
                let s = shape(&old);
                let op = s
                    .as_ref()
                    .and_then(|s| self.materialize(new, Some(s), value.span));
                op.zip(s).and_then(|(op, s)| match shape(&op) {
                    Some(n) if n.compatible(&s) => Some(Val::Tensor(op)),
                    n => {
                        let n = n.map_or_else(String::new, |n| n.to_string());
                        self.cx.error(value.span, format!("`{name}` would change from {s} to {n}: loop state keeps its shape and type"));
                        None
                    }
                })
            }
            (_, new) => new,
        };
        self.env.insert(key, new);
    }

    /// `for var in start..end { body }` → `while` over (counter, assigned names, captures).
    pub fn for_loop(&mut self, var: Option<&Ident>, start: i64, end: i64, body: &[Stmt], sp: Sp) {
        let mut assigned = Vec::new();
        assigned_names(body, &mut assigned);
        let carried: Vec<String> = {
            let mut seen = std::collections::HashSet::new();
            assigned
                .into_iter()
                .filter(|n| self.mutable.contains(n) && seen.insert(n.clone()))
                .collect()
        };
        // Loop state starts as graph values (a literal takes its default type).
        for name in &carried {
            if let Some(Some(Val::Weak(v))) = self.env.get(name).cloned() {
                let op = self.tensor(Val::Weak(v), None, sp);
                self.env.insert(name.clone(), op.map(Val::Tensor));
            }
        }
        let result = self.while_loop(var, start, end, body, &carried, sp);
        for (i, name) in carried.iter().enumerate() {
            let v = result
                .as_ref()
                .and_then(|r| self.op(sp, |b| b.get_tuple_element(r, i as i64 + 1)));
            self.env.insert(name.clone(), v.map(Val::Tensor));
        }
    }

    fn while_loop(
        &mut self,
        var: Option<&Ident>,
        start: i64,
        end: i64,
        body: &[Stmt],
        carried: &[String],
        sp: Sp,
    ) -> Option<XlaOp> {
        let mut names: Vec<String> = carried.to_vec();
        body.iter().for_each(|s| s.names(&mut names));
        let captures = self.captures(names);
        if captures
            .iter()
            .any(|c| matches!(c, Capture::Poisoned(n) if carried.contains(n)))
        {
            return None;
        }
        let counter = self.constant(PrimitiveType::S32, LitValue::Int(start.into()), sp)?;
        let mut init = vec![counter];
        init.extend(captures.iter().filter_map(|c| {
            if let Capture::Op(_, op) = c {
                Some(op.clone())
            } else {
                None
            }
        }));
        let init = self.op(sp, |b| b.tuple(&init))?;
        let state = shape(&init)?;
        let cond = self.loop_condition(end, &state, sp)?;
        let body = self.loop_body(var, body, &captures, &state, sp)?;
        self.op(sp, |b| b.while_loop(&init, &cond, &body))
    }

    /// `state.0 < end`.
    fn loop_condition(
        &mut self,
        end: i64,
        state: &Shape,
        sp: Sp,
    ) -> Option<xla_core::builder::XlaComputation> {
        let mut c = self.sub_checker("for_condition");
        let param = c.op(sp, |b| b.parameter(0, state.clone(), "state"))?;
        let i = c.op(sp, |b| b.get_tuple_element(&param, 0))?;
        let end = c.constant(PrimitiveType::S32, LitValue::Int(end.into()), sp)?;
        let root = c.op(sp, |b| b.lt(&i, &end))?;
        c.finish(root, "for", sp)
    }

    /// The body: binds the counter and the state, runs the statements, returns the new state
    /// (counter + 1, then every state value in order).
    fn loop_body(
        &mut self,
        var: Option<&Ident>,
        body: &[Stmt],
        captures: &[Capture],
        state: &Shape,
        sp: Sp,
    ) -> Option<xla_core::builder::XlaComputation> {
        // The counter is element 0; the captures follow.
        let (mut b, param) = self.sub_with_captures("for_body", captures, state, 1, sp);
        b.mutable = self.mutable.clone();
        let param = param?;
        let i = b.op(sp, |bb| bb.get_tuple_element(&param, 0))?;
        if let Some(var) = var {
            b.env.insert(var.to_string(), Some(Val::Tensor(i.clone())));
        }
        for stmt in body {
            b.stmt(stmt);
        }
        let one = b.constant(PrimitiveType::S32, LitValue::Int(1), sp)?;
        let next = b.op(sp, |bb| bb.add(&i, &one))?;
        let mut outs = vec![next];
        for c in captures {
            if let Capture::Op(name, _) = c {
                let v = b.env.get(name).cloned().flatten()?;
                outs.push(b.tensor(v, None, sp)?);
            }
        }
        let root = b.op(sp, |bb| bb.tuple(&outs))?;
        b.finish(root, "for", sp)
    }

    /// `helper(a, b)` for another `#[computation] fn helper`: imports its module (once) and
    /// emits a `call`. Literal arguments take the parameters' types.
    pub fn call_computation(
        &mut self,
        func: &Ident,
        args: &[crate::ast::Arg],
        sp: Sp,
    ) -> Option<Val> {
        let name = func.to_string();
        let callees = std::rc::Rc::clone(&self.callees);
        let module = callees.modules.get(&name)?.as_ref()?;
        let params = module.entry_computation()?.parameter_shapes();
        if args.len() != params.len() {
            self.cx.error(
                sp,
                format!(
                    "`{name}` takes {} arguments, found {}",
                    params.len(),
                    args.len()
                ),
            );
            return None;
        }
        let mut ops = Vec::new();
        for (i, (arg, p)) in args.iter().zip(&params).enumerate() {
            let t = crate::ast::TensorType {
                elem: p.element_type(),
                dims: p.dims().to_vec(),
            };
            let what = format!("argument {i} of `{name}`: the parameter is");
            let span = super::args::span(arg);
            ops.push(self.val(arg).and_then(|v| self.expect(v, &t, span, &what)));
        }
        let ops = ops.into_iter().collect::<Option<Vec<_>>>()?;
        let imported = callees.imported.borrow().get(&name).cloned();
        let computation = match imported {
            Some(c) => c,
            None => match self.g.import(module) {
                Ok(c) => {
                    callees
                        .imported
                        .borrow_mut()
                        .insert(name.clone(), c.clone());
                    c
                }
                Err(e) => {
                    self.cx.error(sp, format!("importing `{name}`: {e}"));
                    return None;
                }
            },
        };
        self.val_op(sp, |b| b.call(&ops, &computation))
    }
}
