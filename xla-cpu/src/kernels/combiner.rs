//! Called computations recognised as simple scalar functions of their parameters
//! (`add`, `maximum`, "set", a plain or keyed compare), so the kernels that call them
//! (`reduce`, `scatter`, `sort`, windows, collectives) run natively instead of calling the
//! computation per element.

use xla_core::attrs::{BinaryOp, ComparisonDirection, ComparisonType};
use xla_core::ir::{Computation, InstrId, Op};

/// A called computation recognised as a simple scalar function of its two parameters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Combiner {
    /// `op(p0, p1)` (or `op(p1, p0)` for a commutative op).
    Binary(BinaryOp),
    /// Returns `p1` (scatter's "set").
    Second,
    /// `compare(p0, p1)` (a plain sort comparator).
    Compare(ComparisonDirection, Option<ComparisonType>),
    /// `compare(key(p0), key(p1))` over parameters `(p0, p1, ...)`: a sort comparator
    /// that orders by the first operand alone (`comparator.rs`).
    KeyCompare(
        ComparisonDirection,
        Option<ComparisonType>,
        super::comparator::Key,
    ),
}

/// Whether `op(a, b) = op(b, a)`.
fn is_commutative(op: BinaryOp) -> bool {
    matches!(
        op,
        BinaryOp::Add
            | BinaryOp::Mul
            | BinaryOp::Max
            | BinaryOp::Min
            | BinaryOp::And
            | BinaryOp::Or
            | BinaryOp::Xor
    )
}

/// The combiner computation `comp` (parameters `params`) is, if it is one.
pub(crate) fn recognise(comp: &Computation, params: &[InstrId]) -> Option<Combiner> {
    let scalar = |id: &InstrId| comp.get(*id).is_some_and(|i| i.shape.is_scalar());
    if !params.iter().all(scalar) {
        return None;
    }
    if let [p0, p1] = params {
        if let Some(c) = recognise_pair(comp, p0, p1) {
            return Some(c);
        }
    }
    super::comparator::key_compare(comp, params)
}

fn recognise_pair(comp: &Computation, p0: &InstrId, p1: &InstrId) -> Option<Combiner> {
    let root = comp.root_instruction()?;
    if comp.root == *p1 {
        return Some(Combiner::Second);
    }
    // `if let` rather than a `match` over `Op`: only these two shapes are combiners, and a
    // new opcode must not need an arm here.
    let ops = root.operands.as_slice();
    if let (Op::Binary(op), [a, b]) = (&root.op, ops) {
        if (a, b) == (p0, p1) || (is_commutative(*op) && (a, b) == (p1, p0)) {
            return Some(Combiner::Binary(*op));
        }
    }
    if let (
        Op::Compare {
            direction,
            comparison_type,
        },
        [a, b],
    ) = (&root.op, ops)
    {
        if (a, b) == (p0, p1) {
            return Some(Combiner::Compare(*direction, *comparison_type));
        }
    }
    None
}
