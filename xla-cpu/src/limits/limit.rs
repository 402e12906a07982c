//! What a memory limit is: a number of bytes and where it comes from (an explicit
//! setting, the environment variable, the cgroup, `MemAvailable`).

/// The environment variable that sets the default memory limit of every executable, in
/// bytes or with a unit: `XLA_CPU_MEMORY_LIMIT=512M`, `8GiB`, `0` (no limit).
pub const MEMORY_LIMIT_ENV: &str = "XLA_CPU_MEMORY_LIMIT";

/// Where a memory limit comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LimitSource {
    /// `Executable::set_memory_limit`.
    Explicit,
    /// The environment variable [`MEMORY_LIMIT_ENV`].
    Environment,
    /// The cgroup's memory limit less its usage.
    Cgroup,
    /// `MemAvailable` in `/proc/meminfo`.
    MemAvailable,
}

impl std::fmt::Display for LimitSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            LimitSource::Explicit => "set by Executable::set_memory_limit",
            LimitSource::Environment => "set by XLA_CPU_MEMORY_LIMIT",
            LimitSource::Cgroup => "the cgroup's memory limit less its usage",
            LimitSource::MemAvailable => "MemAvailable in /proc/meminfo",
        })
    }
}

/// A memory limit in force and where it comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MemoryLimit {
    /// Bytes.
    pub bytes: u64,
    /// Where the number comes from.
    pub source: LimitSource,
}
