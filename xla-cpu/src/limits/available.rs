//! How much memory the process may use: the cgroup limit (v2 `memory.max`, v1
//! `memory.limit_in_bytes`) less the cgroup's current usage, and the system's
//! `MemAvailable`; the smaller wins.

use super::limit::LimitSource;

/// The memory available to this process and where the number comes from, or `None` when
/// the OS tells nothing (not Linux, or `/proc` is not mounted).
pub(crate) fn available_memory() -> Option<(u64, LimitSource)> {
    let mem = mem_available().map(|b| (b, LimitSource::MemAvailable));
    let cg = cgroup_available().map(|b| (b, LimitSource::Cgroup));
    match (mem, cg) {
        (Some(m), Some(c)) => Some(if c.0 < m.0 { c } else { m }),
        (m, c) => m.or(c),
    }
}

/// `MemAvailable` of `/proc/meminfo`, in bytes.
fn mem_available() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    parse_meminfo(&text, "MemAvailable:")
}

/// The value of `key` (in kB) in `/proc/meminfo`'s text, in bytes.
pub(crate) fn parse_meminfo(text: &str, key: &str) -> Option<u64> {
    let line = text.lines().find(|l| l.starts_with(key))?;
    let kb: u64 = line
        .get(key.len()..)?
        .split_whitespace()
        .next()?
        .parse()
        .ok()?;
    kb.checked_mul(1024)
}

/// The cgroup's limit less its usage, when a limit is set.
fn cgroup_available() -> Option<u64> {
    let own = std::fs::read_to_string("/proc/self/cgroup").ok()?;
    // cgroup v2: one line `0::/path`.
    if let Some(path) = own.lines().find_map(|l| l.strip_prefix("0::")) {
        let dir = format!("/sys/fs/cgroup{}", path.trim_end());
        for d in [dir.as_str(), "/sys/fs/cgroup"] {
            let max = read_number(&format!("{d}/memory.max"));
            let cur = read_number(&format!("{d}/memory.current"));
            if let Some(max) = max {
                return Some(max.saturating_sub(cur.unwrap_or(0)));
            }
        }
    }
    // cgroup v1: the memory controller's directory.
    let base = "/sys/fs/cgroup/memory";
    let max = read_number(&format!("{base}/memory.limit_in_bytes"))?;
    // v1 reports "no limit" as a huge number (a page-rounded i64::MAX).
    if max >= 1 << 60 {
        return None;
    }
    let cur = read_number(&format!("{base}/memory.usage_in_bytes")).unwrap_or(0);
    Some(max.saturating_sub(cur))
}

/// A file holding one number (`max` and unreadable files give `None`).
fn read_number(path: &str) -> Option<u64> {
    std::fs::read_to_string(path).ok()?.trim().parse().ok()
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn meminfo_is_parsed_in_bytes() {
        let text = "MemTotal:       24576000 kB\nMemFree:  100 kB\nMemAvailable:   2048 kB\n";
        assert_eq!(parse_meminfo(text, "MemAvailable:"), Some(2048 * 1024));
        assert_eq!(parse_meminfo(text, "Missing:"), None);
    }

    #[test]
    fn this_machine_reports_some_memory() {
        let (bytes, _) = available_memory().unwrap();
        assert!(bytes > 1 << 20, "{bytes}");
    }
}
