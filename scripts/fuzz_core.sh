#!/usr/bin/env bash
# Builds and runs a fuzz target whose body needs only xla-core (`fuzz/src/NAME.rs`, function
# `NAME(data)`), against xla-core alone: a small crate under target/ names xla-core `xla` (a
# shim), so the build skips xla-cpu, cranelift and faer, the bulk of fuzz/'s crate (minutes
# instead of an hour and more on this loaded machine). Built with the flags cargo-fuzz passes
# (libFuzzer, no sanitizer), so only a nightly toolchain is needed, not cargo-fuzz.
# Usage: scripts/fuzz_core.sh NAME CORPUS MAX_LEN SECONDS
#   seeds from fuzz/corpus/CORPUS; new inputs go to target/fz/NAME, crashes to
#   target/fz/artifacts/ (copy each into fuzz/regressions/CORPUS/ so tests/fuzz_corpus.rs
#   replays it).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
name=$1 corpus=$2 max_len=$3 secs=$4
w="$root/target/fzcore-$name"
mkdir -p "$w/shim/src" "$w/fuzz/fuzz_targets" "$root/target/fz/$name" "$root/target/fz/artifacts"
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
printf '//! The facade names the xla-core-only fuzz targets use.\npub use xla_core as core;\npub use xla_core::{PrimitiveType, Shape};\n' > "$w/shim/src/lib.rs"
cat > "$w/fuzz/Cargo.toml" <<TOML
[package]
name = "fzcore-$name"
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
name = "$name"
path = "fuzz_targets/$name.rs"
test = false
doc = false
bench = false
TOML
cat > "$w/fuzz/fuzz_targets/$name.rs" <<RS
#![no_main]
#[path = "$root/fuzz/src/$name.rs"]
#[allow(dead_code)]
mod body;
libfuzzer_sys::fuzz_target!(|data: &[u8]| { let _ = body::$name(data); });
RS
flags="-Cpasses=sancov-module -Cllvm-args=-sanitizer-coverage-level=4"
flags="$flags -Cllvm-args=-sanitizer-coverage-inline-8bit-counters"
flags="$flags -Cllvm-args=-sanitizer-coverage-pc-table"
flags="$flags -Cllvm-args=-sanitizer-coverage-trace-compares --cfg fuzzing"
flags="$flags -Cdebug-assertions -Coverflow-checks"
cd "$w/fuzz" && RUSTFLAGS="$flags" CARGO_INCREMENTAL=0 nice -n 19 \
    cargo +nightly build --release --target x86_64-unknown-linux-gnu --bin "$name"
cd "$root" && nice -n 19 "$w/fuzz/target/x86_64-unknown-linux-gnu/release/$name" \
    "target/fz/$name" "fuzz/corpus/$corpus" \
    -max_total_time="$secs" -timeout=10 -rss_limit_mb=3072 -max_len="$max_len" \
    -artifact_prefix=target/fz/artifacts/ -print_final_stats=1
