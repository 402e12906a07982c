//! `#[computation]` compile tests: `ui/pass` must compile and run; each `ui/fail` case must
//! fail with exactly the diagnostic in its `.stderr` (snapshots depend on the pinned rustc).

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.pass("tests/ui/pass/*.rs");
    t.compile_fail("tests/ui/fail/*.rs");
}
