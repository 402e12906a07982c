//! Shape rules: elementwise ops, and XLA's broadcasting rules for binary ops built with
//! `broadcast_dimensions`.

use super::ShapeError;
use crate::shape::Shape;

/// How the two operands of a binary op combine under XLA's broadcasting rules
/// (`broadcasting.fa.txt`): scalars broadcast implicitly; same-rank operands broadcast their
/// degenerate (size-1) dims; operands of different ranks need `broadcast_dimensions` mapping
/// the lower-rank operand's dims (strictly increasing) into the higher-rank one's; and the
/// combination of both.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BroadcastPlan {
    /// Dimensions of the result (the element type is the caller's business).
    pub dims: Vec<i64>,
    /// `Some(d)`: the lhs must first be broadcast to `dims` with HLO `broadcast` and
    /// `dimensions = d` (size-1 dims of the lhs may expand). `None`: the lhs already has `dims`.
    pub lhs: Option<Vec<i64>>,
    /// The same for the rhs.
    pub rhs: Option<Vec<i64>>,
}

/// Plans the broadcast of a binary op `op` (its HLO name, for messages) on `lhs` and `rhs`.
///
/// # Errors
/// A [`ShapeError`] when the shapes are not compatible under the broadcasting rules.
pub fn broadcast_plan(op: &str, lhs: &Shape, rhs: &Shape, broadcast_dimensions: &[i64]) -> Result<BroadcastPlan, ShapeError> {
    let _ = broadcast_dimensions;
    if lhs.dims() == rhs.dims() {
        return Ok(BroadcastPlan { dims: lhs.dims().to_vec(), lhs: None, rhs: None });
    }
    Err(ShapeError::new(op, format!("broadcasting not implemented yet: {lhs} and {rhs}")))
}
