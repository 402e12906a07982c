//! Execution limits: memory as a checked resource, cancellation and deadlines.
//!
//! - [`available`]: how much memory the process may use (cgroup limit, `MemAvailable`).
//! - [`bytes`]: sizes in bytes: of a shape's values, in human units, parsed from text.
//! - [`limit`]: what a memory limit is and where it comes from.
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
pub(crate) mod bytes;
mod limit;
pub(crate) mod peak;
pub(crate) mod scratch;
pub(crate) mod stop;

pub use bytes::parse_memory_size;
pub use limit::{LimitSource, MemoryLimit, MEMORY_LIMIT_ENV};
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
