//! Subnormal numbers as XLA:CPU treats them: flushed to zero on input and output (its
//! flush-to-zero and denormals-are-zero modes), in f32 and f64, in elementwise ops, compares,
//! conversions and dots. Expected values are real XLA's (`scripts/gen_subnormal_fixtures.py`,
//! `testdata/xla_subnormals`), checked bit for bit fused and unfused, at one and two
//! threads; the caller's own floating-point mode is left as it was.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::hint::black_box;
use xla_core::text::parse_module;
use xla_core::Literal;
use xla_cpu::Executable;

/// The program the fixture script runs on XLA (its HLO, layouts dropped).
const HLO: &str = r#"HloModule subnormals

ENTRY main.1 {
  a.1 = f32[72] parameter(0)
  b.1 = f32[72] parameter(1)
  mul.2 = f32[72] multiply(a.1, b.1)
  constant.5 = f32[] constant(1e-38)
  add.3 = f32[72] broadcast(constant.5), dimensions={}
  add.4 = f32[72] add(a.1, add.3)
  constant.4 = f32[] constant(0)
  eq.2 = f32[72] broadcast(constant.4), dimensions={}
  eq.3 = pred[72] compare(a.1, eq.2), direction=EQ
  abs.1 = f32[72] abs(a.1)
  sqrt.1 = f32[72] sqrt(abs.1)
  constant.3 = f32[] constant(1)
  div.2 = f32[72] broadcast(constant.3), dimensions={}
  div.3 = f32[72] divide(div.2, a.1)
  c.1 = f64[72] parameter(2)
  mul.3 = f64[72] multiply(c.1, c.1)
  add.5 = f64[72] add(c.1, mul.3)
  convert_element_type.1 = f32[72] convert(c.1)
  reshape.2 = f32[8,9] reshape(a.1)
  reshape.3 = f32[9,8] reshape(b.1)
  dot_general.1 = f32[8,8] dot(reshape.2, reshape.3), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ROOT tuple.1 = (f32[72], f32[72], pred[72], f32[72], f32[72], /*index=5*/f64[72], f32[72], f32[8,8]) tuple(mul.2, add.4, eq.3, sqrt.1, div.3, add.5, convert_element_type.1, dot_general.1)
}
"#;

fn read(f: &str) -> Literal {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../testdata/xla_subnormals");
    Literal::read_npy(root.join(f)).unwrap()
}

#[test]
fn subnormals_flush_as_on_xla() {
    let args = [read("in0.npy"), read("in1.npy"), read("in2.npy")];
    let want: Vec<Literal> = (0..8).map(|i| read(&format!("out{i}.npy"))).collect();
    let mut exe = Executable::compile(&parse_module(HLO).unwrap()).unwrap();
    for threads in [1, 2] {
        exe.set_threads(threads);
        let refs: Vec<&Literal> = args.iter().collect();
        for (how, got) in [
            ("fused", exe.execute(&args).unwrap()),
            ("unfused", exe.execute_unfused(&refs).unwrap()),
        ] {
            let got = got.tuple_elements().unwrap();
            for (i, (g, w)) in got.iter().zip(&want).enumerate() {
                assert_eq!(g, w, "output {i}, {how}, {threads} thread(s)");
            }
        }
    }
    // The caller's thread keeps IEEE subnormals after the run.
    let tiny = black_box(3e-39_f32) * black_box(1.0_f32);
    assert_eq!(tiny.to_bits(), 3e-39_f32.to_bits());
}
