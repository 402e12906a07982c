//! `jax.export` serializations (MLIR bytecode in VHLO): the reader gives the same program
//! as the exported module's text, and bad bytes give one error with a byte offset, never a
//! panic. (That the programs run and match JAX is `xla-cpu/tests/stablehlo_jax.rs`.)

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};
use xla_core::mlir::{parse_bytecode, parse_stablehlo};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../testdata/jax_export")
        .join(name)
}

fn program_shape(m: &xla_core::Module) -> String {
    let c = m.entry_computation().unwrap();
    let params: Vec<String> = c
        .parameter_shapes()
        .iter()
        .map(ToString::to_string)
        .collect();
    format!("({}) -> {}", params.join(", "), c.result_shape().unwrap())
}

/// Every fixture reads, and gives the same parameters and result as the reader of
/// StableHLO text on `exported.mlir_module()`.
#[test]
fn bytecode_and_text_give_the_same_program_shape() {
    for name in ["mlp", "cnn", "scan", "linalg", "sort", "indexing", "ints"] {
        let d = fixture(name);
        let from_bytes = parse_bytecode(&std::fs::read(d.join("exported.bin")).unwrap())
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        let text = std::fs::read_to_string(d.join("module.mlir")).unwrap();
        let from_text = parse_stablehlo(&text).unwrap_or_else(|e| panic!("{name} text: {e}"));
        assert_eq!(
            program_shape(&from_bytes),
            program_shape(&from_text),
            "{name}"
        );
    }
}

/// The bare bytecode stream inside a serialization (the flatbuffer's byte vector).
fn bare(name: &str) -> Vec<u8> {
    let raw = std::fs::read(fixture(name).join("exported.bin")).unwrap();
    let at = raw.windows(4).position(|w| w == b"ML\xefR").unwrap();
    let len = u32::from_le_bytes(raw[at - 4..at].try_into().unwrap()) as usize;
    raw[at..at + len].to_vec()
}

#[test]
fn bare_bytecode_reads_too() {
    let m = parse_bytecode(&bare("mlp")).unwrap();
    assert_eq!(
        program_shape(&m),
        "(f32[6,16], f32[16], f32[16,3], f32[3], f32[5,6]) -> f32[5,3]"
    );
}

#[test]
fn every_truncation_is_an_error_with_an_offset_inside_the_input() {
    let bc = bare("sort");
    for n in 0..bc.len() {
        let e = parse_bytecode(&bc[..n]).expect_err("a truncated stream must not read");
        assert!(e.offset <= n, "cut at {n}: offset {} ({e})", e.offset);
    }
}

#[test]
fn corrupted_bytes_never_panic() {
    let bc = bare("cnn");
    let mut seed = 15u64;
    for _ in 0..2000 {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let mut b = bc.clone();
        let i = 4 + (seed >> 33) as usize % (b.len() - 4);
        b[i] = (seed >> 13) as u8;
        let _ = parse_bytecode(&b);
    }
}

#[test]
fn an_unread_version_is_named() {
    let mut bc = bare("mlp");
    bc[4] = (9 << 1) | 1; // version varint 9
    let e = parse_bytecode(&bc).unwrap_err();
    assert_eq!(e.offset, 4);
    assert_eq!(
        e.message,
        "bytecode version 9 is not read (versions 4 to 6 are)"
    );
}

#[test]
fn an_unknown_op_is_named_with_its_offset() {
    let mut raw = std::fs::read(fixture("mlp").join("exported.bin")).unwrap();
    let at = raw.windows(7).position(|w| w == b"tanh_v2").unwrap();
    raw[at..at + 7].copy_from_slice(b"tanx_v2");
    let e = parse_bytecode(&raw).unwrap_err();
    assert_eq!(e.message, "unknown op 'vhlo.tanx_v2'");
    let magic = raw.windows(4).position(|w| w == b"ML\xefR").unwrap();
    assert!(e.offset > magic && e.offset < raw.len(), "{e}");
}

#[test]
fn text_is_not_bytecode() {
    let e = parse_bytecode(b"module {}").unwrap_err();
    assert_eq!(e.offset, 0);
    assert!(e.message.contains("no MLIR bytecode"), "{e}");
}
