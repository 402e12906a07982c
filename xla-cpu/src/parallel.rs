//! Thread configuration: how many threads the heavy kernels (matmul, convolution, cholesky,
//! triangular solve) may use.
//!
//! Parallelism is an explicit value handed to the kernels ([`Parallel`]), never global
//! state. Each [`Executable`] owns its thread count and, when that count is above one, its
//! own rayon [`ThreadPool`] (built lazily on the first parallel kernel, so compiling many
//! small modules spawns no threads). Kernels run their parallel sections inside that pool
//! with [`Parallel::install`], so two executables with different settings never interfere
//! and the global rayon pool is left alone.
//!
//! The default thread count is `XLA_CPU_THREADS` when set to a positive integer, otherwise
//! every core ([`std::thread::available_parallelism`]). [`Executable::set_threads`] overrides
//! it.
//!
//! A device of a replicated run uses its share of these threads instead
//! (`devices/share.rs`): the one setting that follows the calling thread.
//!
//! Results never depend on the thread count: work is only split over independent outputs
//! (batches, images, output blocks), never over a summation.

use crate::limits::stop::Stop;
use faer::Par;
use rayon::{ThreadPool, ThreadPoolBuilder};
use std::cell::Cell;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::OnceLock;

/// The environment variable that sets the default thread count.
pub const THREADS_ENV: &str = "XLA_CPU_THREADS";

/// The thread count from `XLA_CPU_THREADS`, or every core.
fn default_threads() -> usize {
    std::env::var(THREADS_ENV)
        .ok()
        .and_then(|v| v.trim().parse::<usize>().ok())
        .filter(|&n| n > 0)
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, usize::from))
}

/// An executable's thread setting: the count and its lazily built pool.
#[derive(Debug)]
pub(crate) struct Threads {
    n: usize,
    pool: OnceLock<Option<ThreadPool>>,
    /// Set once a kernel has entered the pool: later runs then enter it once, at their
    /// start (see [`Threads::forks`]).
    forked: AtomicBool,
    /// The partner thread for groups of small independent steps, started on first use.
    partner: OnceLock<Option<crate::partner::Partner>>,
}

impl Default for Threads {
    fn default() -> Self {
        Threads::new(default_threads())
    }
}

impl Threads {
    /// `n` threads (0 is taken as 1).
    pub(crate) fn new(n: usize) -> Self {
        Threads {
            n: n.max(1),
            pool: OnceLock::new(),
            forked: AtomicBool::new(false),
            partner: OnceLock::new(),
        }
    }

    /// True once a kernel of a run has split its work over the pool. A run of such an
    /// executable is best started inside the pool: its kernels then fork from a pool
    /// thread (the other one steals), not from outside it (a hand-off to a pool thread and
    /// back, two wake-ups per kernel: 17% of a VAE step went to the scheduler). An
    /// executable whose kernels never split stays on the caller's thread, where entering
    /// the pool would cost a wake-up per run (an ODE solve of 0.1 ms measured 23% slower).
    pub(crate) fn forks(&self) -> bool {
        self.n > 1 && self.forked.load(Ordering::Relaxed)
    }

    /// The partner thread (`None` for one thread, or if the OS refused a thread).
    pub(crate) fn partner(&self) -> Option<&crate::partner::Partner> {
        let t = current_share().unwrap_or(self);
        if t.n <= 1 {
            return None;
        }
        t.partner
            .get_or_init(crate::partner::Partner::start)
            .as_ref()
    }

    /// The value kernels receive: on a device of a replicated run, that device's share of
    /// the threads (`devices/share.rs`).
    pub(crate) fn parallel(&self) -> Parallel<'_> {
        let t = current_share().unwrap_or(self);
        Parallel {
            n: t.n,
            threads: Some(t),
        }
    }

    /// The pool, built on first use; `None` for one thread or if the OS refused threads.
    fn pool(&self) -> Option<&ThreadPool> {
        if self.n <= 1 {
            return None;
        }
        self.pool
            .get_or_init(|| {
                ThreadPoolBuilder::new()
                    .num_threads(self.n)
                    // XLA's floating-point mode; these threads run only our kernels.
                    .start_handler(|_| crate::denormals::flush_this_thread())
                    .build()
                    .ok()
            })
            .as_ref()
    }
}

/// The parallelism a kernel may use: a thread count and the pool to run in.
#[derive(Clone, Copy, Debug)]
pub struct Parallel<'a> {
    n: usize,
    threads: Option<&'a Threads>,
}

impl Parallel<'static> {
    /// Everything on the calling thread.
    pub const SEQ: Parallel<'static> = Parallel {
        n: 1,
        threads: None,
    };
}

/// Fewer elements than this stay on the calling thread ([`Parallel::run_sized`]).
const SMALL: usize = 1 << 15;

impl<'a> Parallel<'a> {
    /// The partner thread when this setting has exactly two threads: a job of a few
    /// chunks is then shared by the calling thread and the partner (a hand-off of well
    /// under a microsecond while it spins) instead of entering the pool (tens of
    /// microseconds when its threads have gone to sleep; see `partner.rs`).
    pub(crate) fn pair(&self) -> Option<&'a crate::partner::Partner> {
        match self.threads {
            Some(t) if self.n == 2 => t.partner(),
            _ => None,
        }
    }

    /// `f(c, chunk)` for every chunk `c` of `len` elements of `out`, over the threads:
    /// at two threads shared by this thread and the partner (each takes the next chunk),
    /// else in the pool. The chunks are independent, so what is written does not depend
    /// on which thread wrote it. False when `f` panicked on the partner's side.
    pub(crate) fn chunks_mut<T: Send>(
        &self,
        out: &mut [T],
        len: usize,
        f: impl Fn(usize, &mut [T]) + Sync,
    ) -> bool {
        let chunks = out.chunks_mut(len.max(1)).enumerate().collect();
        self.share(chunks, |(c, chunk)| f(c, chunk))
    }

    /// `f(item)` for every item, shared with the partner at two threads, else in the pool.
    /// False when `f` panicked on the partner's side (items may then be left undone).
    fn share<T: Send>(&self, items: Vec<T>, f: impl Fn(T) + Sync) -> bool {
        use rayon::prelude::*;
        if let Some(p) = self.pair() {
            return p.each_item(items, || (), |_, i| f(i));
        }
        self.install(|| items.into_par_iter().for_each(|i| f(i)));
        true
    }

    /// The number of threads.
    pub fn threads(&self) -> usize {
        if self.threads.is_some() {
            self.n
        } else {
            1
        }
    }

    /// faer's parallelism for a job of about `flops` multiply-adds: sequential below
    /// `min_flops` (where splitting costs more than it saves) or with one thread.
    pub fn par_for(&self, flops: usize, min_flops: usize) -> Par {
        if self.threads() <= 1 || flops < min_flops {
            Par::Seq
        } else {
            Par::rayon(self.threads())
        }
    }

    /// Runs `f(min)` for a job of `elements` elements: on the calling thread with `min =
    /// usize::MAX` (the "no splitting" setting of rayon's `with_min_len`) when it is small or
    /// the setting is sequential, else inside the pool with `min = 1`. Entering the pool is a
    /// cross-thread hand-off of several microseconds, which dominated small-array steps
    /// (a 15-instruction log-softmax on f32[256,10] took 0.2 ms).
    pub(crate) fn run_sized<R: Send>(
        &self,
        elements: usize,
        f: impl FnOnce(usize) -> R + Send,
    ) -> R {
        self.run_when(elements >= SMALL, f)
    }

    /// `f(item)` for every item: on this thread when the work is small (`elements`, as
    /// [`Parallel::run_sized`] judges it) or there is one thread, shared with the partner
    /// at two threads, else in the pool. False when `f` panicked on the partner's side
    /// (items may then be left undone).
    pub(crate) fn items<T: Send>(
        &self,
        elements: usize,
        items: Vec<T>,
        f: impl Fn(T) + Sync,
    ) -> bool {
        if self.threads() <= 1 || elements < SMALL || items.len() < 2 {
            items.into_iter().for_each(f);
            return true;
        }
        self.share(items, f)
    }

    /// Runs `f(min)` in the pool (`min = 1`) when `worth` it and the setting has threads,
    /// else on the calling thread (`min = usize::MAX`); see [`Parallel::run_sized`].
    pub(crate) fn run_when<R: Send>(&self, worth: bool, f: impl FnOnce(usize) -> R + Send) -> R {
        if self.threads() <= 1 || !worth {
            f(usize::MAX)
        } else {
            self.install(|| f(1))
        }
    }

    /// Runs `f` inside this setting's pool (directly when sequential), with the calling
    /// thread's run stop conditions (`Stop::current`) on the pool thread that runs it, so
    /// a kernel started there polls the run's token and deadline (`limits/stop.rs`).
    pub fn install<R: Send>(&self, f: impl FnOnce() -> R + Send) -> R {
        match self.threads.and_then(|t| Some((t, t.pool()?))) {
            Some((t, pool)) => {
                t.forked.store(true, Ordering::Relaxed);
                if let Some(Some(p)) = t.partner.get() {
                    p.hush();
                }
                let stop = Stop::current();
                pool.install(|| stop.install(f))
            }
            None => f(),
        }
    }
}

thread_local! {
    /// The kernel threads of the device running on this thread, if it is one.
    static CURRENT: Cell<Option<&'static Threads>> = const { Cell::new(None) };
}

/// The kernel threads of the device running on this thread (`None` outside a replicated run;
/// set by `devices/share.rs`).
pub(crate) fn current_share() -> Option<&'static Threads> {
    CURRENT.with(Cell::get)
}

/// Makes `share` the kernel threads of the device running on this thread; returns the
/// previous ones (`devices/share.rs` restores them when its guard drops).
pub(crate) fn replace_share(share: Option<&'static Threads>) -> Option<&'static Threads> {
    CURRENT.with(|c| c.replace(share))
}

#[cfg(test)]
mod chunk_tests {
    #![allow(clippy::unwrap_used)]
    use super::Threads;

    /// Every chunk is written once, with its own index, at one, two (the partner) and
    /// three threads (the pool), for lengths on and off chunk boundaries.
    #[test]
    fn chunks_mut_writes_every_chunk_once() {
        for threads in [1, 2, 3] {
            let t = Threads::new(threads);
            for (n, len) in [(0, 4), (1, 4), (4, 4), (103, 4), (10_000, 77)] {
                for _ in 0..20 {
                    let mut out = vec![usize::MAX; n];
                    assert!(t.parallel().chunks_mut(&mut out, len, |c, chunk| {
                        for (i, x) in chunk.iter_mut().enumerate() {
                            *x = c * len + i;
                        }
                    }));
                    assert_eq!(
                        out,
                        (0..n).collect::<Vec<_>>(),
                        "{threads} threads, {n}/{len}"
                    );
                }
            }
        }
    }
}
