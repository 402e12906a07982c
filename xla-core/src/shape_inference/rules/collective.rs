//! Rules of collectives and host transfers: replica groups, shard and split counts,
//! `collective-permute` pairs, `infeed`/`outfeed` data.

use std::fmt;

use crate::shape::{ArrayShape, Shape};

/// A collective or transfer rule broken.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum CollectiveRule {
    /// Replica groups must be non-empty and of one size.
    ReplicaGroups,
    /// The shard or split count must be positive.
    Positive {
        /// `shard count` or `split count`.
        what: &'static str,
        /// The count.
        count: i64,
    },
    /// `dimension` of `shape` is not divisible by the shard or split `count`.
    Divisible {
        /// The dimension.
        dimension: i64,
        /// The array.
        shape: ArrayShape,
        /// Its size.
        size: i64,
        /// `shard count` or `split count`.
        by: &'static str,
        /// The count.
        count: i64,
    },
    /// `source_target_pairs` repeat a source or target replica.
    RepeatedPair {
        /// `source` or `target`.
        what: &'static str,
        /// The replica repeated.
        replica: i64,
        /// The pair repeating it.
        pair: usize,
    },
    /// `infeed` data must not hold nested tuples.
    NestedTuple {
        /// The data shape.
        data: Shape,
    },
    /// `outfeed` data does not match `outfeed_shape`.
    Outfeed {
        /// The data.
        data: Shape,
        /// `outfeed_shape`.
        declared: Shape,
    },
}

impl fmt::Display for CollectiveRule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use CollectiveRule as C;
        match self {
            C::ReplicaGroups => {
                f.write_str("replica groups must be non-empty and all of the same size")
            }
            C::Positive { what, count } => write!(f, "{what} must be positive, got {count}"),
            C::Divisible {
                dimension,
                shape,
                size,
                by,
                count,
            } => write!(
                f,
                "dimension {dimension} of {shape} ({size}) must be divisible by the {by} {count}"
            ),
            C::RepeatedPair {
                what,
                replica,
                pair,
            } => write!(
                f,
                "source_target_pairs repeat {what} replica {replica} (pair {pair})"
            ),
            C::NestedTuple { data } => write!(f, "nested tuple data {data} is not supported"),
            C::Outfeed { data, declared } => {
                write!(f, "data {data} does not match outfeed_shape {declared}")
            }
        }
    }
}
