//! The `Executable` methods of the limits: its peak memory, its memory limit, and
//! execution with a cancel token or deadline.

use super::available::available_memory;
use super::bytes::parse_bytes;
use super::limit::{LimitSource, MemoryLimit, MEMORY_LIMIT_ENV};
use super::stop::{ExecuteOptions, Stop};
use crate::compile::Executable;
use crate::error::{CpuError, Result};
use crate::exec::Mode;
use std::sync::atomic::Ordering;
use xla_core::Literal;

/// [`super::Limits::memory_limit`] when no limit was set.
pub(crate) const UNSET: u64 = u64::MAX;

/// Below this peak the operating system is not asked how much memory there is (reading
/// it costs a file read per execution); an explicit limit is always checked.
const SMALL: u64 = 64 << 20;

impl Executable {
    /// The peak bytes of live values one execution needs: the entry's parameters and the
    /// module's constants plus the largest total of values alive at once in the buffer
    /// plan (called computations included). Kernels' small scratch buffers are not
    /// counted; what the plan cannot foresee is checked at run time, before each result
    /// is allocated.
    pub fn peak_bytes(&self) -> u64 {
        *self
            .limits
            .peak
            .get_or_init(|| super::peak::peak_bytes(self))
    }

    /// Sets the memory limit of this executable's executions in bytes (`None`: back to
    /// the default, [`MEMORY_LIMIT_ENV`] or else the memory available to the process).
    /// An execution whose [`Executable::peak_bytes`] is over the limit fails before
    /// allocating anything.
    pub fn set_memory_limit(&self, bytes: Option<u64>) {
        let v = bytes.map_or(UNSET, |b| b.min(UNSET - 1));
        self.limits.memory_limit.store(v, Ordering::Relaxed);
    }

    /// The memory limit in force now, or `None` when there is none (`XLA_CPU_MEMORY_LIMIT=0`,
    /// or the operating system tells nothing).
    pub fn memory_limit(&self) -> Option<MemoryLimit> {
        let explicit = self.limits.memory_limit.load(Ordering::Relaxed);
        if explicit != UNSET {
            return Some(MemoryLimit {
                bytes: explicit,
                source: LimitSource::Explicit,
            });
        }
        if let Some(v) = std::env::var_os(MEMORY_LIMIT_ENV) {
            return match v.to_str().and_then(parse_bytes) {
                Some(0) => None,
                Some(bytes) => Some(MemoryLimit {
                    bytes,
                    source: LimitSource::Environment,
                }),
                // An unreadable setting falls back to the default (the CLI checks it).
                None => available(),
            };
        }
        available()
    }

    /// Fails when the peak is over the limit in force (before anything is allocated);
    /// else the limit the run checks at run time (`None` for a small peak with no limit
    /// set, where the operating system is not asked).
    pub(crate) fn check_memory(&self) -> Result<Option<MemoryLimit>> {
        let needed = self.peak_bytes();
        let explicit = self.limits.memory_limit.load(Ordering::Relaxed) != UNSET
            || std::env::var_os(MEMORY_LIMIT_ENV).is_some();
        if needed < SMALL && !explicit {
            return Ok(None);
        }
        match self.memory_limit() {
            Some(limit) if needed > limit.bytes => Err(CpuError::OutOfMemory { needed, limit }),
            limit => Ok(limit),
        }
    }

    /// Runs the entry computation on `args` as [`Executable::execute_borrowed`], stopping
    /// with [`CpuError::Stopped`] (or [`CpuError::LoopStopped`] inside a `while`, naming
    /// the iteration) when `opts`' token is cancelled or its deadline passes. The token and
    /// deadline are polled before every instruction, at every iteration of an interpreted
    /// loop, and every 1,024 iterations of a loop compiled to native code.
    ///
    /// # Errors
    /// As [`Executable::execute`], and when stopped.
    pub fn execute_with_options(
        &self,
        args: &[&Literal],
        opts: &ExecuteOptions,
    ) -> Result<Literal> {
        let stop = Stop::new(opts);
        stop.check()?;
        self.run_entry(args, Mode::Fused, None, &stop)
    }
}

fn available() -> Option<MemoryLimit> {
    available_memory().map(|(bytes, source)| MemoryLimit { bytes, source })
}
