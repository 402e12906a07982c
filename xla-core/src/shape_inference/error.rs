//! The error every shape rule returns.

use std::fmt;

/// A violated shape rule: which operation, which operand (if one is to blame), and the rule
/// with the offending shapes written in XLA notation (`f32[2,3]`).
///
/// The caller adds *where*: the instruction name (verifier), line and column (parser), or
/// the span of the expression (macro).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShapeError {
    /// The operation, as named in HLO text (`dot`, `reduce-window`, ...).
    pub op: String,
    /// The operand the rule blames, if one.
    pub operand: Option<usize>,
    /// What is wrong, with the shapes involved.
    pub message: String,
}

impl ShapeError {
    /// An error of `op` with `message`.
    pub fn new(op: impl Into<String>, message: impl Into<String>) -> ShapeError {
        ShapeError {
            op: op.into(),
            operand: None,
            message: message.into(),
        }
    }

    /// An error of `op` blaming operand `operand`.
    pub fn at_operand(
        op: impl Into<String>,
        operand: usize,
        message: impl Into<String>,
    ) -> ShapeError {
        ShapeError {
            op: op.into(),
            operand: Some(operand),
            message: message.into(),
        }
    }
}

impl fmt::Display for ShapeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.op, self.message)
    }
}

impl std::error::Error for ShapeError {}
