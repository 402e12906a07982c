//! Common-subexpression elimination, as XLA's `HloCSE`: two instructions with the same op
//! and attributes (constants compared bit for bit, so `0` and `-0` stay apart), the same
//! operands and the same shape compute the same value, so readers of the later one read the
//! earlier one and the later one is dead. A module that computes the same convolution twice
//! (JAX's gradients often do) computes it once.
//!
//! Never merged: parameters, ops with side effects or random numbers, custom calls, and ops
//! calling a computation that has side effects.

use std::collections::HashMap;
use xla_core::ir::{Computation, InstrId, Module, Op, Opcode};

/// Merges the common subexpressions of every computation of `m`.
pub(crate) fn eliminate_common_subexpressions(m: &mut Module) {
    let effectful: Vec<bool> = m
        .computations
        .iter()
        .map(|c| c.instructions.iter().any(|i| i.op.has_side_effect()))
        .collect();
    for c in &mut m.computations {
        merge(c, &effectful);
    }
}

/// True when two instances of `op` on the same operands always agree.
fn mergeable(op: &Op, effectful: &[bool]) -> bool {
    // `if let` rather than a `match` over `Op`: any op not named here merges when it has no
    // side effect, and a new opcode must not need an arm.
    if let Op::Parameter { .. }
    | Op::Rng { .. }
    | Op::RngBitGenerator { .. }
    | Op::RngGetAndUpdateState { .. }
    | Op::CustomCall { .. }
    | Op::AfterAll = op
    {
        return false;
    }
    !op.has_side_effect()
        && op
            .called_computations()
            .iter()
            .all(|c| !effectful.get(c.0).copied().unwrap_or(true))
}

fn merge(c: &mut Computation, effectful: &[bool]) {
    let n = c.instructions.len();
    let mut rep: Vec<InstrId> = (0..n).map(InstrId).collect();
    let mut seen: HashMap<(Opcode, Vec<InstrId>), Vec<usize>> = HashMap::new();
    for i in 0..n {
        let operands: Vec<InstrId> = c.instructions[i]
            .operands
            .iter()
            .map(|o| rep.get(o.0).copied().unwrap_or(*o))
            .collect();
        c.instructions[i].operands.clone_from(&operands);
        let ins = &c.instructions[i];
        if !mergeable(&ins.op, effectful) {
            continue;
        }
        let bucket = seen.entry((ins.op.opcode(), operands)).or_default();
        let same = bucket.iter().copied().find(|&j| {
            c.instructions
                .get(j)
                .is_some_and(|e| e.op == ins.op && e.shape == ins.shape)
        });
        match same {
            Some(j) => rep[i] = InstrId(j),
            None => bucket.push(i),
        }
    }
    c.root = rep.get(c.root.0).copied().unwrap_or(c.root);
}
