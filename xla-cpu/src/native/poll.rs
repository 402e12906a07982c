//! Stopping native loops: the generated code counts its iterations and, every
//! [`EVERY`] of them, calls the host function `xla_native_poll`, which checks the stop
//! conditions (cancel token, deadline) of the execution running on this thread. When it
//! says stop, the code returns 1 and [`take_stop`] tells why and after how many
//! iterations. A call costs a thread-local read and, with a deadline, a clock read: one
//! per [`EVERY`] iterations is not measurable.

use super::emit::Em;
use crate::limits::stop::Stop;
use crate::limits::StopReason;
use cranelift_codegen::ir::{types, Block, InstBuilder};
use cranelift_frontend::Variable;
use std::cell::Cell;

/// Iterations between polls (a power of two).
const EVERY: i64 = 1 << 10;

thread_local! {
    /// The stop conditions of the execution running a native loop on this thread.
    static CURRENT: Cell<*const Stop> = const { Cell::new(std::ptr::null()) };
    /// Why the last native loop on this thread stopped, and its completed iterations.
    static STOPPED: Cell<Option<(StopReason, u64)>> = const { Cell::new(None) };
}

/// Called by the generated code with its iteration count: 1 to stop, 0 to go on.
pub(crate) extern "C" fn xla_native_poll(trips: i64) -> i64 {
    let stop = CURRENT.with(Cell::get);
    if stop.is_null() {
        return 0;
    }
    // SAFETY: `CURRENT` is non-null only inside `with_stop`, whose `stop` reference
    // outlives the call that runs the generated code (and so this poll).
    match unsafe { &*stop }.reason() {
        Some(reason) => {
            STOPPED.with(|s| s.set(Some((reason, trips.max(0) as u64))));
            1
        }
        None => 0,
    }
}

/// Runs `f` (which runs a native loop) with `stop` as this thread's stop conditions.
pub(crate) fn with_stop<R>(stop: &Stop, f: impl FnOnce() -> R) -> R {
    struct Restore(*const Stop);
    impl Drop for Restore {
        fn drop(&mut self) {
            CURRENT.with(|c| c.set(self.0));
        }
    }
    let _restore = Restore(CURRENT.with(|c| c.replace(stop as *const Stop)));
    f()
}

/// Why the native loop that just returned 1 stopped, and its completed iterations.
pub(crate) fn take_stop() -> Option<(StopReason, u64)> {
    STOPPED.with(Cell::take)
}

/// Declares the iteration counter (in the entry block, before the loop).
pub(crate) fn counter(em: &mut Em<'_, '_>) -> Variable {
    let trips = em.b.declare_var(types::I64);
    let zero = em.b.ins().iconst(types::I64, 0);
    em.b.def_var(trips, zero);
    trips
}

/// The loop's back edge: counts the iteration, polls every [`EVERY`] iterations, and
/// jumps to `head` or returns 1 (stopped).
pub(crate) fn back_edge(em: &mut Em<'_, '_>, trips: Variable, head: Block) -> Option<()> {
    let t = em.b.use_var(trips);
    let t = em.b.ins().iadd_imm_s(t, 1);
    em.b.def_var(trips, t);
    let (poll, stop) = (em.b.create_block(), em.b.create_block());
    let due = em.b.ins().band_imm_s(t, EVERY - 1);
    em.b.ins().brif(due, head, &[], poll, &[]);
    em.switch(poll);
    let f = em.func("xla_native_poll", types::I64, 1)?;
    let call = em.b.ins().call(f, &[t]);
    let r = *em.b.inst_results(call).first()?;
    em.b.ins().brif(r, stop, &[], head, &[]);
    em.switch(stop);
    em.ret(1);
    Some(())
}
