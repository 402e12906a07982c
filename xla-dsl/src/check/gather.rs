//! `gather` and `scatter` with general dimension numbers: the spec's parameters in the
//! spec's order, positionally or as keyword arguments named as in the spec.

use super::args::span;
use super::graph::shape;
use super::{Checker, Val};
use crate::ast::{Arg, Expr, ExprKind, Lit, LitValue};
use crate::ctxt::Sp;
use xla_core::ir::{GatherDims, ScatterDims};
use xla_core::{PrimitiveType, Shape};

/// The parameters of `gather_general`, in positional order (the spec's names).
const GATHER_PARAMS: [&str; 9] = [
    "start_indices",
    "offset_dims",
    "collapsed_slice_dims",
    "start_index_map",
    "index_vector_dim",
    "slice_sizes",
    "operand_batching_dims",
    "start_indices_batching_dims",
    "indices_are_sorted",
];

/// The parameters of `scatter_general`, in positional order (the spec's names).
const SCATTER_PARAMS: [&str; 11] = [
    "scatter_indices",
    "updates",
    "update_window_dims",
    "inserted_window_dims",
    "scatter_dims_to_operand_dims",
    "index_vector_dim",
    "update_computation",
    "input_batching_dims",
    "scatter_indices_batching_dims",
    "indices_are_sorted",
    "unique_indices",
];

impl Checker<'_> {
    /// `x.gather_general(start_indices, offset_dims, collapsed_slice_dims, start_index_map,
    /// index_vector_dim, slice_sizes)`, then optionally `operand_batching_dims`,
    /// `start_indices_batching_dims` (empty) and `indices_are_sorted` (false), positionally
    /// or as `name = value`.
    pub fn gather_general(&mut self, x: Val, args: &[Arg], sp: Sp) -> Option<Val> {
        let [idx, offset, collapsed, map, ivd, sizes, obd, sibd, sorted] =
            self.bind("gather_general", args, GATHER_PARAMS, 6, sp)?;
        let lists = [
            self.opt_ints(offset, "offset_dims"),
            self.opt_ints(collapsed, "collapsed_slice_dims"),
            self.opt_ints(map, "start_index_map"),
            self.opt_ints(sizes, "slice_sizes"),
            self.opt_ints(obd, "operand_batching_dims"),
            self.opt_ints(sibd, "start_indices_batching_dims"),
        ];
        let ivd = ivd.and_then(|a| self.int_scalar(a, "index_vector_dim"));
        let sorted = self.opt_bool(sorted, "indices_are_sorted");
        let idx = idx
            .and_then(|a| self.val(a))
            .and_then(|v| self.tensor(v, Some(PrimitiveType::S32), sp));
        let x = self.tensor(x, None, sp)?;
        let [offset, collapsed, map, sizes, obd, sibd] = lists;
        let dims = GatherDims {
            offset_dims: offset?,
            collapsed_slice_dims: collapsed?,
            start_index_map: map?,
            index_vector_dim: ivd?,
            operand_batching_dims: obd?,
            start_indices_batching_dims: sibd?,
            slice_sizes: sizes?,
            indices_are_sorted: sorted?,
        };
        let idx = idx?;
        self.val_op(sp, |b| b.gather(&x, &idx, &dims))
    }

    /// An optional list of integers (empty when absent).
    fn opt_ints(&self, arg: Option<&Arg>, what: &str) -> Option<Vec<i64>> {
        arg.map_or(Some(Vec::new()), |a| self.ints(a, what))
    }

    /// An optional `true` / `false` (false when absent).
    fn opt_bool(&self, arg: Option<&Arg>, what: &str) -> Option<bool> {
        match arg {
            None => Some(false),
            Some(Arg::Expr(Expr {
                kind:
                    ExprKind::Lit(Lit {
                        value: LitValue::Bool(b),
                        ..
                    }),
                ..
            })) => Some(*b),
            Some(other) => {
                self.cx
                    .error(span(other), format!("expected {what} as `true` or `false`"));
                None
            }
        }
    }

    /// `x.scatter_general(scatter_indices, updates, update_window_dims,
    /// inserted_window_dims, scatter_dims_to_operand_dims, index_vector_dim, |old, new| ...)`,
    /// then optionally `input_batching_dims`, `scatter_indices_batching_dims` (empty),
    /// `indices_are_sorted` and `unique_indices` (false), positionally or as `name = value`.
    pub fn scatter_general(&mut self, x: Val, args: &[Arg], sp: Sp) -> Option<Val> {
        let [idx, upd, window, inserted, map, ivd, f, ibd, sibd, sorted, unique] =
            self.bind("scatter_general", args, SCATTER_PARAMS, 7, sp)?;
        let lists = [
            self.opt_ints(window, "update_window_dims"),
            self.opt_ints(inserted, "inserted_window_dims"),
            self.opt_ints(map, "scatter_dims_to_operand_dims"),
            self.opt_ints(ibd, "input_batching_dims"),
            self.opt_ints(sibd, "scatter_indices_batching_dims"),
        ];
        let ivd = ivd.and_then(|a| self.int_scalar(a, "index_vector_dim"));
        let flags = [
            self.opt_bool(sorted, "indices_are_sorted"),
            self.opt_bool(unique, "unique_indices"),
        ];
        let x = self.tensor(x, None, sp)?;
        let ty = shape(&x)?.element_type();
        let idx = idx
            .and_then(|a| self.val(a))
            .and_then(|v| self.tensor(v, Some(PrimitiveType::S32), sp));
        let upd = upd
            .and_then(|a| self.val(a))
            .and_then(|v| self.tensor(v, Some(ty), sp));
        let f = self.closure(f?)?;
        let comp = self.sub_computation("scatter", f, &[Shape::scalar(ty), Shape::scalar(ty)]);
        let [window, inserted, map, ibd, sibd] = lists;
        let [sorted, unique] = flags;
        let dims = ScatterDims {
            update_window_dims: window?,
            inserted_window_dims: inserted?,
            scatter_dims_to_operand_dims: map?,
            index_vector_dim: ivd?,
            input_batching_dims: ibd?,
            scatter_indices_batching_dims: sibd?,
            indices_are_sorted: sorted?,
            unique_indices: unique?,
        };
        let (idx, upd, comp) = (idx?, upd?, comp?);
        self.val_op(sp, |b| b.scatter(&x, &idx, &upd, &dims, &comp))
    }
}
