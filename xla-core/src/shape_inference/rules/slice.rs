//! Rules of slicing, padding, concatenation and collapsing: `slice`, `dynamic-slice`,
//! `dynamic-update-slice`, `pad`, `concatenate`, the builder's collapse, `topk`'s k.

use std::fmt;

use super::super::validators::fmt_dims;
use crate::shape::{ArrayShape, Shape};
use crate::types::PrimitiveType;

/// A slicing rule broken.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum SliceRule {
    /// `start`, `limit` and `stride` must each have one entry per dimension.
    Lists {
        /// The starts.
        start: Vec<i64>,
        /// The limits.
        limit: Vec<i64>,
        /// The strides.
        stride: Vec<i64>,
        /// The operand.
        shape: ArrayShape,
    },
    /// `0 <= start <= limit <= size` fails in `dimension`.
    Bounds {
        /// The dimension.
        dimension: usize,
        /// Its start.
        start: i64,
        /// Its limit.
        limit: i64,
        /// Its size.
        size: i64,
        /// The operand.
        shape: ArrayShape,
    },
    /// A stride below 1.
    Stride {
        /// The dimension.
        dimension: usize,
        /// Its stride.
        stride: i64,
        /// The operand.
        shape: ArrayShape,
    },
    /// One start index per dimension.
    StartCount {
        /// Start indices given.
        found: usize,
        /// The operand.
        shape: ArrayShape,
    },
    /// The start indices must all have one type.
    StartTypes {
        /// The first index's type.
        first: PrimitiveType,
        /// A differing index's type.
        found: PrimitiveType,
    },
    /// A slice size outside `[0, size]` of its dimension.
    Size {
        /// The slice size.
        size: i64,
        /// The dimension.
        dimension: usize,
        /// The dimension's size.
        bound: i64,
        /// What `shape` is, as the message says it (`operand`, or empty).
        of: String,
        /// The array sliced.
        shape: ArrayShape,
    },
    /// `dynamic-update-slice`: the update is larger than the operand in `dimension`.
    UpdateSize {
        /// The update.
        update: ArrayShape,
        /// The operand.
        operand: ArrayShape,
        /// The dimension.
        dimension: usize,
        /// The update's size there.
        update_size: i64,
        /// The operand's size there.
        size: i64,
    },
    /// `concatenate`: operands differ in a dimension other than the concatenate dimension.
    ConcatDims {
        /// Operand 0.
        first: ArrayShape,
        /// The differing operand.
        other: ArrayShape,
        /// The dimension where they differ.
        dimension: usize,
        /// The concatenate dimension.
        concat_dimension: usize,
    },
    /// `pad`: one padding entry per dimension.
    PaddingCount {
        /// Entries given.
        entries: usize,
        /// The operand.
        shape: ArrayShape,
    },
    /// `pad`: negative interior padding.
    InteriorPadding {
        /// The dimension.
        dimension: usize,
        /// Its interior padding.
        interior: i64,
        /// The operand.
        shape: ArrayShape,
    },
    /// `pad`: the padding makes a dimension negative.
    PaddedSize {
        /// The dimension.
        dimension: usize,
        /// Low padding.
        low: i64,
        /// High padding.
        high: i64,
        /// Interior padding.
        interior: i64,
        /// The padded size.
        size: i64,
        /// The operand.
        shape: ArrayShape,
    },
    /// Collapsed dimensions must be consecutive and in order.
    CollapseDims {
        /// The dimensions.
        dims: Vec<i64>,
        /// The operand.
        shape: Shape,
    },
    /// `topk`: k outside `[0, last dimension]`.
    TopK {
        /// k.
        k: i64,
        /// The operand's last dimension.
        last: i64,
        /// The operand.
        shape: ArrayShape,
    },
}

impl fmt::Display for SliceRule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use SliceRule as S;
        match self {
            S::Lists { start, limit, stride, shape } => write!(
                f,
                "start {}, limit {} and stride {} must each have one entry per dimension of {shape}",
                fmt_dims(start),
                fmt_dims(limit),
                fmt_dims(stride)
            ),
            S::Bounds { dimension, start, limit, size, shape } => write!(
                f,
                "dimension {dimension} of {shape}: need 0 <= start ({start}) <= limit ({limit}) <= size ({size})"
            ),
            S::Stride { dimension, stride, shape } => write!(
                f,
                "dimension {dimension} of {shape}: stride must be at least 1, got {stride}"
            ),
            S::StartCount { found, shape } => write!(
                f,
                "expects one start index per dimension of {shape} ({}), got {found}",
                shape.dims.len()
            ),
            S::StartTypes { first, found } => write!(
                f,
                "start indices must all have the same type, got {first} and {found}"
            ),
            S::Size { size, dimension, bound, of, shape } => {
                let of = if of.is_empty() { String::new() } else { format!("{of} ") };
                write!(
                    f,
                    "slice size {size} of dimension {dimension} must be in [0, {bound}] for {of}{shape}"
                )
            }
            S::UpdateSize { update, operand, dimension, update_size, size } => write!(
                f,
                "update {update} dim {dimension} ({update_size}) exceeds operand {operand} dim {dimension} ({size})"
            ),
            S::ConcatDims { first, other, dimension, concat_dimension } => write!(
                f,
                "operands {first} and {other} differ in dimension {dimension}, which is not the concatenate dimension {concat_dimension}"
            ),
            S::PaddingCount { entries, shape } => write!(
                f,
                "padding has {entries} entries but operand {shape} has rank {}",
                shape.dims.len()
            ),
            S::InteriorPadding { dimension, interior, shape } => write!(
                f,
                "interior padding of dimension {dimension} of {shape} must be non-negative, got {interior}"
            ),
            S::PaddedSize { dimension, low, high, interior, size, shape } => write!(
                f,
                "padding {low}_{high}_{interior} makes dimension {dimension} of {shape} negative ({size})"
            ),
            S::CollapseDims { dims, shape } => write!(
                f,
                "collapse dimensions {} of {shape} must be consecutive and in order",
                fmt_dims(dims)
            ),
            S::TopK { k, last, shape } => {
                write!(f, "k = {k} must be in [0, {last}], the last dimension of {shape}")
            }
        }
    }
}
