//! Complex division is XLA:CPU's to the bit (its Smith's algorithm with fused
//! multiply-adds and its zero / infinity repairs), in c64 and c128: fixtures from real XLA
//! (`scripts/gen_complex_divide_fixtures.py`, `testdata/xla_complex_divide`) over a grid
//! of special values (±0, ±1, ±1e30, ±1e-30, ±inf, NaN, subnormals) in every part of both
//! operands and random values spanning each type's range, run fused and unfused; and a
//! divisor broadcast from a scalar, which stays a division (real XLA turns only real
//! divisions by a broadcast into a multiply by the reciprocal). Any NaN matches any NaN.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod complex_xla;

use complex_xla::{assert_same, check_elementwise, Parts};
use num_complex::Complex;
use xla_core::text::parse_module;
use xla_core::Literal;
use xla_cpu::Executable;

const SET: &str = "xla_complex_divide";

fn check<T: Parts>(ty: &str) {
    check_elementwise::<T>(SET, ty, ("divide", "/"), ["in0", "in1", "out0"]);
    let (x, y) = (
        complex_xla::read(SET, ty, "in0"),
        complex_xla::read(SET, ty, "in1"),
    );
    let (a, b) = (x.data::<T>().unwrap(), y.data::<T>().unwrap());
    let n = a.len();

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
    let want = complex_xla::read(SET, ty, "out1");
    let ds = vec![d; 1024];
    let want = want.data::<T>().unwrap();
    assert_same(
        &format!("{ty} broadcast divisor"),
        "/",
        (tail, &ds),
        &got,
        want,
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
