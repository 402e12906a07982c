//! Elementwise operations: unary and binary ops with implicit broadcasting, select, clamp
//! and convert.

use super::{Checker, Val};
use crate::ctxt::Sp;
use xla_core::ir::{InstrId, Op, UnaryOp};
use xla_core::shape_inference::elementwise::broadcast_plan;
use xla_core::PrimitiveType;

impl Checker<'_> {
    /// `op(v)`.
    pub fn elementwise_unary(&mut self, op: UnaryOp, v: Val, sp: Sp) -> Option<Val> {
        let id = self.tensor(v, None, sp)?;
        self.push(Op::Unary(op), &[id], None, sp)
    }

    /// `op(l, r)` for a binary or compare op, broadcasting the operands to a common shape.
    pub fn elementwise_binary(&mut self, op: Op, l: Val, r: Val, sp: Sp) -> Option<Val> {
        let (l, r) = self.unify(l, r, sp)?;
        let (l, r) = self.broadcast_pair(op.name(), l, r, sp)?;
        self.push(op, &[l, r], None, sp)
    }

    /// Broadcasts two operands to one shape, numpy-style: a scalar goes everywhere; an
    /// operand of lower rank lines up with the trailing dims of the other (XLA's
    /// `broadcast_dimensions` = those trailing dims); size-1 dims stretch.
    fn broadcast_pair(
        &mut self,
        op: &str,
        l: InstrId,
        r: InstrId,
        sp: Sp,
    ) -> Option<(InstrId, InstrId)> {
        let (ls, rs) = (self.g.shape(l).clone(), self.g.shape(r).clone());
        if ls.dims() == rs.dims() {
            return Some((l, r));
        }
        if ls.is_scalar() {
            return Some((self.broadcast_to(l, rs.dims(), Vec::new(), sp)?, r));
        }
        if rs.is_scalar() {
            return Some((l, self.broadcast_to(r, ls.dims(), Vec::new(), sp)?));
        }
        let (lo, hi) = (
            ls.rank().min(rs.rank()) as i64,
            ls.rank().max(rs.rank()) as i64,
        );
        let trailing: Vec<i64> = if lo == hi {
            Vec::new()
        } else {
            (hi - lo..hi).collect()
        };
        let plan = match broadcast_plan(op, &ls, &rs, &trailing) {
            Ok(plan) => plan,
            Err(e) if lo == hi => {
                self.cx.error(sp, e);
                return None;
            }
            Err(e) => {
                let hint = "the lower-rank operand lines up with the trailing dims; use `broadcast_in_dim` to choose others";
                self.cx.error(sp, format!("{e} ({hint})"));
                return None;
            }
        };
        let l = match plan.lhs {
            Some(dimensions) => self.broadcast_to(l, &plan.dims, dimensions, sp)?,
            None => l,
        };
        let r = match plan.rhs {
            Some(dimensions) => self.broadcast_to(r, &plan.dims, dimensions, sp)?,
            None => r,
        };
        Some((l, r))
    }

    /// `select(pred, on_true, on_false)`; the branches broadcast against each other.
    pub fn select(&mut self, pred: Val, on_true: Val, on_false: Val, sp: Sp) -> Option<Val> {
        let pred = self.tensor(pred, Some(PrimitiveType::Pred), sp);
        let (t, f) = self.unify(on_true, on_false, sp)?;
        let (t, f) = self.broadcast_pair("select", t, f, sp)?;
        let pred = pred?;
        let pred = if self.g.shape(pred).is_scalar() && !self.g.shape(t).is_scalar() {
            let dims = self.g.shape(t).dims().to_vec();
            self.broadcast_to(pred, &dims, Vec::new(), sp)?
        } else {
            pred
        };
        self.push(Op::Select, &[pred, t, f], None, sp)
    }

    /// `clamp(lo, x, hi)`: literal bounds take `x`'s element type.
    pub fn clamp(&mut self, x: Val, lo: Val, hi: Val, sp: Sp) -> Option<Val> {
        let x = self.tensor(x, None, sp)?;
        let ty = self.g.shape(x).element_type();
        let (lo, hi) = (self.tensor(lo, Some(ty), sp), self.tensor(hi, Some(ty), sp));
        self.push(Op::Clamp, &[lo?, x, hi?], None, sp)
    }

    /// Converts to element type `ty`.
    pub fn convert(&mut self, v: Val, ty: PrimitiveType, sp: Sp) -> Option<Val> {
        let id = self.tensor(v, None, sp)?;
        let declared = self.g.shape(id).with_element_type(ty);
        self.push(Op::Convert, &[id], Some(declared), sp)
    }
}
