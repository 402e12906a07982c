//! `gather` and `scatter` with general dimension numbers, every list given positionally in
//! the order of the spec's parameters.

use super::graph::shape;
use super::{Checker, Val};
use crate::ast::Arg;
use crate::ctxt::Sp;
use xla_core::ir::{GatherDims, ScatterDims};
use xla_core::{PrimitiveType, Shape};

impl Checker<'_> {
    /// `x.gather_general(indices, [offset_dims], [collapsed_slice_dims], [start_index_map],
    /// index_vector_dim, [slice_sizes][, [operand_batching_dims],
    /// [start_indices_batching_dims]])`.
    pub fn gather_general(&mut self, x: Val, args: &[Arg], sp: Sp) -> Option<Val> {
        let (fixed, batching) = match args.len() {
            6 => args.split_at(6),
            8 => args.split_at(6),
            n => {
                self.cx.error(sp, format!("`gather_general` takes the indices, [offset_dims], [collapsed_slice_dims], [start_index_map], index_vector_dim, [slice_sizes], and optionally [operand_batching_dims], [start_indices_batching_dims]; found {n} arguments"));
                return None;
            }
        };
        let [idx, offset, collapsed, map, ivd, sizes] = <&[Arg; 6]>::try_from(fixed).ok()?;
        let lists = [
            self.ints(offset, "offset_dims"),
            self.ints(collapsed, "collapsed_slice_dims"),
            self.ints(map, "start_index_map"),
            self.ints(sizes, "slice_sizes"),
        ];
        let ivd = self.int_scalar(ivd, "index_vector_dim");
        let b = self.batching(
            batching,
            ["operand_batching_dims", "start_indices_batching_dims"],
        );
        let idx = self
            .val(idx)
            .and_then(|v| self.tensor(v, Some(PrimitiveType::S32), sp));
        let x = self.tensor(x, None, sp)?;
        let [offset, collapsed, map, sizes] = lists;
        let (obd, sibd) = b?;
        let dims = GatherDims {
            offset_dims: offset?,
            collapsed_slice_dims: collapsed?,
            start_index_map: map?,
            index_vector_dim: ivd?,
            operand_batching_dims: obd,
            start_indices_batching_dims: sibd,
            slice_sizes: sizes?,
            indices_are_sorted: false,
        };
        let idx = idx?;
        self.val_op(sp, |b| b.gather(&x, &idx, &dims))
    }

    /// The two optional batching-dim lists (empty when not given).
    fn batching(&self, args: &[Arg], what: [&str; 2]) -> Option<(Vec<i64>, Vec<i64>)> {
        match args {
            [a, b] => {
                let (a, b) = (self.ints(a, what[0]), self.ints(b, what[1]));
                Some((a?, b?))
            }
            _ => Some((Vec::new(), Vec::new())),
        }
    }

    /// `x.scatter_general(indices, updates, [update_window_dims], [inserted_window_dims],
    /// [scatter_dims_to_operand_dims], index_vector_dim, |old, new| ...)`.
    pub fn scatter_general(&mut self, x: Val, args: &[Arg], sp: Sp) -> Option<Val> {
        let names = [
            "indices",
            "updates",
            "[update_window_dims]",
            "[inserted_window_dims]",
            "[scatter_dims_to_operand_dims]",
            "index_vector_dim",
            "combiner closure",
        ];
        let [idx, upd, window, inserted, map, ivd, f] =
            self.arity("scatter_general", args, names, sp)?;
        let lists = [
            self.ints(window, "update_window_dims"),
            self.ints(inserted, "inserted_window_dims"),
            self.ints(map, "scatter_dims_to_operand_dims"),
        ];
        let ivd = self.int_scalar(ivd, "index_vector_dim");
        let x = self.tensor(x, None, sp)?;
        let ty = shape(&x)?.element_type();
        let idx = self
            .val(idx)
            .and_then(|v| self.tensor(v, Some(PrimitiveType::S32), sp));
        let upd = self.val(upd).and_then(|v| self.tensor(v, Some(ty), sp));
        let f = self.closure(f)?;
        let comp = self.sub_computation("scatter", f, &[Shape::scalar(ty), Shape::scalar(ty)]);
        let [window, inserted, map] = lists;
        let dims = ScatterDims {
            update_window_dims: window?,
            inserted_window_dims: inserted?,
            scatter_dims_to_operand_dims: map?,
            index_vector_dim: ivd?,
            input_batching_dims: Vec::new(),
            scatter_indices_batching_dims: Vec::new(),
            indices_are_sorted: false,
            unique_indices: false,
        };
        let (idx, upd, comp) = (idx?, upd?, comp?);
        self.val_op(sp, |b| b.scatter(&x, &idx, &upd, &dims, &comp))
    }
}
