//! Fuzz target `shape_rules` (body in `fuzz/src/shape_rules.rs`).
#![no_main]

#[path = "../src/targets.rs"]
#[allow(dead_code)]
mod targets;

libfuzzer_sys::fuzz_target!(|data: &[u8]| targets::shape_rules::shape_rules(data));
