//! `while`: executor logic rather than a kernel, since it runs its computations in the
//! executor's own modes (fused or reference), as native code when the loop was compiled to
//! it, and polls the run's stop between iterations.

use crate::error::{operand_kind, CpuError, Result};
use crate::exec::Ctx;
use std::borrow::Cow;
use xla_core::ir::CompId;
use xla_core::Literal;

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
