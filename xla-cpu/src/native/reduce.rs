//! `reduce` with a recognised add/mul/max/min combiner on floats, spelled out at lowering
//! time as the exact sequence of combine steps the interpreter performs: the fused
//! kernel's [`LANES`] interleaved lanes inside a fused step (`fusion/run.rs`), the
//! reference fast path's row folds otherwise (`kernels/reduce_fast.rs`).

use super::emit::{Em, Ix};
use super::lower::{At, Lowerer};
use super::program::{FoldPlan, Inst, SlotId, Term};
use crate::fusion::{FusedKind, Step};
use crate::kernels::combiner::Combiner;
use cranelift_codegen::ir::{InstBuilder, Value};
use xla_core::attrs::BinaryOp;
use xla_core::ir::Op;

/// Lanes of the fused fold (`fusion::kern::LANES`).
const LANES: usize = 64;
/// Partials of the reference row fold (`reduce_fast::LANES`).
const FAST_LANES: usize = 16;
/// Largest number of combine steps spelled out.
const MAX_STEPS: usize = 8192;

impl FoldPlan {
    fn op(&mut self, a: Term, b: Term) -> Term {
        self.steps.push((a, b));
        Term::Tmp(self.steps.len() - 1)
    }
}

/// The fused kernel's order (`fusion/run.rs`, `Comb::total`): per output, lanes
/// `op(ident, x)` (element `k` into lane `k % LANES`), then the lanes combined — sums and
/// products of at least `LANES` values as a pairwise tree (lanes `i` and `i + 32`, then
/// `i + 16`, ...), shorter ones and max and min in order (for max and min the same bits as
/// the fused tree when no lane is NaN, and the fused path's order when one is) — then
/// `op(init, partial)`; or, for a middle range (`inner > 1`), each column from `init`.
fn fused_plan(op: BinaryOp, outer: usize, red: usize, inner: usize) -> FoldPlan {
    let mut p = FoldPlan::default();
    for o in 0..outer {
        if inner == 1 {
            let mut lanes = vec![Term::Ident; LANES.min(red.max(1))];
            for k in 0..red {
                let l = k % LANES;
                lanes[l] = p.op(lanes[l], Term::Src(o * red + k));
            }
            let acc = match op {
                BinaryOp::Add | BinaryOp::Mul if red >= LANES => lane_tree(&mut p, lanes),
                // Trailing identity lanes are skipped: `acc op ident` gives `acc`
                // unchanged for every quiet `acc` (a fold result always is).
                _ => lanes.into_iter().fold(Term::Ident, |acc, l| p.op(acc, l)),
            };
            let r = p.op(Term::Init, acc);
            p.outs.push(r);
        } else {
            for c in 0..inner {
                let mut acc = Term::Init;
                for k in 0..red {
                    acc = p.op(acc, Term::Src((o * red + k) * inner + c));
                }
                p.outs.push(acc);
            }
        }
    }
    p
}

/// The pairwise tree of a sum's or product's `LANES` lanes (`lanes` holds the first ones;
/// the rest are the identity, which leaves every quiet value unchanged on either side, so
/// its steps are skipped), ending with the fused path's `op(ident, tree)` (skipped too).
fn lane_tree(p: &mut FoldPlan, mut lanes: Vec<Term>) -> Term {
    lanes.resize(LANES, Term::Ident);
    let mut w = LANES / 2;
    while w >= 1 {
        for i in 0..w {
            lanes[i] = match (lanes[i], lanes[i + w]) {
                (a, Term::Ident) => a,
                (Term::Ident, b) => b,
                (a, b) => p.op(a, b),
            };
        }
        w /= 2;
    }
    lanes[0]
}

/// `reduce_fast::fold_row` of the terms `row`.
fn fold_row(p: &mut FoldPlan, row: &[Term]) -> Option<Term> {
    let (&first, rest) = row.split_first()?;
    if row.len() < 2 * FAST_LANES {
        return Some(rest.iter().fold(first, |a, &b| p.op(a, b)));
    }
    let mut acc: Vec<Term> = row.get(..FAST_LANES)?.to_vec();
    for (k, &t) in row.iter().enumerate().skip(FAST_LANES) {
        let l = k % FAST_LANES;
        acc[l] = p.op(acc[l], t);
    }
    let mut w = FAST_LANES;
    while w > 1 {
        w /= 2;
        for i in 0..w {
            acc[i] = p.op(acc[i], acc[i + w]);
        }
    }
    acc.first().copied()
}

/// `reduce_fast::reduce` spelled out for an operand of `dims` reduced over `red`.
fn fast_plan(dims: &[usize], red: &[bool]) -> Option<FoldPlan> {
    let mut runs: Vec<(usize, bool)> = Vec::new();
    for (&d, &r) in dims.iter().zip(red) {
        if d == 1 {
            continue;
        }
        match runs.last_mut() {
            Some((n, lr)) if *lr == r => *n *= d,
            _ => runs.push((d, r)),
        }
    }
    let total: usize = dims.iter().product();
    let mut p = FoldPlan::default();
    if total == 0 {
        let nout: usize = runs.iter().filter(|r| !r.1).map(|r| r.0).product();
        p.outs = vec![Term::Init; nout];
        return Some(p);
    }
    let mut cur: Vec<Term> = (0..total).map(Term::Src).collect();
    if let Some(&(len, true)) = runs.last() {
        cur = cur
            .chunks(len)
            .map(|r| fold_row(&mut p, r))
            .collect::<Option<_>>()?;
        runs.pop();
    }
    if runs.iter().all(|r| !r.1) {
        p.outs = cur.iter().map(|&t| p.op(Term::Init, t)).collect();
        return Some(p);
    }
    accumulate_rows(&mut p, &cur, &runs)?;
    Some(p)
}

/// `reduce_fast::accumulate_rows`: rows of the innermost kept run folded into their output
/// rows from `init`, in row-major order of the reduced indices.
fn accumulate_rows(p: &mut FoldPlan, v: &[Term], runs: &[(usize, bool)]) -> Option<()> {
    let k = runs.last().map_or(1, |r| r.0);
    let outer = runs.get(..runs.len().saturating_sub(1))?;
    let mut ostride = vec![0usize; outer.len()];
    let mut s = 1usize;
    for (i, &(n, r)) in outer.iter().enumerate().rev() {
        if !r {
            ostride[i] = s;
            s *= n;
        }
    }
    let mut out = vec![Term::Init; s * k];
    let mut idx = vec![0usize; outer.len()];
    let mut orow = 0usize;
    for row in v.chunks_exact(k) {
        for (j, &x) in row.iter().enumerate() {
            let d = out.get_mut(orow * k + j)?;
            let cur = *d;
            *d = p.op(cur, x);
        }
        for i in (0..outer.len()).rev() {
            idx[i] += 1;
            orow += ostride[i];
            if idx[i] < outer[i].0 {
                break;
            }
            orow -= ostride[i] * idx[i];
            idx[i] = 0;
        }
    }
    p.outs = out;
    Some(())
}

/// Lowers `reduce(x, init)` at `at` into a fold, when the interpreter's order is known.
pub(crate) fn lower(lw: &Lowerer<'_>, at: &At<'_>, ops: &[SlotId], dst: SlotId) -> Option<Inst> {
    let ins = at.comp.instructions.get(at.i)?;
    let Op::Reduce {
        dimensions,
        to_apply,
    } = &ins.op
    else {
        return None;
    };
    let [x, init] = *ops else { return None };
    let (xs, is, ds) = (lw.info(x)?, lw.info(init)?, lw.info(dst)?);
    if !xs.ty.is_float() || is.ty != xs.ty || ds.ty != xs.ty || is.n != 1 {
        return None;
    }
    let Some(Combiner::Binary(op)) = lw.exe.plan_of(*to_apply)?.combiner else {
        return None;
    };
    if !matches!(
        op,
        BinaryOp::Add | BinaryOp::Mul | BinaryOp::Max | BinaryOp::Min
    ) {
        return None;
    }
    let plan = lw.exe.plan_of(at.c)?;
    let step = plan.steps.iter().find(|s| s.instr() == at.i)?;
    let (fused, fp) = match step {
        Step::Fused(_, f) => match f.kind {
            FusedKind::Reduce {
                op: fop,
                outer,
                red,
                inner,
                ..
            } if fop == op => (true, fused_plan(op, outer, red, inner)),
            FusedKind::Reduce { .. }
            | FusedKind::Loop { .. }
            | FusedKind::Rows(_)
            | FusedKind::Scatter(_) => return None,
        },
        Step::Eval(_) => {
            let xi = at.comp.instructions.get(ins.operands.first()?.0)?;
            let dims: Vec<usize> = xi
                .shape
                .dims()
                .iter()
                .map(|&d| usize::try_from(d).ok())
                .collect::<Option<_>>()?;
            let mut red = vec![false; dims.len()];
            for &r in dimensions {
                *red.get_mut(usize::try_from(r).ok()?)? = true;
            }
            (false, fast_plan(&dims, &red)?)
        }
    };
    if fp.outs.len() != ds.n || fp.steps.len() > MAX_STEPS {
        return None;
    }
    Some(Inst::Fold {
        op,
        fused,
        src: x,
        init,
        dst,
        plan: fp,
    })
}

/// Emits a fold, fully unrolled.
pub(crate) fn emit(em: &mut Em<'_, '_>, ins: &Inst) -> Option<()> {
    let Inst::Fold {
        op,
        fused,
        src,
        init,
        dst,
        plan,
    } = ins
    else {
        return None;
    };
    let ty = em.slot(*src)?.ty;
    let ident = match op {
        BinaryOp::Add => -0.0,
        BinaryOp::Mul => 1.0,
        BinaryOp::Max => f64::NEG_INFINITY,
        BinaryOp::Min => f64::INFINITY,
        BinaryOp::Sub
        | BinaryOp::Div
        | BinaryOp::Rem
        | BinaryOp::Pow
        | BinaryOp::Atan2
        | BinaryOp::Complex
        | BinaryOp::And
        | BinaryOp::Or
        | BinaryOp::Xor
        | BinaryOp::ShiftLeft
        | BinaryOp::ShiftRightArithmetic
        | BinaryOp::ShiftRightLogical => return None,
    };
    let id = if ty == super::program::Ty::F32 {
        em.b.ins().f32const(ident as f32)
    } else {
        em.b.ins().f64const(ident)
    };
    let iv = em.load(*init, Ix::C(0))?;
    let mut tmp: Vec<Value> = Vec::with_capacity(plan.steps.len());
    let val = |em: &mut Em<'_, '_>, t: Term, tmp: &[Value]| -> Option<Value> {
        match t {
            Term::Src(k) => em.load(*src, Ix::C(k)),
            Term::Init => Some(iv),
            Term::Ident => Some(id),
            Term::Tmp(k) => tmp.get(k).copied(),
        }
    };
    for &(a, b) in &plan.steps {
        let (x, y) = (val(em, a, &tmp)?, val(em, b, &tmp)?);
        tmp.push(super::elementwise::combine(em, *op, ty, *fused, x, y)?);
    }
    for (k, &t) in plan.outs.iter().enumerate() {
        let v = val(em, t, &tmp)?;
        em.store(*dst, Ix::C(k), v)?;
    }
    Some(())
}
