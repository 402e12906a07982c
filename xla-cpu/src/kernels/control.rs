//! Control flow: map, conditional, while.

use super::structural::vector;
use crate::error::{
    internal, operand_count, operand_kind, operand_shapes, result_shape, CpuError, Result,
};
use crate::exec::Ctx;
use crate::index::{data, dims_of, make, scalar_at, scalar_i64, set_scalar};
use std::borrow::Cow;
use xla_core::ir::CompId;
use xla_core::literal::ArrayData;
use xla_core::{Literal, Shape};

/// `map`: applies `f` to the elements at each index of the operands.
///
/// # Errors
/// If the operands differ in length or `f` fails.
pub fn map(cx: &Ctx, xs: &[&Literal], f: CompId, out: &Shape) -> Result<Literal> {
    let n: usize = dims_of(out)?.iter().product();
    let ds = xs.iter().map(|x| data(x)).collect::<Result<Vec<_>>>()?;
    if ds.iter().any(|d| d.len() != n) {
        return Err(operand_shapes(
            "map",
            xs.iter().map(|x| x.shape()).chain([out]),
            "must all have the result's element count",
        ));
    }
    if cx.vectorizable(f) {
        let args = ds
            .iter()
            .map(|d| vector((*d).clone()))
            .collect::<Result<_>>()?;
        let r = cx.call_vec(f, args, n)?;
        return make(out, crate::index::data(&r)?.clone());
    }
    let mut o = ArrayData::zeros(out.element_type(), n)
        .ok_or_else(|| result_shape("map", "an array", out))?;
    for i in 0..n {
        let args = ds.iter().map(|d| scalar_at(d, i)).collect::<Result<_>>()?;
        let r = cx.call(f, args)?;
        set_scalar(&mut o, i, &r)?;
    }
    make(out, o)
}

/// `conditional`: a PRED selector picks branch 0 (true) or 1 (false); an integer selector
/// picks its branch, any out-of-range value (negative too) the last one.
///
/// # Errors
/// If the selector is not PRED or an integer scalar, or the branch fails.
pub fn conditional(cx: &Ctx, a: &[&Literal], branches: &[CompId]) -> Result<Literal> {
    let sel = a
        .first()
        .ok_or_else(|| operand_count("conditional", "a selector and one operand per branch", 0))?;
    let last = branches
        .len()
        .checked_sub(1)
        .ok_or_else(|| internal("a conditional has branches (verified)"))?;
    let b = if let Some([p]) = sel.data::<bool>() {
        if *p {
            0
        } else {
            1
        }
    } else {
        let i = scalar_i64(sel)?;
        usize::try_from(i)
            .ok()
            .filter(|&i| i < last)
            .unwrap_or(last)
    };
    let branch = *branches
        .get(b)
        .ok_or_else(|| internal("the branch picked is at most the last"))?;
    let operand = a.get(b + 1).ok_or_else(|| {
        operand_count(
            "conditional",
            "a selector and one operand per branch",
            a.len(),
        )
    })?;
    cx.call(branch, vec![(*operand).clone()])
}

/// `while`: runs `body` on the state while `cond` returns true: as native code when the
/// loop was compiled to it (see `native/`; never on the reference path), else interpreted.
/// The condition reads the state in place; the body owns it, so buffers it passes through
/// or updates in place are never copied (a borrowed initial state is copied once).
///
/// # Errors
/// If the condition does not return a PRED scalar, or a computation fails.
pub fn while_loop(cx: &Ctx, init: Cow<'_, Literal>, cond: CompId, body: CompId) -> Result<Literal> {
    if !cx.reference {
        if let Some(r) = cx.exe.run_native(cond, body, &init, cx.stop) {
            return r;
        }
    }
    let mut state = init.into_owned();
    let mut trips = 0u64;
    // A stop inside the loop names the iterations completed.
    let stopped = |trips: u64| {
        move |e: CpuError| {
            if e.is_stop() {
                CpuError::LoopStopped {
                    trips,
                    source: Box::new(e),
                }
            } else {
                e
            }
        }
    };
    loop {
        cx.stop.check().map_err(stopped(trips))?;
        let c = cx
            .run_cow(cond, vec![Cow::Borrowed(&state)], cx.mode())
            .map_err(stopped(trips))?;
        match c.data::<bool>() {
            Some([true]) => {
                state = cx
                    .run_cow(body, vec![Cow::Owned(state)], cx.mode())
                    .map_err(stopped(trips))?;
                trips += 1;
            }
            Some([false]) => return Ok(state),
            _ => {
                return Err(operand_kind(
                    "while",
                    "a condition that returns pred[]",
                    c.shape(),
                ))
            }
        }
    }
}
