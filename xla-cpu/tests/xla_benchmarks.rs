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

/// `ssd_mobilenet_tf.hlo` exactly as XLA's repository has it (108,522 characters, metadata
/// kept): it parses with its 100 elided constants, verifies and compiles, with XLA's result
/// shapes.
#[test]
fn ssd_mobilenet_parses_and_compiles() {
    let dir =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../testdata/xla_benchmarks/ssd_mobilenet_tf");
    let text = std::fs::read_to_string(dir.join("module.hlo")).unwrap();
    assert_eq!(text.len(), 108_522);
    let module = xla_core::text::parse_module(&text).unwrap();
    let root = module.entry_computation().unwrap().result_shape().unwrap();
    assert_eq!(
        root.without_layout().to_string(),
        "(f32[1,1917,1,4], f32[1,1917,90])"
    );
    xla_cpu::Executable::compile(&module).unwrap();
}

/// The first convolution and ReLU6 layers of ssd_mobilenet (bf16, on placeholder weights
/// that are tiny normal numbers), the layers where placeholder NaNs arrive and corners of
/// both outputs (NaN) agree with real XLA; the input `x[i] = i mod 251` is computed in the
/// module. The whole network runs (its 1.2 GFLOP of convolutions), so debug builds only
/// compile it.
#[test]
fn ssd_mobilenet_layers_match_xla() {
    if cfg!(debug_assertions) {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../testdata/xla_benchmarks/ssd_mobilenet_tf_probe");
        let text = std::fs::read_to_string(dir.join("module.hlo")).unwrap();
        let module = xla_core::text::parse_module(&text).unwrap();
        xla_cpu::Executable::compile(&module).unwrap();
        return;
    }
    run("ssd_mobilenet_tf_probe");
}
