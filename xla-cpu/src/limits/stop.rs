//! Cancellation and deadlines: a [`CancelToken`] another thread can trip, and a deadline,
//! both polled before every instruction, at every iteration of an interpreted `while`
//! and every 1,024 iterations of a native one (`native/poll.rs`). A single long kernel
//! (one huge `dot` or `convolution`) is not interrupted: the check after it stops the run.

use crate::error::{CpuError, Result};
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

/// The stop conditions of one execution.
#[derive(Debug, Default)]
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

/// No token and no deadline (constant folding, and executions without options).
pub(crate) static NEVER: Stop = Stop {
    cancel: None,
    deadline: None,
};
