//! Loop-invariant code motion: body instructions whose inputs never change during the
//! loop (constants, state passed through unchanged, results of other such instructions)
//! run once before the loop instead of every iteration. Every instruction is pure, so
//! running it early (even when the loop then runs zero times) changes no result.

use super::program::Program;

/// Moves the invariant instructions of `p.body` into `p.pre`.
pub(crate) fn hoist(p: &mut Program) {
    // How many instructions write each slot: most are written once, a nested loop's state
    // and a conditional's result more often, and those never move (the hoisted write
    // would run once while the others run every iteration).
    let mut written = vec![0usize; p.slots.len()];
    for ins in p.cond.iter().chain(&p.body) {
        ins.each_write(&mut |s| {
            if let Some(w) = written.get_mut(s) {
                *w += 1;
            }
        });
    }
    let mut state = Vec::new();
    p.state.leaves(&mut state);
    // Invariant: never written inside the loop (constants, pass-through state).
    let mut inv: Vec<bool> = written.iter().map(|&w| w == 0).collect();
    let mut body = Vec::with_capacity(p.body.len());
    for ins in std::mem::take(&mut p.body) {
        let dsts = ins.writes();
        let ok = dsts
            .iter()
            .all(|d| !state.contains(d) && written.get(*d) == Some(&1))
            && ins
                .reads()
                .iter()
                .all(|s| inv.get(*s).copied().unwrap_or(false) && !dsts.contains(s));
        if ok {
            for d in dsts {
                if let Some(v) = inv.get_mut(d) {
                    *v = true;
                }
            }
            p.pre.push(ins);
        } else {
            body.push(ins);
        }
    }
    p.body = body;
}
