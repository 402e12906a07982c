//! Rules of windows: `reduce-window`, `select-and-scatter` and convolution windows.

use std::fmt;

use super::super::validators::fmt_dims;
use crate::shape::{ArrayShape, Shape};

/// A window rule broken.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum WindowRule {
    /// The window has another number of dimensions than the base area.
    Rank {
        /// The window's dimensions.
        window: usize,
        /// The base area's sizes.
        base: Vec<i64>,
    },
    /// A window dimension's size or stride is not positive.
    SizeStride {
        /// The dimension.
        dimension: usize,
        /// Its size.
        size: i64,
        /// Its stride.
        stride: i64,
        /// The base area's sizes.
        base: Vec<i64>,
    },
    /// A window dimension's dilation is below 1.
    Dilation {
        /// The dimension.
        dimension: usize,
        /// Its base (lhs) dilation.
        base_dilation: i64,
        /// Its window (rhs) dilation.
        window_dilation: i64,
        /// The base area's sizes.
        base: Vec<i64>,
    },
    /// A per-dimension window attribute (builder) has neither 0 entries nor one per window
    /// dimension.
    AttributeLength {
        /// The attribute (`window_strides`, `padding`, ...).
        what: &'static str,
        /// Its entries.
        len: usize,
        /// The window's dimensions.
        window: usize,
    },
    /// `select-and-scatter`: the source must have the window-reduced shape of the operand.
    Source {
        /// The source.
        source: ArrayShape,
        /// The window-reduced shape.
        expected: Shape,
        /// The operand.
        operand: ArrayShape,
    },
}

impl fmt::Display for WindowRule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use WindowRule as W;
        match self {
            W::Rank { window, base } => write!(
                f,
                "window has {window} dimensions but the base area {} has {}",
                fmt_dims(base),
                base.len()
            ),
            W::SizeStride { dimension, size, stride, base } => write!(
                f,
                "window dimension {dimension} must have positive size and stride, got size {size} stride {stride} (base area {})",
                fmt_dims(base)
            ),
            W::Dilation { dimension, base_dilation, window_dilation, base } => write!(
                f,
                "window dimension {dimension} must have dilations >= 1, got lhs/base {base_dilation} rhs/window {window_dilation} (base area {})",
                fmt_dims(base)
            ),
            W::AttributeLength { what, len, window } => write!(
                f,
                "{what} has {len} entries but the window has {window} dimensions"
            ),
            W::Source { source, expected, operand } => write!(
                f,
                "source {source} must have the window-reduced shape {expected} of operand {operand}"
            ),
        }
    }
}
