//! Indexing along one axis, numpy-style: `take` (a `gather`) and `scatter` / `scatter_add`
//! (a `scatter`, the combiner a closure or `add`).

use super::graph::shape;
use super::{Checker, Val};
use crate::ast::Arg;
use crate::ctxt::Sp;
use xla_core::builder::{Callee, Combiner, XlaComputation, XlaOp};
use xla_core::ir::{GatherDims, ScatterDims};
use xla_core::{PrimitiveType, Shape};

/// Where the dims of an axis-`axis` gather / scatter go.
struct AxisDims {
    /// The operand dims other than `axis`, at their places in the result (or updates).
    window: Vec<i64>,
    /// The operand dims with 1 at `axis` (gather's slice sizes).
    slice_sizes: Vec<i64>,
    /// The rank of the indices (their index vectors are implicit scalars).
    index_rank: i64,
}

impl Checker<'_> {
    /// `x` and `indices` as ops, with the dims of indexing `x` along `axis`.
    fn axis_dims(
        &mut self,
        n: &str,
        x: Val,
        indices: &Arg,
        axis: &Arg,
        sp: Sp,
    ) -> Option<(XlaOp, XlaOp, i64, AxisDims)> {
        let x = self.tensor(x, None, sp)?;
        let indices = self
            .val(indices)
            .and_then(|v| self.tensor(v, Some(PrimitiveType::S32), sp));
        let axis = self.int_scalar(axis, "the axis");
        let (indices, axis) = (indices?, axis?);
        let (xs, is) = (shape(&x)?, shape(&indices)?);
        let (r, k) = (xs.rank() as i64, is.rank() as i64);
        if !(0..r).contains(&axis) {
            self.cx.error(
                sp,
                format!("{n}: axis {axis} is out of range for {xs} (rank {r})"),
            );
            return None;
        }
        let window = (0..axis).chain(axis + k..r - 1 + k).collect();
        let slice_sizes = xs
            .dims()
            .iter()
            .enumerate()
            .map(|(d, &size)| if d as i64 == axis { 1 } else { size })
            .collect();
        Some((
            x,
            indices,
            axis,
            AxisDims {
                window,
                slice_sizes,
                index_rank: k,
            },
        ))
    }

    /// `x.take(indices, axis)`: `x[.., indices, ..]` with the indices' dims in place of
    /// `axis` (out-of-range indices are clamped, as XLA's gather does).
    pub fn take(&mut self, x: Val, args: &[Arg], sp: Sp) -> Option<Val> {
        let [indices, axis] = self.arity("take", args, ["indices", "axis"], sp)?;
        let (x, indices, axis, d) = self.axis_dims("take", x, indices, axis, sp)?;
        let dims = GatherDims {
            offset_dims: d.window,
            collapsed_slice_dims: vec![axis],
            start_index_map: vec![axis],
            index_vector_dim: d.index_rank,
            slice_sizes: d.slice_sizes,
            ..GatherDims::default()
        };
        self.val_op(sp, |b| b.gather(&x, &indices, &dims))
    }

    /// `x.scatter_add(indices, updates, axis)` and `x.scatter(indices, updates, axis,
    /// |old, new| ...)`: combines `updates` (shaped like `x.take(indices, axis)`) into `x`.
    pub fn scatter(&mut self, x: Val, args: &[Arg], add: bool, sp: Sp) -> Option<Val> {
        let n = if add { "scatter_add" } else { "scatter" };
        let (indices, updates, axis, f) = match (args, add) {
            ([i, u, a], true) => (i, u, a, None),
            ([i, u, a, f], false) => (i, u, a, Some(f)),
            _ => {
                let closure = if add {
                    ""
                } else {
                    " and a closure `|old, new| ...`"
                };
                self.cx.error(sp, format!("`{n}` takes the indices, the updates, the axis{closure}; found {} arguments", args.len()));
                return None;
            }
        };
        let (x, indices, axis, d) = self.axis_dims(n, x, indices, axis, sp)?;
        let ty = shape(&x)?.element_type();
        let updates = self
            .val(updates)
            .and_then(|v| self.tensor(v, Some(ty), sp))?;
        self.expect_taken_shape(n, &x, &indices, &updates, axis, sp)?;
        let dims = ScatterDims {
            update_window_dims: d.window,
            inserted_window_dims: vec![axis],
            scatter_dims_to_operand_dims: vec![axis],
            index_vector_dim: d.index_rank,
            ..ScatterDims::default()
        };
        let combiner: Option<XlaComputation> = match f {
            None => None,
            Some(f) => Some(self.sub_computation(
                n,
                self.closure(f)?,
                &[Shape::scalar(ty), Shape::scalar(ty)],
            )?),
        };
        fn emit(
            b: &xla_core::builder::XlaBuilder,
            ops: (&XlaOp, &XlaOp, &XlaOp),
            dims: &ScatterDims,
            c: impl Callee,
        ) -> XlaOp {
            b.scatter(ops.0, ops.1, ops.2, dims, c)
        }
        self.val_op(sp, |b| match &combiner {
            Some(c) => emit(b, (&x, &indices, &updates), &dims, c),
            None => emit(b, (&x, &indices, &updates), &dims, Combiner::Add),
        })
    }

    /// Checks that `updates` is shaped like `x.take(indices, axis)`.
    fn expect_taken_shape(
        &self,
        n: &str,
        x: &XlaOp,
        indices: &XlaOp,
        updates: &XlaOp,
        axis: i64,
        sp: Sp,
    ) -> Option<()> {
        let (xs, is, us) = (shape(x)?, shape(indices)?, shape(updates)?);
        let a = axis as usize;
        let taken: Vec<i64> = xs
            .dims()
            .iter()
            .take(a)
            .chain(is.dims())
            .chain(xs.dims().iter().skip(a + 1))
            .copied()
            .collect();
        if us.dims() != taken.as_slice() {
            let want = Shape::array(us.element_type(), taken);
            self.cx.error(sp, format!("{n}: the updates must be shaped like `x.take(indices, {axis})`, {want}; found {us}"));
            return None;
        }
        Some(())
    }
}
