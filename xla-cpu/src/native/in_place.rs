//! Updates in place: a `dynamic-update-slice` or `scatter` whose operand is loop state
//! that nothing reads afterwards, and whose result the carry moves back into that state,
//! writes the state slot directly. The whole-operand copy (every iteration) and the
//! carry's copy back both go: a scan stacking its outputs then costs the update, not the
//! stack.

use super::program::{Inst, Program, SlotId};

/// The operand and destination of an update instruction.
fn update_of(ins: &Inst) -> Option<(SlotId, SlotId)> {
    match ins {
        Inst::DynUpdate { operand, dst, .. } | Inst::Scatter { operand, dst, .. } => {
            Some((*operand, *dst))
        }
        Inst::Unary { .. }
        | Inst::Binary { .. }
        | Inst::Compare { .. }
        | Inst::Select { .. }
        | Inst::Clamp { .. }
        | Inst::Convert { .. }
        | Inst::Move { .. }
        | Inst::DynSlice { .. }
        | Inst::Fold { .. }
        | Inst::Dot { .. }
        | Inst::Loop { .. }
        | Inst::Branch { .. }
        | Inst::Host(_) => None,
    }
}

/// True when `ins` is the carry's whole copy of `src` into `dst`.
fn is_carry(ins: &Inst, dst: SlotId, src: SlotId, n: usize) -> bool {
    match ins {
        Inst::Move { dst: d, runs } => {
            *d == dst
                && matches!(runs.as_slice(), [r] if r.src == src && r.src_start == 0
                    && r.src_step == 1 && r.dst_start == 0 && r.len == n)
        }
        _ => false,
    }
}

/// Rewrites the body's eligible updates to work in place.
pub(crate) fn update_in_place(p: &mut Program) {
    let mut state = Vec::new();
    p.state.leaves(&mut state);
    for k in 0..p.body.len() {
        let Some((x, d)) = p.body.get(k).and_then(update_of) else {
            continue;
        };
        let Some(n) = p.slots.get(x).map(|s| s.n) else {
            continue;
        };
        if x == d || !state.contains(&x) {
            continue;
        }
        let rest = p.body.get(k + 1..).unwrap_or_default();
        let Some(c) = rest.iter().position(|i| is_carry(i, x, d, n)) else {
            continue;
        };
        // After the update nothing but that carry may touch `x`, nor write `d` again.
        let clear = rest.iter().enumerate().all(|(j, i)| {
            j == c || {
                let (r, w) = (i.reads(), i.writes());
                !r.contains(&x) && !w.contains(&x) && !w.contains(&d)
            }
        });
        if !clear {
            continue;
        }
        if let Some(Inst::DynUpdate { dst, .. } | Inst::Scatter { dst, .. }) = p.body.get_mut(k) {
            *dst = x;
        }
        p.body.remove(k + 1 + c);
        for i in p.body.iter_mut().skip(k + 1) {
            i.rename_reads(d, x);
        }
    }
}
