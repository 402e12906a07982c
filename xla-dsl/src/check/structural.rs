//! Structural operations: reshape, transpose, broadcast, reverse, slice, pad, concatenate
//! and iota.

use super::graph::shape;
use super::{Checker, Val};
use crate::ast::{Arg, SliceSpec};
use crate::ctxt::Sp;
use xla_core::builder::XlaOp;
use xla_core::ir::PadDim;
use xla_core::{PrimitiveType, Shape};

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

    /// A strided slice; an index slices its dimension to size 1 and then drops it. Fewer
    /// specs than dimensions keep the trailing dimensions whole.
    pub fn slice(&mut self, v: Val, specs: Vec<SliceSpec>, sp: Sp) -> Option<Val> {
        let x = self.tensor(v, None, sp)?;
        let s = shape(&x)?;
        if specs.len() > s.rank() {
            self.cx.error(
                sp,
                format!("slice: {} ranges for {s} (rank {})", specs.len(), s.rank()),
            );
            return None;
        }
        let full = SliceSpec {
            start: None,
            end: None,
            step: 1,
            index: false,
        };
        let specs: Vec<SliceSpec> = specs
            .into_iter()
            .chain(std::iter::repeat(full))
            .take(s.rank())
            .collect();
        let start: Vec<i64> = specs.iter().map(|r| r.start.unwrap_or(0)).collect();
        let limit: Vec<i64> = specs
            .iter()
            .zip(s.dims())
            .map(|(r, &d)| r.end.unwrap_or(d))
            .collect();
        let stride: Vec<i64> = specs.iter().map(|r| r.step).collect();
        let sliced = self.op(sp, |b| b.slice(&x, &start, &limit, &stride))?;
        if !specs.iter().any(|r| r.index) {
            return Some(Val::Tensor(sliced));
        }
        let kept: Vec<i64> = shape(&sliced)?
            .dims()
            .iter()
            .zip(&specs)
            .filter(|(_, r)| !r.index)
            .map(|(&d, _)| d)
            .collect();
        self.val_op(sp, |b| b.reshape(&sliced, &kept))
    }

    /// Pads with `value`: `(low, high, interior)` per dimension.
    pub fn pad(&mut self, v: Val, value: Val, pads: Vec<PadDim>, sp: Sp) -> Option<Val> {
        let x = self.tensor(v, None, sp)?;
        let ty = shape(&x)?.element_type();
        let value = self.tensor(value, Some(ty), sp)?;
        self.val_op(sp, |b| b.pad(&x, &value, &pads))
    }

    /// `concat([a, b, ...], dim)`.
    pub fn concat_call(&mut self, args: &[Arg], sp: Sp) -> Option<Val> {
        let [list, dim] = self.arity("concat", args, ["[tensors]", "dimension"], sp)?;
        let (vals, dim) = (self.list(list), self.int_scalar(dim, "the dimension"));
        let vals = vals?;
        let ty = vals.iter().find_map(|v| match v {
            Val::Tensor(op) => shape(op).map(|s| s.element_type()),
            Val::Weak(_) => None,
        });
        let ops = vals
            .into_iter()
            .map(|v| self.tensor(v, ty, sp))
            .collect::<Option<Vec<_>>>()?;
        let dim = dim?;
        self.val_op(sp, |b| b.concat_in_dim(&ops, dim))
    }

    /// `iota::<T>([dims], dim)`: 0, 1, 2, ... along `dim` (`T` defaults to `s32`).
    pub fn iota_call(&mut self, ty: Option<PrimitiveType>, args: &[Arg], sp: Sp) -> Option<Val> {
        let [dims, dim] = self.arity("iota", args, ["[dims]", "dimension"], sp)?;
        let (dims, dim) = (
            self.ints(dims, "the dims"),
            self.int_scalar(dim, "the counting dimension"),
        );
        let shape = Shape::array(ty.unwrap_or(PrimitiveType::S32), dims?);
        let dim = dim?;
        self.val_op(sp, |b| b.iota(shape, dim))
    }

    /// Start indices given as `[i, 0]`: scalar tensors or integer literals (`s32`).
    fn start_indices(&mut self, arg: &Arg, sp: Sp) -> Option<Vec<XlaOp>> {
        let vals = match arg {
            Arg::Ints(v, _) => v
                .iter()
                .map(|&i| Val::Weak(crate::ast::LitValue::Int(i.into())))
                .collect(),
            other => self.list(other)?,
        };
        vals.into_iter()
            .map(|v| self.tensor(v, Some(PrimitiveType::S32), sp))
            .collect()
    }

    /// `x.dynamic_slice([i, 0], [1, 4])`: a slice of the given sizes at run-time start
    /// indices (clamped so that the slice fits).
    pub fn dynamic_slice(&mut self, x: Val, args: &[Arg], sp: Sp) -> Option<Val> {
        let [starts, sizes] = self.arity(
            "dynamic_slice",
            args,
            ["[start indices]", "[slice sizes]"],
            sp,
        )?;
        let x = self.tensor(x, None, sp)?;
        let (starts, sizes) = (
            self.start_indices(starts, sp),
            self.ints(sizes, "the slice sizes"),
        );
        let (starts, sizes) = (starts?, sizes?);
        self.val_op(sp, |b| b.dynamic_slice(&x, &starts, &sizes))
    }

    /// `x.dynamic_update_slice(update, [i, 0])`: `x` with `update` written at run-time
    /// start indices (clamped so that it fits).
    pub fn dynamic_update_slice(&mut self, x: Val, args: &[Arg], sp: Sp) -> Option<Val> {
        let [update, starts] = self.arity(
            "dynamic_update_slice",
            args,
            ["update", "[start indices]"],
            sp,
        )?;
        let x = self.tensor(x, None, sp)?;
        let ty = shape(&x)?.element_type();
        let update = self.val(update).and_then(|v| self.tensor(v, Some(ty), sp));
        let starts = self.start_indices(starts, sp);
        let (update, starts) = (update?, starts?);
        self.val_op(sp, |b| b.dynamic_update_slice(&x, &update, &starts))
    }
}
