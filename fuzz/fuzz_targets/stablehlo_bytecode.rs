//! Fuzz target `stablehlo_bytecode` (body in `fuzz/src/targets.rs`).
#![no_main]

#[path = "../src/targets.rs"]
#[allow(dead_code)]
mod targets;

libfuzzer_sys::fuzz_target!(|data: &[u8]| targets::stablehlo_bytecode(data));
