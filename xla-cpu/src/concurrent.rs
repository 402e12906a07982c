//! Independent steps side by side: the heavy kernels of a computation that neither reads the
//! other's value run at the same time, one per thread, as XLA:CPU's thunk executor runs
//! independent thunks concurrently.
//!
//! The steps that gain are the ones too small to split (a dot below
//! [`MIN_PAR_FLOPS`](crate::kernels::matmul::MIN_PAR_FLOPS), a fused kernel below the size a
//! kernel splits at): a GRU's gate products `f32[16,256] x f32[256,256]` take about 12 µs
//! each and run one after the other on one core, with the other core idle. So do pairs of
//! large dots of similar size ([`big_dot`]), which split less well over two threads than
//! they run side by side on one each. At compile time
//! [`group`] moves such steps next to each other when none reads a value computed between
//! them (the schedule stays a topological order, and when each value dies is computed from
//! the new order), and marks the groups; at run time [`compute_group`] runs a group's kernels
//! in the pool, each on one thread. Each kernel computes exactly what it computes alone (the
//! kernels split only over independent outputs), so results do not depend on the grouping
//! or the thread count.

use crate::compile::Executable;
use crate::error::{internal, Result};
use crate::fusion::{self, Step};
use crate::kernels::contraction;
use crate::kernels::dot_add::{self, DotAdd};
use crate::parallel::Parallel;
use crate::values::Values;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, OnceLock, PoisonError};
use xla_core::ir::{Computation, Instruction, Op};
use xla_core::Literal;

/// A dot of fewer multiply-adds is not worth a hand-off to another thread (a few µs).
const MIN_DOT_FLOPS: usize = 1 << 18;
/// Dots from [`MIN_PAR_FLOPS`](crate::kernels::matmul::MIN_PAR_FLOPS) split over the pool
/// themselves; up to this size two side by side, each on one thread, do as well without
/// waking the pool.
const MAX_DOT_FLOPS: usize = 1 << 25;
/// Fused kernels of fewer elements are not worth one either. From 4096: a GRU step's gate
/// kernels (`f32[16,256]`, 1-2 µs each) side by side took R4 from 20.4 to 19.7 ms and R3
/// from 12.4 to 12.0 ms (interleaved runs); from 2048 gained nothing more.
const MIN_FUSED_ELEMENTS: usize = 1 << 12;
/// Fused kernels from `1 << 15` elements split over the pool themselves
/// (`Parallel::run_sized`); up to this size two of them side by side, each on one thread,
/// keep both cores as busy without waking the pool (three f32[256,256] gradient
/// accumulations of a GRU step: 10 µs each through the pool).
const MAX_FUSED_ELEMENTS: usize = 1 << 18;
/// The most steps one group holds, and how far ahead a member is looked for.
const MAX_GROUP: usize = 4;
const LOOK_AHEAD: usize = 24;
/// Smaller independent steps that may join a group of heavy ones ([`filler`]), at most
/// this many per group.
const MAX_FILLERS: usize = 4;
/// A filler's least work (elements times kernel nodes, or a dot's multiply-adds): below
/// it the step is cheaper than the hand-off it would save.
const MIN_FILLER_WORK: usize = 1 << 13;

/// Multiply-adds of a dot (or of a product accumulated in place, `kernels/dot_add.rs`):
/// its result's elements times the contracted size.
fn dot_flops(comp: &Computation, ins: &Instruction) -> Option<usize> {
    let dims = match &ins.op {
        Op::Dot { dims, .. } => dims.clone(),
        Op::CustomCall { config, .. } => DotAdd::of(config)?.dims,
        _ => return None,
    };
    let lhs = comp.get(*ins.operands.first()?)?.shape.as_array()?;
    let k = dims
        .lhs_contracting_dims
        .iter()
        .map(|&d| lhs.dims.get(usize::try_from(d).ok()?).copied())
        .product::<Option<i64>>()?;
    fusion::elems(&ins.shape)?.checked_mul(usize::try_from(k).ok()?)
}

/// True when `step` runs one kernel that is worth a thread of its own and small enough
/// that running it on one thread beside another loses nothing.
fn heavy(comp: &Computation, step: &Step) -> bool {
    let Some(ins) = comp.instructions.get(step.instr()) else {
        return false;
    };
    match step {
        Step::Fused(..) => fusion::elems(&ins.shape)
            .is_some_and(|n| (MIN_FUSED_ELEMENTS..MAX_FUSED_ELEMENTS).contains(&n)),
        Step::Eval(_) => {
            dot_flops(comp, ins).is_some_and(|f| (MIN_DOT_FLOPS..MAX_DOT_FLOPS).contains(&f))
        }
    }
}

/// True when `step` may join a group of heavy steps as a filler: a fused kernel or a dot
/// too small to be [`heavy`] (a reduction of a step's gradient rows, a short product),
/// taken by whichever thread finishes its heavy steps first, so the other one does not
/// wait alone at the group's end (the backward step of a GRU: products of 27, 24, 24 and
/// 7 µs, then four column sums of 4 K elements that only the main thread ran).
fn filler(comp: &Computation, step: &Step) -> bool {
    let Some(ins) = comp.instructions.get(step.instr()) else {
        return false;
    };
    match step {
        Step::Fused(_, f) => {
            f.kernel.work() >= MIN_FILLER_WORK
                && f.kernel.n < MAX_FUSED_ELEMENTS
                && !matches!(f.kind, fusion::FusedKind::Scatter(_))
        }
        Step::Eval(_) => dot_flops(comp, ins).is_some_and(|f| f >= MIN_FILLER_WORK),
    }
}

/// A rough cost of a grouped step, to start the longest first: a dot's multiply-adds, a
/// fused kernel's elements times nodes over 8 (an element-step takes about an eighth of
/// a multiply-add's time at these sizes).
fn cost(comp: &Computation, step: &Step) -> usize {
    match step {
        Step::Fused(_, f) => f.kernel.work() / 8,
        Step::Eval(i) => comp
            .instructions
            .get(*i)
            .and_then(|ins| dot_flops(comp, ins))
            .unwrap_or(0),
    }
}

/// Multiply-adds of a dot too big for [`heavy`]: it splits over the pool by itself, but two
/// of them of similar size side by side, each on one thread, beat one after the other on
/// two threads each. Measured with faer alone, two `[256,512]·[512,512]` products: 1.02-1.16
/// ms side by side against 1.23-1.40 ms one after the other; in B2 (an MLP step's weight
/// and input gradients of the middle layer) 1.57 against 1.78 ms.
fn big_dot(comp: &Computation, step: &Step) -> Option<usize> {
    let Step::Eval(i) = step else { return None };
    dot_flops(comp, comp.instructions.get(*i)?).filter(|&f| f >= MAX_DOT_FLOPS)
}

/// True when `group` runs side by side with `threads` threads: always for small steps,
/// and for a pair of big dots only at two threads (with more, each splits over all of them
/// one after the other).
pub(crate) fn side_by_side(comp: &Computation, group: &[Step], threads: usize) -> bool {
    threads == 2 || (threads > 2 && !group.iter().any(|s| big_dot(comp, s).is_some()))
}

/// True when two big dots are close enough in size that running them side by side,
/// each on one thread, finishes sooner than one after the other on both threads: with
/// two-thread efficiency `e`, side by side wins while the smaller is more than `2e - 1`
/// (~0.4-0.5) of the larger, so within a factor of two.
fn matched(a: usize, b: usize) -> bool {
    a.max(b) <= a.min(b).saturating_mul(2)
}

/// `steps` reordered so that independent heavy steps sit together, and for each step the
/// size of the group it starts (1 alone, 0 inside a group).
pub(crate) fn group(comp: &Computation, steps: Vec<Step>) -> (Vec<Step>, Vec<usize>) {
    let mut rest: Vec<Option<Step>> = steps.into_iter().map(Some).collect();
    let mut out = Vec::with_capacity(rest.len());
    let mut sizes = Vec::with_capacity(rest.len());
    let mut k = 0;
    while k < rest.len() {
        let Some(first) = rest.get_mut(k).and_then(Option::take) else {
            k += 1;
            continue;
        };
        // Who may join: a big dot takes one partner of similar size, a heavy step up to
        // `MAX_GROUP - 1` other heavy steps.
        let (joins, most): (Box<dyn Fn(&Step) -> bool>, usize) = match big_dot(comp, &first) {
            Some(f) => (
                Box::new(move |s| big_dot(comp, s).is_some_and(|g| matched(f, g))),
                2,
            ),
            None if heavy(comp, &first) => (Box::new(|s| heavy(comp, s)), MAX_GROUP),
            None => (Box::new(|_| false), 1),
        };
        let fills = most == MAX_GROUP;
        let mut members = vec![first];
        let mut fillers = Vec::new();
        // The values computed by the steps a later member would jump over.
        let mut between: Vec<usize> = vec![members[0].instr()];
        let end = (k + 1 + LOOK_AHEAD).min(rest.len());
        for j in k + 1..end {
            if members.len() >= most && (!fills || fillers.len() >= MAX_FILLERS) {
                break;
            }
            let Some(s) = rest.get(j).and_then(Option::as_ref) else {
                continue;
            };
            let free = !s.reads(comp).iter().any(|o| between.contains(&o.0));
            // Members run at the same time: none may read another.
            between.push(s.instr());
            let heavy_joins = members.len() < most && joins(s);
            let fills_in = fills && fillers.len() < MAX_FILLERS && filler(comp, s);
            if free && (heavy_joins || fills_in) {
                if let Some(s) = rest.get_mut(j).and_then(Option::take) {
                    match heavy_joins {
                        true => members.push(s),
                        false => fillers.push((j, s)),
                    }
                }
            }
        }
        // Fillers only fill the gaps of a group of heavy steps; alone with one, each goes
        // back where it was.
        if members.len() < 2 {
            for (j, s) in fillers.drain(..) {
                if let Some(slot) = rest.get_mut(j) {
                    *slot = Some(s);
                }
            }
        }
        members.extend(fillers.into_iter().map(|(_, s)| s));
        // Longest first (the executor takes a group's values in its order, whatever
        // thread computed them): the last steps taken are the short ones.
        if members.len() > 1 {
            members.sort_by_key(|s| std::cmp::Reverse(cost(comp, s)));
        }
        sizes.push(members.len());
        sizes.extend(std::iter::repeat_n(0, members.len() - 1));
        out.extend(members);
        k += 1;
    }
    (out, sizes)
}

/// The value of one grouped step, computed on the calling thread alone; `acc` is the
/// accumulator of a product accumulated in place when the executor handed it over (else
/// it is copied).
fn compute_alone(
    comp: &Computation,
    step: &Step,
    values: &Values<'_>,
    acc: Option<Literal>,
) -> Result<Literal> {
    let ins = comp
        .instructions
        .get(step.instr())
        .ok_or_else(|| internal("a plan's steps name instructions of its computation"))?;
    // A handed-over accumulator is no longer among the values.
    let reads = step.reads(comp);
    let reads = match acc {
        Some(_) => reads.get(..2).unwrap_or_default(),
        None => reads,
    };
    let ops = reads
        .iter()
        .map(|o| values.get(o.0))
        .collect::<Result<Vec<&Literal>>>()?;
    match (step, &ins.op, ops.as_slice()) {
        (Step::Fused(_, f), _, _) => fusion::run(f, &ops, &ins.shape, Parallel::SEQ),
        (Step::Eval(_), Op::Dot { dims, .. }, [a, b]) => {
            contraction::dot(a, b, dims, &ins.shape, Parallel::SEQ)
        }
        (Step::Eval(_), Op::CustomCall { config, .. }, [a, b, rest @ ..])
            if config.target == dot_add::TARGET =>
        {
            let acc = match (acc, rest) {
                (Some(acc), _) => acc,
                (None, [c]) => (*c).clone(),
                (None, _) => return Err(internal("an accumulated product has three operands")),
            };
            dot_add::run(
                [a, b],
                acc,
                &config.backend_config,
                &ins.shape,
                Parallel::SEQ,
            )
        }
        (Step::Eval(_), _, _) => Err(internal("only dots and fused kernels are grouped")),
    }
}

/// For each step of `group`, the accumulator of a product accumulated in place
/// (`kernels/dot_add.rs`) taken out of `values` when that step is its last reader
/// (`frees[j]` lists what step `j` is the last reader of), no other step of the group
/// reads it and `values` owns it: the group then accumulates into it without a copy.
pub(crate) fn take_accumulators(
    comp: &Computation,
    group: &[Step],
    frees: &[Vec<usize>],
    values: &mut Values<'_>,
) -> Vec<Option<Literal>> {
    // How many times the group reads value `c` (counted in place: this runs per group
    // per execution).
    let reads = |c: usize| -> usize {
        group
            .iter()
            .map(|s| s.reads(comp).iter().filter(|o| o.0 == c).count())
            .sum()
    };
    group
        .iter()
        .enumerate()
        .map(|(j, s)| {
            let ins = comp.instructions.get(s.instr())?;
            let (Step::Eval(_), Op::CustomCall { config, .. }, [_, _, c]) =
                (s, &ins.op, ins.operands.as_slice())
            else {
                return None;
            };
            if config.target != dot_add::TARGET {
                return None;
            }
            let once = reads(c.0) == 1;
            let dies = frees.get(j).is_some_and(|f| f.contains(&c.0));
            (once && dies).then(|| values.take_owned(c.0)).flatten()
        })
        .collect()
}

/// The values of a group of steps, computed side by side: this thread and the partner
/// thread take the next step of the group until none is left. `accs` holds, per step, an
/// accumulator handed over by [`take_accumulators`].
pub(crate) fn compute_group(
    exe: &Executable,
    comp: &Computation,
    steps: &[Step],
    values: &Values<'_>,
    accs: Vec<Option<Literal>>,
) -> Vec<Result<Literal>> {
    let mut accs = accs.into_iter();
    let Some(partner) = exe.threads.partner() else {
        return steps
            .iter()
            .map(|s| compute_alone(comp, s, values, accs.next().flatten()))
            .collect();
    };
    let accs: Vec<Mutex<Option<Literal>>> = steps
        .iter()
        .map(|_| Mutex::new(accs.next().flatten()))
        .collect();
    let next = AtomicUsize::new(0);
    let slots: Vec<OnceLock<Result<Literal>>> = steps.iter().map(|_| OnceLock::new()).collect();
    let job = || loop {
        let k = next.fetch_add(1, Ordering::Relaxed);
        let (Some(s), Some(slot)) = (steps.get(k), slots.get(k)) else {
            return;
        };
        let acc = accs
            .get(k)
            .and_then(|m| m.lock().unwrap_or_else(PoisonError::into_inner).take());
        let _ = slot.set(compute_alone(comp, s, values, acc));
    };
    let finished = partner.run(&job);
    slots
        .into_iter()
        .map(|slot| match slot.into_inner() {
            Some(r) => r,
            None if finished => Err(internal("every step of a group is computed")),
            None => Err(internal("a kernel of a group of steps panicked")),
        })
        .collect()
}
