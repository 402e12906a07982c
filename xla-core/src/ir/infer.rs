//! The one dispatch from an [`Op`] to its shape rule in [`crate::shape_inference`].

use super::Op;
use crate::shape::Shape;
use crate::shape_inference::{ProgramShape, ShapeError};

/// Infers the result shape of `op` applied to operands of shapes `operands`.
///
/// `called` holds the signatures of the op's called computations, in
/// [`Op::called_computations`] order. `declared` is the instruction's stated shape: ops whose
/// result is not a function of their operands (parameter, constant, iota, reshape, broadcast,
/// convert, bitcast-convert, rng, custom-call, infeed, recv, ...) take it from there and
/// check it against the operands; other ops ignore it (the verifier compares the two).
///
/// # Errors
/// A [`ShapeError`] naming the op, the operand shapes and the rule broken.
pub fn infer_shape(op: &Op, operands: &[&Shape], called: &[ProgramShape], declared: Option<&Shape>) -> Result<Shape, ShapeError> {
    let _ = (operands, called);
    // Placeholder until the shape-inference work lands: trust the declared shape.
    declared.cloned().ok_or_else(|| ShapeError::new(op.name(), "shape inference not implemented yet"))
}
