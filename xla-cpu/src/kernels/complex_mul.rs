//! Complex multiplication as XLA:CPU computes it (`ElementalIrEmitter`'s complex
//! `multiply` in openxla/xla), bit for bit: the schoolbook formula
//! `(a.re b.re - a.im b.im) + (a.re b.im + a.im b.re) i`, with no C99 recovery of
//! infinities from NaN results.
//!
//! XLA's CPU compiler lets LLVM contract a multiply feeding an add or a subtract into one
//! fused multiply-add (`AllowFPOpFusion = Fast`); on a CPU with FMA each part keeps one
//! product unrounded. Which one is fixed by the emitted IR's order, and real XLA's results
//! (`testdata/xla_complex_multiply`, `scripts/gen_complex_multiply_fixtures.py`) show it:
//! `re = fma(a.re, b.re, -(a.im b.im))`, `im = fma(a.im, b.re, a.re b.im)`. Where the
//! rounded product overflows or the exact one cancels, this differs from the unfused
//! formula by more than an ulp (e.g. `(1e30 + 1e30i)(1e30 - 1e30i)` in c128 is exact
//! either way, but `re` of `(1 + 1e-8i)(1 - 1e-8i)`-like values near cancellation keep
//! the product's rounding error). Subnormals are flushed by the caller's floating-point
//! mode, as in the rest of the elementwise kernels.

use crate::scalar::Real;
use num_complex::Complex;

/// `a * b` with XLA:CPU's formula and fused multiply-adds (see the module docs).
pub(crate) fn xla_complex_mul<F: Real>(a: Complex<F>, b: Complex<F>) -> Complex<F> {
    Complex::new(
        a.re.mul_add(b.re, -(a.im * b.im)),
        a.im.mul_add(b.re, a.re * b.im),
    )
}
