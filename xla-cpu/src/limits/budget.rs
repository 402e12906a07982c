//! The run-time side of the memory check: every value an instruction is about to
//! allocate is admitted first, against the memory limit (with what is live) and, when
//! large, against the allocator itself.
//!
//! The static check ([`super::peak`]) refuses a module whose buffer plan is over the limit
//! before anything runs; this catches what the plan cannot foresee (computations run
//! vectorised on `n` argument sets by `map`, `sort`, `scatter` and `reduce-window`, a
//! custom call's result, the reference path's schedule), and turns an allocation the
//! allocator would refuse into [`CpuError::Allocation`] instead of an abort of the process.
//! All of it happens in one place, before each step of [`crate::exec::Ctx::run_cow`] runs
//! its kernel, so no kernel needs a fallible allocation of its own for its result.

use super::bytes::shape_bytes;
use super::MemoryLimit;
use crate::error::{CpuError, Result};
use std::cell::Cell;
use xla_core::Literal;

/// Results at least this large are asked of the allocator (fallibly) before their kernel
/// allocates them: below it a refused allocation cannot happen on a 64-bit host with
/// memory to run at all, and the probe would cost a `malloc` per instruction.
const PROBE_MIN: u64 = 16 << 20;

/// The memory limit of one execution and the bytes of the values it holds now.
#[derive(Debug, Default)]
pub(crate) struct Budget {
    limit: Option<MemoryLimit>,
    live: Cell<u64>,
}

impl Budget {
    /// A budget with `limit` (`None`: only the allocator's refusals are caught) and
    /// `live` bytes held from the start (the entry's arguments).
    pub(crate) fn new(limit: Option<MemoryLimit>, live: u64) -> Budget {
        Budget {
            limit,
            live: Cell::new(live),
        }
    }

    /// Bytes held now.
    #[cfg(test)]
    pub(crate) fn live(&self) -> u64 {
        self.live.get()
    }

    /// Checks that `what` (an op) may allocate a result of `bytes`: with what is live it
    /// stays within the limit, and the allocator grants that much now.
    ///
    /// # Errors
    /// [`CpuError::OverBudget`] over the limit, [`CpuError::Allocation`] when the
    /// allocator refuses.
    pub(crate) fn admit(&self, what: &'static str, bytes: u64) -> Result<()> {
        let live = self.live.get();
        if let Some(limit) = self.limit {
            if live.saturating_add(bytes) > limit.bytes {
                return Err(CpuError::OverBudget {
                    what,
                    bytes,
                    live,
                    limit,
                });
            }
        }
        probe_large(what, bytes)?;
        super::scratch::enter(self.limit, live.saturating_add(bytes));
        Ok(())
    }

    /// A ledger of the values of one computation run, returning what it holds to this
    /// budget when dropped (on success and on error alike).
    pub(crate) fn ledger(&self, slots: usize) -> Ledger<'_> {
        Ledger {
            budget: self,
            held: vec![0; slots],
        }
    }
}

/// [`probe`] when `bytes` is large enough for the allocator to refuse.
pub(crate) fn probe_large(what: &'static str, bytes: u64) -> Result<()> {
    if bytes >= PROBE_MIN {
        probe(what, bytes)?;
    }
    Ok(())
}

/// Asks the allocator for `bytes` and gives them back at once.
fn probe(what: &'static str, bytes: u64) -> Result<()> {
    let refused = || CpuError::Allocation { what, bytes };
    let n = usize::try_from(bytes).map_err(|_| refused())?;
    let mut v: Vec<u8> = Vec::new();
    v.try_reserve_exact(n).map_err(|_| refused())
}

/// The bytes each value slot of a running computation holds, counted in its [`Budget`].
pub(crate) struct Ledger<'b> {
    budget: &'b Budget,
    held: Vec<u64>,
}

impl Ledger<'_> {
    /// Slot `i` now holds `v` (`owned`: a buffer of this run; borrowed values, parameters
    /// and constants are held elsewhere and count nothing).
    pub(crate) fn set(&mut self, i: usize, v: &Literal, owned: bool) {
        let b = if owned { shape_bytes(v.shape()) } else { 0 };
        self.free(i);
        if let Some(h) = self.held.get_mut(i) {
            *h = b;
            self.budget
                .live
                .set(self.budget.live.get().saturating_add(b));
        }
    }

    /// Slot `i` was freed (or handed on).
    pub(crate) fn free(&mut self, i: usize) {
        if let Some(h) = self.held.get_mut(i) {
            let b = std::mem::take(h);
            self.budget
                .live
                .set(self.budget.live.get().saturating_sub(b));
        }
    }
}

impl Drop for Budget {
    /// The execution is over: its kernels' scratch is no longer counted on this thread.
    fn drop(&mut self) {
        super::scratch::enter(None, 0);
    }
}

impl Drop for Ledger<'_> {
    fn drop(&mut self) {
        let total = self.held.iter().fold(0u64, |a, &b| a.saturating_add(b));
        self.budget
            .live
            .set(self.budget.live.get().saturating_sub(total));
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::limits::LimitSource;

    fn limit(bytes: u64) -> Option<MemoryLimit> {
        Some(MemoryLimit {
            bytes,
            source: LimitSource::Explicit,
        })
    }

    #[test]
    fn admission_counts_what_is_live() {
        let b = Budget::new(limit(100), 40);
        assert!(b.admit("add", 60).is_ok());
        let e = b.admit("add", 61).unwrap_err();
        assert!(
            matches!(
                e,
                CpuError::OverBudget {
                    what: "add",
                    bytes: 61,
                    live: 40,
                    ..
                }
            ),
            "{e}"
        );
    }

    #[test]
    fn a_ledger_returns_what_it_holds() {
        let b = Budget::new(None, 8);
        {
            let mut l = b.ledger(3);
            l.set(0, &Literal::vec1(&[1f32; 4]), true);
            l.set(1, &Literal::vec1(&[1f64; 2]), true);
            l.set(2, &Literal::vec1(&[1f64; 2]), false);
            assert_eq!(b.live(), 8 + 16 + 16);
            l.free(0);
            assert_eq!(b.live(), 8 + 16);
        }
        assert_eq!(b.live(), 8);
    }

    #[test]
    fn the_allocator_refusing_is_an_error() {
        let b = Budget::new(None, 0);
        let e = b.admit("broadcast", u64::MAX / 2).unwrap_err();
        assert!(
            matches!(
                e,
                CpuError::Allocation {
                    what: "broadcast",
                    ..
                }
            ),
            "{e}"
        );
        assert!(b.admit("broadcast", PROBE_MIN).is_ok());
    }
}
