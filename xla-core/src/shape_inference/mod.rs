//! Shape inference: pure functions from operand shapes and typed attributes to a result
//! shape, one file per op family. No IR, no builder, no spans: the builder, the verifier,
//! the text parser and the `#[computation]` macro (at compile time) all call these same rules.
//!
//! Every violated rule is a [`ShapeError`] naming the operation, the operand shapes in XLA
//! notation and the rule, e.g.
//! `dot: contracting dimension sizes differ: lhs f32[2,3] dim 1 is 3, rhs f32[4,5] dim 0 is 4`.

mod error;
mod validators;

pub mod collective;
pub mod contraction;
pub mod control;
pub mod elementwise;
pub mod indexing;
pub mod linalg;
pub mod rng;
pub mod structural;
pub mod window;

pub use error::ShapeError;
pub use validators::*;

use crate::shape::Shape;

/// The signature of a computation: parameter shapes and result shape. Rules for ops that
/// call computations (reduce, sort, while, ...) check the callee through this.
#[derive(Clone, Debug, PartialEq)]
pub struct ProgramShape {
    /// Parameter shapes in parameter order.
    pub parameters: Vec<Shape>,
    /// Result shape.
    pub result: Shape,
}

impl std::fmt::Display for ProgramShape {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("(")?;
        for (i, p) in self.parameters.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{p}")?;
        }
        write!(f, ") -> {}", self.result)
    }
}
