//! Elementwise complex multiply and divide built with FMA instructions. XLA contracts a
//! multiply feeding an add into a fused multiply-add (`complex_mul.rs`, `complex_div.rs`),
//! which we write as `mul_add`; in a baseline x86-64 build each `mul_add` is a call of
//! libm's software `fma` (a c64[32,32,129] divide took 2.3 ms, 17 ns an element, in a
//! Fourier layer). On a CPU with FMA the loop is built with the instruction enabled; the
//! results are the same either way, a fused multiply-add rounding once.
//!
//! Each op has its own loop calling the op directly: passed as a generic `Fn`, the op was
//! called through a `Fn::call` shim built without FMA (3.5 ms for that divide again).

use super::complex_div::xla_complex_div;
use crate::scalar::complex_mul::xla_complex_mul;
use crate::scalar::Real;
use num_complex::Complex;

/// The ops with an FMA-built loop.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Op {
    Mul,
    Div,
}

/// `op(a[i], b[i])` for every element, built with FMA when the CPU has it.
pub(crate) fn zip<F: Real>(a: &[Complex<F>], b: &[Complex<F>], op: Op) -> Vec<Complex<F>> {
    #[cfg(target_arch = "x86_64")]
    if is_x86_feature_detected!("fma") {
        // SAFETY: the CPU has FMA (checked just above), the one feature the build enables.
        return unsafe { zip_fma(a, b, op) };
    }
    zip_loop(a, b, op)
}

/// Plain loops, one per op, each calling its (`#[inline(always)]`) op directly; an
/// iterator's `fold` or a generic callable would be a function of its own, built without
/// the caller's FMA.
#[inline(always)]
fn zip_loop<F: Real>(a: &[Complex<F>], b: &[Complex<F>], op: Op) -> Vec<Complex<F>> {
    let mut out = vec![Complex::new(F::zero(), F::zero()); a.len().min(b.len())];
    match op {
        Op::Mul => {
            for (i, o) in out.iter_mut().enumerate() {
                *o = xla_complex_mul(a[i], b[i]);
            }
        }
        Op::Div => {
            for (i, o) in out.iter_mut().enumerate() {
                *o = xla_complex_div(a[i], b[i]);
            }
        }
    }
    out
}

/// [`zip_loop`] built with FMA instructions.
///
/// # Safety
/// The CPU must have FMA.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "fma")]
unsafe fn zip_fma<F: Real>(a: &[Complex<F>], b: &[Complex<F>], op: Op) -> Vec<Complex<F>> {
    zip_loop(a, b, op)
}
