//! Indexing ops: gather and (variadic) scatter.

use super::callee::{reducer_params, Callee};
use super::{collect_ops, refs, XlaBuilder, XlaOp};
use crate::ir::{GatherDims, Op, ScatterDims};
use std::borrow::Borrow;

impl XlaBuilder {
    /// Gathers slices of `operand` at `start_indices` (dimension numbers, slice sizes and
    /// the sortedness promise are in `dims`).
    pub fn gather(
        &self,
        operand: impl Borrow<XlaOp>,
        start_indices: impl Borrow<XlaOp>,
        dims: &GatherDims,
    ) -> XlaOp {
        self.emit(
            Op::Gather(dims.clone()),
            &[operand.borrow(), start_indices.borrow()],
            None,
        )
    }

    /// Scatters `updates` into `operand` at `scatter_indices`, combining with
    /// `computation` `(current, update) -> new`.
    pub fn scatter(
        &self,
        operand: impl Borrow<XlaOp>,
        scatter_indices: impl Borrow<XlaOp>,
        updates: impl Borrow<XlaOp>,
        dims: &ScatterDims,
        computation: impl Callee,
    ) -> XlaOp {
        let (o, u) = (operand.borrow().clone(), updates.borrow().clone());
        self.scatter_variadic([o], scatter_indices, [u], dims, computation)
    }

    /// Scatters N update arrays into N operands together; the combiner takes the N current
    /// values then the N updates and returns an N-tuple.
    pub fn scatter_variadic<I, J>(
        &self,
        operands: I,
        scatter_indices: impl Borrow<XlaOp>,
        updates: J,
        dims: &ScatterDims,
        computation: impl Callee,
    ) -> XlaOp
    where
        I: IntoIterator,
        I::Item: Borrow<XlaOp>,
        J: IntoIterator,
        J::Item: Borrow<XlaOp>,
    {
        let operands = collect_ops(operands);
        let n = operands.len();
        let mut ops = operands;
        ops.push(scatter_indices.borrow().clone());
        ops.extend(collect_ops(updates));
        let Some(shapes) = self.shapes_of("scatter", &refs(&ops)) else {
            return self.poisoned();
        };
        let params = reducer_params(&shapes[..n]);
        let Some(to_apply) = self.callee(computation, "combiner", &params) else {
            return self.poisoned();
        };
        self.emit(
            Op::Scatter {
                dims: dims.clone(),
                to_apply,
            },
            &refs(&ops),
            None,
        )
    }
}
