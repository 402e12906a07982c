//! Structural operations: reshape, transpose, broadcast, reverse.

use super::graph::shape;
use super::{Checker, Val};
use crate::ctxt::Sp;

impl Checker<'_> {
    /// Reshapes to `dims` (row-major).
    pub fn reshape(&mut self, v: Val, dims: Vec<i64>, sp: Sp) -> Option<Val> {
        let x = self.tensor(v, None, sp)?;
        self.val_op(sp, |b| b.reshape(&x, &dims))
    }

    /// Permutes dims: result dim `i` is operand dim `permutation[i]`.
    pub fn transpose(&mut self, v: Val, permutation: Vec<i64>, sp: Sp) -> Option<Val> {
        let x = self.tensor(v, None, sp)?;
        self.val_op(sp, |b| b.transpose(&x, &permutation))
    }

    /// The transpose of a matrix (`x.t()`).
    pub fn matrix_transpose(&mut self, v: Val, sp: Sp) -> Option<Val> {
        let x = self.tensor(v, None, sp)?;
        let s = shape(&x)?;
        if s.rank() != 2 {
            self.cx.error(
                sp,
                format!("t: expects a matrix (rank 2), found {s}; use `transpose([...])`"),
            );
            return None;
        }
        self.val_op(sp, |b| b.transpose(&x, &[1, 0]))
    }

    /// Broadcasts to `dims`, operand dim `i` going to result dim `dimensions[i]`.
    pub fn broadcast_in_dim(
        &mut self,
        v: Val,
        dims: Vec<i64>,
        dimensions: Vec<i64>,
        sp: Sp,
    ) -> Option<Val> {
        let x = self.tensor(v, None, sp)?;
        self.val_op(sp, |b| b.broadcast_in_dim(&x, &dims, &dimensions))
    }

    /// Adds leading dims of sizes `sizes` (XLA's `Broadcast`).
    pub fn broadcast_leading(&mut self, v: Val, sizes: Vec<i64>, sp: Sp) -> Option<Val> {
        let x = self.tensor(v, None, sp)?;
        self.val_op(sp, |b| b.broadcast(&x, &sizes))
    }

    /// Reverses the order of elements along `dimensions`.
    pub fn rev(&mut self, v: Val, dimensions: Vec<i64>, sp: Sp) -> Option<Val> {
        let x = self.tensor(v, None, sp)?;
        self.val_op(sp, |b| b.rev(&x, &dimensions))
    }
}
