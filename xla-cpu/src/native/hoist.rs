//! Loop-invariant code motion: body instructions whose inputs never change during the
//! loop (constants, state passed through unchanged, results of other such instructions)
//! run once before the loop instead of every iteration. Every instruction is pure, so
//! running it early (even when the loop then runs zero times) changes no result.

use super::program::{Inst, Program, SlotId};

/// The slots `ins` reads.
pub(crate) fn reads(ins: &Inst) -> Vec<SlotId> {
    match ins {
        Inst::Unary { x, .. } | Inst::Convert { x, .. } => vec![*x],
        Inst::Binary { a, b, .. } | Inst::Compare { a, b, .. } => vec![*a, *b],
        Inst::Select { p, a, b, .. } => vec![*p, *a, *b],
        Inst::Clamp { lo, x, hi, .. } => vec![*lo, *x, *hi],
        Inst::Move { runs, .. } => runs.iter().map(|r| r.src).collect(),
        Inst::Fold { src, init, .. } => vec![*src, *init],
        Inst::DynSlice { starts, runs, .. } => starts
            .iter()
            .map(|s| s.0)
            .chain(runs.iter().map(|r| r.src))
            .collect(),
        Inst::DynUpdate {
            operand,
            starts,
            runs,
            ..
        } => std::iter::once(*operand)
            .chain(starts.iter().map(|s| s.0))
            .chain(runs.iter().map(|r| r.src))
            .collect(),
        Inst::Dot { lhs, rhs, .. } => vec![*lhs, *rhs],
    }
}

/// The slot `ins` writes.
pub(crate) fn writes(ins: &Inst) -> SlotId {
    match ins {
        Inst::Unary { dst, .. }
        | Inst::Convert { dst, .. }
        | Inst::Binary { dst, .. }
        | Inst::Compare { dst, .. }
        | Inst::Select { dst, .. }
        | Inst::Clamp { dst, .. }
        | Inst::Move { dst, .. }
        | Inst::Fold { dst, .. }
        | Inst::DynSlice { dst, .. }
        | Inst::DynUpdate { dst, .. }
        | Inst::Dot { dst, .. } => *dst,
    }
}

/// Moves the invariant instructions of `p.body` into `p.pre`.
pub(crate) fn hoist(p: &mut Program) {
    let mut written = vec![false; p.slots.len()];
    for ins in p.cond.iter().chain(&p.body) {
        if let Some(w) = written.get_mut(writes(ins)) {
            *w = true;
        }
    }
    let mut state = Vec::new();
    p.state.leaves(&mut state);
    // Invariant: never written inside the loop (constants, pass-through state).
    let mut inv: Vec<bool> = written.iter().map(|w| !w).collect();
    let mut body = Vec::with_capacity(p.body.len());
    for ins in std::mem::take(&mut p.body) {
        let dst = writes(&ins);
        let ok = !state.contains(&dst)
            && reads(&ins)
                .iter()
                .all(|s| inv.get(*s).copied().unwrap_or(false));
        if ok {
            if let Some(v) = inv.get_mut(dst) {
                *v = true;
            }
            p.pre.push(ins);
        } else {
            body.push(ins);
        }
    }
    p.body = body;
}
