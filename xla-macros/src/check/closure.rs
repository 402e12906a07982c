//! Closures as scalar sub-computations: `reduce` with a combiner, `map`, `sort` with a
//! comparator. A closure's body is checked by its own checker on a sub-builder of the same
//! module; it sees only its parameters.

use super::graph::shape;
use super::{Checker, Val};
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
