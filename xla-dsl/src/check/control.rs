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
        let branches = self.branches(&[then, els], &["if_true", "if_false"], "if", sp);
        let pred = pred?;
        let ps = shape(&pred)?;
        if !(ps.is_scalar() && ps.element_type().is_pred()) {
            self.cx.error(cond.span, format!("if: the condition must be a scalar bool (pred[]), found {ps}; use `p.select(a, b)` to choose elementwise"));
            return None;
        }
        let (operand, [tc, fc]) =
            branches.and_then(|(o, cs)| Some((o, <[_; 2]>::try_from(cs).ok()?)))?;
        self.val_op(sp, |b| b.conditional(&pred, &operand, &tc, &operand, &fc))
    }

    /// `match index { 0 => a, 1 => b, _ => c }`: a `conditional` with an `s32` branch
    /// index; the `_` arm is the last branch, which XLA runs for any index out of range.
    pub fn match_index(&mut self, index: &Expr, arms: &[Block], sp: Sp) -> Option<Val> {
        let idx = self
            .expr(index)
            .and_then(|v| self.tensor(v, Some(PrimitiveType::S32), index.span));
        let blocks: Vec<&Block> = arms.iter().collect();
        let names: Vec<String> = (0..arms.len()).map(|i| format!("branch_{i}")).collect();
        let names: Vec<&str> = names.iter().map(String::as_str).collect();
        let branches = self.branches(&blocks, &names, "match", sp);
        let idx = idx?;
        let s = shape(&idx)?;
        if !(s.is_scalar() && s.element_type() == PrimitiveType::S32) {
            self.cx.error(index.span, format!("match: the branch index must be an s32 scalar (`i32`), found {s}; convert it with `.convert::<i32>()`"));
            return None;
        }
        let (operand, comps) = branches?;
        let operands = vec![operand; comps.len()];
        self.val_op(sp, |b| b.conditional_indexed(&idx, &comps, &operands))
    }

    /// The branch computations of a `conditional` over `blocks`, named `names` (each taking
    /// the tuple of the values they use from outside), and that tuple. Every branch must give the same
    /// shape; a literal branch takes the other branches' type and dims.
    fn branches(
        &mut self,
        blocks: &[&Block],
        names: &[&str],
        role: &str,
        sp: Sp,
    ) -> Option<(XlaOp, Vec<xla_core::builder::XlaComputation>)> {
        let mut used = Vec::new();
        blocks.iter().for_each(|b| b.names(&mut used));
        let captures = self.captures(used);
        let operand = self.op(sp, |b| b.tuple(captured_ops(&captures)))?;
        let tuple = shape(&operand)?;
        let mut subs = Vec::new();
        for (block, name) in blocks.iter().zip(names) {
            let (mut sub, _) = self.sub_with_captures(name, &captures, &tuple, 0, sp);
            let v = sub.block_value(block);
            subs.push((sub, v));
        }
        let like = subs.iter().find_map(|(_, v)| match v {
            Some(Val::Tensor(op)) => shape(op),
            _ => None,
        });
        let mut comps = Vec::new();
        for (mut sub, v) in subs {
            let root = v.and_then(|v| sub.materialize(v, like.as_ref(), sp));
            comps.push(root.and_then(|r| sub.finish(r, role, sp)));
        }
        let comps = comps.into_iter().collect::<Option<Vec<_>>>()?;
        Some((operand, comps))
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
        let carried = self.carried(body, sp);
        let result = self.while_loop(var, start, end, body, &carried, sp);
        self.rebind(&carried, result.as_ref(), 1, sp);
    }

    /// `while cond { body }` → `while` over (assigned names, captures), running while
    /// `cond` holds on the state.
    pub fn while_stmt(&mut self, cond: &Expr, body: &[Stmt], sp: Sp) {
        let carried = self.carried(body, sp);
        if carried.is_empty() {
            self.cx.error(sp, "a `while` loop must assign a `let mut` name declared before it: that is its state, which the condition tests");
            return;
        }
        let result = self.data_while(cond, body, &carried, sp);
        self.rebind(&carried, result.as_ref(), 0, sp);
    }

    /// The `let mut` names `body` assigns, without repeats, each now a graph value (a
    /// literal takes its default type): the loop state.
    fn carried(&mut self, body: &[Stmt], sp: Sp) -> Vec<String> {
        let mut assigned = Vec::new();
        assigned_names(body, &mut assigned);
        let mut seen = std::collections::HashSet::new();
        let carried: Vec<String> = assigned
            .into_iter()
            .filter(|n| self.mutable.contains(n) && seen.insert(n.clone()))
            .collect();
        for name in &carried {
            if let Some(Some(Val::Weak(v))) = self.env.get(name).cloned() {
                let op = self.tensor(Val::Weak(v), None, sp);
                self.env.insert(name.clone(), op.map(Val::Tensor));
            }
        }
        carried
    }

    /// Binds each carried name to its element of the loop's result (from `offset` on).
    fn rebind(&mut self, carried: &[String], result: Option<&XlaOp>, offset: i64, sp: Sp) {
        for (i, name) in carried.iter().enumerate() {
            let v = result.and_then(|r| self.op(sp, |b| b.get_tuple_element(r, i as i64 + offset)));
            self.env.insert(name.clone(), v.map(Val::Tensor));
        }
    }

    /// The `while` of `while cond { body }`: the state is the carried names, then the other
    /// values the condition and body use from outside.
    fn data_while(
        &mut self,
        cond: &Expr,
        body: &[Stmt],
        carried: &[String],
        sp: Sp,
    ) -> Option<XlaOp> {
        let mut names: Vec<String> = carried.to_vec();
        cond.names(&mut names);
        body.iter().for_each(|s| s.names(&mut names));
        let captures = self.captures(names);
        if captures
            .iter()
            .any(|c| matches!(c, Capture::Poisoned(n) if carried.contains(n)))
        {
            return None;
        }
        let init = self.op(sp, |b| b.tuple(captured_ops(&captures)))?;
        let state = shape(&init)?;
        let (mut c, _) = self.sub_with_captures("while_condition", &captures, &state, 0, sp);
        let pred = c
            .expr(cond)
            .and_then(|v| c.tensor(v, Some(PrimitiveType::Pred), cond.span));
        let (mut b, _) = self.sub_with_captures("while_body", &captures, &state, 0, sp);
        b.mutable = self.mutable.clone();
        let outs = b.run_body(body, &captures, carried, sp);
        let pred = pred?;
        let ps = shape(&pred)?;
        if !(ps.is_scalar() && ps.element_type().is_pred()) {
            self.cx.error(
                cond.span,
                format!("while: the condition must be a scalar bool (pred[]), found {ps}"),
            );
            return None;
        }
        let cc = c.finish(pred, "while", sp)?;
        let outs = outs?;
        let root = b.op(sp, |bb| bb.tuple(&outs))?;
        let bc = b.finish(root, "while", sp)?;
        self.op(sp, |bb| bb.while_loop(&init, &cc, &bc))
    }

    /// Runs a loop body's statements; returns the new state: the value of every carried
    /// name, and every other captured value unchanged (a `let` in the body that shadows an
    /// outer name lasts one iteration, as in Rust), in capture order.
    fn run_body(
        &mut self,
        body: &[Stmt],
        captures: &[Capture],
        carried: &[String],
        sp: Sp,
    ) -> Option<Vec<XlaOp>> {
        let start = self.env.clone();
        for stmt in body {
            self.stmt(stmt);
        }
        let mut outs = Vec::new();
        for c in captures {
            if let Capture::Op(name, _) = c {
                let env = if carried.contains(name) {
                    &self.env
                } else {
                    &start
                };
                let v = env.get(name).cloned().flatten()?;
                outs.push(self.tensor(v, None, sp)?);
            }
        }
        Some(outs)
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
        init.extend(captured_ops(&captures));
        let init = self.op(sp, |b| b.tuple(&init))?;
        let state = shape(&init)?;
        let cond = self.loop_condition(end, &state, sp)?;
        let body = self.loop_body(var, body, (&captures, carried), &state, sp)?;
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
        (captures, carried): (&[Capture], &[String]),
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
        let state_out = b.run_body(body, captures, carried, sp)?;
        let one = b.constant(PrimitiveType::S32, LitValue::Int(1), sp)?;
        let next = b.op(sp, |bb| bb.add(&i, &one))?;
        let mut outs = vec![next];
        outs.extend(state_out);
        let root = b.op(sp, |bb| bb.tuple(&outs))?;
        b.finish(root, "for", sp)
    }

    /// `helper(a, b)` for another `#[computation] fn helper`: imports its module (once) and
    /// emits a `call`. Literal arguments take the parameters' types. A generic `helper` is
    /// instantiated at the sizes its arguments' shapes give, and at `sizes` (a turbofish's
    /// integers) for the sizes no argument gives.
    pub fn call_computation(
        &mut self,
        func: &Ident,
        sizes: &[i64],
        args: &[crate::ast::Arg],
        sp: Sp,
    ) -> Option<Val> {
        let name = func.to_string();
        let callees = std::rc::Rc::clone(&self.callees);
        if let Some((attr, source)) = callees.generic.get(&name) {
            let vals: Vec<Option<Val>> = args.iter().map(|a| self.val(a)).collect();
            let vals = vals.into_iter().collect::<Option<Vec<_>>>()?;
            let (key, module) = self.instantiate_callee(&name, attr, source, sizes, &vals, sp)?;
            return self.call_module(&name, &key, &module, args, vals, sp);
        }
        if !sizes.is_empty() {
            self.cx.error(sp, format!("`{name}::<..>`: `{name}` has no size parameters, so it takes no integer turbofish"));
            return None;
        }
        let module = callees.modules.get(&name)?.as_ref()?;
        let vals: Vec<Option<Val>> = args.iter().map(|a| self.val(a)).collect();
        let vals = vals.into_iter().collect::<Option<Vec<_>>>()?;
        self.call_module(&name, &name, module, args, vals, sp)
    }

    /// Checks the argument values `vals` against `module`'s parameters, imports the module
    /// (once per `key`) and emits the `call`.
    pub(super) fn call_module(
        &mut self,
        name: &str,
        key: &str,
        module: &xla_core::Module,
        args: &[crate::ast::Arg],
        vals: Vec<Val>,
        sp: Sp,
    ) -> Option<Val> {
        let params = module.entry_computation()?.parameter_shapes();
        if vals.len() != params.len() {
            self.cx.error(
                sp,
                format!(
                    "`{name}` takes {} arguments, found {}",
                    params.len(),
                    vals.len()
                ),
            );
            return None;
        }
        let mut ops = Vec::new();
        for (i, ((arg, v), p)) in args.iter().zip(vals).zip(&params).enumerate() {
            let what = format!("argument {i} of `{name}`: the parameter is");
            let span = super::args::span(arg);
            if p.is_tuple() {
                ops.push(self.expect_tuple(v, p, span, &what));
                continue;
            }
            let t = crate::ast::TensorType {
                elem: p.element_type(),
                dims: p.dims().to_vec(),
                bare: Vec::new(),
            };
            ops.push(self.expect(v, &t, span, &what));
        }
        let ops = ops.into_iter().collect::<Option<Vec<_>>>()?;
        let callees = std::rc::Rc::clone(&self.callees);
        let imported = callees.imported.borrow().get(key).cloned();
        let computation = match imported {
            Some(c) => c,
            None => match self.g.import(module) {
                Ok(c) => {
                    callees
                        .imported
                        .borrow_mut()
                        .insert(key.to_string(), c.clone());
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

/// The graph values among `captures`, in order (the operand tuple of a sub-computation).
fn captured_ops(captures: &[Capture]) -> Vec<XlaOp> {
    captures
        .iter()
        .filter_map(|c| match c {
            Capture::Op(_, op) => Some(op.clone()),
            Capture::Weak(..) | Capture::Poisoned(_) => None,
        })
        .collect()
}
