//! Complex division as XLA:CPU computes it (`ElementalIrEmitter::EmitComplexDivide` in
//! openxla/xla), bit for bit: Smith's algorithm with the ratio taken on the larger of the
//! divisor's parts, then, where both result parts are NaN, C99-style repairs for a zero
//! divisor, an infinite numerator and an infinite divisor.
//!
//! XLA's CPU compiler lets LLVM contract a multiply feeding an add into one fused
//! multiply-add (`AllowFPOpFusion = Fast`), and on a CPU with FMA it does so in each of
//! Smith's six multiply-adds; real XLA's results (`testdata/xla_complex_divide`) differ
//! from the unfused formula in about 1 in 60 c64 divisions. So those six steps are
//! `mul_add` here (one rounding). The repair formulas' products are exact (one factor is
//! ±0 or ±1), so fusing them or not gives the same bits. Subnormals are flushed by the
//! caller's floating-point mode, as in the rest of the elementwise kernels.

use crate::scalar::Real;
use num_complex::Complex;

/// `a / b` with XLA:CPU's formula, order of operations and corner cases.
///
/// Smith's algorithm: when `|b.re| < |b.im|` (an ordered compare: a NaN part takes the
/// other branch)
/// `r = b.re / b.im`, `den = r * b.re + b.im`,
/// `re = (r * a.re + a.im) / den`, `im = (r * a.im - a.re) / den`; otherwise
/// `r = b.im / b.re`, `den = r * b.im + b.re`,
/// `re = (r * a.im + a.re) / den`, `im = (a.im - r * a.re) / den`.
/// Only when both parts come out NaN is one of the repairs taken, first match first:
/// 1. `b == 0` and `a` not NaN in both parts: `copysign(inf, b.re) * a` part by part;
/// 2. `a` has an infinite part, `b` finite: with `s(x)` = ±1 for an infinite `x`
///    (its sign), ±0 otherwise, `inf * (s(a.re) b.re + s(a.im) b.im)` and
///    `inf * (s(a.im) b.re - s(a.re) b.im)`;
/// 3. `b` has an infinite part, `a` finite: the same with the roles swapped and `0` in
///    place of `inf`: `0 * (a.re s(b.re) + a.im s(b.im))`, `0 * (a.im s(b.re) - a.re s(b.im))`.
#[inline(always)]
pub(crate) fn xla_complex_div<F: Real>(a: Complex<F>, b: Complex<F>) -> Complex<F> {
    let (ar, ai, br, bi) = (a.re, a.im, b.re, b.im);
    let smith = if br.abs() < bi.abs() {
        let r = br / bi;
        let den = r.mul_add(br, bi);
        Complex::new(r.mul_add(ar, ai) / den, r.mul_add(ai, -ar) / den)
    } else {
        let r = bi / br;
        let den = r.mul_add(bi, br);
        Complex::new(r.mul_add(ai, ar) / den, (-r).mul_add(ar, ai) / den)
    };
    if !(smith.re.is_nan() && smith.im.is_nan()) {
        return smith;
    }
    let (zero, one, inf) = (F::zero(), F::one(), F::infinity());
    let is_inf = |x: F| x.abs() == inf;
    // ±1 with `x`'s sign for an infinite `x`, ±0 otherwise.
    let unit = |x: F| if is_inf(x) { one } else { zero }.copysign(x);
    if br.abs() == zero && bi.abs() == zero && !(ar.is_nan() && ai.is_nan()) {
        let s = inf.copysign(br);
        Complex::new(s * ar, s * ai)
    } else if (is_inf(ar) || is_inf(ai)) && br.is_finite() && bi.is_finite() {
        let (sr, si) = (unit(ar), unit(ai));
        Complex::new(inf * (sr * br + si * bi), inf * (si * br - sr * bi))
    } else if (is_inf(br) || is_inf(bi)) && ar.is_finite() && ai.is_finite() {
        let (sr, si) = (unit(br), unit(bi));
        Complex::new(zero * (ar * sr + ai * si), zero * (ai * sr - ar * si))
    } else {
        smith
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn same(x: f64, y: f64) -> bool {
        x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan())
    }

    /// Hand-worked values of the formula (not outputs of this code): exact quotients,
    /// the tie `|re| == |im|`, and each repair.
    #[test]
    fn worked_values() {
        let c = Complex::new;
        let inf = f64::INFINITY;
        let cases = [
            // (1 + 2i) / (3 + 4i) = (11 + 2i) / 25; |3| < |4|: r = 0.75, den = 6.25,
            // re = (0.75 + 2) / 6.25 = 0.44, im = (1.5 - 1) / 6.25 = 0.08.
            (c(1.0, 2.0), c(3.0, 4.0), c(2.75 / 6.25, 0.5 / 6.25)),
            // tie: |1| == |-1| takes the second branch: r = -1, den = 2, re = (-4 + 2) / 2,
            // im = (4 - -1 * 2) / 2.
            (c(2.0, 4.0), c(1.0, -1.0), c(-1.0, 3.0)),
            // 1. zero divisor: copysign(inf, -0) = -inf times each part.
            (c(1.0, -2.0), c(-0.0, 0.0), c(-inf, inf)),
            // 1. with one NaN part: -inf * NaN = NaN, -inf * 3 = -inf.
            (c(f64::NAN, 3.0), c(-0.0, 0.0), c(f64::NAN, -inf)),
            // 2. (inf - inf i) / 2: r = 0, den = 2, re = 0 * -inf + inf = NaN,
            // im = -inf - 0 * inf = NaN; s = (1, -1): inf * (2 + -1 * 0) = inf,
            // inf * (-1 * 2 - 1 * 0) = -inf.
            (c(inf, -inf), c(2.0, 0.0), c(inf, -inf)),
            // Infinite numerator whose Smith result is not NaN: no repair.
            // |2| < |-3|: r = -2/3, re = (r * inf + 1) / den = -inf / den, den < 0.
            (c(inf, 1.0), c(2.0, -3.0), c(inf, inf)),
            // 3. (1 + 2i) / (-inf + inf i): r = NaN; s = (-1, 1): 0 * (-1 + 2) = 0,
            // 0 * (-2 - 1) = -0.
            (c(1.0, 2.0), c(-inf, inf), c(0.0, -0.0)),
            // Infinite divisor whose Smith result is not NaN: |-inf| < |5| fails, r = -0,
            // den = -inf, re = 1 / -inf = -0, im = 2 / -inf = -0.
            (c(1.0, 2.0), c(-inf, 5.0), c(-0.0, -0.0)),
            // NaN / finite: no repair applies.
            (c(f64::NAN, 0.0), c(1.0, 1.0), c(f64::NAN, f64::NAN)),
        ];
        for (a, b, want) in cases {
            let got = xla_complex_div(a, b);
            assert!(
                same(got.re, want.re) && same(got.im, want.im),
                "{a} / {b}: got {got}, want {want}"
            );
        }
    }
}
