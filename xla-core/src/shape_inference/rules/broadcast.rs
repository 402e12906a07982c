//! Rules of broadcasting: `broadcast_dimensions` of the builder's implicit broadcasts, the
//! `broadcast` op, and the operands `select` and `clamp` broadcast (a scalar pred or bound).

use std::fmt;

use super::super::validators::fmt_dims;
use crate::shape::{ArrayShape, Shape};

/// A broadcasting rule broken.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum BroadcastRule {
    /// Operands of the same rank take no `broadcast_dimensions` but the identity.
    SameRank {
        /// The `broadcast_dimensions` given.
        dims: Vec<i64>,
        /// The first operand.
        lhs: ArrayShape,
        /// The second operand.
        rhs: ArrayShape,
    },
    /// Operands of different ranks need `broadcast_dimensions`.
    RanksDiffer {
        /// The lower-rank operand.
        small: ArrayShape,
        /// The higher-rank operand.
        large: ArrayShape,
    },
    /// `broadcast_dimensions` must have one entry per dimension of the lower-rank operand.
    DimensionCount {
        /// The `broadcast_dimensions` given.
        dims: Vec<i64>,
        /// The lower-rank operand.
        small: ArrayShape,
    },
    /// Dimension `index` of the lower-rank operand and dimension `large_dim` of the other
    /// differ in size (and neither is 1).
    DimensionSize {
        /// The lower-rank operand's dimension.
        index: usize,
        /// The lower-rank operand.
        small: ArrayShape,
        /// Its size at `index`.
        small_size: i64,
        /// The higher-rank operand.
        large: ArrayShape,
        /// Its dimension `index` maps to.
        large_dim: i64,
        /// Its size there.
        large_size: i64,
    },
    /// `broadcast`: operand dimension `dim` (neither 1 nor the size of the result dimension
    /// it maps to) cannot broadcast.
    ToResult {
        /// The operand.
        operand: ArrayShape,
        /// Its dimension.
        dim: usize,
        /// Its size.
        size: i64,
        /// The result.
        result: ArrayShape,
        /// The result dimension `dim` maps to.
        result_dim: i64,
        /// Its size.
        result_size: i64,
    },
    /// `select`'s pred must be a PRED scalar or have the dimensions of `on_true` (a scalar
    /// when selecting between tuples).
    Predicate {
        /// The pred.
        pred: ArrayShape,
        /// `on_true`.
        on_true: Shape,
    },
    /// `clamp`'s bound `what` must be a scalar or have the operand's dimensions.
    Bound {
        /// `min` or `max`.
        what: String,
        /// Its shape.
        bound: ArrayShape,
        /// The operand.
        operand: ArrayShape,
    },
}

impl fmt::Display for BroadcastRule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use BroadcastRule as B;
        match self {
            B::SameRank { dims, lhs, rhs } => write!(
                f,
                "broadcast_dimensions {} must be empty or the identity for operands of the same rank: {lhs} and {rhs}",
                fmt_dims(dims)
            ),
            B::RanksDiffer { small, large } => write!(
                f,
                "operands {small} and {large} have different ranks; broadcast_dimensions must map the lower-rank operand's dimensions into the higher-rank one's"
            ),
            B::DimensionCount { dims, small } => write!(
                f,
                "broadcast_dimensions {} must have one entry per dimension of the lower-rank operand {small}",
                fmt_dims(dims)
            ),
            B::DimensionSize { index, small, small_size, large, large_dim, large_size } => write!(
                f,
                "broadcast dimension {index} mismatch: {small} dim {index} is {small_size}, {large} dim {large_dim} is {large_size}"
            ),
            B::ToResult { operand, dim, size, result, result_dim, result_size } => write!(
                f,
                "operand {operand} dim {dim} (size {size}) cannot broadcast to result {result} dim {result_dim} (size {result_size})"
            ),
            B::Predicate { pred, on_true: Shape::Array(t) } => write!(
                f,
                "pred {pred} must be a PRED scalar or have the dimensions of on_true {t}"
            ),
            B::Predicate { pred, on_true } => write!(
                f,
                "pred {pred} must be a PRED scalar when selecting between {on_true}"
            ),
            B::Bound { what, bound, operand } => write!(
                f,
                "{what} {bound} must be a scalar or have the dimensions of operand {operand}"
            ),
        }
    }
}
