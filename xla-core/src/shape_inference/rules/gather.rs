//! Rules of `gather` and `scatter` dimension numbers: the index vector, batching dims,
//! index maps, window ranks and the updates' shape.

use std::fmt;

use super::super::validators::fmt_dims;
use crate::shape::ArrayShape;

/// A gather or scatter rule broken.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum GatherRule {
    /// `index_vector_dim` must be in `[0, rank]` of the indices.
    IndexVectorDim {
        /// `index_vector_dim`.
        index_vector_dim: i64,
        /// The indices.
        indices: ArrayShape,
    },
    /// An indices batching dims list contains `index_vector_dim`.
    ContainsIndexVectorDim {
        /// The attribute.
        what: String,
        /// Its dims.
        dims: Vec<i64>,
        /// `index_vector_dim`.
        index_vector_dim: usize,
    },
    /// Paired operand and indices batching dims differ in size.
    BatchingSize {
        /// The operand.
        operand: ArrayShape,
        /// The operand's batching dim.
        operand_dim: i64,
        /// Its size.
        operand_size: i64,
        /// The indices.
        indices: ArrayShape,
        /// The indices' batching dim.
        indices_dim: i64,
        /// Its size.
        indices_size: i64,
    },
    /// The index map must have one entry per index vector component.
    IndexMap {
        /// The attribute (`start_index_map`, `scatter_dims_to_operand_dims`).
        what: String,
        /// Its entries.
        map: Vec<i64>,
        /// Index vector components.
        components: i64,
    },
    /// The operand's rank must be the sum of the window, dropped and batching dims.
    OperandRank {
        /// The operand.
        operand: ArrayShape,
        /// The three attributes summed.
        names: [&'static str; 3],
        /// Their lengths.
        counts: [usize; 3],
    },
    /// A collapsed or batching dimension's slice size exceeds 1.
    CollapsedSize {
        /// The dimension.
        dimension: usize,
        /// Its slice size.
        size: i64,
    },
    /// Scatter updates must have rank (indices batch dims + `update_window_dims`).
    UpdatesRank {
        /// The updates.
        updates: ArrayShape,
        /// The rank required.
        expected: usize,
    },
    /// A scatter update window dim exceeds the operand's bound.
    UpdateWindow {
        /// The updates.
        updates: ArrayShape,
        /// The window dim.
        dim: i64,
        /// Its size.
        size: i64,
        /// The operand's bound.
        bound: i64,
        /// The operand.
        operand: ArrayShape,
    },
    /// A scatter update's scatter dim differs from the indices' batch dim.
    UpdateScatterDim {
        /// The updates.
        updates: ArrayShape,
        /// The updates' dim.
        dim: usize,
        /// Its size.
        size: i64,
        /// The indices' batch size.
        expected: i64,
    },
}

impl fmt::Display for GatherRule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use GatherRule as G;
        match self {
            G::IndexVectorDim { index_vector_dim, indices } => write!(
                f,
                "index_vector_dim {index_vector_dim} must be in [0, {}] for indices {indices}",
                indices.dims.len()
            ),
            G::ContainsIndexVectorDim { what, dims, index_vector_dim } => write!(
                f,
                "{what} {} must not contain index_vector_dim {index_vector_dim}",
                fmt_dims(dims)
            ),
            G::BatchingSize { operand, operand_dim, operand_size, indices, indices_dim, indices_size } => write!(
                f,
                "batching dimension sizes differ: operand {operand} dim {operand_dim} is {operand_size}, indices {indices} dim {indices_dim} is {indices_size}"
            ),
            G::IndexMap { what, map, components } => write!(
                f,
                "{what} {} must have one entry per index vector component ({components})",
                fmt_dims(map)
            ),
            G::OperandRank { operand, names: [a, b, c], counts: [x, y, z] } => write!(
                f,
                "operand {operand} rank must equal {a} + {b} + {c} ({x} + {y} + {z})"
            ),
            G::CollapsedSize { dimension, size } => write!(
                f,
                "collapsed or batching dimension {dimension} must have slice size 0 or 1, got {size}"
            ),
            G::UpdatesRank { updates, expected } => write!(
                f,
                "updates {updates} must have rank {expected} (indices batch dims + update_window_dims)"
            ),
            G::UpdateWindow { updates, dim, size, bound, operand } => write!(
                f,
                "updates {updates} window dim {dim} ({size}) exceeds the operand bound {bound} of {operand}"
            ),
            G::UpdateScatterDim { updates, dim, size, expected } => write!(
                f,
                "updates {updates} scatter dim {dim} is {size} but the indices batch dim is {expected}"
            ),
        }
    }
}
