//! Runs the built `xla` binary on good and bad files and checks exit codes and messages.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn xla(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_xla"))
        .args(args)
        .output()
        .expect("run xla")
}

fn case(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("testdata/conformance/public")
        .join(name)
        .join("module.hlo")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// A scratch file with `text`, removed when dropped.
struct Temp(PathBuf);

impl Temp {
    fn new(name: &str, text: &str) -> Temp {
        let dir = std::env::temp_dir().join(format!("xla-cli-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        Temp(path)
    }
    fn path(&self) -> &str {
        self.0.to_str().unwrap()
    }
}

impl Drop for Temp {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// Exit status 2, no stdout, and stderr lines that each start with `prefix` (no panic trace).
fn assert_failure(o: &Output, prefix: &str, lines: usize) {
    assert_eq!(o.status.code(), Some(2), "stderr: {}", stderr(o));
    assert_eq!(stdout(o), "");
    let err = stderr(o);
    assert!(
        !err.contains("panicked") && !err.contains("RUST_BACKTRACE"),
        "{err}"
    );
    let got: Vec<&str> = err.lines().collect();
    assert_eq!(got.len(), lines, "{err}");
    assert!(got.iter().all(|l| l.starts_with(prefix)), "{err}");
}

#[test]
fn fmt_prints_a_conformance_module() {
    let path = case("conv_2d_nhwc_same");
    let o = xla(&["fmt", path.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "stderr: {}", stderr(&o));
    let text = stdout(&o);
    assert!(
        text.starts_with("HloModule jit_fn, entry_computation_layout={("),
        "{text}"
    );
    assert!(text.contains("\nENTRY "), "{text}");
    assert!(
        text.contains(" convolution(") && text.contains("dim_labels=b01f_01io->b01f"),
        "{text}"
    );
}

#[test]
fn fmt_is_a_fixed_point() {
    let first = stdout(&xla(&["fmt", case("grad_mlp_xent").to_str().unwrap()]));
    let tmp = Temp::new("fixed_point.hlo", &first);
    let second = xla(&["fmt", tmp.path()]);
    assert_eq!(second.status.code(), Some(0), "stderr: {}", stderr(&second));
    assert_eq!(stdout(&second), first);
}

#[test]
fn check_accepts_a_valid_module() {
    let o = xla(&["check", case("red_variadic_argmax").to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "stderr: {}", stderr(&o));
    assert_eq!(stdout(&o), "ok\n");
}

#[test]
fn missing_file() {
    for cmd in ["fmt", "check"] {
        let o = xla(&[cmd, "/no/such/dir/module.hlo"]);
        assert_failure(&o, "/no/such/dir/module.hlo: cannot read", 1);
    }
}

#[test]
fn garbage_reports_line_and_column() {
    let tmp = Temp::new("garbage.hlo", "HloModule m\n\nENTRY main {\n  x = f32[2] parameter(0)\n  ROOT y = f32[2] frobnicate(x)\n}\n");
    for cmd in ["fmt", "check"] {
        let o = xla(&[cmd, tmp.path()]);
        // FILE:LINE:COL: message, pointing into line 5.
        assert_failure(&o, &format!("{}:5:", tmp.path()), 1);
    }
    let binary = Temp::new("binary.hlo", "\u{0}\u{1}\u{2}not hlo at all");
    assert_failure(
        &xla(&["check", binary.path()]),
        &format!("{}:1:", binary.path()),
        1,
    );
}

#[test]
fn check_reports_every_problem_of_an_invalid_module() {
    // Two problems: `s` declares the wrong shape, and `t` too.
    let text = "HloModule bad, entry_computation_layout={(f32[4]{0})->f32[3]{0}}\n\n\
                ENTRY main {\n  x = f32[4]{0} parameter(0)\n  s = f32[3]{0} add(x, x)\n  \
                ROOT t = f32[3]{0} negate(x)\n}\n";
    let tmp = Temp::new("invalid.hlo", text);
    let o = xla(&["check", tmp.path()]);
    assert_failure(
        &o,
        &format!("{}: computation main, instruction ", tmp.path()),
        2,
    );
    let err = stderr(&o);
    assert!(
        err.contains("instruction s: declared shape f32[3]"),
        "{err}"
    );
    assert!(
        err.contains("instruction t: declared shape f32[3]"),
        "{err}"
    );
}

#[test]
fn usage_errors_exit_2() {
    assert_eq!(xla(&[]).status.code(), Some(2));
    assert_eq!(xla(&["frobnicate"]).status.code(), Some(2));
    assert_eq!(xla(&["fmt"]).status.code(), Some(2));
}

#[test]
fn jax_export_bytes_and_text_run() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/stablehlo_jax/export_mlp");
    let ins: Vec<String> = (0..5)
        .map(|i| dir.join(format!("in{i}.npy")).to_str().unwrap().to_string())
        .collect();
    let out = std::env::temp_dir().join(format!("xla-cli-export-{}", std::process::id()));
    let out = out.to_str().unwrap();
    // `exported.serialize()` bytes run.
    let bin = dir.join("exported.bin");
    let mut args = vec!["run", bin.to_str().unwrap()];
    args.extend(ins.iter().map(String::as_str));
    args.extend(["--out", out]);
    let o = xla(&args);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let got = xla::Literal::read_npy(Path::new(out).join("out0.npy")).unwrap();
    let want = xla::Literal::read_npy(dir.join("out0.npy")).unwrap();
    let (g, w) = (got.to_vec::<f32>().unwrap(), want.to_vec::<f32>().unwrap());
    assert_eq!(g.len(), w.len());
    for (a, b) in g.iter().zip(&w) {
        assert!((a - b).abs() <= 2e-5 + 2e-5 * b.abs(), "{a} vs {b}");
    }
    let _ = std::fs::remove_dir_all(out);
    // `exported.mlir_module()` text runs.
    let text = dir.join("module.mlir");
    args[1] = text.to_str().unwrap();
    let o = xla(&args);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(Path::new(out).join("out0.npy").exists());
    let _ = std::fs::remove_dir_all(out);
    // A truncated serialization: one line naming the byte, exit 2.
    let bytes = std::fs::read(&bin).unwrap();
    let tmp = std::env::temp_dir().join(format!("xla-cli-cut-{}.bin", std::process::id()));
    std::fs::write(&tmp, &bytes[..bytes.len() / 2]).unwrap();
    let o = xla(&["check", tmp.to_str().unwrap()]);
    assert_failure(&o, &format!("{}: byte ", tmp.display()), 1);
    let _ = std::fs::remove_file(&tmp);
}

#[test]
fn elided_constants_are_read_with_a_warning() {
    // XLA's dumps write large constants as `constant({...})`; they are read as XLA's parser
    // reads them (placeholder values), and the CLI says so once per file.
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/hlo_elided/module.hlo");
    let file = file.to_str().unwrap();
    let o = xla(&["check", file]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(stdout(&o).trim(), "ok");
    let want = format!(
        "warning: {file}: 10 constant(s) elided as {{...}}; they hold XLA's placeholder values"
    );
    let err = stderr(&o);
    assert!(err.starts_with(&want) && err.lines().count() == 1, "{err}");
}
