//! Rules on how an op's operands (and called computations) are laid out: N operands with
//! N init values, one operand per branch, and the like.

use std::fmt;

/// How an op's operand list or called computations break the op's layout.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum OperandsRule {
    /// A `pred[]` selector needs exactly two branches.
    PredBranches {
        /// Branches given.
        found: usize,
    },
    /// A conditional needs at least one branch.
    NoBranch,
    /// A conditional takes one operand per branch.
    OnePerBranch {
        /// Branches.
        branches: usize,
        /// Branch operands given.
        found: usize,
    },
    /// The op calls `expected` computations.
    Callees {
        /// Computations the op calls.
        expected: usize,
        /// Computations given.
        found: usize,
    },
    /// The operands do not have the layout the op takes.
    Layout {
        /// The layout, as the message says it (`the operand and its start indices`).
        expected: &'static str,
        /// Operands given.
        found: usize,
    },
    /// N operands and N init values (N >= 1).
    InitValues {
        /// Operands given.
        operands: usize,
        /// Init values given.
        inits: usize,
    },
    /// N operands, the indices and N updates (N >= 1).
    Updates {
        /// Operands given.
        operands: usize,
        /// Updates given.
        updates: usize,
    },
    /// The result shape must be declared: it does not follow from the operands.
    ResultMissing,
}

impl fmt::Display for OperandsRule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use OperandsRule as O;
        match self {
            O::PredBranches { found } => {
                write!(f, "a pred[] selector needs exactly 2 branches, got {found}")
            }
            O::NoBranch => f.write_str("needs at least one branch"),
            O::OnePerBranch { branches, found } => {
                write!(f, "expects one operand per branch ({branches}), got {found}")
            }
            O::Callees { expected, found } => {
                let noun = if *expected == 1 { "computation" } else { "computations" };
                write!(f, "expects {expected} called {noun}, got {found}")
            }
            O::Layout { expected, found } => write!(f, "expects {expected}, got {found} operands"),
            O::InitValues { operands, inits } => write!(
                f,
                "expects N operands and N init values (N >= 1), got {operands} and {inits}"
            ),
            O::Updates { operands, updates } => write!(
                f,
                "expects N operands, the indices and N updates (N >= 1), got {operands} operands and {updates} updates"
            ),
            O::ResultMissing => {
                f.write_str("the result shape must be given (it does not follow from the operands)")
            }
        }
    }
}
