//! Per-instruction timing of executions, for finding where time goes
//! (`Executable::set_profiling`, `xla bench --profile`).

use crate::compile::Executable;
use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Duration;

/// The time spent in one instruction (or fused kernel) over every profiled execution.
#[derive(Clone, Debug, PartialEq)]
pub struct ProfileEntry {
    /// The computation holding the instruction.
    pub computation: String,
    /// The instruction's name (for a fused kernel: its root's).
    pub instruction: String,
    /// The op, or `fusion(op)` for a fused kernel rooted at `op` (`fusion[code](op)` when
    /// the kernel runs as generated machine code).
    pub op: String,
    /// The result shape in XLA notation.
    pub shape: String,
    /// How many times it ran.
    pub calls: u64,
    /// Total time spent in it.
    pub total: Duration,
}

/// Collected timings, keyed by (computation index, instruction index).
#[derive(Debug, Default)]
pub(crate) struct Profile {
    entries: Mutex<HashMap<(usize, usize), ProfileEntry>>,
}

impl Profile {
    /// Adds one run of instruction `at` = (computation, instruction) index; `describe` gives
    /// its (computation name, instruction name, op, shape) the first time.
    pub(crate) fn record(
        &self,
        at: (usize, usize),
        describe: impl FnOnce() -> [String; 4],
        t: Duration,
    ) {
        let Ok(mut m) = self.entries.lock() else {
            return;
        };
        let e = m.entry(at).or_insert_with(|| {
            let [computation, instruction, op, shape] = describe();
            ProfileEntry {
                computation,
                instruction,
                op,
                shape,
                calls: 0,
                total: Duration::ZERO,
            }
        });
        e.calls += 1;
        e.total += t;
    }
}

impl Executable {
    /// Turns per-instruction timing on or off (off by default; it costs a clock read per
    /// instruction). Turning it on clears what was collected.
    pub fn set_profiling(&mut self, on: bool) {
        self.profile = on.then(Profile::default);
    }

    /// The timings collected since profiling was turned on, slowest first.
    pub fn profile(&self) -> Vec<ProfileEntry> {
        let Some(p) = &self.profile else {
            return Vec::new();
        };
        let mut v: Vec<ProfileEntry> = p
            .entries
            .lock()
            .map(|m| m.values().cloned().collect())
            .unwrap_or_default();
        v.sort_by_key(|e| std::cmp::Reverse(e.total));
        v
    }
}
