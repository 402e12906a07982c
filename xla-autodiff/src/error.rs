//! The crate's error type.

use std::sync::Arc;
use xla_core::Shape;

/// Why a gradient module could not be built.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum AutodiffError {
    /// The module has no valid entry computation or root.
    #[error("module `{module}` is malformed: {reason}")]
    Malformed {
        /// The module's name.
        module: String,
        /// What is wrong.
        reason: String,
    },
    /// `grad` needs a scalar floating-point result.
    #[error("grad needs a scalar floating-point result, but the entry's result is {shape}")]
    NonScalarResult {
        /// The entry's result shape.
        shape: Box<Shape>,
    },
    /// A requested parameter does not exist.
    #[error("no parameter {index}: the entry computation has {count} parameters")]
    NoSuchParameter {
        /// The requested parameter number.
        index: usize,
        /// How many parameters the entry has.
        count: usize,
    },
    /// A requested parameter is not floating point.
    #[error("parameter {index} is {shape}: only floating-point parameters have gradients")]
    NotFloatParameter {
        /// The parameter number.
        index: usize,
        /// Its shape.
        shape: Box<Shape>,
    },
    /// The gradient flows through an instruction that has no gradient rule.
    #[error("no gradient through `{instruction}` ({op}): {reason}")]
    NotDifferentiable {
        /// The instruction's name.
        instruction: String,
        /// Its opcode (HLO text name).
        op: String,
        /// Why there is no gradient.
        reason: String,
    },
    /// The builder rejected the gradient graph (a bug in a rule); the builder's error is
    /// the source.
    #[error("building the gradient module failed: {0}")]
    Build(#[source] CoreError),
}

impl From<xla_core::Error> for AutodiffError {
    fn from(e: xla_core::Error) -> Self {
        AutodiffError::Build(CoreError(Arc::new(e)))
    }
}

/// An `xla_core` error kept as the source of a cloneable, comparable error (two are equal
/// when they read the same).
#[derive(Debug, Clone)]
pub struct CoreError(pub Arc<xla_core::Error>);

impl CoreError {
    /// The `xla_core` error.
    pub fn get(&self) -> &xla_core::Error {
        &self.0
    }
}

impl PartialEq for CoreError {
    fn eq(&self, other: &CoreError) -> bool {
        self.0.to_string() == other.0.to_string()
    }
}

impl std::fmt::Display for CoreError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

impl std::error::Error for CoreError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(self.0.as_ref())
    }
}
