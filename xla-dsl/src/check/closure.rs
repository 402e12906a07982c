//! Closures as scalar sub-computations: `reduce` with a combiner, `map`, `sort` with a
//! comparator. A closure's body is checked by its own checker on a sub-builder of the same
//! module; it sees only its parameters.

use super::graph::shape;
use super::{Checker, Val};
use crate::ast::LitValue;
use crate::ast::{Arg, Closure};
use crate::ctxt::Sp;
use std::collections::{HashMap, HashSet};
use xla_core::builder::{binary, nary, XlaComputation, XlaOp};
use xla_core::{PrimitiveType, Shape};

impl<'a> Checker<'a> {
    /// A checker for a sub-computation named `role`: it starts with no names in scope and
    /// knows the enclosing scopes' names (to explain why they are not visible).
    pub(super) fn sub_checker(&self, role: &str) -> Checker<'a> {
        let outer = self.env.keys().chain(&self.outer).cloned().collect();
        let (env, mutable) = (HashMap::new(), HashSet::new());
        Checker {
            cx: self.cx,
            g: self.g.sub(role),
            env,
            outer,
            mutable,
            callees: std::rc::Rc::clone(&self.callees),
            devices: std::rc::Rc::clone(&self.devices),
        }
    }

    /// The computation of `closure`, its parameters of `params` shapes; `role` names it in
    /// messages (`reduce`, `map`, `sort`).
    pub(super) fn sub_computation(
        &mut self,
        role: &str,
        closure: &Closure,
        params: &[Shape],
    ) -> Option<XlaComputation> {
        if closure.params.len() != params.len() {
            let (n, found) = (params.len(), closure.params.len());
            let s = if n == 1 { "" } else { "s" };
            self.cx.error(
                closure.span,
                format!("the closure of `{role}` takes {n} parameter{s}, found {found}"),
            );
            return None;
        }
        let mut sub = self.sub_checker(role);
        for (number, (name, s)) in closure.params.iter().zip(params).enumerate() {
            let p = sub.op(Sp::of(name), |b| {
                b.parameter(number as i64, s.clone(), &super::hlo_name(name))
            });
            sub.env.insert(name.to_string(), p.map(Val::Tensor));
        }
        for stmt in &closure.body.stmts {
            sub.stmt(stmt);
        }
        let tail = closure.body.tail.as_ref()?;
        let value = sub.expr(tail)?;
        let root = sub.tensor(value, params.first().map(Shape::element_type), tail.span)?;
        match sub.g.finish_sub(&root) {
            Ok(computation) => Some(computation),
            Err(e) => {
                self.cx.error(closure.span, format!("{role}: {e}"));
                None
            }
        }
    }

    /// `x.reduce(init, [dims], |acc, v| ...)`.
    pub fn reduce_with(&mut self, x: Val, args: &[Arg], sp: Sp) -> Option<Val> {
        let [init, dims, f] = self.arity("reduce", args, ["init", "[dims]", "|acc, v| ..."], sp)?;
        let x = self.tensor(x, None, sp)?;
        let ty = shape(&x)?.element_type();
        let (init, dims) = (self.val(init), self.ints(dims, "the reduced dims"));
        let init = self.tensor(init?, Some(ty), sp)?;
        let f = self.closure(f)?;
        let comp = self.sub_computation("reduce", f, &[Shape::scalar(ty), Shape::scalar(ty)])?;
        let dims = dims?;
        self.val_op(sp, |b| b.reduce(&x, &init, &dims, &comp))
    }

    /// `x.map(|v| ...)`: the closure applied to every element.
    pub fn map_with(&mut self, x: Val, args: &[Arg], sp: Sp) -> Option<Val> {
        let [f] = self.arity("map", args, ["|v| ..."], sp)?;
        let x = self.tensor(x, None, sp)?;
        let s = shape(&x)?;
        let comp =
            self.sub_computation("map", self.closure(f)?, &[Shape::scalar(s.element_type())])?;
        let dims: Vec<i64> = (0..s.rank() as i64).collect();
        self.val_op(sp, |b| b.map([&x], &dims, &comp))
    }

    /// `x.sort(dim)` (ascending) or `x.sort(dim, |a, b| ...)` ("`a` goes before `b`"); stable.
    pub fn sort_with(&mut self, x: Val, args: &[Arg], sp: Sp) -> Option<Val> {
        let (dim, f) = match args {
            [dim] => (dim, None),
            [dim, f] => (dim, Some(f)),
            _ => {
                self.cx.error(sp, format!("`sort` takes the dimension and optionally a comparator `|a, b| a.lt(b)`, found {} arguments", args.len()));
                return None;
            }
        };
        let x = self.tensor(x, None, sp)?;
        let ty: PrimitiveType = shape(&x)?.element_type();
        let dim = self.int_scalar(dim, "the sorted dimension")?;
        match f {
            None => self.val_op(sp, |b| {
                b.sort([&x], dim, true, binary(|b, l, r| b.lt(l, r)))
            }),
            Some(f) => {
                let comp = self.sub_computation(
                    "sort",
                    self.closure(f)?,
                    &[Shape::scalar(ty), Shape::scalar(ty)],
                )?;
                self.val_op(sp, |b| b.sort([&x], dim, true, &comp))
            }
        }
    }

    /// `x.argsort(dim)`: the `s32` indices that sort `x` along `dim`, ascending and stable
    /// (a `sort` of `x` together with an `iota`).
    pub fn argsort(&mut self, x: Val, args: &[Arg], sp: Sp) -> Option<Val> {
        let [dim] = self.arity("argsort", args, ["dimension"], sp)?;
        let x = self.tensor(x, None, sp)?;
        let dims = shape(&x)?.dims().to_vec();
        let dim = self.int_scalar(dim, "the sorted dimension")?;
        let iota = self.op(sp, |b| b.iota(Shape::array(PrimitiveType::S32, dims), dim))?;
        let keys_first = nary(|b, ps: &[XlaOp]| match ps {
            [a, c, ..] => b.lt(a, c),
            _ => b.constant_r0(false),
        });
        let sorted = self.op(sp, |b| b.sort([&x, &iota], dim, true, keys_first))?;
        self.val_op(sp, |b| b.get_tuple_element(&sorted, 1))
    }

    /// `[a, b]` and `[init_a, init_b]`: the operands of a variadic op and an initial value
    /// for each (a literal takes its operand's type); also the closure's parameter shapes,
    /// XLA's order: a scalar of each operand's type for the accumulators, then again for
    /// the values.
    pub(super) fn operands_and_inits(
        &mut self,
        n: &str,
        list: &Arg,
        inits: &Arg,
        sp: Sp,
    ) -> Option<(Vec<XlaOp>, Vec<XlaOp>, Vec<Shape>)> {
        let ops = self.operand_list(n, list, sp);
        let init_vals: Option<Vec<Val>> = match (inits, tuple_elems(inits)) {
            (Arg::Ints(v, _), _) => Some(
                v.iter()
                    .map(|&i| Val::Weak(LitValue::Int(i.into())))
                    .collect(),
            ),
            (_, Some(exprs)) => {
                let vals: Vec<Option<Val>> = exprs.iter().map(|e| self.expr(e)).collect();
                vals.into_iter().collect()
            }
            (other, None) => self.list(other),
        };
        let (ops, init_vals) = (ops?, init_vals?);
        if ops.len() != init_vals.len() {
            let (o, i) = (ops.len(), init_vals.len());
            self.cx.error(
                super::args::span(inits),
                format!(
                    "{n}: {o} operands but {i} initial values; give one initial value per operand"
                ),
            );
            return None;
        }
        let mut scalars = Vec::new();
        let mut init_ops = Vec::new();
        for (op, v) in ops.iter().zip(init_vals) {
            let ty = shape(op)?.element_type();
            scalars.push(Shape::scalar(ty));
            init_ops.push(self.tensor(v, Some(ty), sp));
        }
        let params = [scalars.clone(), scalars].concat();
        Some((
            ops,
            init_ops.into_iter().collect::<Option<Vec<_>>>()?,
            params,
        ))
    }

    /// `[a, b]`: the operands of a variadic op, as graph values.
    pub(super) fn operand_list(&mut self, n: &str, list: &Arg, sp: Sp) -> Option<Vec<XlaOp>> {
        let exprs = match (list, tuple_elems(list)) {
            (Arg::List(exprs, _), _) | (_, Some(exprs)) => exprs,
            _ => {
                self.cx.error(
                    super::args::span(list),
                    format!("{n}: expected the operands as a list `[a, b]` or a tuple `(a, b)`"),
                );
                return None;
            }
        };
        let mut ops = Vec::new();
        for e in exprs {
            let v = self.expr(e);
            ops.push(v.and_then(|v| self.tensor(v, None, sp)));
        }
        ops.into_iter().collect()
    }

    /// `reduce_together([a, b], [init_a, init_b], [dims], |(a1, b1), (a2, b2)| (.., ..))`:
    /// a variadic `reduce`, a tuple of one result per operand.
    pub fn reduce_together_call(&mut self, args: &[Arg], sp: Sp) -> Option<Val> {
        let n = "reduce_together";
        let [list, inits, dims, f] =
            self.arity(n, args, ["[operands]", "[inits]", "[dims]", "closure"], sp)?;
        let operands = self.operands_and_inits(n, list, inits, sp);
        let dims = self.ints(dims, "the reduced dims");
        let (ops, inits, params) = operands?;
        let comp = self.sub_computation(n, self.closure(f)?, &params)?;
        let dims = dims?;
        self.val_op(sp, |b| b.reduce_variadic(&ops, &inits, &dims, &comp))
    }

    /// `map_together([a, b], |x, y| ...)`: `map` over several operands of the same dims.
    pub fn map_together_call(&mut self, args: &[Arg], sp: Sp) -> Option<Val> {
        let n = "map_together";
        let [list, f] = self.arity(n, args, ["[operands]", "closure"], sp)?;
        let ops = self.operand_list(n, list, sp)?;
        let mut params = Vec::new();
        for op in &ops {
            params.push(Shape::scalar(shape(op)?.element_type()));
        }
        let rank = ops.first().and_then(shape).map_or(0, |s| s.rank() as i64);
        let comp = self.sub_computation(n, self.closure(f)?, &params)?;
        let dims: Vec<i64> = (0..rank).collect();
        self.val_op(sp, |b| b.map(&ops, &dims, &comp))
    }

    pub(super) fn closure<'c>(&self, arg: &'c Arg) -> Option<&'c Closure> {
        match arg {
            Arg::Closure(c) => Some(c),
            _ => {
                self.cx.error(
                    super::args::span(arg),
                    "expected a closure such as `|a, b| a + b`",
                );
                None
            }
        }
    }
}

/// The elements of a tuple expression argument `(a, b)`.
fn tuple_elems(arg: &Arg) -> Option<&Vec<crate::ast::Expr>> {
    match arg {
        Arg::Expr(crate::ast::Expr {
            kind: crate::ast::ExprKind::Tuple(elems),
            ..
        }) => Some(elems),
        _ => None,
    }
}
