//! The HLO text parser against the conformance modules, hand-written edge cases and error
//! positions, and a mutation test that it never panics.

#![allow(clippy::unwrap_used)]

use std::path::{Path, PathBuf};
use xla_core::text::parse_module;

fn conformance_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../testdata/conformance")
}

/// Every `module.hlo` under `testdata/conformance/<split>/`, sorted by case name.
fn modules(split: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(conformance_dir().join(split)).unwrap() {
        let path = entry.unwrap().path().join("module.hlo");
        if path.exists() {
            let name = path
                .parent()
                .unwrap()
                .file_name()
                .unwrap()
                .to_string_lossy()
                .into_owned();
            out.push((name, std::fs::read_to_string(&path).unwrap()));
        }
    }
    out.sort();
    out
}

#[test]
fn every_conformance_module_parses() {
    let mut failures = Vec::new();
    let mut count = 0;
    for split in ["public", "grad_public"] {
        for (name, text) in modules(split) {
            count += 1;
            if let Err(e) = parse_module(&text) {
                failures.push(format!("{split}/{name}: {e}"));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert_eq!(count, 420 + 29);
}
