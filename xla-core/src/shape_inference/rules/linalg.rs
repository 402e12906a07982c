//! Rules of linear algebra ops: batch norm's feature vectors, `cholesky` and
//! `triangular-solve`'s matrices, `fft`'s lengths.

use std::fmt;

use super::super::validators::fmt_dims;
use crate::shape::ArrayShape;

/// A linear-algebra rule broken.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum LinalgRule {
    /// A batch-norm feature vector (`scale`, `offset`, `mean`, ...) must be rank 1 of the
    /// feature count.
    FeatureVector {
        /// The vector's role.
        what: String,
        /// Its shape.
        shape: ArrayShape,
        /// The feature count.
        count: i64,
        /// The operand.
        operand: ArrayShape,
        /// The operand's feature dimension.
        feature_index: usize,
    },
    /// A batch of matrices must have square trailing dimensions.
    Square {
        /// The operand's role.
        what: String,
        /// Its shape.
        shape: ArrayShape,
    },
    /// `triangular-solve`: `a` and `b` must have the same batch dimensions.
    SolveBatch {
        /// `a`.
        a: ArrayShape,
        /// `b`.
        b: ArrayShape,
    },
    /// `triangular-solve`: `b`'s solved dimension must equal `a`'s size.
    SolveSize {
        /// `a`.
        a: ArrayShape,
        /// `b`.
        b: ArrayShape,
        /// `b`'s dimension.
        dim: usize,
        /// Its size.
        size: i64,
        /// `a`'s matrix size.
        m: i64,
        /// Whether the solve is left-sided.
        left_side: bool,
    },
    /// `fft_length` must have 1 to 3 entries.
    FftLength {
        /// `fft_length`.
        fft_length: Vec<i64>,
    },
    /// The operand's rank is below `fft_length`'s length.
    FftRank {
        /// The operand.
        operand: ArrayShape,
        /// `fft_length`.
        fft_length: Vec<i64>,
    },
    /// RFFT: the trailing dimensions must equal `fft_length`.
    RfftTrailing {
        /// The operand.
        operand: ArrayShape,
        /// `fft_length`.
        fft_length: Vec<i64>,
    },
    /// IRFFT: the trailing dimensions must equal `fft_length` but the last, which must be
    /// `expected_last`.
    IrfftTrailing {
        /// The operand.
        operand: ArrayShape,
        /// `fft_length`.
        fft_length: Vec<i64>,
        /// `fft_length[-1] / 2 + 1` (0 for 0).
        expected_last: i64,
    },
}

impl fmt::Display for LinalgRule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use LinalgRule as L;
        match self {
            L::FeatureVector { what, shape, count, operand, feature_index } => write!(
                f,
                "{what} {shape} must be rank 1 of the feature count {count} (operand {operand} dim {feature_index})"
            ),
            L::Square { what, shape } => {
                write!(f, "{what} {shape} must have square trailing dimensions")
            }
            L::SolveBatch { a, b } => {
                write!(f, "a {a} and b {b} must have the same batch dimensions")
            }
            L::SolveSize { a, b, dim, size, m, left_side } => {
                let side = if *left_side { "left" } else { "right" };
                write!(
                    f,
                    "b {b} dim {dim} is {size} but must equal a's size {m} for a {side}-side solve with a {a}"
                )
            }
            L::FftLength { fft_length } => {
                write!(f, "fft_length {} must have 1 to 3 entries", fmt_dims(fft_length))
            }
            L::FftRank { operand, fft_length } => write!(
                f,
                "operand {operand} must have rank at least {} for fft_length {}",
                fft_length.len(),
                fmt_dims(fft_length)
            ),
            L::RfftTrailing { operand, fft_length } => write!(
                f,
                "RFFT needs the trailing dims of {operand} to equal fft_length {}",
                fmt_dims(fft_length)
            ),
            L::IrfftTrailing { operand, fft_length, expected_last } => write!(
                f,
                "IRFFT needs the trailing dims of {operand} to equal fft_length {} except the last, which must be {expected_last}",
                fmt_dims(fft_length)
            ),
        }
    }
}
