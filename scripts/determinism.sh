#!/usr/bin/env bash
# Bit-identical results of B1-B17 (testdata/perf) at 1, 2, 3 and 8 kernel threads, in
# release (the test is #[ignore]d because the modules are large for a debug build).
set -euo pipefail
cd "$(dirname "$0")/.."
cargo test --release -p xla-cpu --test determinism -- --include-ignored --nocapture
