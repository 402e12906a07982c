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
    Builder(BuilderMisuse),
    /// An invariant of xla-core does not hold: a bug in this crate, not in the caller's
    /// program. Names the invariant; debug builds assert it instead.
    #[error("internal error (a bug in xla-core; please report it): {0}")]
    Internal(&'static str),
    /// An I/O error, with the path involved.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// The underlying error.
        source: std::io::Error,
    },
}

/// How a builder was misused, for [`Error::Builder`].
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum BuilderMisuse {
    /// A value whose op failed (its error is among the builder's) was asked its shape.
    #[error("the value has no shape: its op failed in builder `{builder}`")]
    Poisoned {
        /// The builder the value belongs to.
        builder: String,
    },
    /// A value of one builder was given to another.
    #[error("the value belongs to builder `{owner}`, not `{builder}`")]
    ForeignValue {
        /// The builder the value belongs to.
        owner: String,
        /// The builder it was given to.
        builder: String,
    },
    /// An imported computation has no root.
    #[error("import: computation `{computation}` has no root")]
    NoRoot {
        /// The computation's name.
        computation: String,
    },
}

/// An [`Error::Internal`] for the broken `invariant` (which debug builds assert).
pub(crate) fn internal(invariant: &'static str) -> Error {
    debug_assert!(false, "xla-core invariant broken: {invariant}");
    Error::Internal(invariant)
}

/// `Result` with [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;
