#!/usr/bin/env bash
# Builds and runs the `shape_rules` fuzz target (libFuzzer via cargo-fuzz) against
# xla-core alone: the target only uses xla-core's builder, shape rules and verifier, so a
# small crate under target/ that names xla-core `xla` (a shim) builds in a fraction of the
# time of fuzz/'s crate, which links the whole facade (xla-cpu, cranelift, faer).
# Usage: scripts/fuzz_shape_rules.sh [SECONDS]   (default 1500; new inputs go to
# target/fz/shape_rules, crashes to target/fz/artifacts/; copy each crash into
# fuzz/regressions/shape_rules/ so tests/fuzz_corpus.rs replays it).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
secs=${1:-1500}
w="$root/target/fzcore"
mkdir -p "$w/src" "$w/shim/src" "$w/fuzz/fuzz_targets" "$root/target/fz/shape_rules" "$root/target/fz/artifacts"
printf '[package]\nname = "fzcore-root"\nversion = "0.0.0"\nedition = "2021"\npublish = false\n[workspace]\n' > "$w/Cargo.toml"
: > "$w/src/lib.rs"
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
printf '//! The facade names the shape_rules target uses, from xla-core alone.\npub use xla_core as core;\npub use xla_core::{PrimitiveType, Shape};\n' > "$w/shim/src/lib.rs"
cat > "$w/fuzz/Cargo.toml" <<'TOML'
[package]
name = "fzcore"
version = "0.0.0"
publish = false
edition = "2021"
[package.metadata]
cargo-fuzz = true
[dependencies]
libfuzzer-sys = "0.4"
xla = { package = "xla-shim", path = "../shim" }
[workspace]
members = ["."]
[profile.release]
debug = 1
[[bin]]
name = "shape_rules"
path = "fuzz_targets/shape_rules.rs"
test = false
doc = false
bench = false
TOML
cat > "$w/fuzz/fuzz_targets/shape_rules.rs" <<RS
#![no_main]
#[path = "$root/fuzz/src/shape_rules.rs"]
#[allow(dead_code)]
mod shape_rules;
libfuzzer_sys::fuzz_target!(|data: &[u8]| shape_rules::shape_rules(data));
RS
cd "$w" && nice -n 19 cargo +nightly fuzz build shape_rules --sanitizer none
cd "$root" && nice -n 19 "$w/fuzz/target/x86_64-unknown-linux-gnu/release/shape_rules" \
    target/fz/shape_rules fuzz/corpus/shape_rules \
    -max_total_time="$secs" -timeout=10 -rss_limit_mb=3072 -max_len=4096 \
    -artifact_prefix=target/fz/artifacts/ -print_final_stats=1
