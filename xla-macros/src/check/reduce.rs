//! Reductions over given dims: sum, prod, max, min and mean.

use super::{literal, Checker, Val};
use crate::ast::LitValue;
use crate::ctxt::Sp;
use xla_core::ir::{BinaryOp, Op};

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
        let id = self.tensor(v, None, sp)?;
        let shape = self.g.shape(id).clone();
        let ty = shape.element_type();
        let dims = dims.unwrap_or_else(|| (0..shape.rank() as i64).collect());
        let (op, init) = match kind {
            Reduction::Sum | Reduction::Mean => (BinaryOp::Add, Some(LitValue::Int(0))),
            Reduction::Prod => (BinaryOp::Mul, Some(LitValue::Int(1))),
            Reduction::Max => (BinaryOp::Max, literal::lowest(ty)),
            Reduction::Min => (BinaryOp::Min, literal::highest(ty)),
        };
        let is_bool =
            ty.is_pred() && matches!(kind, Reduction::Sum | Reduction::Prod | Reduction::Mean);
        if kind == Reduction::Mean && !ty.is_float_or_complex() {
            self.cx.error(sp, format!("mean: needs a floating-point tensor, found {shape}; convert it first (`.convert::<f32>()`)"));
            return None;
        }
        let Some(init) = init.filter(|_| !is_bool) else {
            self.cx
                .error(sp, format!("{}: not defined for {shape}", kind.name()));
            return None;
        };
        let init = self.constant(ty, init, sp)?;
        let to_apply = self.g.reducer(op, ty);
        let reduced = self.push(
            Op::Reduce {
                dimensions: dims.clone(),
                to_apply,
            },
            &[id, init],
            None,
            sp,
        )?;
        if kind != Reduction::Mean {
            return Some(reduced);
        }
        let count: i64 = dims
            .iter()
            .filter_map(|&d| usize::try_from(d).ok().and_then(|d| shape.dims().get(d)))
            .product();
        self.elementwise_binary(
            Op::Binary(BinaryOp::Div),
            reduced,
            Val::Weak(LitValue::Int(count.into())),
            sp,
        )
    }
}
