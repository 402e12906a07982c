//! Runs every case of `testdata/conformance/public/`: parse `module.hlo`, read `in*.npy`,
//! execute, and compare with `out*.npy` under the tolerances in `meta.json`
//! (`|got - want| <= atol + rtol * |want|`, NaN where NaN, ±inf exactly, integers and bools
//! exactly, dtype and shape exactly; tuple results flattened depth-first).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod cases;

use cases::{compare, flatten, read_numbered};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use xla_core::Literal;

/// Cases that must pass; raise it as the executor improves.
const PASS_FLOOR: usize = 420;

/// Parses and compiles a case's module and runs it on its inputs.
fn execute_case(dir: &Path) -> Result<Literal, String> {
    let text = std::fs::read_to_string(dir.join("module.hlo")).map_err(|e| e.to_string())?;
    let module = xla_core::text::parse_module(&text).map_err(|e| format!("parse: {e}"))?;
    let args = read_numbered(dir, "in")?;
    let exe = xla_cpu::Executable::compile(&module).map_err(|e| format!("compile: {e}"))?;
    exe.execute(&args).map_err(|e| format!("execute: {e}"))
}

/// The case folders under `testdata/conformance/SPLIT`, sorted.
fn dirs_of(split: &str) -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../testdata/conformance")
        .join(split);
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&root)
        .map(|rd| {
            rd.filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.join("module.hlo").exists())
                .collect()
        })
        .unwrap_or_default();
    dirs.sort();
    dirs
}

fn run_case(dir: &Path) -> Result<(), String> {
    let meta: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(dir.join("meta.json")).map_err(|e| e.to_string())?,
    )
    .map_err(|e| e.to_string())?;
    let rtol = meta["rtol"].as_f64().unwrap_or(0.0);
    let atol = meta["atol"].as_f64().unwrap_or(0.0);
    let mut got = Vec::new();
    flatten(execute_case(dir)?, &mut got);
    let wants = read_numbered(dir, "out")?;
    if got.len() != wants.len() {
        return Err(format!("{} outputs, expected {}", got.len(), wants.len()));
    }
    for (i, (g, w)) in got.iter().zip(&wants).enumerate() {
        compare(g, w, rtol, atol).map_err(|e| format!("out{i}: {e}"))?;
    }
    Ok(())
}

fn case_dirs() -> Vec<PathBuf> {
    let mut dirs = dirs_of("public");
    if let Ok(f) = std::env::var("CONFORMANCE_FILTER") {
        dirs.retain(|d| d.to_string_lossy().contains(&f));
    }
    dirs
}

#[test]
fn conformance_public() {
    let dirs = case_dirs();
    let mut per_op: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    let mut failures = Vec::new();
    let mut passed = 0;
    for dir in &dirs {
        let name = dir
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let op = std::fs::read_to_string(dir.join("meta.json"))
            .ok()
            .and_then(|s| serde_json::from_str::<serde_json::Value>(&s).ok())
            .and_then(|m| m["op"].as_str().map(String::from))
            .unwrap_or_default();
        let r =
            std::panic::catch_unwind(|| run_case(dir)).unwrap_or_else(|_| Err("panicked".into()));
        let e = per_op.entry(op).or_default();
        e.1 += 1;
        match r {
            Ok(()) => {
                e.0 += 1;
                passed += 1;
            }
            Err(msg) => failures.push(format!("FAIL {name}: {msg}")),
        }
    }
    for (op, (p, n)) in &per_op {
        println!("{op:>28}: {p}/{n}");
    }
    for f in &failures {
        println!("{f}");
    }
    println!("{passed} passed, {} failed", dirs.len() - passed);
    // The floor applies to the whole set, not to a filtered run.
    if std::env::var("CONFORMANCE_FILTER").is_err() {
        assert!(
            passed >= PASS_FLOOR,
            "{passed} passed, below the floor of {PASS_FLOOR}"
        );
    }
}

/// The forward modules of `testdata/conformance/grad_public/` (whose outputs are gradients,
/// checked elsewhere) must run and give a finite scalar f32.
#[test]
fn grad_public_forward_modules_run() {
    let dirs = dirs_of("grad_public");
    let mut failures = Vec::new();
    for dir in &dirs {
        let r = execute_case(dir).and_then(|out| match out.data::<f32>() {
            Some([v]) if v.is_finite() => Ok(()),
            _ => Err(format!("result {} is not a finite f32 scalar", out.shape())),
        });
        if let Err(e) = r {
            failures.push(format!("{}: {e}", dir.display()));
        }
    }
    assert!(!dirs.is_empty());
    assert!(failures.is_empty(), "{failures:#?}");
}

/// Reads a case's `module.mlir` (StableHLO, as XLA's `hlo_to_stablehlo` prints the same
/// program), runs it and compares with the case's expected outputs: the StableHLO reader
/// must give the same results as the HLO text.
fn run_mlir_case(dir: &Path) -> Result<(), String> {
    let meta: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(dir.join("meta.json")).map_err(|e| e.to_string())?,
    )
    .map_err(|e| e.to_string())?;
    let text = std::fs::read_to_string(dir.join("module.mlir")).map_err(|e| e.to_string())?;
    let module = xla_core::mlir::parse_stablehlo(&text).map_err(|e| format!("parse: {e}"))?;
    let args = read_numbered(dir, "in")?;
    let exe = xla_cpu::Executable::compile(&module).map_err(|e| format!("compile: {e}"))?;
    let mut got = Vec::new();
    flatten(
        exe.execute(&args).map_err(|e| format!("execute: {e}"))?,
        &mut got,
    );
    let wants = read_numbered(dir, "out")?;
    if got.len() != wants.len() {
        return Err(format!("{} outputs, expected {}", got.len(), wants.len()));
    }
    let (rtol, atol) = (
        meta["rtol"].as_f64().unwrap_or(0.0),
        meta["atol"].as_f64().unwrap_or(0.0),
    );
    for (i, (g, w)) in got.iter().zip(&wants).enumerate() {
        compare(g, w, rtol, atol).map_err(|e| format!("out{i}: {e}"))?;
    }
    Ok(())
}

/// Every public case through its `module.mlir` (inputs under 64 KiB in debug builds, to
/// keep `cargo test` quick; all of them in release).
#[test]
fn conformance_public_stablehlo() {
    let small = |d: &PathBuf| {
        let bytes: u64 = std::fs::read_dir(d)
            .map(|rd| {
                rd.filter_map(|e| e.ok()?.metadata().ok())
                    .map(|m| m.len())
                    .sum()
            })
            .unwrap_or(0);
        !cfg!(debug_assertions) || bytes < 64 * 1024
    };
    let dirs: Vec<PathBuf> = case_dirs()
        .into_iter()
        .filter(|d| d.join("module.mlir").exists() && small(d))
        .collect();
    let failures: Vec<String> = dirs
        .iter()
        .filter_map(|d| {
            run_mlir_case(d)
                .err()
                .map(|e| format!("{}: {e}", d.display()))
        })
        .collect();
    println!(
        "{} of {} StableHLO cases passed",
        dirs.len() - failures.len(),
        dirs.len()
    );
    assert!(
        dirs.len() >= 300,
        "only {} cases with module.mlir",
        dirs.len()
    );
    assert!(failures.is_empty(), "{failures:#?}");
}
