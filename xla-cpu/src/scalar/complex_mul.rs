//! Complex multiplication as XLA:CPU computes it (`ElementalIrEmitter`'s complex
//! `multiply` in openxla/xla), bit for bit: the schoolbook formula
//! `(a.re b.re - a.im b.im) + (a.re b.im + a.im b.re) i`, with no C99 recovery of
//! infinities from NaN results.
//!
//! XLA's CPU compiler lets LLVM contract a multiply feeding an add or a subtract into one
//! fused multiply-add (`AllowFPOpFusion = Fast`); on a CPU with FMA each part keeps one
//! product unrounded. Real XLA's results (`testdata/xla_complex_multiply`,
//! `scripts/gen_complex_multiply_fixtures.py`) show which:
//! `re = fma(a.re, b.re, -(a.im b.im))`, `im = fma(a.im, b.re, a.re b.im)`. On the
//! fixture's random normal values, 1772 of 4096 c64 products (1769 of 4096 c128) differ
//! from the unfused formula in a last bit, e.g. c64 `(0.40427116 - 0.50300795i) *
//! (0.12575608 + 1.0194227i)`, whose imaginary part is `0.34886685` on XLA and
//! `0.34886688` unfused; every product of the fixture (special values and overflow
//! included) equals XLA's with the fused form. On a CPU without FMA XLA would not fuse, and
//! its bits would differ from these there. Subnormals are flushed by the caller's
//! floating-point mode, as in the rest of the elementwise kernels.

use crate::scalar::Real;
use num_complex::Complex;

/// `a * b` with XLA:CPU's formula and fused multiply-adds (see the module docs).
#[inline(always)]
pub(crate) fn xla_complex_mul<F: Real>(a: Complex<F>, b: Complex<F>) -> Complex<F> {
    Complex::new(
        a.re.mul_add(b.re, -(a.im * b.im)),
        a.im.mul_add(b.re, a.re * b.im),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A hand-worked product whose real part shows the fused multiply-add: with
    /// `x = 1 + 2^-30`, `(x + i)(x + i)` has `re = x^2 - 1 = 2^-29 + 2^-60` exactly (the
    /// fused form keeps it; rounding `x^2` first loses the `2^-60`) and `im = 2x`.
    #[test]
    fn fused_real_part() {
        let x = 1.0 + 2f64.powi(-30);
        let z = Complex::new(x, 1.0);
        let p = xla_complex_mul(z, z);
        assert_eq!(p.re, 2f64.powi(-29) + 2f64.powi(-60));
        assert_eq!(p.im, 2.0 + 2f64.powi(-29));
        assert_eq!(
            (z * z).re,
            2f64.powi(-29),
            "the unfused formula rounds x^2 first"
        );
    }
}
