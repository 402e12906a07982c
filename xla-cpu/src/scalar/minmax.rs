//! The NaN-propagating maximum and minimum of XLA (`max(-0, +0) = +0`,
//! `min(-0, +0) = -0`) and the flush of their subnormal results; the elementwise kernels,
//! the fused loops and the native combiners of [`Combine`](super::Combine) all use these.

use super::Real;

/// `x`, or its signed zero when it is subnormal: XLA's max and min (x86 `maxps`/`minps`
/// under denormals-are-zero, `denormals.rs`) return flushed operands, and the selects here
/// would otherwise pass a subnormal through, or not, depending on how the compiler lowered
/// them (debug and release builds disagreed).
#[inline(always)]
pub(crate) fn flushed<L: Real>(x: L) -> L {
    if x.abs() < L::min_positive_value() {
        x * L::zero()
    } else {
        x
    }
}

/// Flushes every subnormal of `out` to its signed zero (see [`flushed`]); a max or min fold
/// that skipped the flush per step calls it once on its results.
pub(crate) fn flush_all<L: Real>(out: &mut [L]) {
    for v in out {
        *v = flushed(*v);
    }
}

/// NaN-propagating maximum; `max(-0, +0) = +0`.
pub(crate) fn fmax<F: Real>(a: F, b: F) -> F {
    flushed(if keeps_max(a, b) { a } else { b })
}

/// Whether `fmax(a, b)` is `a`: one select from non-short-circuit tests (a loop over it
/// vectorises; an `if` chain mispredicted on random signs, 25 cycles per element of a
/// Relu6).
pub(crate) fn keeps_max<F: Real>(a: F, b: F) -> bool {
    a.is_nan() | (a > b) | !(b.is_nan() | (b > a) | a.is_sign_negative())
}

/// Whether `fmin(a, b)` is `a`.
pub(crate) fn keeps_min<F: Real>(a: F, b: F) -> bool {
    a.is_nan() | (a < b) | !(b.is_nan() | (b < a) | !a.is_sign_negative())
}

/// NaN-propagating minimum; `min(-0, +0) = -0`.
pub(crate) fn fmin<F: Real>(a: F, b: F) -> F {
    flushed(if keeps_min(a, b) { a } else { b })
}
