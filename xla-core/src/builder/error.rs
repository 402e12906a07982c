//! The errors a builder records.

use crate::shape_inference::ShapeError;
use std::fmt;

/// One error recorded by a builder.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BuildError {
    /// An op broke a shape rule.
    Shape {
        /// The builder (computation) the op was added to.
        computation: String,
        /// The broken rule.
        error: ShapeError,
    },
    /// An invariant of the code using the builder does not hold (a bug there, such as a
    /// gradient rule reading an operand the op does not have).
    Internal {
        /// The builder (computation) the op was added to.
        computation: String,
        /// The op being added.
        op: String,
        /// The invariant.
        invariant: &'static str,
    },
    /// The builder was misused: a value of another builder, a bad argument list, ...
    Misuse {
        /// The builder (computation) the op was added to.
        computation: String,
        /// The op being added.
        op: String,
        /// What is wrong.
        message: String,
    },
}

impl BuildError {
    /// The op the error is about.
    pub fn op(&self) -> &str {
        match self {
            BuildError::Shape { error, .. } => &error.op,
            BuildError::Misuse { op, .. } | BuildError::Internal { op, .. } => op,
        }
    }

    /// The builder (computation) in which the error happened.
    pub fn computation(&self) -> &str {
        match self {
            BuildError::Shape { computation, .. }
            | BuildError::Misuse { computation, .. }
            | BuildError::Internal { computation, .. } => computation,
        }
    }
}

impl fmt::Display for BuildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BuildError::Shape { computation, error } => write!(f, "in `{computation}`: {error}"),
            BuildError::Misuse {
                computation,
                op,
                message,
            } => write!(f, "in `{computation}`: {op}: {message}"),
            BuildError::Internal {
                computation,
                op,
                invariant,
            } => write!(
                f,
                "in `{computation}`: {op}: internal error (a bug; please report it): {invariant}"
            ),
        }
    }
}

impl std::error::Error for BuildError {}

/// Every error recorded while building, returned by `build`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BuildErrors {
    /// The builder that was built.
    pub builder: String,
    /// The errors, in the order they were recorded.
    pub errors: Vec<BuildError>,
}

impl fmt::Display for BuildErrors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let n = self.errors.len();
        let plural = if n == 1 { "" } else { "s" };
        write!(
            f,
            "building `{}` failed with {n} error{plural}",
            self.builder
        )?;
        for e in &self.errors {
            write!(f, "\n  {e}")?;
        }
        Ok(())
    }
}

impl std::error::Error for BuildErrors {}
