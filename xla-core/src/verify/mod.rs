//! The module verifier: checks the structural invariants of a [`Module`] and every
//! instruction's shape against shape inference, and reports **every** problem it finds
//! (not just the first), each naming the computation and instruction.
//!
//! Checks: the entry exists; computation names and instruction names (per computation) are
//! unique and not empty; every operand is an earlier instruction of the same computation;
//! the root exists; parameters are numbered `0..n-1` without gaps or duplicates; called
//! computations exist and the call graph has no cycle; array shapes have array element
//! types, non-negative sizes and valid layouts; and each declared shape is compatible
//! (ignoring layouts) with [`infer_shape`](crate::ir::infer_shape).

mod shapes;
mod structure;

use crate::ir::Module;
use std::fmt;

/// One problem found by the verifier.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VerifyProblem {
    /// The computation (empty for a problem of the module as a whole).
    pub computation: String,
    /// The instruction, if the problem is in one.
    pub instruction: Option<String>,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for VerifyProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (&self.instruction, self.computation.is_empty()) {
            (_, true) => write!(f, "module: {}", self.message),
            (None, false) => write!(f, "computation {}: {}", self.computation, self.message),
            (Some(i), false) => {
                write!(
                    f,
                    "computation {}, instruction {}: {}",
                    self.computation, i, self.message
                )
            }
        }
    }
}

/// Every problem the verifier found; `Display` lists them one per line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VerifyErrors {
    /// The problems, in module order.
    pub problems: Vec<VerifyProblem>,
}

impl fmt::Display for VerifyErrors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, p) in self.problems.iter().enumerate() {
            if i > 0 {
                f.write_str("\n")?;
            }
            write!(f, "{p}")?;
        }
        Ok(())
    }
}

impl std::error::Error for VerifyErrors {}

/// Collects problems as the checks run.
#[derive(Default)]
pub(crate) struct Problems(Vec<VerifyProblem>);

impl Problems {
    /// A problem of the module as a whole.
    fn module(&mut self, message: impl Into<String>) {
        self.0.push(VerifyProblem {
            computation: String::new(),
            instruction: None,
            message: message.into(),
        });
    }

    /// A problem of computation `comp`.
    fn comp(&mut self, comp: &str, message: impl Into<String>) {
        self.0.push(VerifyProblem {
            computation: comp.into(),
            instruction: None,
            message: message.into(),
        });
    }

    /// A problem of instruction `instr` of computation `comp`.
    fn instr(&mut self, comp: &str, instr: &str, message: impl Into<String>) {
        self.0.push(VerifyProblem {
            computation: comp.into(),
            instruction: Some(instr.into()),
            message: message.into(),
        });
    }
}

/// Verifies a module, reporting every problem.
///
/// # Errors
/// [`VerifyErrors`] listing every problem found, in module order.
pub fn verify_module(module: &Module) -> Result<(), VerifyErrors> {
    let mut p = Problems::default();
    structure::check_module(module, &mut p);
    for comp in &module.computations {
        structure::check_computation(comp, &mut p);
        shapes::check_computation(module, comp, &mut p);
    }
    if p.0.is_empty() {
        Ok(())
    } else {
        Err(VerifyErrors { problems: p.0 })
    }
}
