//! The CPU time the process has used (user + system, all threads), for `xla bench`'s
//! per-run CPU times: on a loaded machine a run's wall time includes the time other
//! processes held its core, its CPU time does not, and a median over the runs of one
//! process leaves out the start-up (page clearing, compilation) that a difference of two
//! processes' totals carries as noise.

use std::time::Duration;

/// CPU time of the whole process so far, or `None` where the clock is unavailable.
pub fn process_cpu_time() -> Option<Duration> {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `clock_gettime` writes one `timespec` through the pointer, which points to a
    // live, writable local of that type; it keeps no reference to it after returning.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut ts) };
    if rc != 0 {
        return None;
    }
    let secs = u64::try_from(ts.tv_sec).ok()?;
    let nanos = u32::try_from(ts.tv_nsec).ok()?;
    Some(Duration::new(secs, nanos))
}

#[cfg(test)]
mod tests {
    use super::process_cpu_time;

    /// Spinning for 30 ms of wall time adds CPU time (at most the wall time, plus clock
    /// granularity), and the clock never goes back.
    #[test]
    fn counts_the_work_done() {
        let a = process_cpu_time();
        let start = std::time::Instant::now();
        let mut x = 0u64;
        while start.elapsed() < std::time::Duration::from_millis(30) {
            x = std::hint::black_box(x.wrapping_mul(6364136223846793005).wrapping_add(1));
        }
        let b = process_cpu_time();
        let (Some(a), Some(b)) = (a, b) else {
            panic!("CLOCK_PROCESS_CPUTIME_ID unavailable");
        };
        assert!(b > a, "{a:?} then {b:?}");
        assert!(b - a <= start.elapsed() + std::time::Duration::from_millis(5));
    }
}
