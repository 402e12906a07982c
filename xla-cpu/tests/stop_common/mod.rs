//! What the cancellation tests share: stopping one long kernel with a 50 ms deadline.

use std::time::{Duration, Instant};
use xla_core::Literal;
use xla_cpu::{CpuError, Executable, ExecuteOptions, StopReason};

/// The innermost error of `e` (inside `Instruction` and `LoopStopped` wrappers), and the
/// outermost instruction's name.
pub fn innermost(e: &CpuError) -> (&CpuError, Option<&str>) {
    let name = match e {
        CpuError::Instruction { instruction, .. } => Some(instruction.as_str()),
        _ => None,
    };
    let mut inner = e;
    while let CpuError::Instruction { source, .. } | CpuError::LoopStopped { source, .. } = inner {
        inner = source;
    }
    (inner, name)
}

/// Runs `exe` on `args` with a 50 ms deadline: it fails with the deadline's typed error,
/// naming `instr` and its op; returns how long the stopped run took. On a loaded machine
/// the process may stall for 50 ms before the kernel starts (the stop then names an
/// earlier instruction): such attempts are retried, three at most.
///
/// # Panics
/// When the run does not stop with the deadline's error, or never inside `instr`.
#[allow(dead_code)] // used by limits.rs, not by limits_kernels.rs
pub fn stopped_inside(exe: &Executable, args: &[&Literal], instr: &str) -> Duration {
    stopped_within(exe, args, instr, Duration::from_millis(50))
}

/// As [`stopped_inside`] with a deadline of `limit`.
///
/// # Panics
/// As [`stopped_inside`].
pub fn stopped_within(
    exe: &Executable,
    args: &[&Literal],
    instr: &str,
    limit: Duration,
) -> Duration {
    for _ in 0..3 {
        let opts = ExecuteOptions::new().with_timeout(limit);
        let t = Instant::now();
        let e = exe.execute_with_options(args, &opts).unwrap_err();
        let took = t.elapsed();
        let (inner, name) = innermost(&e);
        assert!(
            matches!(inner, CpuError::Stopped { reason: StopReason::Deadline(d) } if *d <= limit),
            "{e}"
        );
        assert!(e.to_string().contains("the deadline passed ("), "{e}");
        if name == Some(instr) {
            assert!(e.to_string().starts_with(&format!("{instr} (")), "{e}");
            return took;
        }
        eprintln!("{instr}: stopped before the kernel started ({e}); again");
    }
    panic!("{instr} was never stopped inside")
}
