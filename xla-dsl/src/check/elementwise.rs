//! Elementwise operations: unary and binary ops with implicit broadcasting, select, clamp
//! and convert.

use super::graph::shape;
use super::{Checker, Elementwise, Val};
use crate::ast::LitValue;
use crate::ctxt::Sp;
use xla_core::ir::{BinaryOp, UnaryOp};
use xla_core::PrimitiveType;

impl Checker<'_> {
    /// `op(v)`.
    pub fn elementwise_unary(&mut self, op: UnaryOp, v: Val, sp: Sp) -> Option<Val> {
        let x = self.tensor(v, None, sp)?;
        self.val_op(sp, |b| b.unary_op(op, &x))
    }

    /// `op(l, r)`, broadcasting numpy-style: a scalar goes everywhere; an operand of lower
    /// rank lines up with the trailing dims of the other (XLA's `broadcast_dimensions` = those
    /// trailing dims); size-1 dims stretch.
    pub fn elementwise_binary(&mut self, op: Elementwise, l: Val, r: Val, sp: Sp) -> Option<Val> {
        let (l, r) = self.unify(l, r, sp)?;
        let (lr, rr) = (shape(&l)?.rank() as i64, shape(&r)?.rank() as i64);
        let (lo, hi) = (lr.min(rr), lr.max(rr));
        let trailing: Vec<i64> = if lo == 0 || lo == hi {
            Vec::new()
        } else {
            (hi - lo..hi).collect()
        };
        let errors_before = self.cx.error_count();
        let result = self.val_op(sp, |b| match op {
            Elementwise::Binary(op) => b.binary_op(op, &l, &r, &trailing),
            Elementwise::Compare(direction) => b.compare_op(direction, false, &l, &r, &trailing),
        });
        if result.is_none() && !trailing.is_empty() && self.cx.error_count() > errors_before {
            let hint = "the lower-rank operand lines up with the trailing dims; use `broadcast_in_dim` to choose others";
            self.cx.annotate_last(&format!(" ({hint})"));
        }
        result
    }

    /// `select(pred, on_true, on_false)`; scalars broadcast to the others' shape.
    pub fn select(&mut self, pred: Val, on_true: Val, on_false: Val, sp: Sp) -> Option<Val> {
        let pred = self.tensor(pred, Some(PrimitiveType::Pred), sp);
        let (t, f) = self.unify(on_true, on_false, sp)?;
        let pred = pred?;
        self.val_op(sp, |b| b.select(&pred, &t, &f))
    }

    /// `clamp(lo, x, hi)`: literal bounds take `x`'s element type.
    pub fn clamp(&mut self, x: Val, lo: Val, hi: Val, sp: Sp) -> Option<Val> {
        let x = self.tensor(x, None, sp)?;
        let ty = shape(&x)?.element_type();
        let (lo, hi) = (self.tensor(lo, Some(ty), sp), self.tensor(hi, Some(ty), sp));
        let (lo, hi) = (lo?, hi?);
        self.val_op(sp, |b| b.clamp(&lo, &x, &hi))
    }

    /// Converts to element type `ty`.
    pub fn convert(&mut self, v: Val, ty: PrimitiveType, sp: Sp) -> Option<Val> {
        let x = self.tensor(v, None, sp)?;
        self.val_op(sp, |b| b.convert_element_type(&x, ty))
    }

    /// `max(x, 0)`.
    pub fn relu(&mut self, x: Val, sp: Sp) -> Option<Val> {
        let zero = Val::Weak(LitValue::Int(0));
        self.elementwise_binary(Elementwise::Binary(BinaryOp::Max), x, zero, sp)
    }

    /// `x.convert::<T>()`: the turbofish is required.
    pub fn convert_to(
        &mut self,
        n: &str,
        x: Val,
        ty: Option<PrimitiveType>,
        sp: Sp,
    ) -> Option<Val> {
        let Some(ty) = ty else {
            self.cx.error(
                sp,
                format!("`{n}` needs the target element type: `{n}::<f64>()`"),
            );
            return None;
        };
        self.convert(x, ty, sp)
    }
}
