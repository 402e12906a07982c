#!/usr/bin/env bash
# Builds and runs the reading half of the `stablehlo_bytecode` fuzz target
# (`fuzz/src/bytecode_read.rs`: bytecode → read → verify, no compile/execute) against
# xla-core alone, as scripts/fuzz_shape_rules.sh does for `shape_rules`: the full target
# links xla-cpu, cranelift and faer (1 h 45 min to build under load), this one only
# xla-core. Built with the flags cargo-fuzz passes (libFuzzer, no sanitizer), so
# cargo-fuzz itself is not needed; a nightly toolchain is.
# Usage: scripts/fuzz_bytecode_read.sh [SECONDS]   (default 1200; starts from the seeds in
# fuzz/corpus/stablehlo_bytecode; new inputs go to target/fz/bytecode_read, crashes to
# target/fz/artifacts/: copy each into fuzz/regressions/stablehlo_bytecode/ so
# tests/fuzz_corpus.rs replays it through the full target).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
secs=${1:-1200}
w="$root/target/fzbytecode"
mkdir -p "$w/shim/src" "$w/fuzz/fuzz_targets" "$root/target/fz/bytecode_read" "$root/target/fz/artifacts"
cat > "$w/shim/Cargo.toml" <<TOML
[package]
name = "xla-shim"
version = "0.0.0"
edition = "2021"
publish = false
[lib]
name = "xla"
[dependencies]
xla-core = { path = "$root/xla-core", default-features = false }
TOML
printf '//! The facade names the bytecode_read target uses, from xla-core alone.\npub use xla_core as core;\n' > "$w/shim/src/lib.rs"
cat > "$w/fuzz/Cargo.toml" <<'TOML'
[package]
name = "fzbytecode"
version = "0.0.0"
publish = false
edition = "2021"
[dependencies]
libfuzzer-sys = "0.4"
xla = { package = "xla-shim", path = "../shim" }
[workspace]
members = ["."]
[profile.release]
debug = 1
[[bin]]
name = "bytecode_read"
path = "fuzz_targets/bytecode_read.rs"
test = false
doc = false
bench = false
TOML
cat > "$w/fuzz/fuzz_targets/bytecode_read.rs" <<RS
#![no_main]
#[path = "$root/fuzz/src/bytecode_read.rs"]
mod bytecode_read;
libfuzzer_sys::fuzz_target!(|data: &[u8]| { let _ = bytecode_read::bytecode_read(data); });
RS
flags="-Cpasses=sancov-module -Cllvm-args=-sanitizer-coverage-level=4"
flags="$flags -Cllvm-args=-sanitizer-coverage-inline-8bit-counters"
flags="$flags -Cllvm-args=-sanitizer-coverage-pc-table"
flags="$flags -Cllvm-args=-sanitizer-coverage-trace-compares --cfg fuzzing"
flags="$flags -Cdebug-assertions -Coverflow-checks"
cd "$w/fuzz" && RUSTFLAGS="$flags" CARGO_INCREMENTAL=0 nice -n 19 \
    cargo +nightly build --release --target x86_64-unknown-linux-gnu --bin bytecode_read
cd "$root" && nice -n 19 "$w/fuzz/target/x86_64-unknown-linux-gnu/release/bytecode_read" \
    target/fz/bytecode_read fuzz/corpus/stablehlo_bytecode \
    -max_total_time="$secs" -timeout=10 -rss_limit_mb=3072 -max_len=8192 \
    -artifact_prefix=target/fz/artifacts/ -print_final_stats=1
