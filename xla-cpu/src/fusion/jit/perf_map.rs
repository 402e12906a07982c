//! Names for generated code in profiles: with `XLA_CPU_PERF_MAP` set, each kernel's code
//! is listed in `/tmp/perf-<pid>.map` (the file `perf report` reads for code it has no
//! symbols for) as `xla-jit-<n>-loop` or `xla-jit-<n>-fold`; when the variable names a
//! directory, the code's bytes are also written there as `xla-jit-<n>.bin` (disassemble
//! with `objdump -D -b binary -mi386:x86-64 --adjust-vma=<address>`), native loops' code as
//! `xla-native-<address>.bin`. A profiling aid
//! only: failures to write are ignored, and nothing is done when the variable is unset.

use std::io::Write;
use std::sync::atomic::{AtomicUsize, Ordering};

static NEXT: AtomicUsize = AtomicUsize::new(0);

/// Lists the code at `at` (`bytes` long) when profiling is asked for.
pub(super) fn record(at: *const u8, bytes: &[u8], fold: bool) {
    let Some(dir) = std::env::var_os("XLA_CPU_PERF_MAP") else {
        return;
    };
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    let kind = if fold { "fold" } else { "loop" };
    let line = format!("{:x} {:x} xla-jit-{n}-{kind}\n", at as usize, bytes.len());
    let path = format!("/tmp/perf-{}.map", std::process::id());
    if let Ok(mut f) = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
    {
        let _ = f.write_all(line.as_bytes());
    }
    save(&dir, &format!("xla-jit-{n}"), at, bytes);
}

/// Writes `bytes` (code at `at`) as `<stem>-<address>.bin` into `dir` when it is a directory.
fn save(dir: &std::ffi::OsStr, stem: &str, at: *const u8, bytes: &[u8]) {
    let dir = std::path::Path::new(dir);
    if dir.is_dir() {
        let _ = std::fs::write(dir.join(format!("{stem}-{:x}.bin", at as usize)), bytes);
    }
}

/// With `XLA_CPU_PERF_MAP` naming a directory, writes the bytes of a native loop's code
/// (Cranelift lists it as `run` in the perf map itself) there as `xla-native-<address>.bin`.
pub(crate) fn record_native(at: *const u8, bytes: &[u8]) {
    if let Some(dir) = std::env::var_os("XLA_CPU_PERF_MAP") {
        save(&dir, "xla-native", at, bytes);
    }
}
