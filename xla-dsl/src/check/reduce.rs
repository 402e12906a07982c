//! Reductions over given dims: sum, prod, max, min and mean.

use super::graph::shape;
use super::{literal, Checker, Elementwise, Val};
use crate::ast::LitValue;
use crate::ctxt::Sp;
use xla_core::builder::Combiner;
use xla_core::ir::BinaryOp;

/// A built-in reduction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reduction {
    /// Sum (init 0).
    Sum,
    /// Product (init 1).
    Prod,
    /// Maximum (init: the lowest value, −∞ for floats).
    Max,
    /// Minimum (init: the highest value, +∞ for floats).
    Min,
    /// Sum divided by the number of reduced elements (floating-point types).
    Mean,
}

impl Reduction {
    fn name(self) -> &'static str {
        match self {
            Reduction::Sum => "sum",
            Reduction::Prod => "prod",
            Reduction::Max => "max",
            Reduction::Min => "min",
            Reduction::Mean => "mean",
        }
    }
}

impl Checker<'_> {
    /// Reduces `v` over `dims` (all dims when `None`).
    pub fn reduce(
        &mut self,
        kind: Reduction,
        v: Val,
        dims: Option<Vec<i64>>,
        sp: Sp,
    ) -> Option<Val> {
        let x = self.tensor(v, None, sp)?;
        let s = shape(&x)?;
        let ty = s.element_type();
        let dims = dims.unwrap_or_else(|| (0..s.rank() as i64).collect());
        let (combiner, init) = match kind {
            Reduction::Sum | Reduction::Mean => (Combiner::Add, Some(LitValue::Int(0))),
            Reduction::Prod => (Combiner::Mul, Some(LitValue::Int(1))),
            Reduction::Max => (Combiner::Max, literal::lowest(ty)),
            Reduction::Min => (Combiner::Min, literal::highest(ty)),
        };
        if kind == Reduction::Mean && !ty.is_float_or_complex() {
            self.cx.error(sp, format!("mean: needs a floating-point tensor, found {s}; convert it first (`.convert::<f32>()`)"));
            return None;
        }
        let arithmetic_on_pred = ty.is_pred() && matches!(combiner, Combiner::Add | Combiner::Mul);
        let Some(init) = init.filter(|_| !arithmetic_on_pred) else {
            self.cx
                .error(sp, format!("{}: not defined for {s}", kind.name()));
            return None;
        };
        let init = self.constant(ty, init, sp)?;
        let reduced = self.val_op(sp, |b| b.reduce(&x, &init, &dims, combiner))?;
        if kind != Reduction::Mean {
            return Some(reduced);
        }
        let count: i64 = dims
            .iter()
            .filter_map(|&d| usize::try_from(d).ok().and_then(|d| s.dims().get(d)))
            .product();
        let count = Val::Weak(LitValue::Int(count.into()));
        self.elementwise_binary(Elementwise::Binary(BinaryOp::Div), reduced, count, sp)
    }
}
