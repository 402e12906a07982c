//! Contractions: `dot` (vectors and matrices) and `matmul` (batched).

use super::graph::shape;
use super::{Checker, Val};
use crate::ctxt::Sp;
use xla_core::ir::DotDims;

impl Checker<'_> {
    /// XLA's `Dot`: vector·vector, matrix·vector, vector·matrix or matrix·matrix, contracting
    /// the last dim of `l` with the first dim of `r`.
    pub fn dot(&mut self, l: Val, r: Val, sp: Sp) -> Option<Val> {
        let (l, r) = self.unify(l, r, sp)?;
        let (ls, rs) = (shape(&l)?, shape(&r)?);
        if !(1..=2).contains(&ls.rank()) || !(1..=2).contains(&rs.rank()) {
            self.cx.error(sp, format!("dot: operands must be vectors or matrices, found lhs {ls} and rhs {rs}; use `matmul` for batched products"));
            return None;
        }
        self.val_op(sp, |b| b.dot(&l, &r))
    }

    /// Batched matrix product: `[..., m, k] × [..., k, n] → [..., m, n]`, the leading dims
    /// being batch dims (operands of rank 1 or 2 are a plain `dot`).
    pub fn matmul(&mut self, l: Val, r: Val, sp: Sp) -> Option<Val> {
        let (l, r) = self.unify(l, r, sp)?;
        let (ls, rs) = (shape(&l)?, shape(&r)?);
        let (lr, rr) = (ls.rank() as i64, rs.rank() as i64);
        if lr <= 2 && rr <= 2 {
            return self.dot(Val::Tensor(l), Val::Tensor(r), sp);
        }
        if lr != rr {
            self.cx.error(
                sp,
                format!(
                    "matmul: batched operands must have the same rank, found lhs {ls} and rhs {rs}"
                ),
            );
            return None;
        }
        let batch: Vec<i64> = (0..lr - 2).collect();
        let dims = DotDims {
            lhs_batch_dims: batch.clone(),
            rhs_batch_dims: batch,
            lhs_contracting_dims: vec![lr - 1],
            rhs_contracting_dims: vec![rr - 2],
        };
        self.val_op(sp, |b| b.dot_general(&l, &r, &dims))
    }
}
