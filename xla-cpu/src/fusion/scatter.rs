//! A scatter whose updates are a fused kernel: a segment sum of gathered messages,
//! `scatter(zeros, receivers, select(mask, gather(h, senders), 0))`, computes its
//! updates a few rows at a time into a buffer that stays in cache and combines each
//! row into its target at once. Unfused, the updates (f32[5000,64] in a GNN, 1.28 MB)
//! were written by one pass and read back by the scatter's.
//!
//! Results are those of the unfused scatter: the same update values, combined into the
//! same targets in update order (`kernels::indexing::scatter_targets`), with the same
//! combiner functions.

use super::lane::Lane;
#[cfg(target_arch = "x86_64")]
use super::run::{simd_dispatch, In, Scratch};
use super::Kernel;
use crate::error::{CpuError, Result};
use crate::kernels::elementwise::{fmax, fmin};
use crate::kernels::indexing::{combine_row, scatter_targets};
use crate::limits::stop::Poll;
use xla_core::attrs::{BinaryOp, ScatterDims};
use xla_core::Literal;

/// Update elements computed per round (a multiple of the row length, at least one row).
const ROUND: usize = 4096;

/// A fused scatter: the kernel computes the updates (of dims `updates`).
#[derive(Debug)]
pub(crate) struct Spec {
    /// The kernel input holding the scatter's operand.
    pub operand: usize,
    /// The kernel input holding the scatter indices.
    pub indices: usize,
    pub dims: ScatterDims,
    /// The combiner (`None`: the update replaces the target).
    pub op: Option<BinaryOp>,
    /// The updates' dims.
    pub updates: Vec<usize>,
}

/// The combiners a fused scatter applies (those the unfused scatter applies natively).
pub(crate) fn combines(op: Option<BinaryOp>) -> bool {
    matches!(
        op,
        None | Some(BinaryOp::Add | BinaryOp::Mul | BinaryOp::Max | BinaryOp::Min)
    )
}

/// Runs the fused scatter `s` of kernel `k` on the inputs `ins` (the run's arguments
/// `args`): the operand's values with every update combined in.
///
/// # Errors
/// If the dimension numbers do not fit the operands, an operand is not of the kernel's
/// type, memory for the result cannot be had, or the run must stop.
pub(crate) fn run<L: Lane>(
    k: &Kernel,
    s: &Spec,
    ins: &[In<L>],
    args: &[&Literal],
) -> Result<Vec<L>> {
    let internal = CpuError::Internal;
    let (Some(operand), Some(indices)) = (args.get(s.operand), args.get(s.indices)) else {
        return Err(internal(
            "a fused scatter's operands are inputs (fusion plan)",
        ));
    };
    let (_, odims) = crate::index::array(operand)?;
    let targets = scatter_targets(&odims, indices, &s.updates, &s.dims)?;
    let src = operand.data::<L>().ok_or(internal(
        "a fused scatter's operand is of the kernel's type",
    ))?;
    let mut out = crate::limits::alloc::try_with_capacity(src.len(), "scatter")?;
    out.extend_from_slice(src);
    let (n, step) = (targets.n.max(1), targets.step);
    if targets.len() != k.n {
        return Err(internal("a fused scatter's kernel covers its updates"));
    }
    let per = (ROUND / n).max(1);
    let mut poll = Poll::new(k.n);
    if let ([super::Node::Load(super::Load::Gather(_))], Some(In::Rows(rows))) = (
        k.nodes.as_slice(),
        ins.get(k.gathers.first().map_or(usize::MAX, |g| g.input)),
    ) {
        if rows.len == n {
            // The updates are a gather's rows (a fill row where its select rejected
            // one): combined straight from its operand.
            for (c, dst) in targets.bases.chunks(per).enumerate() {
                poll.tick(dst.len() * n)?;
                combine(
                    &mut out,
                    Updates::Gathered(*rows, c * per),
                    dst,
                    (n, step),
                    s.op,
                )?;
            }
            return Ok(out);
        }
    }
    let mut buf = vec![L::zero(); per * n];
    let mut scratch: Scratch<L> = k.scratch(ins);
    // Generated code runs a whole round per call (each staged load made once per round,
    // not once per block).
    #[cfg(target_arch = "x86_64")]
    let mut code = match (k.jit.as_deref(), super::rows_run::as_f32(ins)) {
        (Some(c), Some(f)) => Some((c, super::loose::Loose::new(c), f)),
        _ => None,
    };
    for (c, bases) in targets.bases.chunks(per).enumerate() {
        poll.tick(bases.len() * n)?;
        let start = c * per * n;
        let vals = &mut buf[..bases.len() * n];
        let mut done = 0;
        #[cfg(target_arch = "x86_64")]
        if let Some((c, loose, f)) = code.as_mut() {
            let main = vals.len() / 16 * 16;
            let out = vals.get_mut(..main).and_then(L::as_f32_mut);
            if out.is_some_and(|o| main > 0 && loose.eval_into(c, f, k.n, start, o)) {
                done = main;
            }
        }
        while done < vals.len() {
            let v = k.next_block(ins, start + done, vals.len() - done, &mut scratch);
            vals[done..done + v.len()].copy_from_slice(v);
            done += v.len();
        }
        combine(&mut out, Updates::Packed(vals), bases, (n, step), s.op)?;
    }
    Ok(out)
}

/// A round's update rows: packed in a buffer, or a gather's rows from the given one on.
enum Updates<'a, L> {
    Packed(&'a [L]),
    Gathered(super::gather::GatherRows<'a, L>, usize),
}

// Derived `Clone`/`Copy` would demand `L: Copy` needlessly.
impl<L> Clone for Updates<'_, L> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<L> Copy for Updates<'_, L> {}

simd_dispatch! {
    fn combine<L>(v: &mut [L], u: Updates<'_, L>, bases: &[Option<usize>], rows: (usize, usize), op: Option<BinaryOp>) -> Result<()> => combine_impl;
}

/// `v[t] = op(v[t], u)` row by row: row `r` of the updates (of `n` values) into the
/// targets from `bases[r]` (skipped when `None`) advancing by `step`, built for the widest
/// vectors the CPU has. Values are the unfused scatter's; where a NaN meets a NaN, which
/// one's sign and payload survive is the build's choice (LLVM may swap the operands of
/// `a * b`).
#[inline(always)]
fn combine_impl<L: Lane>(
    v: &mut [L],
    u: Updates<'_, L>,
    bases: &[Option<usize>],
    rows: (usize, usize),
    op: Option<BinaryOp>,
) -> Result<()> {
    match op {
        None => combine_rows(v, u, bases, rows, |_, b| b),
        Some(BinaryOp::Add) => combine_rows(v, u, bases, rows, |a, b| a + b),
        Some(BinaryOp::Mul) => combine_rows(v, u, bases, rows, |a, b| a * b),
        Some(BinaryOp::Max) => combine_rows(v, u, bases, rows, fmax),
        Some(BinaryOp::Min) => combine_rows(v, u, bases, rows, fmin),
        Some(_) => {
            return Err(CpuError::Internal(
                "a fused scatter's combiner is native (plan)",
            ))
        }
    }
    Ok(())
}

/// [`combine_row`] for every row with a target (a gathered row lies inside its operand,
/// checked as its offsets were made: `gather::table`).
#[inline(always)]
fn combine_rows<L: Copy>(
    v: &mut [L],
    u: Updates<'_, L>,
    bases: &[Option<usize>],
    (n, step): (usize, usize),
    f: impl Fn(L, L) -> L,
) {
    for (r, base) in bases.iter().enumerate() {
        let row = match u {
            Updates::Packed(vals) => vals.get(r * n..(r + 1) * n),
            Updates::Gathered(rows, first) => rows.row(first + r),
        };
        if let (Some(b), Some(row)) = (*base, row) {
            combine_row(v, b, row, step, &f);
        }
    }
}
