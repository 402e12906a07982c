//! Cancellation and deadlines: a [`CancelToken`] another thread can trip, and a deadline,
//! both polled before and after every instruction, at every iteration of an interpreted
//! `while` and every 1,024 iterations of a native one (`native/poll.rs`), and inside long
//! kernels between their blocks of work ([`Stop::current`], [`Poll`]: a large `dot`'s output
//! tiles, a convolution's tasks, a sort's rows, a reduction's chunks, a fused kernel's
//! chunks (`buffer.rs`, `fusion/run.rs`), gather's and scatter's rows, an FFT's lines, a
//! batched factorisation's matrices and the unblocked LU's columns), so a single huge
//! kernel notices a stop within one block (milliseconds). A kernel that notices it leaves
//! its result unfinished and the check after the instruction stops the run with
//! [`CpuError::Stopped`]: an unfinished value is never returned.

use crate::error::{CpuError, Result};
use std::cell::RefCell;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// A flag that stops the executions it is given to; clone it to hand it to another
/// thread (the clones share the flag).
///
/// ```
/// let token = xla_cpu::CancelToken::new();
/// let remote = token.clone();
/// remote.cancel();
/// assert!(token.is_cancelled());
/// ```
#[derive(Clone, Debug, Default)]
pub struct CancelToken(Arc<AtomicBool>);

impl CancelToken {
    /// A token not yet cancelled.
    pub fn new() -> CancelToken {
        CancelToken::default()
    }

    /// Asks every execution holding this token to stop at its next check. Only an atomic
    /// store: safe to call from a signal handler.
    pub fn cancel(&self) {
        self.0.store(true, Ordering::Relaxed);
    }

    /// True once [`CancelToken::cancel`] was called.
    pub fn is_cancelled(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }
}

/// How an execution may be stopped early (see `Executable::execute_with_options`).
#[derive(Clone, Debug, Default)]
pub struct ExecuteOptions {
    /// Stop when this token is cancelled.
    pub cancel: Option<CancelToken>,
    /// Stop once this instant has passed.
    pub deadline: Option<Instant>,
}

impl ExecuteOptions {
    /// No token and no deadline: runs to the end.
    pub fn new() -> ExecuteOptions {
        ExecuteOptions::default()
    }

    /// Stops when `token` is cancelled.
    pub fn with_cancel(mut self, token: CancelToken) -> ExecuteOptions {
        self.cancel = Some(token);
        self
    }

    /// Stops `timeout` from now.
    pub fn with_timeout(self, timeout: Duration) -> ExecuteOptions {
        let deadline = Instant::now().checked_add(timeout);
        ExecuteOptions { deadline, ..self }
    }

    /// Stops once `deadline` has passed.
    pub fn with_deadline(mut self, deadline: Instant) -> ExecuteOptions {
        self.deadline = Some(deadline);
        self
    }
}

/// Why an execution stopped early.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StopReason {
    /// Its [`CancelToken`] was cancelled.
    Cancelled,
    /// Its deadline passed; the time it had.
    Deadline(Duration),
}

impl std::fmt::Display for StopReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StopReason::Cancelled => write!(f, "cancelled"),
            StopReason::Deadline(d) => write!(f, "the deadline passed ({:.3} s)", d.as_secs_f64()),
        }
    }
}

/// The stop conditions of one execution (cloning it shares the token).
#[derive(Clone, Debug, Default)]
pub(crate) struct Stop {
    cancel: Option<CancelToken>,
    deadline: Option<(Instant, Duration)>,
}

impl Stop {
    /// The conditions of `opts`, the deadline's budget measured from now.
    pub(crate) fn new(opts: &ExecuteOptions) -> Stop {
        let now = Instant::now();
        Stop {
            cancel: opts.cancel.clone(),
            deadline: opts.deadline.map(|d| (d, d.saturating_duration_since(now))),
        }
    }

    /// True when a token or a deadline is set (a kernel polls only then).
    pub(crate) fn is_active(&self) -> bool {
        self.cancel.is_some() || self.deadline.is_some()
    }

    /// True when the run must stop now: one relaxed atomic load, and a clock read when a
    /// deadline is set. Kernels call it between blocks of work (not per element).
    #[inline]
    pub(crate) fn stopped(&self) -> bool {
        self.reason().is_some()
    }

    /// The stop conditions of the run executing on this thread (none outside a run, and on
    /// threads the run did not start from, e.g. the partner thread of `concurrent.rs`).
    /// A kernel takes it once, before it splits its work over the pool, and polls it with
    /// [`Stop::stopped`] from every task. Outside an execution with options it is inactive.
    pub(crate) fn current() -> Stop {
        CURRENT.with(|c| c.borrow().clone())
    }

    /// Runs `f` (one execution) with `self` as this thread's [`Stop::current`].
    pub(crate) fn install<R>(&self, f: impl FnOnce() -> R) -> R {
        struct Restore(Stop);
        impl Drop for Restore {
            fn drop(&mut self) {
                let prev = std::mem::take(&mut self.0);
                CURRENT.with(|c| *c.borrow_mut() = prev);
            }
        }
        if !self.is_active() && !Stop::current().is_active() {
            return f();
        }
        let _restore = Restore(CURRENT.with(|c| c.replace(self.clone())));
        f()
    }

    /// Why the run must stop now, if it must.
    pub(crate) fn reason(&self) -> Option<StopReason> {
        if self.cancel.as_ref().is_some_and(CancelToken::is_cancelled) {
            return Some(StopReason::Cancelled);
        }
        match self.deadline {
            Some((at, budget)) if Instant::now() >= at => Some(StopReason::Deadline(budget)),
            _ => None,
        }
    }

    /// `Err(CpuError::Stopped)` when the run must stop.
    ///
    /// # Errors
    /// When the token was cancelled or the deadline passed.
    pub(crate) fn check(&self) -> Result<()> {
        match self.reason() {
            Some(reason) => Err(CpuError::Stopped { reason }),
            None => Ok(()),
        }
    }
}

/// Units of work (elements, or element-sized steps) between two polls of a [`Poll`].
pub(crate) const POLL_EVERY: usize = 1 << 16;

/// A kernel's stop poll at a bounded interval: the kernel reports the work it did with
/// [`Poll::tick`] (a subtraction per call) and the run's stop is read once per
/// [`POLL_EVERY`] units (an atomic load, and a clock read when a deadline is set), so a
/// loop over rows or elements polls without a cost per element worth measuring.
#[derive(Debug)]
pub(crate) struct Poll {
    stop: Stop,
    left: usize,
}

impl Poll {
    /// The current run's stop ([`Stop::current`]) for a kernel of `total` units of work;
    /// inactive when the whole kernel is a single interval or less.
    pub(crate) fn new(total: usize) -> Poll {
        let stop = match total > POLL_EVERY {
            true => Stop::current(),
            false => Stop::default(),
        };
        Poll {
            stop,
            left: POLL_EVERY,
        }
    }

    /// Counts `work` units done; once an interval is used up, `Err(CpuError::Stopped)` when
    /// the run must stop.
    ///
    /// # Errors
    /// When the token was cancelled or the deadline passed.
    #[inline]
    pub(crate) fn tick(&mut self, work: usize) -> Result<()> {
        if work < self.left {
            self.left -= work;
            return Ok(());
        }
        self.left = POLL_EVERY;
        self.stop.check()
    }
}

thread_local! {
    /// The stop conditions of the execution running on this thread ([`Stop::current`]).
    static CURRENT: RefCell<Stop> = RefCell::new(Stop::default());
}

/// No token and no deadline (constant folding, and executions without options).
pub(crate) static NEVER: Stop = Stop {
    cancel: None,
    deadline: None,
};
