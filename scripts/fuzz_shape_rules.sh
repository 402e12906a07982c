#!/usr/bin/env bash
# Builds and runs the `shape_rules` fuzz target (libFuzzer) against xla-core alone
# (scripts/fuzz_core.sh): the target only uses xla-core's builder, shape rules and verifier,
# so it builds in a fraction of the time of fuzz/'s crate, which links the whole facade
# (xla-cpu, cranelift, faer).
# Usage: scripts/fuzz_shape_rules.sh [SECONDS]   (default 1500; new inputs go to
# target/fz/shape_rules, crashes to target/fz/artifacts/; copy each crash into
# fuzz/regressions/shape_rules/ so tests/fuzz_corpus.rs replays it).
set -euo pipefail
exec "$(dirname "$0")/fuzz_core.sh" shape_rules shape_rules 4096 "${1:-1500}"
