//! Broadcast scalars read as scalars: an elementwise instruction that reads a slot written
//! by a whole-slot broadcast of a one-element slot reads that element instead (every
//! element of the broadcast is that element, and a one-element operand is read as element
//! 0 by every element). The same bits flow; a shift by a broadcast amount then has a
//! vector form (a vector shift takes one amount for every lane, `vector.rs`), and a
//! broadcast nothing reads any more is dropped.

use super::program::{Inst, Program, Slot, SlotId};

/// The `(dst, src)` of a whole-slot broadcast of one-element slot `src`.
fn broadcast_of(ins: &Inst, slots: &[Slot]) -> Option<(SlotId, SlotId)> {
    let Inst::Move { dst, runs } = ins else {
        return None;
    };
    let [r] = runs.as_slice() else { return None };
    let whole = slots.get(*dst)?.n == r.len && r.dst_start == 0;
    (whole && r.src_step == 0 && slots.get(r.src)?.n == 1).then_some((*dst, r.src))
}

/// True for the elementwise instructions, which read a one-element operand as element 0.
fn elementwise(ins: &Inst) -> bool {
    matches!(
        ins,
        Inst::Binary { .. } | Inst::Compare { .. } | Inst::Select { .. } | Inst::Clamp { .. }
    )
}

/// How many instructions of `p` (nested ones included) read (`reads`) or write each slot.
fn tally(p: &Program, reads: bool) -> Vec<usize> {
    let mut n = vec![0usize; p.slots.len()];
    let mut count = |s: SlotId| {
        if let Some(c) = n.get_mut(s) {
            *c += 1;
        }
    };
    for ins in [&p.pre, &p.cond, &p.body].into_iter().flatten() {
        if reads {
            ins.each_read(&mut count);
        } else {
            ins.each_write(&mut count);
        }
    }
    n
}

/// Rewrites `p`'s instructions (see the module docs).
pub(crate) fn read_scalars(p: &mut Program) {
    let writes = tally(p, false);
    for list in [&mut p.pre, &mut p.cond, &mut p.body] {
        in_list(list, &p.slots, &writes);
    }
    // Broadcasts nothing reads any more (loop state is read by the carry or is the result,
    // and is never a broadcast's destination: the carry writes it).
    let reads = tally(p, true);
    let mut state = Vec::new();
    p.state.leaves(&mut state);
    for list in [&mut p.pre, &mut p.cond, &mut p.body] {
        drop_unread(list, &p.slots, &reads, &state);
    }
}

/// The rewrite within one instruction list and, separately, the lists nested in it.
fn in_list(list: &mut [Inst], slots: &[Slot], writes: &[usize]) {
    for k in 0..list.len() {
        if let Some(Inst::Loop { cond, body, .. }) = list.get_mut(k) {
            in_list(cond, slots, writes);
            in_list(body, slots, writes);
        }
        if let Some(Inst::Branch { arms, .. }) = list.get_mut(k) {
            arms.iter_mut().for_each(|a| in_list(a, slots, writes));
        }
        let Some((dst, src)) = list.get(k).and_then(|i| broadcast_of(i, slots)) else {
            continue;
        };
        if writes.get(dst) != Some(&1) {
            continue;
        }
        for ins in list.iter_mut().skip(k + 1) {
            // Up to the next write of the scalar: after it the broadcast holds the old value.
            if ins.writes().contains(&src) {
                break;
            }
            if elementwise(ins) {
                ins.rename_reads(dst, src);
            }
        }
    }
}

/// Drops the top-level broadcasts of `list` whose destination nothing reads.
fn drop_unread(list: &mut Vec<Inst>, slots: &[Slot], reads: &[usize], state: &[SlotId]) {
    list.retain(|ins| {
        broadcast_of(ins, slots)
            .is_none_or(|(dst, _)| reads.get(dst).copied().unwrap_or(1) > 0 || state.contains(&dst))
    });
}
