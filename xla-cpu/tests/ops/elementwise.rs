//! Elementwise ops: IEEE specials, integer wrap-around and XLA:CPU's corners.

use super::{run, same_f32, vals};
use half::{bf16, f16};
use xla_core::literal::NativeData;
use xla_core::Literal;

fn unary<T: NativeData, U: NativeData>(op: &str, x: &[T]) -> Vec<U> {
    let n = x.len();
    let hlo = format!(
        "HloModule t\nENTRY e {{\n  p = {ti}[{n}] parameter(0)\n  ROOT r = {to}[{n}] {op}(p)\n}}\n",
        ti = T::TYPE,
        to = U::TYPE
    );
    vals(&run(&hlo, &[Literal::vec1(x)]).unwrap_or_else(|e| panic!("{op}: {e}")))
}

fn binary<T: NativeData, U: NativeData>(op: &str, x: &[T], y: &[T]) -> Vec<U> {
    let n = x.len();
    let hlo = format!(
        "HloModule t\nENTRY e {{\n  a = {ti}[{n}] parameter(0)\n  b = {ti}[{n}] parameter(1)\n  ROOT r = {to}[{n}] {op}(a, b)\n}}\n",
        ti = T::TYPE,
        to = U::TYPE
    );
    vals(&run(&hlo, &[Literal::vec1(x), Literal::vec1(y)]).unwrap_or_else(|e| panic!("{op}: {e}")))
}

const NAN: f32 = f32::NAN;
const INF: f32 = f32::INFINITY;

#[test]
fn float_unary_corners() {
    let cases: &[(&str, &[f32], &[f32])] = &[
        (
            "sign",
            &[NAN, -0.0, 0.0, -2.5, 3.0, -INF],
            &[NAN, -0.0, 0.0, -1.0, 1.0, -1.0],
        ),
        (
            "round-nearest-afz",
            &[2.5, -2.5, 0.5, -0.4, 1.5],
            &[3.0, -3.0, 1.0, -0.0, 2.0],
        ),
        (
            "round-nearest-even",
            &[2.5, -2.5, 0.5, 3.5, 1.5],
            &[2.0, -2.0, 0.0, 4.0, 2.0],
        ),
        ("rsqrt", &[4.0, 0.0, -1.0, INF], &[0.5, INF, NAN, 0.0]),
        ("abs", &[-0.0, -INF, NAN, -3.0], &[0.0, INF, NAN, 3.0]),
        ("cbrt", &[-8.0, 27.0, -0.0], &[-2.0, 3.0, -0.0]),
        ("log-plus-one", &[-1.0, 0.0, -2.0], &[-INF, 0.0, NAN]),
        (
            "exponential-minus-one",
            &[0.0, -INF, INF],
            &[0.0, -1.0, INF],
        ),
        ("logistic", &[0.0, INF, -INF], &[0.5, 1.0, 0.0]),
        ("log", &[0.0, -1.0, 1.0], &[-INF, NAN, 0.0]),
        ("sqrt", &[-0.0, -4.0, 16.0], &[-0.0, NAN, 4.0]),
        ("ceil", &[-0.5, 1.2], &[-0.0, 2.0]),
        ("floor", &[-0.5, 1.8], &[-1.0, 1.0]),
        ("negate", &[0.0, -INF], &[-0.0, INF]),
        ("erf", &[0.0, INF, -INF], &[0.0, 1.0, -1.0]),
        ("tanh", &[INF, -INF, -0.0], &[1.0, -1.0, -0.0]),
    ];
    for (op, x, want) in cases {
        let got: Vec<f32> = unary(op, x);
        assert!(same_f32(&got, want), "{op}({x:?}) = {got:?}, want {want:?}");
    }
    // expm1 / log1p keep their precision near 0 (an exp(x)-1 implementation fails).
    let got: Vec<f32> = unary("exponential-minus-one", &[1e-9f32]);
    assert!((got[0] - 1e-9).abs() <= 1e-15, "{got:?}");
    let got: Vec<f32> = unary("log-plus-one", &[1e-9f32]);
    assert!((got[0] - 1e-9).abs() <= 1e-15, "{got:?}");
    let fin: Vec<bool> = unary("is-finite", &[1.0f32, INF, -INF, NAN, -0.0]);
    assert_eq!(fin, [true, false, false, false, true]);
}

#[test]
fn integer_unary_corners() {
    let abs: Vec<i32> = unary("abs", &[i32::MIN, -5, 7]);
    assert_eq!(abs, [i32::MIN, 5, 7]);
    let neg: Vec<i8> = unary("negate", &[i8::MIN, 1]);
    assert_eq!(neg, [i8::MIN, -1]);
    let sign: Vec<i64> = unary("sign", &[-9i64, 0, 4]);
    assert_eq!(sign, [-1, 0, 1]);
    let clz: Vec<u8> = unary("count-leading-zeros", &[0u8, 1, 255]);
    assert_eq!(clz, [8, 7, 0]);
    let clz: Vec<i32> = unary("count-leading-zeros", &[0i32, -1, 1]);
    assert_eq!(clz, [32, 0, 31]);
    let pop: Vec<i16> = unary("popcnt", &[-1i16, 0, 0x0f0f]);
    assert_eq!(pop, [16, 0, 8]);
    let not: Vec<u8> = unary("not", &[0u8, 0xf0]);
    assert_eq!(not, [0xff, 0x0f]);
    let not: Vec<bool> = unary("not", &[true, false]);
    assert_eq!(not, [false, true]);
}

#[test]
fn float_binary_corners() {
    let rem: Vec<f32> = binary(
        "remainder",
        &[-7.0f32, 5.5, 1.0, INF, 3.0],
        &[2.0, -2.0, 0.0, 2.0, INF],
    );
    assert!(same_f32(&rem, &[-1.0, 1.5, NAN, NAN, 3.0]), "{rem:?}");
    let div: Vec<f32> = binary("divide", &[1.0f32, -1.0, 0.0, 1.0], &[0.0, 0.0, 0.0, -INF]);
    assert!(same_f32(&div, &[INF, -INF, NAN, -0.0]), "{div:?}");
    // C99 pow: pow(0,0)=1, pow(0,-1)=inf, pow(-2,.5)=nan, pow(nan,0)=1, pow(1,nan)=1, pow(-1,inf)=1.
    let pow: Vec<f32> = binary(
        "power",
        &[0.0f32, 0.0, -2.0, NAN, 1.0, -1.0, 2.0],
        &[0.0, -1.0, 0.5, 0.0, NAN, INF, 10.0],
    );
    assert!(
        same_f32(&pow, &[1.0, INF, NAN, 1.0, 1.0, 1.0, 1024.0]),
        "{pow:?}"
    );
    let max: Vec<f32> = binary("maximum", &[NAN, 1.0, -0.0, 0.0], &[1.0, NAN, 0.0, -0.0]);
    assert!(same_f32(&max, &[NAN, NAN, 0.0, 0.0]), "{max:?}");
    let min: Vec<f32> = binary("minimum", &[NAN, 1.0, -0.0, 0.0], &[1.0, NAN, 0.0, -0.0]);
    assert!(same_f32(&min, &[NAN, NAN, -0.0, -0.0]), "{min:?}");
    let at: Vec<f64> = binary("atan2", &[1.0f64, 0.0, -0.0], &[1.0, -1.0, -1.0]);
    assert_eq!(
        at,
        [
            std::f64::consts::FRAC_PI_4,
            std::f64::consts::PI,
            -std::f64::consts::PI
        ]
    );
}

#[test]
fn integer_binary_corners() {
    // x/0 = -1, x%0 = x, INT_MIN/-1 = INT_MIN, INT_MIN%-1 = 0; truncation; sign of the dividend.
    let div: Vec<i32> = binary("divide", &[7, -7, i32::MIN, -7, 7], &[0, 2, -1, -2, -2]);
    assert_eq!(div, [-1, -3, i32::MIN, 3, -3]);
    let rem: Vec<i32> = binary("remainder", &[7, -7, i32::MIN, -7, 7], &[0, 2, -1, -2, -2]);
    assert_eq!(rem, [7, -1, 0, -1, 1]);
    let udiv: Vec<u32> = binary("divide", &[7u32, 7], &[0, 2]);
    assert_eq!(udiv, [u32::MAX, 3]);
    let add: Vec<i8> = binary("add", &[127i8, -128], &[1, -1]);
    assert_eq!(add, [-128, 127]);
    let mul: Vec<u8> = binary("multiply", &[16u8, 255], &[16, 255]);
    assert_eq!(mul, [0, 1]);
    // Shifts by >= the bit width or by negative amounts.
    let shl: Vec<i32> = binary("shift-left", &[1, 1, 1, 3], &[31, 32, -1, 1]);
    assert_eq!(shl, [i32::MIN, 0, 0, 6]);
    let sra: Vec<i32> = binary("shift-right-arithmetic", &[-8, 8, -8, -1], &[1, 40, 40, -3]);
    assert_eq!(sra, [-4, 0, -1, -1]);
    let srl: Vec<i32> = binary("shift-right-logical", &[-1, -1, 16], &[28, 32, -1]);
    assert_eq!(srl, [15, 0, 0]);
    let sra_u: Vec<u8> = binary("shift-right-arithmetic", &[0x80u8, 0x80], &[1, 9]);
    assert_eq!(sra_u, [0xc0, 0xff]);
    // Integer pow: wraps; negative exponents give 0 unless the base is ±1.
    let pow: Vec<i32> = binary(
        "power",
        &[2, 3, -1, 1, 2, -1, 0],
        &[31, -1, -3, -5, 0, -2, 0],
    );
    assert_eq!(pow, [i32::MIN, 0, -1, 1, 1, 1, 1]);
    let max: Vec<u32> = binary("maximum", &[u32::MAX, 0], &[1, 1]);
    assert_eq!(max, [u32::MAX, 1]);
    let xor: Vec<bool> = binary("xor", &[true, true, false], &[true, false, false]);
    assert_eq!(xor, [false, true, false]);
}

#[test]
fn compare_ieee_and_total_order() {
    let x = [NAN, -0.0f32, 1.0, -INF];
    let y = [NAN, 0.0f32, NAN, -INF];
    let cmp = |dir: &str, ty: &str| -> Vec<bool> {
        let hlo = format!("HloModule t\nENTRY e {{\n  a = f32[4] parameter(0)\n  b = f32[4] parameter(1)\n  ROOT r = pred[4] compare(a, b), direction={dir}{ty}\n}}\n");
        vals(&run(&hlo, &[Literal::vec1(&x), Literal::vec1(&y)]).unwrap())
    };
    assert_eq!(cmp("EQ", ""), [false, true, false, true]);
    assert_eq!(cmp("NE", ""), [true, false, true, false]);
    assert_eq!(cmp("LT", ""), [false, false, false, false]);
    assert_eq!(cmp("GE", ""), [false, true, false, true]);
    assert_eq!(cmp("EQ", ", type=TOTALORDER"), [true, false, false, true]);
    assert_eq!(cmp("LT", ", type=TOTALORDER"), [false, true, true, false]);
    let neg_nan = f32::from_bits(0xffc0_0000);
    let hlo = "HloModule t\nENTRY e {\n  a = f32[2] parameter(0)\n  b = f32[2] parameter(1)\n  ROOT r = pred[2] compare(a, b), direction=LT, type=TOTALORDER\n}\n";
    let lt: Vec<bool> = vals(
        &run(
            hlo,
            &[Literal::vec1(&[neg_nan, INF]), Literal::vec1(&[-INF, NAN])],
        )
        .unwrap(),
    );
    assert_eq!(lt, [true, true]);
    let hlo = "HloModule t\nENTRY e {\n  a = u32[2] parameter(0)\n  b = u32[2] parameter(1)\n  ROOT r = pred[2] compare(a, b), direction=GT\n}\n";
    let gt: Vec<bool> = vals(
        &run(
            hlo,
            &[Literal::vec1(&[u32::MAX, 1]), Literal::vec1(&[1u32, 2])],
        )
        .unwrap(),
    );
    assert_eq!(gt, [true, false]);
}

#[test]
fn select_and_clamp_with_scalars() {
    let hlo = "HloModule t\nENTRY e {\n  p = pred[] parameter(0)\n  a = s32[3] parameter(1)\n  b = s32[3] parameter(2)\n  ROOT r = s32[3] select(p, a, b)\n}\n";
    let a = Literal::vec1(&[1, 2, 3]);
    let b = Literal::vec1(&[4, 5, 6]);
    assert_eq!(
        vals::<i32>(&run(hlo, &[Literal::scalar(false), a.clone(), b.clone()]).unwrap()),
        [4, 5, 6]
    );
    assert_eq!(
        vals::<i32>(&run(hlo, &[Literal::scalar(true), a, b]).unwrap()),
        [1, 2, 3]
    );
    let hlo = "HloModule t\nENTRY e {\n  lo = f32[] parameter(0)\n  x = f32[4] parameter(1)\n  hi = f32[] parameter(2)\n  ROOT r = f32[4] clamp(lo, x, hi)\n}\n";
    let got: Vec<f32> = vals(
        &run(
            hlo,
            &[
                Literal::scalar(-1f32),
                Literal::vec1(&[-5f32, 0.5, 9.0, NAN]),
                Literal::scalar(1f32),
            ],
        )
        .unwrap(),
    );
    assert!(same_f32(&got, &[-1.0, 0.5, 1.0, NAN]), "{got:?}");
}

#[test]
fn convert_rules() {
    let to_s32: Vec<i32> = unary("convert", &[NAN, 3e9f32, -3e9, -2.7, 2.7]);
    assert_eq!(to_s32, [0, i32::MAX, i32::MIN, -2, 2]);
    let to_u8: Vec<u8> = unary("convert", &[300i32, -1, 255]);
    assert_eq!(to_u8, [44, 255, 255]);
    let to_s64: Vec<i64> = unary("convert", &[-1i8, 127]);
    assert_eq!(to_s64, [-1, 127]);
    let to_pred: Vec<bool> = unary("convert", &[NAN, 0.0f32, -0.0, 0.5]);
    assert_eq!(to_pred, [true, false, false, true]);
    let from_pred: Vec<f32> = unary("convert", &[true, false]);
    assert_eq!(from_pred, [1.0, 0.0]);
    // f64 -> f32 rounds to nearest even; overflow gives inf.
    let to_f32: Vec<f32> = unary(
        "convert",
        &[1.0 + f64::from(f32::EPSILON) / 2.0, 1e39, -1e39],
    );
    assert_eq!(to_f32, [1.0, INF, -INF]);
    // int -> float above 2^24 rounds to nearest even.
    let i2f: Vec<f32> = unary("convert", &[16_777_217i32, 16_777_219]);
    assert_eq!(i2f, [16_777_216.0, 16_777_220.0]);
    let to_bf16: Vec<bf16> = unary(
        "convert",
        &[1.0f32 + 1.0 / 256.0, 1.0 + 3.0 / 256.0, f32::MAX],
    );
    assert_eq!(
        to_bf16,
        [
            bf16::from_f32(1.0),
            bf16::from_f32(1.015625),
            bf16::INFINITY
        ]
    );
    let to_f16: Vec<f16> = unary("convert", &[65520.0f32, 1.0 + 1.0 / 2048.0]);
    assert_eq!(to_f16, [f16::INFINITY, f16::ONE]);
    let c: Vec<num_complex::Complex32> = unary("convert", &[2.5f32]);
    assert_eq!(c, [num_complex::Complex32::new(2.5, 0.0)]);
}

#[test]
fn bitcast_convert_same_and_other_widths() {
    let bits: Vec<u32> = unary("bitcast-convert", &[1.0f32, -0.0]);
    assert_eq!(bits, [0x3f80_0000, 0x8000_0000]);
    let hlo = "HloModule t\nENTRY e {\n  p = u32[2] parameter(0)\n  ROOT r = u8[2,4] bitcast-convert(p)\n}\n";
    let b: Vec<u8> = vals(&run(hlo, &[Literal::vec1(&[0x0102_0304u32, 0xa0b0_c0d0])]).unwrap());
    assert_eq!(b, [4, 3, 2, 1, 0xd0, 0xc0, 0xb0, 0xa0]);
    let hlo = "HloModule t\nENTRY e {\n  p = u16[3,2] parameter(0)\n  ROOT r = s32[3] bitcast-convert(p)\n}\n";
    let w: Vec<i32> = vals(
        &run(
            hlo,
            &[Literal::from_vec(&[3, 2], vec![1u16, 0, 0, 1, 0xffff, 0xffff]).unwrap()],
        )
        .unwrap(),
    );
    assert_eq!(w, [1, 0x1_0000, -1]);
}

#[test]
fn reduce_precision_to_half() {
    let hlo = "HloModule t\nENTRY e {\n  p = f32[7] parameter(0)\n  ROOT r = f32[7] reduce-precision(p), exponent_bits=5, mantissa_bits=10\n}\n";
    let x = [
        65520.0f32,
        3e-5,
        -3e-5,
        NAN,
        1.0 + 1.0 / 2048.0,
        1.0 + 3.0 / 2048.0,
        65504.0,
    ];
    let got: Vec<f32> = vals(&run(hlo, &[Literal::vec1(&x)]).unwrap());
    assert!(
        same_f32(
            &got,
            &[INF, 0.0, -0.0, NAN, 1.0, 1.0 + 1.0 / 512.0, 65504.0]
        ),
        "{got:?}"
    );
}

#[test]
fn complex_arithmetic() {
    use num_complex::Complex32 as C;
    let hlo = "HloModule t\nENTRY e {\n  a = f32[2] parameter(0)\n  b = f32[2] parameter(1)\n  c = c64[2] complex(a, b)\n  m = c64[2] multiply(c, c)\n  s = c64[2] sqrt(m)\n  ab = f32[2] abs(c)\n  re = f32[2] real(m)\n  im = f32[2] imag(m)\n  ROOT t = (c64[2], f32[2], f32[2], f32[2]) tuple(s, ab, re, im)\n}\n";
    let r = run(
        hlo,
        &[Literal::vec1(&[3f32, 0.0]), Literal::vec1(&[4f32, 1.0])],
    )
    .unwrap();
    assert_eq!(
        vals::<C>(&super::elem(&r, 0)),
        [C::new(3.0, 4.0), C::new(0.0, 1.0)]
    );
    assert_eq!(vals::<f32>(&super::elem(&r, 1)), [5.0, 1.0]);
    assert_eq!(vals::<f32>(&super::elem(&r, 2)), [-7.0, -1.0]);
    assert_eq!(vals::<f32>(&super::elem(&r, 3)), [24.0, 0.0]);
    let e: Vec<num_complex::Complex64> = unary(
        "exponential",
        &[num_complex::Complex64::new(0.0, std::f64::consts::PI)],
    );
    assert!((e[0].re + 1.0).abs() < 1e-15 && e[0].im.abs() < 1e-15);
}

#[test]
fn half_types_compute_in_f32() {
    let s: Vec<f16> = binary(
        "add",
        &[f16::from_f32(1.0), f16::from_f32(65504.0)],
        &[f16::from_f32(2.0), f16::from_f32(65504.0)],
    );
    assert_eq!(s, [f16::from_f32(3.0), f16::INFINITY]);
    let m: Vec<bf16> = binary("maximum", &[bf16::NAN, bf16::ONE], &[bf16::ONE, bf16::ZERO]);
    assert!(m[0].is_nan() && m[1] == bf16::ONE);
}

#[test]
fn unsupported_types_are_errors() {
    let hlo = "HloModule t\nENTRY e {\n  p = f32[2] parameter(0)\n  ROOT r = f32[2] popcnt(p)\n}\n";
    let err = run(hlo, &[Literal::vec1(&[1f32, 2.0])])
        .unwrap_err()
        .to_string();
    assert!(err.contains("popcnt") && err.contains("f32"), "{err}");
}
