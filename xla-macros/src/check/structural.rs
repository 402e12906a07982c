//! Structural operations: reshape, transpose, broadcast, reverse.

use super::{Checker, Val};
use crate::ctxt::Sp;
use xla_core::ir::Op;
use xla_core::Shape;

impl Checker<'_> {
    /// Reshapes to `dims` (row-major).
    pub fn reshape(&mut self, v: Val, dims: Vec<i64>, sp: Sp) -> Option<Val> {
        let id = self.tensor(v, None, sp)?;
        let declared = Shape::array(self.g.shape(id).element_type(), dims);
        self.push(Op::Reshape, &[id], Some(declared), sp)
    }

    /// Permutes dims: result dim `i` is operand dim `permutation[i]`.
    pub fn transpose(&mut self, v: Val, permutation: Vec<i64>, sp: Sp) -> Option<Val> {
        let id = self.tensor(v, None, sp)?;
        self.push(Op::Transpose { permutation }, &[id], None, sp)
    }

    /// The transpose of a matrix (`x.t()`).
    pub fn matrix_transpose(&mut self, v: Val, sp: Sp) -> Option<Val> {
        let id = self.tensor(v, None, sp)?;
        let shape = self.g.shape(id);
        if shape.rank() != 2 {
            self.cx.error(
                sp,
                format!("t: expects a matrix (rank 2), found {shape}; use `transpose([...])`"),
            );
            return None;
        }
        self.push(
            Op::Transpose {
                permutation: vec![1, 0],
            },
            &[id],
            None,
            sp,
        )
    }

    /// Broadcasts to `dims`, operand dim `i` going to result dim `dimensions[i]`.
    pub fn broadcast_in_dim(
        &mut self,
        v: Val,
        dims: Vec<i64>,
        dimensions: Vec<i64>,
        sp: Sp,
    ) -> Option<Val> {
        let id = self.tensor(v, None, sp)?;
        self.broadcast_to(id, &dims, dimensions, sp)
            .map(Val::Tensor)
    }

    /// Adds leading dims of sizes `sizes` (XLA's `Broadcast`).
    pub fn broadcast_leading(&mut self, v: Val, sizes: Vec<i64>, sp: Sp) -> Option<Val> {
        let id = self.tensor(v, None, sp)?;
        let operand_dims = self.g.shape(id).dims().to_vec();
        let n = sizes.len() as i64;
        let dimensions = (n..n + operand_dims.len() as i64).collect();
        let dims: Vec<i64> = sizes.into_iter().chain(operand_dims).collect();
        self.broadcast_to(id, &dims, dimensions, sp)
            .map(Val::Tensor)
    }

    /// Reverses the order of elements along `dimensions`.
    pub fn rev(&mut self, v: Val, dimensions: Vec<i64>, sp: Sp) -> Option<Val> {
        let id = self.tensor(v, None, sp)?;
        self.push(Op::Reverse { dimensions }, &[id], None, sp)
    }
}
