//! What JAX itself prints: each folder of `testdata/stablehlo_jax/` holds
//! `jax.jit(f).lower(...).as_text()` of a real JAX program (with `sdy`/`mhlo` attributes,
//! private functions and `func.call`s, `chlo` ops), its inputs and the outputs JAX returned
//! (`scripts/make_stablehlo_fixtures.py`). Each must parse, run and match within the
//! tolerances of its `meta.json`.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod cases;

use cases::{compare, flatten, read_numbered, rtol_for, run_fixture};
use std::path::{Path, PathBuf};

fn run_case(dir: &Path) -> Result<(), String> {
    let text = std::fs::read_to_string(dir.join("module.mlir")).unwrap();
    let module = xla_core::mlir::parse_stablehlo(&text).map_err(|e| format!("parse: {e}"))?;
    xla_core::verify::verify_module(&module).map_err(|e| format!("verify: {e}"))?;
    run_fixture(dir, &module)
}

#[test]
fn jax_printed_stablehlo_runs() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../testdata/stablehlo_jax");
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&root)
        .unwrap()
        .filter_map(|e| Some(e.ok()?.path()))
        .filter(|p| p.join("module.mlir").exists())
        .collect();
    dirs.sort();
    let failures: Vec<String> = dirs
        .iter()
        .filter_map(|d| run_case(d).err().map(|e| format!("{}: {e}", d.display())))
        .collect();
    println!(
        "{} of {} JAX programs passed",
        dirs.len() - failures.len(),
        dirs.len()
    );
    assert!(dirs.len() >= 10);
    assert!(failures.is_empty(), "{failures:#?}");
}

/// HLO text with constants elided as `constant({...})` (XLA's dumps and benchmark files):
/// the placeholder values must be the ones XLA's own parser fills in, bit for bit
/// (`scripts/make_elided_fixture.py` ran each module on real XLA): `hlo_elided` has one
/// constant of each element type, `hlo_elided_tail` constants whose size is not a whole
/// number of 32-bit words (XLA's byte counter for the tail, written at a byte offset equal
/// to the number of whole words, as in `ssd_mobilenet_tf.hlo`'s `bf16[1917]` constants).
#[test]
fn elided_hlo_constants_match_xla() {
    for case in ["hlo_elided", "hlo_elided_tail"] {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../testdata")
            .join(case);
        let text = std::fs::read_to_string(dir.join("module.hlo")).unwrap();
        let module = xla_core::text::parse_module(&text).unwrap();
        let exe = xla_cpu::Executable::compile(&module).unwrap();
        let mut got = Vec::new();
        flatten(
            exe.execute(&read_numbered(&dir, "in").unwrap()).unwrap(),
            &mut got,
        );
        let wants = read_numbered(&dir, "out").unwrap();
        assert_eq!(got.len(), wants.len(), "{case}");
        for (i, (g, w)) in got.iter().zip(&wants).enumerate() {
            let (gd, wd) = (g.array_data().unwrap(), w.array_data().unwrap());
            assert!(gd.bitwise_eq(wd), "{case} out{i}: got {gd:?} want {wd:?}");
        }
    }
}

/// `print_stablehlo` then `parse_stablehlo` gives a module with the same results: every
/// public conformance case (small inputs in debug builds) through our own StableHLO printer
/// and reader. (That real XLA runs the printed text is checked by
/// `scripts/stablehlo_fmt_runner.py` with the conformance checker.)
#[test]
fn printed_stablehlo_reads_back_and_runs() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../testdata/conformance/public");
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&root)
        .unwrap()
        .filter_map(|e| Some(e.ok()?.path()))
        .filter(|p| p.join("module.hlo").exists())
        .filter(|d| {
            let bytes: u64 = std::fs::read_dir(d)
                .map(|rd| {
                    rd.filter_map(|e| e.ok()?.metadata().ok())
                        .map(|m| m.len())
                        .sum()
                })
                .unwrap_or(0);
            !cfg!(debug_assertions) || bytes < 64 * 1024
        })
        .collect();
    dirs.sort();
    let mut failures = Vec::new();
    let mut printed = 0;
    for d in &dirs {
        let text = std::fs::read_to_string(d.join("module.hlo")).unwrap();
        let module = xla_core::text::parse_module(&text).unwrap();
        let Ok(mlir) = xla_core::mlir::print_stablehlo(&module) else {
            continue;
        };
        printed += 1;
        let r = xla_core::mlir::parse_stablehlo(&mlir)
            .map_err(|e| format!("read back: {e}"))
            .and_then(|m| {
                let meta: serde_json::Value =
                    serde_json::from_str(&std::fs::read_to_string(d.join("meta.json")).unwrap())
                        .unwrap();
                let exe = xla_cpu::Executable::compile(&m).map_err(|e| e.to_string())?;
                let mut got = Vec::new();
                flatten(
                    exe.execute(&read_numbered(d, "in")?)
                        .map_err(|e| e.to_string())?,
                    &mut got,
                );
                let wants = read_numbered(d, "out")?;
                if got.len() != wants.len() {
                    return Err(format!("{} outputs, expected {}", got.len(), wants.len()));
                }
                let (rtol, atol) = (
                    meta["rtol"].as_f64().unwrap_or(0.0),
                    meta["atol"].as_f64().unwrap_or(0.0),
                );
                got.iter().zip(&wants).try_for_each(|(g, w)| {
                    compare(g, w, rtol_for(w.shape().element_type(), rtol), atol)
                })
            });
        if let Err(e) = r {
            failures.push(format!("{}: {e}", d.display()));
        }
    }
    println!(
        "{} of {printed} printed modules read back and ran",
        printed - failures.len()
    );
    assert!(
        printed * 10 >= dirs.len() * 9,
        "only {printed} of {} printed",
        dirs.len()
    );
    assert!(failures.is_empty(), "{failures:#?}");
}

/// `jax.export`'s `exported.serialize()` bytes (MLIR bytecode in VHLO inside a flatbuffer):
/// each folder of `testdata/jax_export/` (`scripts/make_export_bytecode_fixtures.py`: an
/// MLP, a CNN with convolutions and pooling, a scan and a while loop, jnp.linalg's LAPACK
/// calls, sort/argsort/top_k/argmax, gather/scatter, integer and bool ops, sharded
/// exports over a one-device mesh: Shardy, GSPMD and shard_map) and
/// `stablehlo_jax/export_mlp` must read, run and match what the deserialized export
/// returned on real XLA.
#[test]
fn jax_exported_bytecode_runs() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../testdata");
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(root.join("jax_export"))
        .unwrap()
        .filter_map(|e| Some(e.ok()?.path()))
        .filter(|p| p.join("exported.bin").exists())
        .collect();
    dirs.sort();
    dirs.push(root.join("stablehlo_jax/export_mlp"));
    let failures: Vec<String> = dirs
        .iter()
        .filter_map(|d| {
            let bytes = std::fs::read(d.join("exported.bin")).unwrap();
            xla_core::mlir::parse_bytecode(&bytes)
                .map_err(|e| format!("read: {e}"))
                .and_then(|m| {
                    xla_core::verify::verify_module(&m).map_err(|e| format!("verify: {e}"))?;
                    run_fixture(d, &m)
                })
                .err()
                .map(|e| format!("{}: {e}", d.display()))
        })
        .collect();
    println!(
        "{} of {} exported programs passed",
        dirs.len() - failures.len(),
        dirs.len()
    );
    assert!(dirs.len() >= 8);
    assert!(failures.is_empty(), "{failures:#?}");
}

/// Sharded exports over a one-device mesh read as text too (`exported.mlir_module()`):
/// Shardy's `sdy.mesh` and `sdy.sharding` are skipped and `sdy.sharding_constraint` is its
/// operand; GSPMD's `mhlo.sharding` is skipped and `custom_call @Sharding` is its operand;
/// a `shard_map` psum is an all-reduce over the one device. Each runs and matches JAX.
#[test]
fn sharded_exports_run_from_text() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../testdata/jax_export");
    for name in ["sharded", "sharded_gspmd", "shard_map"] {
        let d = root.join(name);
        let text = std::fs::read_to_string(d.join("module.mlir")).unwrap();
        let m = xla_core::mlir::parse_stablehlo(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
        xla_core::verify::verify_module(&m).unwrap();
        run_fixture(&d, &m).unwrap_or_else(|e| panic!("{name}: {e}"));
    }
    let sharded = std::fs::read_to_string(root.join("sharded/module.mlir")).unwrap();
    assert!(sharded.contains("sdy.mesh") && sharded.contains("sdy.sharding_constraint"));
    let gspmd = std::fs::read_to_string(root.join("sharded_gspmd/module.mlir")).unwrap();
    assert!(gspmd.contains("@Sharding") && gspmd.contains("mhlo.sharding"));
}

/// A Shardy op other than the annotations (a manual computation over a real mesh) is
/// named in one error with its line and column, never run wrongly.
#[test]
fn unsupported_shardy_op_is_named() {
    let text = "module @m {
  sdy.mesh @mesh = <[\"x\"=2]>
  func.func public @main(%a: tensor<4xf32>) -> tensor<4xf32> {
    %0 = sdy.all_gather [{\"x\"}] %a out_sharding=<@mesh, [{}]> : tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}
";
    let err = xla_core::mlir::parse_stablehlo(text)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("sdy.all_gather") && err.contains("4:"),
        "{err}"
    );
}
