//! Each device's share of the cores: a run on `R` devices gives every device `T / R` of the
//! executable's `T` kernel threads (at least one), instead of letting every device's kernels
//! use all `T`.
//!
//! Without shares, the `R` device threads of a replicated run all fork their kernels into the
//! executable's one pool of `T` threads (and share its partner thread): on 2 cores, 2 devices
//! meant 2 device threads plus 2 pool threads competing for 2 cores, and a hand-off to the
//! pool and back for every large kernel. With shares, at `R = T` every device runs its kernels
//! on its own thread (no pool, no partner), and at `R < T` every device has a pool of its own
//! (`T / R` threads), so the `R` devices together use the `T` threads the executable was
//! given. Results do not change: kernels never split a summation over threads.
//!
//! The share is a property of the device thread, set for the span of one device's run by
//! [`enter`] (a guard) and read by the executor when it hands kernels their parallelism
//! ([`current_share`](crate::parallel::current_share), kept in `parallel.rs`); threads
//! outside a replicated run see `None` and use the executable's setting.

use crate::parallel::{replace_share, Threads};
use std::collections::HashMap;
use std::sync::{Mutex, OnceLock, PoisonError};

/// The number of kernel threads each of `devices` devices gets out of `threads`.
pub fn per_device(threads: usize, devices: usize) -> usize {
    (threads / devices.max(1)).max(1)
}

/// Restores the thread's previous share when dropped.
pub(crate) struct Entered {
    previous: Option<&'static Threads>,
}

impl Drop for Entered {
    fn drop(&mut self) {
        replace_share(self.previous);
    }
}

/// Makes this thread device `device` with `threads` kernel threads until the guard drops.
pub(crate) fn enter(device: usize, threads: usize) -> Entered {
    let share = slot(device, threads.max(1));
    Entered {
        previous: replace_share(Some(share)),
    }
}

/// The kernel threads of device `device` at `threads` threads: one setting (and, above one
/// thread, one lazily built pool) per device and count, kept for the process, so a device's
/// pool is reused by every run and two devices never share one. The set is bounded by the
/// device counts and thread counts a process uses.
fn slot(device: usize, threads: usize) -> &'static Threads {
    static SLOTS: OnceLock<Mutex<HashMap<(usize, usize), &'static Threads>>> = OnceLock::new();
    let slots = SLOTS.get_or_init(|| Mutex::new(HashMap::new()));
    // Nothing panics while the lock is held; a poisoned map is still a valid map.
    let mut map = slots.lock().unwrap_or_else(PoisonError::into_inner);
    *map.entry((device, threads))
        .or_insert_with(|| Box::leak(Box::new(Threads::new(threads))))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parallel::current_share as current;

    #[test]
    fn shares_split_the_threads() {
        assert_eq!(per_device(2, 2), 1);
        assert_eq!(per_device(2, 4), 1);
        assert_eq!(per_device(8, 2), 4);
        assert_eq!(per_device(8, 3), 2);
        assert_eq!(per_device(1, 0), 1);
    }

    #[test]
    fn a_share_lasts_for_its_guard_and_is_per_device() {
        assert!(current().is_none());
        {
            let _g = enter(0, 1);
            let a = current().map(|t| t as *const Threads);
            assert_eq!(current().map(|t| t.parallel().threads()), Some(1));
            {
                let _h = enter(1, 3);
                assert_eq!(current().map(|t| t.parallel().threads()), Some(3));
                assert_ne!(current().map(|t| t as *const Threads), a);
            }
            assert_eq!(current().map(|t| t as *const Threads), a);
        }
        assert!(current().is_none());
        // The same device and count get the same setting (its pool is reused).
        let first = enter(5, 2);
        let p = current().map(|t| t as *const Threads);
        drop(first);
        let _again = enter(5, 2);
        assert_eq!(current().map(|t| t as *const Threads), p);
    }
}
