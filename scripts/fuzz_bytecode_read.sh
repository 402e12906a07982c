#!/usr/bin/env bash
# Fuzzes the reading half of the `stablehlo_bytecode` target (`fuzz/src/bytecode_read.rs`:
# bytecode → read → verify, no compile/execute) against xla-core alone (scripts/fuzz_core.sh):
# the full target links xla-cpu, cranelift and faer (1 h 45 min to build under load), this one
# only xla-core (4 min).
# Usage: scripts/fuzz_bytecode_read.sh [SECONDS]   (default 1200; seeds from
# fuzz/corpus/stablehlo_bytecode, new inputs in target/fz/bytecode_read, crashes in
# target/fz/artifacts/: copy each into fuzz/regressions/stablehlo_bytecode/).
set -euo pipefail
exec "$(dirname "$0")/fuzz_core.sh" bytecode_read stablehlo_bytecode 8192 "${1:-1200}"
