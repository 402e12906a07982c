//! Kernels' own scratch buffers in the memory budget: a convolution's im2col columns, a
//! sort's permutation, LAPACK workspaces.
//!
//! [`super::budget`] admits each instruction's result before its kernel runs; the kernel
//! may then allocate scratch the buffer plan cannot see. When [`Budget::admit`] grants a
//! result it records, for the thread about to run the kernel, what is held and the limit
//! (the *headroom*); a kernel asks [`admit`] (or allocates through [`filled`]) before a
//! large scratch allocation, which checks the scratch against that headroom and asks the
//! allocator fallibly when large. Scratch is counted until the next instruction is
//! admitted (kernels free theirs when they return), so a kernel's scratch allocations add
//! up. Worker threads of a parallel kernel have no headroom of their own: their buffers
//! are allocated fallibly only, which is why kernels admit a whole parallel step's scratch
//! on the calling thread first.
//!
//! [`Budget::admit`]: super::budget::Budget::admit

use super::MemoryLimit;
use crate::error::{CpuError, Result};
use std::cell::Cell;

/// The memory limit and the bytes held (live values, the running instruction's result and
/// the scratch admitted so far) for the instruction running on this thread.
#[derive(Clone, Copy, Debug)]
struct Headroom {
    limit: MemoryLimit,
    held: u64,
}

thread_local! {
    static HEADROOM: Cell<Option<Headroom>> = const { Cell::new(None) };
}

/// Starts the scratch count of the instruction about to run on this thread: `held` bytes
/// under `limit` (`None`: no limit; only the allocator's refusals are caught).
pub(crate) fn enter(limit: Option<MemoryLimit>, held: u64) {
    HEADROOM.with(|h| h.set(limit.map(|limit| Headroom { limit, held })));
}

/// Admits `bytes` of scratch for `what` (an op and its buffer): within the limit with what
/// is held, and granted by the allocator when large.
///
/// # Errors
/// [`CpuError::ScratchOverBudget`] over the limit, [`CpuError::Allocation`] when the
/// allocator refuses.
pub(crate) fn admit(what: &'static str, bytes: u64) -> Result<()> {
    HEADROOM.with(|h| {
        let Some(mut r) = h.get() else {
            return Ok(());
        };
        let held = r.held;
        if held.saturating_add(bytes) > r.limit.bytes {
            return Err(CpuError::ScratchOverBudget {
                what,
                bytes,
                held,
                limit: r.limit,
            });
        }
        r.held = held.saturating_add(bytes);
        h.set(Some(r));
        Ok(())
    })?;
    super::budget::probe_large(what, bytes)
}

/// Whether `bytes` of scratch fit (admitting them when they do): for kernels that have a
/// path without the buffer and take it instead of failing.
pub(crate) fn fits(what: &'static str, bytes: u64) -> bool {
    admit(what, bytes).is_ok()
}

/// `n` copies of `x` as admitted scratch of `what`.
///
/// # Errors
/// As [`admit`]; [`CpuError::Allocation`] when the allocator refuses.
// Not used by a kernel yet (sort and the convolution admit sizes, then allocate).
#[cfg_attr(not(test), allow(dead_code))]
pub(crate) fn filled<T: Copy>(n: usize, x: T, what: &'static str) -> Result<Vec<T>> {
    admit(what, bytes_of::<T>(n))?;
    super::alloc::try_filled(n, x, what)
}

/// Bytes of `n` elements of `T`.
pub(crate) fn bytes_of<T>(n: usize) -> u64 {
    (n as u64).saturating_mul(std::mem::size_of::<T>() as u64)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::limits::LimitSource;

    #[test]
    fn scratch_adds_up_against_the_headroom() {
        let limit = MemoryLimit {
            bytes: 1000,
            source: LimitSource::Explicit,
        };
        enter(Some(limit), 600);
        assert!(admit("sort (permutation)", 300).is_ok());
        let e = admit("sort (permutation)", 101).unwrap_err();
        assert!(
            matches!(
                e,
                CpuError::ScratchOverBudget {
                    what: "sort (permutation)",
                    bytes: 101,
                    held: 900,
                    ..
                }
            ),
            "{e}"
        );
        assert!(!fits("convolution (im2col columns)", 101));
        assert!(fits("convolution (im2col columns)", 100));
        enter(None, 0);
        assert_eq!(filled(3, 1u8, "t").unwrap(), [1, 1, 1]);
    }
}
