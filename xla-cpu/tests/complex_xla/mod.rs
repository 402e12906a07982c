//! What the complex-arithmetic tests against real XLA share: bit-for-bit comparison of
//! complex parts (any NaN equal to any NaN), the fixtures' reader, and an elementwise op
//! checked against a fixture fused and unfused at 1 and 2 threads.
#![allow(dead_code)]

use num_complex::Complex;
use std::path::Path;
use xla_core::literal::NativeData;
use xla_core::text::parse_module;
use xla_core::Literal;
use xla_cpu::Executable;

/// Bit-for-bit equality of complex parts (any NaN equal to any NaN), and the distance
/// `|got - want|` in units of `eps * |want|`.
pub trait Parts: NativeData + Copy + std::fmt::Display {
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

/// Fixture `f` of type `ty` (`c64`, `c128`) in `testdata/{set}`.
pub fn read(set: &str, ty: &str, f: &str) -> Literal {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../testdata")
        .join(set);
    Literal::read_npy(dir.join(ty).join(format!("{f}.npy"))).unwrap()
}

/// Asserts `got[i]` is `want[i]` to the bit for every `i`, naming up to five differing
/// `a[i] sym b[i]`.
pub fn assert_same<T: Parts>(
    what: &str,
    sym: &str,
    (a, b): (&[T], &[T]),
    got: &Literal,
    want: &[T],
) {
    let got = got.data::<T>().unwrap();
    assert_eq!(got.len(), want.len(), "{what}");
    let bad: Vec<String> = (0..want.len())
        .filter(|&i| !got[i].same(want[i]))
        .map(|i| {
            format!(
                "({}) {sym} ({}) = {}, XLA gives {}",
                a[i], b[i], got[i], want[i]
            )
        })
        .collect();
    assert!(
        bad.is_empty(),
        "{what}: {} of {} differ, e.g. {:?}",
        bad.len(),
        want.len(),
        &bad[..bad.len().min(5)]
    );
}

/// The elementwise `op` (written `sym`) of fixtures `names = [a, b, out]` in `set`, run
/// fused and unfused at 1 and 2 threads, against XLA's result bit for bit.
pub fn check_elementwise<T: Parts>(set: &str, ty: &str, (op, sym): (&str, &str), names: [&str; 3]) {
    let [x, y, want] = names.map(|f| read(set, ty, f));
    let (a, b) = (x.data::<T>().unwrap(), y.data::<T>().unwrap());
    let n = a.len();
    let hlo = format!(
        "HloModule m\n\nENTRY e {{\n  a = {ty}[{n}] parameter(0)\n  b = {ty}[{n}] parameter(1)\n  ROOT r = {ty}[{n}] {op}(a, b)\n}}\n"
    );
    let mut exe = Executable::compile(&parse_module(&hlo).unwrap()).unwrap();
    let want = want.data::<T>().unwrap();
    for threads in [1, 2] {
        exe.set_threads(threads);
        let fused = exe.execute(&[x.clone(), y.clone()]).unwrap();
        let unfused = exe.execute_unfused(&[&x, &y]).unwrap();
        for (how, got) in [("fused", fused), ("unfused", unfused)] {
            assert_same(
                &format!("{ty} {op} {how}, {threads} thread(s)"),
                sym,
                (a, b),
                &got,
                want,
            );
        }
    }
}
