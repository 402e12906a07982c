//! The crate-level error.

use thiserror::Error;

/// Any error of `xla-core`.
#[derive(Debug, Error)]
pub enum Error {
    /// A shape rule was broken.
    #[error(transparent)]
    Shape(#[from] crate::shape_inference::ShapeError),
    /// A literal could not be built, read or written.
    #[error(transparent)]
    Literal(#[from] crate::literal::LiteralError),
    /// HLO text could not be parsed.
    #[error(transparent)]
    Parse(#[from] crate::text::ParseError),
    /// StableHLO (MLIR) text could not be read.
    #[error(transparent)]
    Mlir(#[from] crate::mlir::MlirError),
    /// A module failed verification.
    #[error(transparent)]
    Verify(#[from] crate::verify::VerifyErrors),
    /// Building a computation failed: every error the builder recorded.
    #[error(transparent)]
    Build(#[from] crate::builder::BuildErrors),
    /// The builder was misused (e.g. a value from another builder).
    #[error("builder: {0}")]
    Builder(String),
    /// An I/O error, with the path involved.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// The underlying error.
        source: std::io::Error,
    },
}

/// `Result` with [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;
