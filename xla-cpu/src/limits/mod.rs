//! Execution limits: memory as a checked resource, cancellation and deadlines.
//!
//! - [`available`]: how much memory the process may use (cgroup limit, `MemAvailable`).
//! - [`peak`]: the static peak of live values of an executable, from its buffer plan.
//! - [`alloc`]: fallible allocation of large arrays (an error, never an abort).
//! - [`budget`]: the run-time check: each result admitted against the limit and the
//!   allocator before its kernel runs.
//! - [`scratch`]: kernels' scratch buffers (im2col columns, sort permutations, LAPACK
//!   workspaces) admitted against what is left after the instruction's result.
//! - [`stop`]: cancel tokens and deadlines, polled between instructions and in loops.
//! - [`api`]: the `Executable` methods (`peak_bytes`, `set_memory_limit`,
//!   `execute_with_options`).

pub(crate) mod alloc;
mod api;
pub(crate) mod available;
pub(crate) mod budget;
pub(crate) mod peak;
pub(crate) mod scratch;
pub(crate) mod stop;

pub use api::{parse_memory_size, LimitSource, MemoryLimit, MEMORY_LIMIT_ENV};
pub use stop::{CancelToken, ExecuteOptions, StopReason};

use std::sync::atomic::AtomicU64;
use std::sync::OnceLock;

/// The per-executable state of the memory check.
#[derive(Debug)]
pub(crate) struct Limits {
    /// The peak bytes of live values, computed on first use.
    pub(crate) peak: OnceLock<u64>,
    /// An explicit limit in bytes; [`api::UNSET`] when none was set.
    pub(crate) memory_limit: AtomicU64,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            peak: OnceLock::new(),
            memory_limit: AtomicU64::new(api::UNSET),
        }
    }
}

/// Bytes in human units (`1.5 GiB`), for error messages.
pub(crate) fn human_bytes(b: u64) -> String {
    const UNITS: [&str; 6] = ["bytes", "KiB", "MiB", "GiB", "TiB", "PiB"];
    let mut v = b as f64;
    let mut u = 0;
    while v >= 1024.0 && u + 1 < UNITS.len() {
        v /= 1024.0;
        u += 1;
    }
    match (u, UNITS.get(u)) {
        (0, _) | (_, None) => format!("{b} bytes"),
        (_, Some(unit)) => format!("{v:.1} {unit} ({b} bytes)"),
    }
}
