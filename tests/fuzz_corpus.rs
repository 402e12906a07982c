//! Replays the fuzzers' seed corpus (`fuzz/corpus/TARGET/`) and every crash the fuzzers
//! ever found (`fuzz/regressions/TARGET/`) through the same target bodies the fuzzer
//! runs, so CI checks them without a fuzzer. A target panics only on a bug.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[path = "../fuzz/src/targets.rs"]
mod targets;

use std::path::Path;

/// The files under `fuzz/KIND/TARGET/`, sorted.
fn inputs(kind: &str, target: &str) -> Vec<std::path::PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fuzz")
        .join(kind)
        .join(target);
    let mut v: Vec<_> = std::fs::read_dir(dir)
        .map(|rd| rd.map(|e| e.unwrap().path()).collect())
        .unwrap_or_default();
    v.sort();
    v
}

fn replay(kind: &str) -> usize {
    let mut n = 0;
    for (name, run) in targets::TARGETS {
        for path in inputs(kind, name) {
            let data = std::fs::read(&path).unwrap();
            let caught = std::panic::catch_unwind(|| run(&data));
            assert!(caught.is_ok(), "{name}: {} panics", path.display());
            n += 1;
        }
    }
    n
}

#[test]
fn every_seed_of_every_fuzz_target_runs_cleanly() {
    // Each target has seeds.
    for (name, _) in targets::TARGETS {
        assert!(
            !inputs("corpus", name).is_empty(),
            "{name} has no seed corpus"
        );
    }
    assert!(replay("corpus") >= 300);
}

#[test]
fn every_crash_the_fuzzers_found_stays_fixed() {
    // At least the two inputs of issue 16 that aborted (a 10^12-element iota) and hung (a
    // `while` that never ends) before the memory limit and the deadline existed.
    assert!(replay("regressions") >= 2);
}

/// Random (not coverage-guided) inputs through the `shape_rules` target, for a quick run
/// without the fuzzer: `XLA_SHAPE_RULES_RUNS=1000000 cargo test --release --test
/// fuzz_corpus -- --ignored`. A failure prints the input to add to the corpus.
#[test]
#[ignore = "a long random run; the seeds run in every_seed_of_every_fuzz_target_runs_cleanly"]
fn shape_rules_on_random_inputs() {
    let runs: u64 = std::env::var("XLA_SHAPE_RULES_RUNS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(100_000);
    // xorshift64*: deterministic, so a failure reproduces.
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    let mut next = || {
        state ^= state >> 12;
        state ^= state << 25;
        state ^= state >> 27;
        state.wrapping_mul(0x2545_F491_4F6C_DD1D)
    };
    let prev = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    for _ in 0..runs {
        let len = (next() % 48) as usize;
        let data: Vec<u8> = (0..len).map(|_| next() as u8).collect();
        let caught = std::panic::catch_unwind(|| targets::shape_rules::shape_rules(&data));
        if caught.is_err() {
            std::panic::set_hook(prev);
            targets::shape_rules::shape_rules(&data);
            panic!("input {data:?}");
        }
    }
    std::panic::set_hook(prev);
}
