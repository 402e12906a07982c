//! Branch-free f32 transcendentals that LLVM vectorises (range reduction + minimax
//! polynomial, Cephes coefficients), used by the fused elementwise loops.
//!
//! Every function is written without data-dependent branches (the `if`s become selects)
//! so a loop over a slice compiles to vector code. `exp` and `tanh` reproduce XLA:CPU's own
//! approximations bit for bit (including its flushing of subnormal `exp` results); `log` and
//! `logistic` are about 2 ulp from the true value, far inside the f32 conformance tolerance
//! (rtol 1e-5), with IEEE/libm specials.

pub(crate) use crate::scalar::minmax::{flush_all, flushed};
use crate::scalar::Real;

pub(crate) const LN2_HI: f32 = 0.693_359_4;
pub(crate) const LN2_LO: f32 = -2.121_944_4e-4;
/// 1.5 * 2^23: adding and subtracting it rounds an f32 below 2^22 to the nearest integer.
pub(crate) const ROUNDER: f32 = 12_582_912.0;

/// `exp_f32`'s lower clamp, its two-part ln 2 and its polynomial (highest power first);
/// shared with the code generator (`fusion/jit/`), which must emit the same operations.
#[allow(clippy::excessive_precision)]
pub(crate) const EXP_LO: f32 = -88.376_262_664_794_9;
pub(crate) const EXP_C1: f32 = 0.693_359_375;
#[allow(clippy::excessive_precision)]
pub(crate) const EXP_C2: f32 = 2.121_944_40e-4;
#[allow(clippy::excessive_precision)]
pub(crate) const EXP_POLY: [f32; 6] = [
    1.987_569_150_0e-4,
    1.398_199_950_7e-3,
    8.333_451_907_3e-3,
    4.166_579_589_4e-2,
    1.666_666_545_9e-1,
    5.000_000_120_1e-1,
];

/// e^x, bit for bit as XLA's CPU backend computes it for f32: Cephes' polynomial evaluated
/// with fused multiply-adds, the input clamped below at -88.3762626647949, the power of two
/// capped at 2^127 (larger inputs overflow to +inf in the final product), and results below
/// the smallest normal f32 flushed to +0 (XLA runs with denormals flushed). Checked against
/// jaxlib 0.10.2 on 400,000 inputs in [-88, 89] and the specials: every result identical.
/// Without hardware FMA (and SSE4.1 `floor`), the C library's `fmaf`/`floorf` are called.
#[inline(always)]
pub fn exp_f32(x: f32) -> f32 {
    // `if` rather than `max`, so NaN passes through.
    let xc = if x < EXP_LO { EXP_LO } else { x };
    let fx = xc.mul_add(std::f32::consts::LOG2_E, 0.5).floor().min(127.0);
    let r = fx.mul_add(-EXP_C1, xc);
    let r = fx.mul_add(EXP_C2, r);
    let z = r * r;
    let mut y = EXP_POLY[0];
    for &c in &EXP_POLY[1..] {
        y = y.mul_add(r, c);
    }
    let y = y.mul_add(z, r) + 1.0;
    // 2^fx for the integral fx in [-127, 127], built from its bits (2^-127 gives 0).
    let n = (fx + ROUNDER).to_bits() as i32 - 0x4b40_0000;
    let scale = f32::from_bits(((n + 127).max(0) as u32) << 23);
    let e = y * scale;
    if e < f32::MIN_POSITIVE {
        0.0
    } else {
        e
    }
}

/// `tanh_f32`'s clamp and its numerator and denominator polynomials in z = x² (highest
/// power first): XLA's coefficients exactly as it writes them (each rounds to the same f32
/// as there); shared with the code generator.
#[allow(clippy::excessive_precision)]
pub(crate) const TANH_CLAMP: f32 = 7.998_811_721_801_757_81;
#[allow(clippy::excessive_precision)]
pub(crate) const TANH_P: [f32; 7] = [
    -2.760_768_477_423_55e-16,
    2.000_187_904_824_77e-13,
    -8.604_671_522_137_35e-11,
    5.122_297_090_371_14e-8,
    1.485_722_357_179_79e-5,
    6.372_619_288_754_36e-4,
    4.893_524_558_917_86e-3,
];
#[allow(clippy::excessive_precision)]
pub(crate) const TANH_Q: [f32; 4] = [
    1.198_258_394_667_02e-6,
    1.185_347_056_866_54e-4,
    2.268_434_632_439_00e-3,
    4.893_525_185_543_85e-3,
];

/// tanh(x), bit for bit as XLA's CPU backend computes it for f32: Eigen's
/// `generic_fast_tanh_float` rational approximation (odd degree 13 over even degree 6)
/// evaluated with fused multiply-adds, the input clamped to ±7.99881172180175781 (where it
/// reaches exactly ±1), and `x` itself for |x| < 0.0004 (which keeps -0.0). Checked against
/// jaxlib 0.10.2 on 200,008 inputs in [-9, 9]: every result identical. About 3 ulp from
/// the true tanh. Without hardware FMA, `mul_add` falls back to the C library's `fmaf`.
#[inline(always)]
pub fn tanh_f32(x: f32) -> f32 {
    let c = x.clamp(-TANH_CLAMP, TANH_CLAMP);
    let z = c * c;
    let mut p = TANH_P[0];
    for &k in &TANH_P[1..] {
        p = p.mul_add(z, k);
    }
    let mut q = TANH_Q[0];
    for &k in &TANH_Q[1..] {
        q = q.mul_add(z, k);
    }
    let r = c * p / q;
    if x.abs() < 0.0004 {
        x
    } else {
        r
    }
}

/// `ln_f32`'s polynomial in the reduced mantissa (highest power first, Cephes); shared
/// with the code generator.
pub(crate) const LN_POLY: [f32; 9] = [
    7.037_683_6e-2,
    -1.151_461e-1,
    1.167_699_9e-1,
    -1.242_014_1e-1,
    1.424_932_3e-1,
    -1.666_805_8e-1,
    2.000_071_4e-1,
    -2.499_999_4e-1,
    3.333_333e-1,
];

/// The natural logarithm. Subnormal inputs count as zero (XLA:CPU runs with
/// denormals-are-zero) and are recognised by their bits, so the result does not depend on
/// the floating-point mode the function runs in: ±0 and subnormals give -inf, below zero
/// and NaN give NaN, +inf gives +inf.
#[inline(always)]
pub fn ln_f32(x: f32) -> f32 {
    let bits = x.to_bits();
    let e = ((bits >> 23) & 0xff) as i32 - 126;
    let m = f32::from_bits((bits & 0x007f_ffff) | 0x3f00_0000);
    let lowm = m < std::f32::consts::FRAC_1_SQRT_2;
    let e = (e - i32::from(lowm)) as f32;
    let m = if lowm { m + m - 1.0 } else { m - 1.0 };
    let z = m * m;
    let mut p = LN_POLY[0];
    for &c in &LN_POLY[1..] {
        p = p * m + c;
    }
    let mut y = p * m * z;
    y += LN2_LO * e;
    y -= 0.5 * z;
    let r = m + y + LN2_HI * e;
    let r = if x == f32::INFINITY { x } else { r };
    // x < 0 and NaN.
    let r = if x >= 0.0 { r } else { f32::NAN };
    if bits & 0x7fff_ffff < 0x0080_0000 {
        f32::NEG_INFINITY
    } else {
        r
    }
}

/// `log1p_f32`'s switch point, `sqrt(2) - 1`, and its rational approximation's
/// coefficients (shared with the code generator, `fusion/jit/log.rs`).
#[allow(clippy::excessive_precision)]
pub(crate) const LOG1P_SMALL: f32 = 0.414_213_562_373_095_048_80;
#[allow(clippy::excessive_precision)]
pub(crate) const LOG1P_NUM: [f32; 7] = [
    4.527_000_086_244_519_963_521_5e-5,
    4.985_410_282_319_337_597_221_2e-1,
    6.578_732_594_206_104_484_696_9,
    2.991_191_932_855_307_327_737_5e1,
    6.094_966_798_098_778_705_755_6e1,
    5.711_296_359_058_553_810_333_6e1,
    2.003_955_349_920_128_125_964_8e1,
];
#[allow(clippy::excessive_precision)]
pub(crate) const LOG1P_DEN: [f32; 7] = [
    1.0,
    1.506_290_908_346_919_204_316_7e1,
    8.304_756_596_796_720_946_943_4e1,
    2.217_623_982_373_285_646_539_4e2,
    3.090_987_222_531_205_977_493_8e2,
    2.164_278_861_449_594_768_500_3e2,
    6.011_866_049_760_384_391_930_6e1,
];

/// ln(1 + x) as XLA's CPU backend computes it for f32 (`xla/codegen/intrinsic/log1p.cc`):
/// for |x| < sqrt(2) - 1, Cephes' rational approximation `x - x²/2 + x³·P(x)/Q(x)` (degree
/// 6 over 6, coefficients rounded to f32, evaluated by Horner's rule without fused
/// multiply-adds); elsewhere `ln(1 + x)` with [`ln_f32`]. Branch-free, so a loop over a
/// slice vectorises (the C library's `log1pf` measured 9 ns per element in native loops).
/// Against jaxlib 0.10.2 on 700,000 inputs over (-1, 2^58): at most 1 ulp apart (96.5%
/// identical: the logarithms differ), and within 1.8e-7 of the true value; the specials
/// are IEEE's (-1 → -inf, below -1 → NaN, +inf → +inf, ±0 kept).
#[allow(clippy::excessive_precision)]
#[inline(always)]
pub fn log1p_f32(x: f32) -> f32 {
    let horner = |c: &[f32; 7]| c.iter().fold(0.0_f32, |p, &k| p * x + k);
    let x2 = x * x;
    let small = x + (-0.5 * x2 + x * x2 * (horner(&LOG1P_NUM) / horner(&LOG1P_DEN)));
    let large = ln_f32(x + 1.0);
    if x.abs() < LOG1P_SMALL {
        small
    } else {
        large
    }
}

/// The logistic function 1 / (1 + e^-x) (the same formula as the reference kernel).
#[inline(always)]
pub fn logistic_f32(x: f32) -> f32 {
    1.0 / (1.0 + exp_f32(-x))
}

/// [`vmax`](crate::fusion::ops::vmax) before the flush of a subnormal result. A fold of many values may flush once
/// at the end instead (`math::flush_all`): the flush is monotone and keeps signs, so
/// `flush(max(a, b)) = max(flush(a), flush(b))`, ±0 and NaN included.
#[inline(always)]
pub(crate) fn vmax_raw<L: Real>(a: L, b: L) -> L {
    let m1 = if a > b { a } else { b };
    let m2 = if b > a { b } else { a };
    let m = L::from_bits_u64(m1.bits() & m2.bits());
    if a.is_nan() || b.is_nan() {
        a + b
    } else {
        m
    }
}

/// [`vmin`](crate::fusion::ops::vmin) before the flush (see [`vmax_raw`]).
#[inline(always)]
pub(crate) fn vmin_raw<L: Real>(a: L, b: L) -> L {
    let m1 = if a < b { a } else { b };
    let m2 = if b < a { b } else { a };
    let m = L::from_bits_u64(m1.bits() | m2.bits());
    if a.is_nan() || b.is_nan() {
        a + b
    } else {
        m
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rel(got: f32, want: f64) -> f64 {
        if want == 0.0 {
            (got as f64).abs()
        } else {
            ((got as f64 - want) / want).abs()
        }
    }

    /// Many f32 values spread over the whole line (every 4099th bit pattern).
    fn sweep() -> impl Iterator<Item = f32> {
        (0u32..=u32::MAX).step_by(4099).map(f32::from_bits)
    }

    fn check(name: &str, f: fn(f32) -> f32, g: fn(f64) -> f64, tol: f64) {
        let mut worst = (0.0, 0.0f32);
        for x in sweep() {
            let want = g(x as f64);
            let got = f(x);
            if want.is_nan() {
                assert!(got.is_nan(), "{name}({x}) = {got}, want NaN");
                continue;
            }
            let w32 = want as f32;
            if w32.is_infinite() || w32 == 0.0 {
                // Overflow/underflow: must agree with the rounded result (or be within one
                // subnormal step of it).
                assert!(
                    got == w32 || (got - w32).abs() <= f32::from_bits(1),
                    "{name}({x}) = {got}, want {w32}"
                );
                continue;
            }
            // Results in the subnormal range have few digits: compare absolutely there.
            let err = if w32.abs() < f32::MIN_POSITIVE {
                ((got as f64 - want).abs() / f32::from_bits(1) as f64).min(1.0) * 1e-7
            } else {
                rel(got, want)
            };
            if err > worst.0 {
                worst = (err, x);
            }
        }
        assert!(
            worst.0 < tol,
            "{name}: worst rel err {} at {}",
            worst.0,
            worst.1
        );
    }

    #[test]
    fn exp_matches_f64() {
        check("exp", exp_f32, f64::exp, 3e-7);
        assert_eq!(exp_f32(0.0), 1.0);
        assert_eq!(exp_f32(f32::INFINITY), f32::INFINITY);
        assert_eq!(exp_f32(f32::NEG_INFINITY), 0.0);
        assert_eq!(exp_f32(89.0), f32::INFINITY);
        assert!(exp_f32(f32::NAN).is_nan());
    }

    #[test]
    fn tanh_matches_f64() {
        // XLA's own approximation is good to about 3 ulp (worst 3.5e-7 near 6.04).
        check("tanh", tanh_f32, f64::tanh, 4e-7);
        assert_eq!(tanh_f32(-0.0).to_bits(), (-0.0f32).to_bits());
        assert_eq!(tanh_f32(f32::INFINITY), 1.0);
        assert_eq!(tanh_f32(f32::NEG_INFINITY), -1.0);
        assert!(tanh_f32(f32::NAN).is_nan());
        assert_eq!(tanh_f32(8.0), 1.0);
        assert_eq!(tanh_f32(-100.0), -1.0);
        // Never beyond ±1, and monotonic to within 8 ulp (its wobble, as XLA's), where it saturates.
        let mut prev = tanh_f32(5.0);
        for i in 0..=5000 {
            let t = tanh_f32(5.0 + i as f32 * 1e-3);
            assert!(t >= prev - 5e-7 && t <= 1.0, "{i}");
            prev = t;
        }
    }

    #[test]
    fn ln_matches_f64() {
        // Subnormal inputs read as zero (denormals-are-zero): compared as ±0.
        fn ln_daz(x: f64) -> f64 {
            if x.abs() < f32::MIN_POSITIVE as f64 {
                f64::NEG_INFINITY
            } else {
                x.ln()
            }
        }
        check("ln", ln_f32, ln_daz, 3e-7);
        assert_eq!(ln_f32(1.0), 0.0);
        assert_eq!(ln_f32(0.0), f32::NEG_INFINITY);
        assert_eq!(ln_f32(-0.0), f32::NEG_INFINITY);
        assert_eq!(ln_f32(f32::INFINITY), f32::INFINITY);
        assert!(ln_f32(-1.0).is_nan());
        assert!(ln_f32(f32::NAN).is_nan());
        for tiny in [
            f32::from_bits(1),
            1e-40,
            -1e-40,
            f32::from_bits(0x007f_ffff),
        ] {
            assert_eq!(ln_f32(tiny), f32::NEG_INFINITY, "ln({tiny:e})");
        }
        assert!((ln_f32(f32::MIN_POSITIVE) as f64 - (-87.336_544_750_553_1)).abs() < 1e-4);
    }

    #[test]
    fn log1p_matches_f64() {
        // The large branch rounds 1 + x first: at most half an ulp of 1 + x, under 1.8e-7
        // of ln(1 + x) from x = sqrt(2) - 1 up.
        check("log1p", log1p_f32, f64::ln_1p, 3e-7);
        assert_eq!(log1p_f32(0.0).to_bits(), 0);
        assert_eq!(log1p_f32(-0.0).to_bits(), (-0.0f32).to_bits());
        assert_eq!(log1p_f32(-1.0), f32::NEG_INFINITY);
        assert_eq!(log1p_f32(f32::INFINITY), f32::INFINITY);
        assert!(log1p_f32(-1.5).is_nan());
        assert!(log1p_f32(f32::NEG_INFINITY).is_nan());
        assert!(log1p_f32(f32::NAN).is_nan());
        assert_eq!(log1p_f32(1e-30), 1e-30);
        assert_eq!(log1p_f32(f32::from_bits(1)), f32::from_bits(1));
    }

    #[test]
    fn logistic_matches_f64() {
        check("logistic", logistic_f32, |x| 1.0 / (1.0 + (-x).exp()), 5e-7);
    }
}
