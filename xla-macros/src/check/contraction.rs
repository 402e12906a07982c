//! Contractions: `dot` (vectors and matrices) and `matmul` (batched).

use super::{Checker, Val};
use crate::ctxt::Sp;
use xla_core::ir::{DotDims, Op, PrecisionConfig};

impl Checker<'_> {
    /// XLA's `Dot`: vector·vector, matrix·vector, vector·matrix or matrix·matrix, contracting
    /// the last dim of `l` with the first dim of `r`.
    pub fn dot(&mut self, l: Val, r: Val, sp: Sp) -> Option<Val> {
        let (l, r) = self.unify(l, r, sp)?;
        let (ls, rs) = (self.g.shape(l), self.g.shape(r));
        let (lr, rr) = (ls.rank() as i64, rs.rank() as i64);
        if !(1..=2).contains(&lr) || !(1..=2).contains(&rr) {
            self.cx.error(sp, format!("dot: operands must be vectors or matrices, found lhs {ls} and rhs {rs}; use `matmul` for batched products"));
            return None;
        }
        let dims = DotDims {
            lhs_contracting_dims: vec![lr - 1],
            rhs_contracting_dims: vec![0],
            ..DotDims::default()
        };
        self.push(
            Op::Dot {
                dims,
                precision: PrecisionConfig::default(),
            },
            &[l, r],
            None,
            sp,
        )
    }

    /// Batched matrix product: `[..., m, k] × [..., k, n] → [..., m, n]`, the leading dims
    /// being batch dims (operands of rank 1 or 2 are a plain `dot`).
    pub fn matmul(&mut self, l: Val, r: Val, sp: Sp) -> Option<Val> {
        let (li, ri) = self.unify(l, r, sp)?;
        let (ls, rs) = (self.g.shape(li), self.g.shape(ri));
        let (lr, rr) = (ls.rank() as i64, rs.rank() as i64);
        if lr <= 2 && rr <= 2 {
            return self.dot(Val::Tensor(li), Val::Tensor(ri), sp);
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
        self.push(
            Op::Dot {
                dims,
                precision: PrecisionConfig::default(),
            },
            &[li, ri],
            None,
            sp,
        )
    }
}
