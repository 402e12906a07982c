//! `while` and `conditional` inside a native loop: a nested loop runs on its own state
//! slots (a copy of its init, so the init stays intact), a conditional's arms each end by
//! moving their result into shared result slots.

use super::emit::{Em, Ix};
use super::lower::Lowerer;
use super::program::{Inst, SlotId, Ty, Val};
use super::structural::copy;
use cranelift_codegen::ir::InstBuilder;
use xla_core::ir::CompId;
use xla_core::Shape;

/// Appends moves of every leaf of `from` into the matching leaf of `to`.
fn moves(lw: &Lowerer<'_>, to: &Val, from: &Val, out: &mut Vec<Inst>) -> Option<()> {
    let (mut t, mut f) = (Vec::new(), Vec::new());
    to.leaves(&mut t);
    from.leaves(&mut f);
    if t.len() != f.len() {
        return None;
    }
    for (&d, &s) in t.iter().zip(&f) {
        let (di, si) = (lw.info(d)?, lw.info(s)?);
        if di.ty != si.ty || di.n != si.n {
            return None;
        }
        out.push(copy(d, s, di.n));
    }
    Some(())
}

/// Lowers `while(init)` of `shape`; returns the loop's state, which holds the result.
pub(crate) fn lower_while(
    lw: &mut Lowerer<'_>,
    [cond, body]: [CompId; 2],
    init: &Val,
    shape: &Shape,
    out: &mut Vec<Inst>,
) -> Option<Val> {
    let state = lw.fresh(shape)?;
    moves(lw, &state, init, out)?;
    let mut cinsts = Vec::new();
    let pred = match lw.comp(cond, vec![state.clone()], &mut cinsts)? {
        Val::Leaf(p) if lw.info(p).is_some_and(|s| s.ty == Ty::Pred && s.n == 1) => p,
        Val::Leaf(_) | Val::Tuple(_) => return None,
    };
    let mut binsts = Vec::new();
    let result = lw.comp(body, vec![state.clone()], &mut binsts)?;
    lw.carry(&state, &result, &mut binsts)?;
    out.push(Inst::Loop {
        cond: cinsts,
        pred,
        body: binsts,
    });
    Some(state)
}

/// Lowers `conditional(sel, operands...)` of `shape`.
pub(crate) fn lower_conditional(
    lw: &mut Lowerer<'_>,
    branches: &[CompId],
    opv: &[Val],
    shape: &Shape,
    out: &mut Vec<Inst>,
) -> Option<Val> {
    let (Val::Leaf(sel), args) = opv.split_first()? else {
        return None;
    };
    let si = lw.info(*sel)?;
    let ok = si.n == 1
        && if si.ty == Ty::Pred {
            branches.len() == 2
        } else {
            !si.ty.is_float() && !branches.is_empty()
        };
    if !ok || args.len() != branches.len() {
        return None;
    }
    let dst = lw.fresh(shape)?;
    let mut arms = Vec::new();
    for (&b, arg) in branches.iter().zip(args) {
        let mut insts = Vec::new();
        let r = lw.comp(b, vec![arg.clone()], &mut insts)?;
        moves(lw, &dst, &r, &mut insts)?;
        arms.push(insts);
    }
    out.push(Inst::Branch { sel: *sel, arms });
    Some(dst)
}

/// Emits a nested loop.
pub(crate) fn emit_loop(
    em: &mut Em<'_, '_>,
    cond: &[Inst],
    pred: SlotId,
    body: &[Inst],
) -> Option<()> {
    let (head, step, exit) = (
        em.b.create_block(),
        em.b.create_block(),
        em.b.create_block(),
    );
    // Nested loops poll the stop conditions too (their own iteration count).
    let trips = super::poll::counter(em);
    em.b.ins().jump(head, &[]);
    em.switch(head);
    cond.iter().try_for_each(|i| em.inst(i))?;
    let go = em.load(pred, Ix::C(0))?;
    em.b.ins().brif(go, step, &[], exit, &[]);
    em.switch(step);
    body.iter().try_for_each(|i| em.inst(i))?;
    super::poll::back_edge(em, trips, head)?;
    em.switch(exit);
    Some(())
}

/// Emits a conditional: a PRED selects arm 0 when true, 1 when false; an integer selects
/// its arm, the last one when out of range (as `kernels::control::conditional`).
pub(crate) fn emit_branch(em: &mut Em<'_, '_>, sel: SlotId, arms: &[Vec<Inst>]) -> Option<()> {
    let ty = em.slot(sel)?.ty;
    let blocks: Vec<_> = arms.iter().map(|_| em.b.create_block()).collect();
    let join = em.b.create_block();
    let v = em.load(sel, Ix::C(0))?;
    if ty == Ty::Pred {
        let (t, f) = (*blocks.first()?, *blocks.get(1)?);
        em.b.ins().brif(v, t, &[], f, &[]);
    } else {
        let s = super::dynamic::index(
            em,
            &super::program::Start {
                slot: sel,
                elem: 0,
                hi: 0,
                stride: 0,
            },
        )?;
        let (last, rest) = blocks.split_last()?;
        for (k, &blk) in rest.iter().enumerate() {
            let next = em.b.create_block();
            let hit = em.b.ins().icmp_imm_s(
                cranelift_codegen::ir::condcodes::IntCC::Equal,
                s,
                i64::try_from(k).ok()?,
            );
            em.b.ins().brif(hit, blk, &[], next, &[]);
            em.switch(next);
        }
        em.b.ins().jump(*last, &[]);
    }
    for (blk, arm) in blocks.iter().zip(arms) {
        em.switch(*blk);
        arm.iter().try_for_each(|i| em.inst(i))?;
        em.b.ins().jump(join, &[]);
    }
    em.switch(join);
    Some(())
}
