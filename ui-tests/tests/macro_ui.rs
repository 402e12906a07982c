//! `#[computation]` compile tests: each `ui/fail` case must fail with exactly the diagnostic
//! in its `.stderr` (snapshots depend on the pinned rustc). The `ui/pass` cases are test
//! targets of their own (Cargo.toml, `harness = false`): each compiles as a crate and its
//! `main` must run to a success exit.
//!
//! With compile-fail cases only, trybuild runs `cargo check`, not `cargo build`: its project
//! (target/tests/trybuild) type-checks the facade's dependencies instead of compiling them,
//! then checks all cases in one `cargo check --bins --keep-going`.

use std::path::Path;

/// The rustc flags trybuild gives its project: `--cfg trybuild --verbose -A dead_code`, and
/// `--diagnostic-width=140` when it compiles the cases. It passes them as `--config` values,
/// which cargo hashes into every artifact's name, so the dependencies it first checks without
/// the width would be checked a second time with it. `CARGO_ENCODED_RUSTFLAGS` (which cargo
/// prefers to `--config` rustflags, and trybuild leaves alone) gives both steps the same
/// flags: the dependencies are checked once, and the diagnostics keep their 140 columns.
const TRYBUILD_RUSTFLAGS: [&str; 6] = [
    "--cfg",
    "trybuild",
    "--verbose",
    "-A",
    "dead_code",
    "--diagnostic-width=140",
];

/// One test (no other thread of this binary reads the environment while it is set).
#[test]
fn ui() {
    every_pass_case_is_a_test_target();
    std::env::set_var("CARGO_ENCODED_RUSTFLAGS", TRYBUILD_RUSTFLAGS.join("\u{1f}"));
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/fail/*.rs");
}

/// Every `tests/ui/pass/*.rs` is a `[[test]]` target in Cargo.toml, so none is left unbuilt.
fn every_pass_case_is_a_test_target() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let manifest = std::fs::read_to_string(dir.join("Cargo.toml")).unwrap();
    let mut cases = 0;
    for entry in std::fs::read_dir(dir.join("tests/ui/pass")).unwrap() {
        let name = entry.unwrap().file_name().into_string().unwrap();
        if let Some(stem) = name.strip_suffix(".rs") {
            cases += 1;
            let target = format!(
                "[[test]]\nname = \"ui_pass_{stem}\"\npath = \"tests/ui/pass/{name}\"\nharness = false\n"
            );
            assert!(
                manifest.contains(&target),
                "tests/ui/pass/{name} has no `[[test]]` target in ui-tests/Cargo.toml:\n{target}"
            );
        }
    }
    assert!(cases >= 7, "only {cases} pass cases found");
}
