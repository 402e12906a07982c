//! The `xla` command line under limits: a module over the memory limit, `--timeout`,
//! Ctrl-C, and outputs that are never left half-written.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn data(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("testdata/limits")
        .join(name)
        .to_string_lossy()
        .into_owned()
}

/// An empty scratch directory, removed when dropped.
struct Dir(PathBuf);

impl Dir {
    fn new(tag: &str) -> Dir {
        let d = std::env::temp_dir().join(format!("xla-cli-limits-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        Dir(d)
    }
    fn path(&self) -> &str {
        self.0.to_str().unwrap()
    }
    /// The files in the directory (none when it does not exist).
    fn files(&self) -> Vec<String> {
        let Ok(rd) = std::fs::read_dir(&self.0) else {
            return vec![];
        };
        let mut v: Vec<String> = rd
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    }
}

impl Drop for Dir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn xla() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_xla"));
    c.env_remove("XLA_CPU_MEMORY_LIMIT");
    c
}

/// `xla run big_iota.hlo` with `XLA_CPU_MEMORY_LIMIT` set to `limit` (or unset): its
/// exit status and stderr.
fn run_big_iota(limit: Option<&str>, out: &Dir) -> (Option<i32>, String) {
    let mut c = xla();
    if let Some(l) = limit {
        c.env("XLA_CPU_MEMORY_LIMIT", l);
    }
    let o = c
        .args(["run", &data("big_iota.hlo"), "--out", out.path()])
        .output()
        .unwrap();
    (
        o.status.code(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

#[test]
fn a_module_over_the_memory_limit_says_how_much_and_exits_2() {
    let out = Dir::new("iota");
    let (code, err) = run_big_iota(None, &out);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("needs 3.6 TiB (4000000000000 bytes)"), "{err}");
    assert!(err.contains("but the memory limit is"), "{err}");
    assert!(out.files().is_empty());
    // The same with an explicit limit, and with none (the allocation fails cleanly).
    let (code, err) = run_big_iota(Some("1G"), &out);
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("1.0 GiB (1073741824 bytes) (set by XLA_CPU_MEMORY_LIMIT)"),
        "{err}"
    );
    let (code, err) = run_big_iota(Some("0"), &out);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("i (iota): cannot allocate"), "{err}");
    let (code, err) = run_big_iota(Some("plenty"), &out);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("XLA_CPU_MEMORY_LIMIT=plenty"), "{err}");
    assert!(out.files().is_empty());
}

#[test]
fn timeout_stops_an_endless_loop_and_writes_nothing() {
    let out = Dir::new("timeout");
    let t = Instant::now();
    let o = xla()
        .args([
            "run",
            &data("forever.hlo"),
            "--out",
            out.path(),
            "--timeout",
            "0.3",
        ])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(t.elapsed() < Duration::from_secs(20));
    assert!(err.contains("forever.loop (while): stopped after"), "{err}");
    assert!(err.contains("the deadline passed (0.300 s)"), "{err}");
    assert!(out.files().is_empty(), "{:?}", out.files());
}

#[cfg(unix)]
#[test]
fn ctrl_c_exits_cleanly_without_output() {
    let out = Dir::new("sigint");
    let child = xla()
        .args(["run", &data("forever.hlo"), "--out", out.path()])
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(400));
    // SAFETY: sends SIGINT to the child we spawned (its pid is valid until it is waited).
    let pid = libc::pid_t::try_from(child.id()).unwrap();
    assert_eq!(unsafe { libc::kill(pid, libc::SIGINT) }, 0);
    let o = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(130), "{err}");
    assert!(
        err.contains("interrupted (Ctrl-C); no output written"),
        "{err}"
    );
    assert!(out.files().is_empty(), "{:?}", out.files());
}

#[test]
fn a_good_run_leaves_only_the_outputs() {
    let out = Dir::new("good");
    let o = xla()
        .args([
            "run",
            &data("counted.hlo"),
            "--out",
            out.path(),
            "--timeout",
            "60",
        ])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(out.files(), vec!["out0.npy", "out1.npy"]);
    let counter = xla::Literal::read_npy(out.0.join("out0.npy")).unwrap();
    assert_eq!(counter.data::<i32>(), Some(&[10][..]));
}

/// A module negating an f32[262144] and its input, in `dir`: (module, input).
fn negate_module(dir: &Dir) -> (std::path::PathBuf, std::path::PathBuf) {
    std::fs::create_dir_all(&dir.0).unwrap();
    let module = dir.0.join("neg.hlo");
    let text = "HloModule neg\n\nENTRY main {\n  p = f32[262144] parameter(0)\n  ROOT n = f32[262144] negate(p)\n}\n";
    std::fs::write(&module, text).unwrap();
    let input = dir.0.join("in0.npy");
    xla::Literal::vec1(&vec![1.5f32; 262_144])
        .write_npy(&input)
        .unwrap();
    (module, input)
}

#[test]
fn bench_profile_prints_the_planned_and_the_measured_peak() {
    // f32[262144] in and out: 1 MiB + 1 MiB live at the negate, 2.0 MiB planned.
    let dir = Dir::new("bench");
    let (module, input) = negate_module(&dir);
    let o = xla()
        .args(["bench", module.to_str().unwrap(), input.to_str().unwrap()])
        .args(["--iters", "2", "--profile"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{stderr}");
    let line = stderr
        .lines()
        .find(|l| l.starts_with("peak memory: "))
        .unwrap_or_else(|| panic!("no peak memory line in:\n{stderr}"));
    assert!(line.starts_with("peak memory: planned 2.0 MiB"), "{line}");
    assert!(line.contains("process max RSS"), "{line}");
}

/// The value of `key=` in `xla bench`'s output.
fn bench_value(out: &str, key: &str) -> f64 {
    out.lines()
        .find_map(|l| l.strip_prefix(key)?.strip_prefix('='))
        .unwrap_or_else(|| panic!("no {key}= in:\n{out}"))
        .parse()
        .unwrap()
}

#[test]
fn bench_prints_the_median_cpu_time_of_a_run() {
    // On one thread a run's CPU time is at most its wall time, so the median of one is at
    // most the median of the other (plus the clocks' granularity); a run does some work.
    let dir = Dir::new("bench_cpu");
    let (module, input) = negate_module(&dir);
    let o = xla()
        .env("XLA_CPU_THREADS", "1")
        .args(["bench", module.to_str().unwrap(), input.to_str().unwrap()])
        .args(["--iters", "5"])
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let (cpu, wall) = (
        bench_value(&out, "median_cpu_s"),
        bench_value(&out, "median_s"),
    );
    assert!(
        cpu > 0.0 && cpu <= wall + 1e-3,
        "cpu {cpu} s, wall {wall} s"
    );
    assert!(
        out.lines()
            .last()
            .is_some_and(|l| l.starts_with("median_s=")),
        "{out}"
    );
}
