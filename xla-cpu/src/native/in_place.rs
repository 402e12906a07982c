//! Updates in place: a `dynamic-update-slice` or `scatter` whose operand is loop state
//! that nothing reads afterwards, and whose result the carry moves back into that state,
//! writes the state slot directly. The whole-operand copy (every iteration) and the
//! carry's copy back both go: a scan stacking its outputs then costs the update, not the
//! stack.

use super::program::{Inst, Program, Slot, SlotId};

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

/// The length of `ins` when it is a whole copy of `src` into `dst` (the carry).
fn carry_of(ins: &Inst, dst: SlotId, src: SlotId) -> Option<usize> {
    match ins {
        Inst::Move { dst: d, runs } if *d == dst => match runs.as_slice() {
            [r] if r.src == src && r.src_start == 0 && r.src_step == 1 && r.dst_start == 0 => {
                Some(r.len)
            }
            _ => None,
        },
        _ => None,
    }
}

/// Rewrites the body's eligible updates to work in place, in the loop's own body and in
/// the bodies of the loops nested in it.
pub(crate) fn update_in_place(p: &mut Program) {
    in_body(&mut p.body, &p.slots);
}

/// The rewrite on one loop body (its instructions end with the carry). An update's operand
/// `x` qualifies when the carry's whole copy of the update's result is the only write of
/// `x` in the body, so `x` is loop state: what the body read of it before the update it
/// still reads, and after the carry it holds the result either way.
fn in_body(body: &mut Vec<Inst>, slots: &[Slot]) {
    for ins in body.iter_mut() {
        if let Inst::Loop { body: inner, .. } = ins {
            in_body(inner, slots);
        }
    }
    for k in 0..body.len() {
        let Some((x, d)) = body.get(k).and_then(update_of) else {
            continue;
        };
        if x == d {
            continue;
        }
        let rest = body.get(k + 1..).unwrap_or_default();
        let Some((c, n)) = rest
            .iter()
            .enumerate()
            .find_map(|(j, i)| carry_of(i, x, d).map(|n| (j, n)))
        else {
            continue;
        };
        // Before the update nothing writes `x` or reads `d` (a read of `d` there would see
        // the last iteration's result); after it nothing but that carry may touch `x`, nor
        // write `d` again.
        let before = body
            .get(..k)
            .unwrap_or_default()
            .iter()
            .all(|i| !i.writes().contains(&x) && !i.reads().contains(&d));
        let clear = rest.iter().enumerate().all(|(j, i)| {
            j == c || {
                let (r, w) = (i.reads(), i.writes());
                !r.contains(&x) && !w.contains(&x) && !w.contains(&d)
            }
        });
        let whole =
            slots.get(x).is_some_and(|s| s.n == n) && slots.get(d).is_some_and(|s| s.n == n);
        if !before || !clear || !whole {
            continue;
        }
        if let Some(Inst::DynUpdate { dst, .. } | Inst::Scatter { dst, .. }) = body.get_mut(k) {
            *dst = x;
        }
        body.remove(k + 1 + c);
        for i in body.iter_mut().skip(k + 1) {
            i.rename_reads(d, x);
        }
    }
}
