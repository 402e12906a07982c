//! The fuzz targets' bodies, shared by the fuzzer (`fuzz/fuzz_targets/*.rs`, cargo-fuzz
//! and libFuzzer) and by the replay test (`tests/fuzz_corpus.rs`), which runs every seed
//! in `fuzz/corpus/` and every crash ever found (`fuzz/regressions/`) under plain
//! `cargo test`. A target panics only on a bug: any input may be rejected with an
//! error, none may panic, abort, hang or run away with memory.

use std::time::Duration;
use xla::core::mlir::parse_stablehlo;
use xla::core::text::{parse_module, print_module};
use xla::core::verify::verify_module;
use xla::cpu::{Executable, ExecuteOptions};
use xla::{Literal, Module, Shape};

/// A target's body: runs one input.
pub type Target = fn(&[u8]);

/// The targets by name (the folder names under `fuzz/corpus/`).
pub const TARGETS: [(&str, Target); 7] = [
    ("hlo_parse", hlo_parse),
    ("hlo_run", hlo_run),
    ("npy", npy),
    ("safetensors", safetensors),
    ("shape_rules", shape_rules::shape_rules),
    ("stablehlo_parse", stablehlo_parse),
    ("stablehlo_bytecode", stablehlo_bytecode),
];

#[path = "shape_rules.rs"]
pub mod shape_rules;

#[path = "bytecode_read.rs"]
pub mod bytecode_read;

#[path = "inputs.rs"]
mod inputs;

/// HLO text: parse, verify, and print; what parses must print to text that parses again.
pub fn hlo_parse(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(m) = parse_module(text) else {
        return;
    };
    let _ = verify_module(&m);
    let printed = print_module(&m);
    if let Err(e) = parse_module(&printed) {
        panic!("the printed module does not parse again: {e}\n{printed}");
    }
}

/// Largest total of parameter elements the run target feeds.
const MAX_INPUT_ELEMENTS: i64 = 1 << 12;

/// HLO text: parse, verify, compile and execute on small seeded inputs, with a 64 MiB
/// memory limit and a one-second deadline (so a runaway loop is an error, not a hang).
pub fn hlo_run(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(m) = parse_module(text) else {
        return;
    };
    run_module(&m);
}

/// Compiles and runs `m` on seeded inputs (see [`hlo_run`]).
pub fn run_module(m: &Module) {
    let Ok(exe) = Executable::compile(m) else {
        return;
    };
    let Some(entry) = m.entry_computation() else {
        return;
    };
    let shapes: Vec<Shape> = entry
        .parameters()
        .iter()
        .filter_map(|id| entry.get(*id).map(|i| i.shape.clone()))
        .collect();
    let total: i64 = shapes
        .iter()
        .map(|s| inputs::element_count(s).unwrap_or(i64::MAX))
        .fold(0, i64::saturating_add);
    if total > MAX_INPUT_ELEMENTS {
        return;
    }
    let Some(args) = shapes
        .iter()
        .enumerate()
        .map(|(k, s)| inputs::input(s, k))
        .collect::<Option<Vec<_>>>()
    else {
        return;
    };
    exe.set_memory_limit(Some(64 << 20));
    let refs: Vec<&Literal> = args.iter().collect();
    let opts = ExecuteOptions::new().with_timeout(Duration::from_secs(1));
    let _ = exe.execute_with_options(&refs, &opts);
}

/// `.npy` bytes: read; what reads must write and read back to the same literal.
pub fn npy(data: &[u8]) {
    let Ok(l) = Literal::from_npy_bytes(data) else {
        return;
    };
    let bytes = match l.to_npy_bytes() {
        Ok(b) => b,
        Err(e) => panic!("read {} but cannot write it: {e}", l.shape()),
    };
    match Literal::from_npy_bytes(&bytes) {
        Ok(back) => assert_eq!(
            back.to_npy_bytes().ok(),
            Some(bytes),
            "{} changes through write and read",
            l.shape()
        ),
        Err(e) => panic!("wrote {} as bytes that do not read: {e}", l.shape()),
    }
}

/// Safetensors bytes: read as a checkpoint.
pub fn safetensors(data: &[u8]) {
    let _ = xla::train::Checkpoint::from_bytes(data, "fuzz.safetensors");
}

/// StableHLO (MLIR) text: parse and verify; what parses and verifies also compiles and
/// runs like HLO text.
pub fn stablehlo_parse(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(m) = parse_stablehlo(text) {
        if verify_module(&m).is_ok() {
            run_module(&m);
        }
    }
}

/// MLIR bytecode in VHLO (`jax.export` serializations): read, verify and run; malformed
/// bytes must give an error with an offset, never a panic.
pub fn stablehlo_bytecode(data: &[u8]) {
    if let Some(m) = bytecode_read::bytecode_read(data) {
        run_module(&m);
    }
}
