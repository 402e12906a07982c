//! `rng-bit-generator` against real XLA: every case of `testdata/rng/` (written by
//! `scripts/gen_rng_fixtures.py`, which ran each module on XLA:CPU through jax 0.10.2) is
//! parsed, run through `xla_cpu::Executable` on its state `in0.npy`, and both results, the
//! new state (`out0.npy`) and the bits (`out1.npy`), must equal XLA's bit for bit.
//!
//! The cases cover ThreeFry, Philox and `rng_default` (which XLA:CPU expands as Philox),
//! u8/u16/u32/u64 and s8..s64 results, scalars, odd lengths, multi-dimensional shapes with and
//! without an even dimension, the empty array, the all-zeros state, counters that wrap past
//! 2^64 inside the array, and Philox's 2-word and 3-word states. (XLA:CPU hands signed
//! results back with the unsigned dtype of the same width; the fixtures hold the same bits
//! viewed as the declared signed type.)

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};
use xla_core::Literal;

/// The case folders under `testdata/rng`, sorted.
fn case_dirs() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../testdata/rng");
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&root)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.join("module.hlo").exists())
        .collect();
    dirs.sort();
    dirs
}

fn read(dir: &Path, file: &str) -> Result<Literal, String> {
    Literal::read_npy(dir.join(file)).map_err(|e| e.to_string())
}

/// Checks one result leaf: same shape and element type, same bits.
fn same(what: &str, got: &Literal, want: &Literal) -> Result<(), String> {
    if got.shape().without_layout() != *want.shape() {
        return Err(format!(
            "{what}: shape {} vs XLA's {}",
            got.shape(),
            want.shape()
        ));
    }
    let (g, w) = (got.array_data(), want.array_data());
    match (g, w) {
        (Some(g), Some(w)) if g.bitwise_eq(w) => Ok(()),
        _ => Err(format!("{what}: got {g:?}\n      XLA gives {w:?}")),
    }
}

fn run_case(dir: &Path) -> Result<(), String> {
    let text = std::fs::read_to_string(dir.join("module.hlo")).map_err(|e| e.to_string())?;
    let module = xla_core::text::parse_module(&text).map_err(|e| format!("parse: {e}"))?;
    let exe = xla_cpu::Executable::compile(&module).map_err(|e| format!("compile: {e}"))?;
    let out = exe
        .execute(&[read(dir, "in0.npy")?])
        .map_err(|e| format!("execute: {e}"))?;
    let [state, bits] = out.tuple_elements().unwrap_or(&[]) else {
        return Err(format!("result {} is not a pair", out.shape()));
    };
    same("new state", state, &read(dir, "out0.npy")?)?;
    same("bits", bits, &read(dir, "out1.npy")?)
}

#[test]
fn rng_bit_generator_matches_xla_bit_for_bit() {
    let dirs = case_dirs();
    assert!(dirs.len() >= 130, "only {} cases found", dirs.len());
    let failures: Vec<String> = dirs
        .iter()
        .filter_map(|d| {
            let name = d.file_name().unwrap().to_string_lossy().into_owned();
            run_case(d).err().map(|e| format!("FAIL {name}: {e}"))
        })
        .collect();
    for f in &failures {
        println!("{f}");
    }
    assert!(
        failures.is_empty(),
        "{} of {} cases differ from XLA",
        failures.len(),
        dirs.len()
    );
}

/// XLA rejects state lengths its expander cannot split (`u64[1]` for both algorithms, anything
/// but `u64[2]` for ThreeFry, anything but `u64[2]`/`u64[3]` for Philox); so do we, at run time.
#[test]
fn unsupported_state_lengths_are_errors() {
    for (alg, k) in [
        ("rng_three_fry", 1),
        ("rng_three_fry", 3),
        ("rng_philox", 1),
        ("rng_philox", 4),
        ("rng_default", 4),
    ] {
        let text = format!(
            "HloModule t\nENTRY e {{\n  s = u64[{k}] parameter(0)\n  ROOT r = (u64[{k}], u32[3]) rng-bit-generator(s), algorithm={alg}\n}}\n"
        );
        let module = xla_core::text::parse_module(&text).unwrap();
        let err = xla_cpu::Executable::compile(&module)
            .and_then(|exe| exe.execute(&[Literal::vec1(&vec![1u64; k])]))
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("rng-bit-generator") && err.contains(&format!("u64[{k}]")),
            "{alg} u64[{k}]: {err}"
        );
    }
}
