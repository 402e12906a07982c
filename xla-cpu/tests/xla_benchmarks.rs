//! XLA's own CPU benchmark models (openxla/xla `xla/backends/cpu/benchmarks/hlo/`, their
//! large constants elided as `constant({...})`): each folder of `testdata/xla_benchmarks/`
//! holds the module, random inputs and what real XLA returned
//! (`scripts/make_xla_benchmark_cases.py`). Elided constants hold XLA's placeholder values
//! (a counter of 32-bit words across the module's constants), so the gathers from the
//! embedding tables must agree bit for bit; the final outputs are NaN on both sides.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod cases;

use cases::run_fixture;
use std::path::Path;

fn run(name: &str) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../testdata/xla_benchmarks")
        .join(name);
    let text = std::fs::read_to_string(dir.join("module.hlo")).unwrap();
    let module = xla_core::text::parse_module(&text).unwrap();
    run_fixture(&dir, &module).unwrap_or_else(|e| panic!("{name}: {e}"));
}

#[test]
fn graphsage_runs_as_on_xla() {
    run("graphsage_tf");
}

#[test]
fn graphsage_gathers_from_placeholder_tables_match_xla() {
    run("graphsage_tf_probe");
}
