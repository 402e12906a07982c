//! Rules of contractions: `dot` and `convolution` (result type, precision config, group
//! counts, spatial dimensions and the window).

use std::fmt;

use super::super::validators::fmt_dims;
use crate::shape::ArrayShape;
use crate::types::PrimitiveType;

/// A contraction rule broken.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ContractionRule {
    /// The requested result element type narrows or changes the operands' kind.
    ResultType {
        /// The requested type.
        ty: PrimitiveType,
        /// The lhs.
        lhs: ArrayShape,
        /// The rhs.
        rhs: ArrayShape,
    },
    /// `operand_precision` has neither 0 nor 2 entries.
    PrecisionCount {
        /// Entries given.
        found: usize,
    },
    /// A group count is not positive.
    GroupCounts {
        /// `feature_group_count`.
        feature_group_count: i64,
        /// `batch_group_count`.
        batch_group_count: i64,
    },
    /// Both group counts exceed 1.
    BothGroups {
        /// `feature_group_count`.
        feature_group_count: i64,
        /// `batch_group_count`.
        batch_group_count: i64,
    },
    /// The lhs feature size is not `feature_group_count` times the kernel's input features.
    InputFeatures {
        /// The lhs.
        lhs: ArrayShape,
        /// Its feature size.
        in_features: i64,
        /// `feature_group_count`.
        feature_group_count: i64,
        /// The rhs (kernel).
        rhs: ArrayShape,
        /// Its input feature size.
        kernel_in: i64,
    },
    /// The kernel's output features are not divisible by the group count `group`.
    OutputFeatures {
        /// The rhs (kernel).
        rhs: ArrayShape,
        /// Its output feature size.
        kernel_out: i64,
        /// `feature_group_count` or `batch_group_count`.
        group: &'static str,
        /// Its value.
        count: i64,
    },
    /// The lhs batch size is not divisible by `batch_group_count`.
    BatchGroups {
        /// The lhs.
        lhs: ArrayShape,
        /// Its batch size.
        in_batch: i64,
        /// `batch_group_count`.
        batch_group_count: i64,
    },
    /// The input, kernel and output spatial dimension lists and the window differ in length.
    SpatialCounts {
        /// Input spatial dimensions.
        input: usize,
        /// Kernel spatial dimensions.
        kernel: usize,
        /// Output spatial dimensions.
        output: usize,
        /// Window dimensions.
        window: usize,
    },
    /// The window sizes differ from the kernel's spatial sizes.
    WindowSizes {
        /// The window sizes.
        sizes: Vec<i64>,
        /// The kernel spatial sizes.
        kernel: Vec<i64>,
        /// The rhs (kernel).
        rhs: ArrayShape,
    },
}

impl fmt::Display for ContractionRule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use ContractionRule as C;
        match self {
            C::ResultType { ty, lhs, rhs } => write!(
                f,
                "result element type {ty} is not allowed for operands {lhs} and {rhs}"
            ),
            C::PrecisionCount { found } => {
                write!(f, "operand_precision must have 0 or 2 entries, got {found}")
            }
            C::GroupCounts { feature_group_count: g, batch_group_count: b } => write!(
                f,
                "feature_group_count ({g}) and batch_group_count ({b}) must be positive"
            ),
            C::BothGroups { feature_group_count: g, batch_group_count: b } => write!(
                f,
                "feature_group_count ({g}) and batch_group_count ({b}) cannot both exceed 1"
            ),
            C::InputFeatures { lhs, in_features, feature_group_count, rhs, kernel_in } => write!(
                f,
                "lhs {lhs} feature dimension ({in_features}) must equal feature_group_count ({feature_group_count}) x rhs {rhs} input feature dimension ({kernel_in})"
            ),
            C::OutputFeatures { rhs, kernel_out, group, count } => write!(
                f,
                "rhs {rhs} output feature dimension ({kernel_out}) must be divisible by {group} ({count})"
            ),
            C::BatchGroups { lhs, in_batch, batch_group_count } => write!(
                f,
                "lhs {lhs} batch dimension ({in_batch}) must be divisible by batch_group_count ({batch_group_count})"
            ),
            C::SpatialCounts { input, kernel, output, window } => write!(
                f,
                "input, kernel and output spatial dims and the window must agree in count: {input}, {kernel}, {output} and {window}"
            ),
            C::WindowSizes { sizes, kernel, rhs } => write!(
                f,
                "window sizes {} must equal the kernel spatial sizes {} of rhs {rhs}",
                fmt_dims(sizes),
                fmt_dims(kernel)
            ),
        }
    }
}
