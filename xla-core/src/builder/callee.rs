//! Sub-computations: [`XlaComputation`] handles, the [`Callee`] trait that ops taking a
//! computation accept, the common [`Combiner`]s, and closures ([`unary`], [`binary`],
//! [`nary`]) built into computations on the spot.

use super::{BuildError, XlaBuilder, XlaOp};
use crate::ir::{BinaryOp, CompId};
use crate::shape::Shape;
use crate::shape_inference::ProgramShape;

/// A finished sub-computation of a module under construction, usable as the called
/// computation of ops added by any builder of that module.
#[derive(Clone, Debug, PartialEq)]
pub struct XlaComputation {
    pub(super) module: u64,
    pub(super) id: CompId,
    pub(super) name: String,
    pub(super) program_shape: ProgramShape,
}

impl XlaComputation {
    /// The computation's name in the module (`add.3`).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The computation's id in the module under construction (for
    /// [`XlaBuilder::add_op`]; ids are renumbered when the module is built).
    pub fn id(&self) -> CompId {
        self.id
    }

    /// Parameter and result shapes.
    pub fn program_shape(&self) -> &ProgramShape {
        &self.program_shape
    }
}

/// Something an op can call: resolved into a computation of the builder's module taking
/// parameters of the given shapes.
pub trait Callee {
    /// Resolves `self` for a call from `b`; `role` names the computation's role (`reducer`,
    /// `body`, ...) for closures and messages; `params` are the parameter shapes the op
    /// passes. On failure the errors are recorded in `b` and `None` is returned.
    fn resolve(self, b: &XlaBuilder, role: &str, params: &[Shape]) -> Option<XlaComputation>;
}

impl Callee for &XlaComputation {
    fn resolve(self, b: &XlaBuilder, role: &str, _params: &[Shape]) -> Option<XlaComputation> {
        if self.module == b.inner.ctx.id {
            return Some(self.clone());
        }
        let message = format!(
            "computation `{}` ({role}) belongs to another module; build it with a sub_builder of this builder",
            self.name
        );
        b.misuse(role, message);
        None
    }
}

impl Callee for XlaComputation {
    fn resolve(self, b: &XlaBuilder, role: &str, params: &[Shape]) -> Option<XlaComputation> {
        (&self).resolve(b, role, params)
    }
}

/// The common combiners of reductions, built as scalar computations of the operands'
/// element type (XLA's `CreateScalarAddComputation`, ...). With N operands (variadic
/// reduce), the combiner applies pairwise and returns an N-tuple.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Combiner {
    /// `a + b`.
    Add,
    /// `a * b`.
    Mul,
    /// `max(a, b)`.
    Max,
    /// `min(a, b)`.
    Min,
    /// `a & b` (logical for PRED).
    And,
    /// `a | b` (logical for PRED).
    Or,
}

impl Combiner {
    /// The elementwise op this combiner applies.
    pub fn op(self) -> BinaryOp {
        match self {
            Combiner::Add => BinaryOp::Add,
            Combiner::Mul => BinaryOp::Mul,
            Combiner::Max => BinaryOp::Max,
            Combiner::Min => BinaryOp::Min,
            Combiner::And => BinaryOp::And,
            Combiner::Or => BinaryOp::Or,
        }
    }

    fn short_name(self) -> &'static str {
        match self {
            Combiner::Add => "add",
            Combiner::Mul => "mul",
            Combiner::Max => "max",
            Combiner::Min => "min",
            Combiner::And => "and",
            Combiner::Or => "or",
        }
    }
}

impl Callee for Combiner {
    fn resolve(self, b: &XlaBuilder, role: &str, params: &[Shape]) -> Option<XlaComputation> {
        if params.is_empty() || !params.len().is_multiple_of(2) {
            let message = format!(
                "a combiner takes pairs of scalars, but {} parameters are passed",
                params.len()
            );
            b.misuse(role, message);
            return None;
        }
        let key = (self, params.to_vec());
        if let Some(c) = b.inner.ctx.combiners.borrow().get(&key) {
            return Some(c.clone());
        }
        let ty = params[0].element_type().name().to_uppercase();
        let sub = b.sub_builder(&format!("{}_{ty}", self.short_name()));
        let n = params.len() / 2;
        let names = |i: usize| {
            if n == 1 {
                ["lhs", "rhs"][i / n].to_string()
            } else {
                format!("p{i}")
            }
        };
        let ps: Vec<XlaOp> = params
            .iter()
            .enumerate()
            .map(|(i, s)| sub.parameter(i as i64, s.clone(), &names(i)))
            .collect();
        let outs: Vec<XlaOp> = (0..n)
            .map(|i| sub.binary_op(self.op(), &ps[i], &ps[n + i], &[]))
            .collect();
        let root = if n == 1 {
            outs[0].clone()
        } else {
            sub.tuple(&outs)
        };
        let comp = finish_closure(b, &sub, &root)?;
        b.inner.ctx.combiners.borrow_mut().insert(key, comp.clone());
        Some(comp)
    }
}

/// Builds `sub`'s computation with `root`; on failure moves `sub`'s errors into `b`.
fn finish_closure(b: &XlaBuilder, sub: &XlaBuilder, root: &XlaOp) -> Option<XlaComputation> {
    match sub.build_sub_inner(Some(root)) {
        Ok(c) => Some(c),
        Err(e) => {
            for err in e.errors {
                b.record(err);
            }
            None
        }
    }
}

/// Builds a closure's computation: parameters of `params`, then `body`.
fn closure(
    b: &XlaBuilder,
    role: &str,
    params: &[Shape],
    arity: Option<usize>,
    body: impl FnOnce(&XlaBuilder, Vec<XlaOp>) -> XlaOp,
) -> Option<XlaComputation> {
    if let Some(k) = arity.filter(|&k| k != params.len()) {
        let message = format!(
            "the closure takes {k} parameter(s) but the op passes {}",
            params.len()
        );
        b.record(BuildError::Misuse {
            computation: b.inner.name.clone(),
            op: role.into(),
            message,
        });
        return None;
    }
    let sub = b.sub_builder(role);
    let ps = params
        .iter()
        .enumerate()
        .map(|(i, s)| sub.parameter(i as i64, s.clone(), &format!("p{i}")))
        .collect();
    let root = body(&sub, ps);
    finish_closure(b, &sub, &root)
}

/// A closure of one parameter used as a computation (see [`unary`]).
pub struct Unary<F>(F);
/// A closure of two parameters used as a computation (see [`binary`]).
pub struct Binary<F>(F);
/// A closure of any number of parameters used as a computation (see [`nary`]).
pub struct Nary<F>(F);

/// A computation of one parameter written as a closure `|sub_builder, x| ...` (a while
/// condition or body, a conditional branch, a map of one operand).
pub fn unary<F: FnOnce(&XlaBuilder, XlaOp) -> XlaOp>(f: F) -> Unary<F> {
    Unary(f)
}

/// A computation of two parameters written as a closure `|sub_builder, a, b| ...` (a
/// reducer, a comparator of one operand, a select or scatter of select-and-scatter).
pub fn binary<F: FnOnce(&XlaBuilder, XlaOp, XlaOp) -> XlaOp>(f: F) -> Binary<F> {
    Binary(f)
}

/// A computation of any number of parameters written as a closure
/// `|sub_builder, params| ...` (variadic reducers and comparators, calls).
pub fn nary<F: FnOnce(&XlaBuilder, &[XlaOp]) -> XlaOp>(f: F) -> Nary<F> {
    Nary(f)
}

impl<F: FnOnce(&XlaBuilder, XlaOp) -> XlaOp> Callee for Unary<F> {
    fn resolve(self, b: &XlaBuilder, role: &str, params: &[Shape]) -> Option<XlaComputation> {
        closure(
            b,
            role,
            params,
            Some(1),
            |sb, ps| match <[XlaOp; 1]>::try_from(ps) {
                Ok([x]) => (self.0)(sb, x),
                Err(_) => sb.poisoned(),
            },
        )
    }
}

impl<F: FnOnce(&XlaBuilder, XlaOp, XlaOp) -> XlaOp> Callee for Binary<F> {
    fn resolve(self, b: &XlaBuilder, role: &str, params: &[Shape]) -> Option<XlaComputation> {
        closure(
            b,
            role,
            params,
            Some(2),
            |sb, ps| match <[XlaOp; 2]>::try_from(ps) {
                Ok([x, y]) => (self.0)(sb, x, y),
                Err(_) => sb.poisoned(),
            },
        )
    }
}

/// A bare closure of two parameters is a computation too (the common case: reducers,
/// comparators, select and scatter). Rust cannot infer a bare closure's parameter types
/// through this impl, so write them (`|sb: &XlaBuilder, a: XlaOp, c: XlaOp| ...`) or wrap
/// the closure in [`binary`], which needs none.
impl<F: FnOnce(&XlaBuilder, XlaOp, XlaOp) -> XlaOp> Callee for F {
    fn resolve(self, b: &XlaBuilder, role: &str, params: &[Shape]) -> Option<XlaComputation> {
        Binary(self).resolve(b, role, params)
    }
}

impl<F: FnOnce(&XlaBuilder, &[XlaOp]) -> XlaOp> Callee for Nary<F> {
    fn resolve(self, b: &XlaBuilder, role: &str, params: &[Shape]) -> Option<XlaComputation> {
        closure(b, role, params, None, |sb, ps| (self.0)(sb, &ps))
    }
}

impl XlaBuilder {
    /// Resolves a callee for op `op` (role `role`), or `None` after recording why not.
    pub(super) fn callee(&self, c: impl Callee, role: &str, params: &[Shape]) -> Option<CompId> {
        c.resolve(self, role, params).map(|c| c.id)
    }
}

/// Scalar shapes of the element types of `shapes`, `N` operands then `N` again (the
/// parameters of a reducer over those operands).
pub(super) fn reducer_params(shapes: &[Shape]) -> Vec<Shape> {
    let scalars: Vec<Shape> = shapes
        .iter()
        .map(|s| Shape::scalar(s.element_type()))
        .collect();
    scalars.iter().chain(scalars.iter()).cloned().collect()
}
