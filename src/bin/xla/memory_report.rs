//! `xla bench --profile`'s memory line: the executable's planned peak (its buffer plan)
//! and the process's measured high-water mark of resident memory.

/// Prints `peak memory: planned ..., measured ...` to stderr.
pub fn print(exe: &xla::cpu::Executable) {
    let planned = exe.peak_bytes();
    let measured = max_rss().map_or_else(
        || "measured: unknown".to_string(),
        |b| format!("process max RSS {:.1} MiB (VmHWM)", b as f64 / (1 << 20) as f64),
    );
    eprintln!(
        "peak memory: planned {:.1} MiB (live values of the buffer plan, parameters included); {measured}",
        planned as f64 / (1 << 20) as f64
    );
}

/// `VmHWM` of `/proc/self/status` in bytes: the most resident memory the process had.
fn max_rss() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    kb.checked_mul(1024)
}
