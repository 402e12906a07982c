//! The one error type of the training toolkit.

use std::path::Path;
use thiserror::Error;
use xla_core::literal::LiteralError;

/// Why a training helper failed. Every message names the file (or tensor) involved and what
/// was wrong with it.
#[derive(Debug, Error)]
pub enum TrainError {
    /// A file could not be opened, read, written or renamed.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// The operating system's error.
        #[source]
        source: std::io::Error,
    },
    /// A text file has a bad line.
    #[error("{file} line {line}: {reason}")]
    Parse {
        /// The file (or `<embedded digits.csv.gz>`).
        file: String,
        /// 1-based line number.
        line: usize,
        /// What is wrong with the line.
        reason: String,
    },
    /// A binary file (gzip, IDX, safetensors) is malformed or truncated.
    #[error("{file}: {reason}")]
    Format {
        /// The file.
        file: String,
        /// What is wrong.
        reason: String,
    },
    /// A checkpoint does not match what the model expects (or cannot hold a value).
    #[error("checkpoint {name}: {reason}")]
    Checkpoint {
        /// The tensor name, or the checkpoint file for file-level problems.
        name: String,
        /// What does not match.
        reason: String,
    },
    /// An argument is out of range (batch size 0, split fraction 1.5, ...).
    #[error("{op}: {reason}")]
    InvalidArgument {
        /// The function called.
        op: &'static str,
        /// What is wrong with the argument.
        reason: String,
    },
    /// A literal could not be built or read.
    #[error(transparent)]
    Literal(#[from] LiteralError),
    /// Drawing a plot failed.
    #[error("plot {path}: {reason}")]
    Plot {
        /// The image file.
        path: String,
        /// What went wrong.
        reason: String,
    },
}

impl TrainError {
    /// An I/O error on `path`.
    pub(crate) fn io(path: &Path, source: std::io::Error) -> TrainError {
        TrainError::Io {
            path: path.display().to_string(),
            source,
        }
    }

    /// A malformed binary file.
    pub(crate) fn format(file: impl Into<String>, reason: impl Into<String>) -> TrainError {
        TrainError::Format {
            file: file.into(),
            reason: reason.into(),
        }
    }

    /// An out-of-range argument.
    pub(crate) fn invalid(op: &'static str, reason: impl Into<String>) -> TrainError {
        TrainError::InvalidArgument {
            op,
            reason: reason.into(),
        }
    }
}

/// Result with [`TrainError`].
pub type Result<T> = std::result::Result<T, TrainError>;
