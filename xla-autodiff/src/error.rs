//! The crate's error type.

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
    /// The builder rejected the gradient graph (a bug in a rule).
    #[error("building the gradient module failed: {0}")]
    Build(String),
}

impl From<xla_core::Error> for AutodiffError {
    fn from(e: xla_core::Error) -> Self {
        AutodiffError::Build(e.to_string())
    }
}
