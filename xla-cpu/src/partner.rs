//! A partner thread for work too small for the pool: one job shared by the calling thread
//! and a second thread that spins for a while after each job instead of going to sleep.
//!
//! Written here rather than taken from rayon because of a measurement: a GRU language-model
//! step runs 64 loop iterations, each with several groups of independent 5–15 µs products
//! (`concurrent.rs`). Run through rayon's pool those groups cost ~300 context switches per
//! step (the idle worker falls asleep between groups and must be woken) and gained nothing
//! (17.4 ms → 17.6 ms, 1.0 → 1.5 CPUs busy). Here the partner spins between jobs, and the
//! caller never waits for a partner that has not started: it takes the job back and runs
//! it alone (`Partner::run`), so a sleeping partner costs nothing but its wake-up, which
//! happens off the caller's path.

use std::cell::UnsafeCell;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicU8, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::{JoinHandle, Thread};
use std::time::{Duration, Instant};

/// How long the partner spins for a next job before it parks.
const SPIN: Duration = Duration::from_micros(200);

const IDLE: u8 = 0;
const POSTED: u8 = 1;
const RUNNING: u8 = 2;
const CLAIMED: u8 = 3;

struct Shared {
    state: AtomicU8,
    /// The posted job, as a pointer (see the soundness comment in `run`).
    job: UnsafeCell<Option<*const (dyn Fn() + Sync + 'static)>>,
    parked: AtomicBool,
    /// Set when the pool starts a parallel kernel: the partner parks at once instead of
    /// spinning on a core the pool's threads need.
    hushed: AtomicBool,
    panicked: AtomicBool,
    shutdown: AtomicBool,
}

// SAFETY: `job` is written only by the caller that moved `state` from IDLE to CLAIMED
// (no partner reads it then, no other caller writes it), and read only by the partner
// after it moved `state` from POSTED to RUNNING, which orders the read after the write
// (SeqCst store of POSTED, AcqRel compare-exchange). The pointer is dereferenced only
// while the caller keeps the job alive (see `Partner::run`).
unsafe impl Sync for Shared {}
// SAFETY: as for `Sync`: the pointer is only a hand-off of a `Sync` job between threads.
unsafe impl Send for Shared {}

/// The partner thread of an executable.
pub(crate) struct Partner {
    shared: Arc<Shared>,
    thread: Thread,
    handle: Option<JoinHandle<()>>,
}

impl std::fmt::Debug for Partner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Partner")
    }
}

impl Partner {
    /// Starts the partner thread (`None` if the OS refuses a thread).
    pub(crate) fn start() -> Option<Partner> {
        let shared = Arc::new(Shared {
            state: AtomicU8::new(IDLE),
            job: UnsafeCell::new(None),
            parked: AtomicBool::new(false),
            hushed: AtomicBool::new(false),
            panicked: AtomicBool::new(false),
            shutdown: AtomicBool::new(false),
        });
        let s = Arc::clone(&shared);
        let handle = std::thread::Builder::new()
            .name("xla-cpu-partner".into())
            .spawn(move || serve(&s))
            .ok()?;
        Some(Partner {
            shared,
            thread: handle.thread().clone(),
            handle: Some(handle),
        })
    }

    /// Calls `job` on this thread and, if it is free soon enough, on the partner thread
    /// too; returns when both calls have returned. False if either call panicked.
    pub(crate) fn run(&self, job: &(dyn Fn() + Sync)) -> bool {
        let sh = &*self.shared;
        if sh
            .state
            .compare_exchange(IDLE, CLAIMED, Ordering::AcqRel, Ordering::Acquire)
            .is_err()
        {
            // Only one caller at a time (an executable run from several threads at once):
            // the others run alone.
            return catch_unwind(AssertUnwindSafe(job)).is_ok();
        }
        // The lifetime is erased so the partner can hold the pointer. The partner
        // dereferences it only between its POSTED -> RUNNING exchange and its store of
        // IDLE, and this function does not return (or unwind: both calls are caught)
        // before the job is either taken back (POSTED -> IDLE here, after which the
        // partner's exchange fails) or finished (IDLE stored by the partner after its
        // call). So every use happens while `job` is alive.
        let ptr: *const (dyn Fn() + Sync + '_) = job;
        // SAFETY: only the lifetime bound of the pointee changes (same layout); see above
        // for why the pointer is never used after `job` is gone.
        let ptr: *const (dyn Fn() + Sync + 'static) = unsafe { std::mem::transmute(ptr) };
        // SAFETY: state is CLAIMED by this call, so nobody else reads or writes `job` now
        // (see `Shared`).
        unsafe { *sh.job.get() = Some(ptr) };
        sh.panicked.store(false, Ordering::Relaxed);
        sh.hushed.store(false, Ordering::Relaxed);
        sh.state.store(POSTED, Ordering::SeqCst);
        if sh.parked.load(Ordering::SeqCst) {
            self.thread.unpark();
        }
        let mine = catch_unwind(AssertUnwindSafe(job)).is_ok();
        // Take the job back if the partner has not started it; else wait for it.
        if sh
            .state
            .compare_exchange(POSTED, IDLE, Ordering::AcqRel, Ordering::Acquire)
            .is_err()
        {
            while sh.state.load(Ordering::Acquire) != IDLE {
                std::hint::spin_loop();
            }
        }
        mine && !sh.panicked.load(Ordering::Acquire)
    }

    /// `f(state, t)` for every task `t < tasks`, shared by this thread and the partner:
    /// each takes the next task until none is left, with a `state` made by `init` before
    /// its first. False if `f` panicked on either thread (tasks may then be left undone).
    pub(crate) fn each<S>(
        &self,
        tasks: usize,
        init: impl Fn() -> S + Sync,
        f: impl Fn(&mut S, usize) + Sync,
    ) -> bool {
        let next = AtomicUsize::new(0);
        let job = || {
            let mut state = None;
            loop {
                let t = next.fetch_add(1, Ordering::Relaxed);
                if t >= tasks {
                    return;
                }
                f(state.get_or_insert_with(&init), t);
            }
        };
        self.run(&job)
    }

    /// `f(state, item)` for every item, shared by this thread and the partner as
    /// [`Partner::each`] shares tasks. False if `f` panicked on either thread; items then
    /// left undone are dropped before this returns.
    pub(crate) fn each_item<S, T: Send>(
        &self,
        items: Vec<T>,
        init: impl Fn() -> S + Sync,
        f: impl Fn(&mut S, T) + Sync,
    ) -> bool {
        let slots: Vec<Mutex<Option<T>>> = items.into_iter().map(|i| Mutex::new(Some(i))).collect();
        self.each(slots.len(), init, |state, t| {
            let item = slots
                .get(t)
                .and_then(|s| s.lock().unwrap_or_else(PoisonError::into_inner).take());
            if let Some(item) = item {
                f(state, item);
            }
        })
    }

    /// [`Partner::each`] keeping what each task gives, in task order (what a task gives
    /// does not depend on which thread ran it). `None` if `f` panicked on either thread.
    pub(crate) fn map<S, R: Send>(
        &self,
        tasks: usize,
        init: impl Fn() -> S + Sync,
        f: impl Fn(&mut S, usize) -> R + Sync,
    ) -> Option<Vec<R>> {
        let slots: Vec<Mutex<Option<R>>> = (0..tasks).map(|_| Mutex::new(None)).collect();
        let finished = self.each(tasks, init, |s, t| {
            if let Some(slot) = slots.get(t) {
                *slot.lock().unwrap_or_else(PoisonError::into_inner) = Some(f(s, t));
            }
        });
        if !finished {
            return None;
        }
        slots
            .into_iter()
            .map(|m| m.into_inner().unwrap_or_else(PoisonError::into_inner))
            .collect()
    }

    /// Tells the partner to stop spinning (it parks until the next job): the pool is about
    /// to run a kernel on every core.
    pub(crate) fn hush(&self) {
        self.shared.hushed.store(true, Ordering::Relaxed);
    }
}

impl Drop for Partner {
    fn drop(&mut self) {
        self.shared.shutdown.store(true, Ordering::SeqCst);
        self.thread.unpark();
        if let Some(h) = self.handle.take() {
            let _ = h.join();
        }
    }
}

/// The partner's loop: run posted jobs, spin [`SPIN`] for the next, then park.
fn serve(sh: &Shared) {
    crate::denormals::flush_this_thread();
    let mut last = Instant::now();
    loop {
        if sh.shutdown.load(Ordering::Acquire) {
            return;
        }
        if sh
            .state
            .compare_exchange(POSTED, RUNNING, Ordering::AcqRel, Ordering::Acquire)
            .is_ok()
        {
            // SAFETY: RUNNING was reached from POSTED, so the caller wrote the pointer
            // before posting, and it waits for IDLE before its job goes away.
            if let Some(ptr) = unsafe { *sh.job.get() } {
                // SAFETY: the job is alive until IDLE is stored below (see `Partner::run`).
                let job = unsafe { &*ptr };
                if catch_unwind(AssertUnwindSafe(job)).is_err() {
                    sh.panicked.store(true, Ordering::Release);
                }
            }
            sh.state.store(IDLE, Ordering::Release);
            last = Instant::now();
            continue;
        }
        if last.elapsed() < SPIN && !sh.hushed.load(Ordering::Relaxed) {
            std::hint::spin_loop();
            continue;
        }
        sh.parked.store(true, Ordering::SeqCst);
        if sh.state.load(Ordering::SeqCst) != POSTED && !sh.shutdown.load(Ordering::SeqCst) {
            std::thread::park();
        }
        sh.parked.store(false, Ordering::SeqCst);
        last = Instant::now();
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
    use super::*;
    use std::sync::atomic::AtomicUsize;

    /// Both threads share out items through a counter: every item is done exactly once,
    /// over many rounds (the partner spinning, parked and woken in between).
    #[test]
    fn every_item_runs_once() {
        let p = Partner::start().unwrap();
        for round in 0..2000 {
            let n = 1 + round % 7;
            let next = AtomicUsize::new(0);
            let done: Vec<AtomicUsize> = (0..n).map(|_| AtomicUsize::new(0)).collect();
            let job = || loop {
                let k = next.fetch_add(1, Ordering::Relaxed);
                let Some(d) = done.get(k) else { return };
                d.fetch_add(1, Ordering::Relaxed);
            };
            assert!(p.run(&job));
            assert!(
                done.iter().all(|d| d.load(Ordering::Relaxed) == 1),
                "round {round}"
            );
            if round % 500 == 0 {
                std::thread::sleep(SPIN * 3); // let the partner park
            }
        }
    }

    /// Callers on several threads at once: one shares with the partner, the others run
    /// alone; every job still completes.
    #[test]
    fn concurrent_callers_each_finish() {
        let p = Partner::start().unwrap();
        let total = AtomicUsize::new(0);
        std::thread::scope(|s| {
            for _ in 0..4 {
                s.spawn(|| {
                    for _ in 0..500 {
                        let next = AtomicUsize::new(0);
                        let job = || {
                            while next.fetch_add(1, Ordering::Relaxed) < 3 {
                                total.fetch_add(1, Ordering::Relaxed);
                            }
                        };
                        assert!(p.run(&job));
                    }
                });
            }
        });
        assert_eq!(total.load(Ordering::Relaxed), 4 * 500 * 3);
    }

    /// `map` gives every task's value in task order, whichever thread ran it, over rounds
    /// with the partner spinning, parked and woken; a panicking task gives `None`.
    #[test]
    fn map_gives_values_in_task_order() {
        let p = Partner::start().unwrap();
        for round in 0..300 {
            let tasks = round % 37;
            let inits = AtomicUsize::new(0);
            let got = p
                .map(
                    tasks,
                    || inits.fetch_add(1, Ordering::Relaxed),
                    |_, t| t * t + round,
                )
                .unwrap();
            assert_eq!(got, (0..tasks).map(|t| t * t + round).collect::<Vec<_>>());
            assert!(
                inits.load(Ordering::Relaxed) <= 2,
                "a state per thread at most"
            );
            if round % 100 == 0 {
                std::thread::sleep(SPIN * 3);
            }
        }
        let boom = p.map(
            8,
            || (),
            |_, t| {
                if t == 5 {
                    panic!("task panicked on purpose")
                } else {
                    t
                }
            },
        );
        assert_eq!(boom, None);
        assert_eq!(p.map(3, || (), |_, t| t), Some(vec![0, 1, 2]));
    }

    /// A panicking job is reported, not propagated, and the partner keeps serving.
    #[test]
    fn a_panic_is_reported_and_the_partner_survives() {
        let p = Partner::start().unwrap();
        let boom = || panic!("job panicked on purpose");
        assert!(!p.run(&boom));
        let hits = AtomicUsize::new(0);
        let job = || {
            hits.fetch_add(1, Ordering::Relaxed);
        };
        assert!(p.run(&job));
        assert!(hits.load(Ordering::Relaxed) >= 1);
    }
}
