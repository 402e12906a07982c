//! Complex division is XLA:CPU's to the bit (its Smith's algorithm with fused
//! multiply-adds and its zero / infinity repairs), in c64 and c128: fixtures from real XLA
//! (`scripts/gen_complex_divide_fixtures.py`, `testdata/xla_complex_divide`) over a grid
//! of special values (±0, ±1, ±1e30, ±1e-30, ±inf, NaN, subnormals) in every part of both
//! operands and random values spanning each type's range, run fused and unfused; and a
//! divisor broadcast from a scalar, which stays a division (real XLA turns only real
//! divisions by a broadcast into a multiply by the reciprocal). Any NaN matches any NaN.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use num_complex::Complex;
use std::path::Path;
use xla_core::literal::NativeData;
use xla_core::text::parse_module;
use xla_core::Literal;
use xla_cpu::Executable;

/// Bit-for-bit equality of complex parts, any NaN equal to any NaN.
trait Parts: NativeData + Copy + std::fmt::Display {
    fn same(self, other: Self) -> bool;
}

macro_rules! parts {
    ($($f:ty),*) => {$(
        impl Parts for Complex<$f> {
            fn same(self, o: Self) -> bool {
                let eq = |x: $f, y: $f| x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan());
                eq(self.re, o.re) && eq(self.im, o.im)
            }
        }
    )*};
}
parts!(f32, f64);

fn read(ty: &str, f: &str) -> Literal {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../testdata/xla_complex_divide");
    Literal::read_npy(dir.join(ty).join(format!("{f}.npy"))).unwrap()
}

fn assert_same<T: Parts>(what: &str, a: &[T], b: &[T], got: &Literal, want: &[T]) {
    let got = got.data::<T>().unwrap();
    assert_eq!(got.len(), want.len(), "{what}");
    let bad: Vec<String> = (0..want.len())
        .filter(|&i| !got[i].same(want[i]))
        .map(|i| {
            format!(
                "({}) / ({}) = {}, XLA gives {}",
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

fn check<T: Parts>(ty: &str) {
    let (x, y, want) = (read(ty, "in0"), read(ty, "in1"), read(ty, "out0"));
    let (a, b) = (x.data::<T>().unwrap(), y.data::<T>().unwrap());
    let n = a.len();
    let hlo = format!(
        "HloModule m\n\nENTRY e {{\n  a = {ty}[{n}] parameter(0)\n  b = {ty}[{n}] parameter(1)\n  ROOT q = {ty}[{n}] divide(a, b)\n}}\n"
    );
    let mut exe = Executable::compile(&parse_module(&hlo).unwrap()).unwrap();
    let want = want.data::<T>().unwrap();
    for threads in [1, 2] {
        exe.set_threads(threads);
        let fused = exe.execute(&[x.clone(), y.clone()]).unwrap();
        let unfused = exe.execute_unfused(&[&x, &y]).unwrap();
        assert_same(
            &format!("{ty} fused, {threads} thread(s)"),
            a,
            b,
            &fused,
            want,
        );
        assert_same(
            &format!("{ty} unfused, {threads} thread(s)"),
            a,
            b,
            &unfused,
            want,
        );
    }

    // The last 1024 numerators over the last divisor, broadcast from a scalar.
    let (tail, d) = (&a[n - 1024..], b[n - 1]);
    let hlo = format!(
        "HloModule m\n\nENTRY e {{\n  a = {ty}[1024] parameter(0)\n  d = {ty}[] parameter(1)\n  bd = {ty}[1024] broadcast(d), dimensions={{}}\n  ROOT q = {ty}[1024] divide(a, bd)\n}}\n"
    );
    let exe = Executable::compile(&parse_module(&hlo).unwrap()).unwrap();
    let args = [
        Literal::from_vec(&[1024], tail.to_vec()).unwrap(),
        Literal::scalar(d),
    ];
    let got = exe.execute(&args).unwrap();
    let want = read(ty, "out1");
    let ds = vec![d; 1024];
    assert_same(
        &format!("{ty} broadcast divisor"),
        tail,
        &ds,
        &got,
        want.data::<T>().unwrap(),
    );
}

#[test]
fn c64_divide_matches_xla_bit_for_bit() {
    check::<Complex<f32>>("c64");
}

#[test]
fn c128_divide_matches_xla_bit_for_bit() {
    check::<Complex<f64>>("c128");
}
