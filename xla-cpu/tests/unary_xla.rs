//! f32 tanh and exp are XLA's to the bit: fixtures from real XLA
//! (`scripts/gen_unary_fixtures.py`), run through the fused kernels and the
//! one-instruction-at-a-time path.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::Path;
use xla_core::text::parse_module;
use xla_core::Literal;
use xla_cpu::Executable;

fn check(op: &str) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("../testdata/xla_f32_{op}"));
    let x = Literal::read_npy(dir.join("in0.npy")).unwrap();
    let want = Literal::read_npy(dir.join("out0.npy")).unwrap();
    let n = x.data::<f32>().unwrap().len();
    let hlo = format!(
        "HloModule m\n\nENTRY e {{\n  x = f32[{n}] parameter(0)\n  ROOT t = f32[{n}] {op}(x)\n}}\n"
    );
    let exe = Executable::compile(&parse_module(&hlo).unwrap()).unwrap();
    let fused = exe.execute(std::slice::from_ref(&x)).unwrap();
    let unfused = exe.execute_unfused(&[&x]).unwrap();
    let xs = x.data::<f32>().unwrap();
    let w = want.data::<f32>().unwrap();
    for (path, got) in [("unfused", &unfused), ("fused", &fused)] {
        for (i, (g, e)) in got.data::<f32>().unwrap().iter().zip(w).enumerate() {
            let same = g.to_bits() == e.to_bits() || (g.is_nan() && e.is_nan());
            assert!(same, "{path}: {op}({}) = {g}, XLA gives {e}", xs[i]);
        }
    }
}

#[test]
fn tanh_matches_xla_bit_for_bit() {
    check("tanh");
}

#[test]
fn exp_matches_xla_bit_for_bit() {
    check("exponential");
}
