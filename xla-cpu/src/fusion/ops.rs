//! The operations of a fused kernel, each a tight loop over one block slice that LLVM
//! vectorises. Predicates live in f32 registers as 0.0 / 1.0 masks.

use crate::kernels::elementwise::fsign;
use crate::math;

use xla_core::attrs::{BinaryOp, ComparisonDirection, UnaryOp};

/// True when the f32 → f32 unary op can run inside a fused kernel.
pub(crate) fn unary_fusible(op: UnaryOp) -> bool {
    use UnaryOp::*;
    match op {
        Abs | Cbrt | Ceil | Cos | Erf | Exp | Expm1 | Floor | Log | Log1p | Logistic | Neg
        | RoundNearestAfz | RoundNearestEven | Rsqrt | Sign | Sin | Sqrt | Tan | Tanh => true,
        Imag | Real | IsFinite | Clz | Not | Popcnt => false,
    }
}

/// True when the f32 binary op can run inside a fused kernel.
pub(crate) fn binary_fusible(op: BinaryOp) -> bool {
    use BinaryOp::*;
    match op {
        Add | Sub | Mul | Div | Rem | Pow | Max | Min | Atan2 => true,
        Complex | And | Or | Xor | ShiftLeft | ShiftRightArithmetic | ShiftRightLogical => false,
    }
}

/// NaN-propagating maximum with `max(-0, +0) = +0`, written without branches.
#[inline(always)]
pub(crate) fn vmax(a: f32, b: f32) -> f32 {
    let m = if a > b { a } else { b };
    let m = if a == b {
        f32::from_bits(a.to_bits() & b.to_bits())
    } else {
        m
    };
    if a.is_nan() || b.is_nan() {
        a + b
    } else {
        m
    }
}

/// NaN-propagating minimum with `min(-0, +0) = -0`, written without branches.
#[inline(always)]
pub(crate) fn vmin(a: f32, b: f32) -> f32 {
    let m = if a < b { a } else { b };
    let m = if a == b {
        f32::from_bits(a.to_bits() | b.to_bits())
    } else {
        m
    };
    if a.is_nan() || b.is_nan() {
        a + b
    } else {
        m
    }
}

#[inline(always)]
fn map1(a: &[f32], o: &mut [f32], f: impl Fn(f32) -> f32) {
    for (o, &x) in o.iter_mut().zip(a) {
        *o = f(x);
    }
}

#[inline(always)]
fn map2(a: &[f32], b: &[f32], o: &mut [f32], f: impl Fn(f32, f32) -> f32) {
    for ((o, &x), &y) in o.iter_mut().zip(a).zip(b) {
        *o = f(x, y);
    }
}

/// `o = op(a)`.
#[inline(always)]
pub(crate) fn unary(op: UnaryOp, a: &[f32], o: &mut [f32]) {
    use UnaryOp::*;
    match op {
        Abs => map1(a, o, f32::abs),
        Neg => map1(a, o, |x| -x),
        Exp => map1(a, o, math::exp_f32),
        Tanh => map1(a, o, math::tanh_f32),
        Log => map1(a, o, math::ln_f32),
        Logistic => map1(a, o, math::logistic_f32),
        Sqrt => map1(a, o, f32::sqrt),
        Rsqrt => map1(a, o, |x| 1.0 / x.sqrt()),
        Sign => map1(a, o, fsign),
        Floor => map1(a, o, f32::floor),
        Ceil => map1(a, o, f32::ceil),
        Cbrt => map1(a, o, f32::cbrt),
        Cos => map1(a, o, f32::cos),
        Sin => map1(a, o, f32::sin),
        Tan => map1(a, o, f32::tan),
        Erf => map1(a, o, <f32 as crate::scalar::Real>::erf),
        Expm1 => map1(a, o, f32::exp_m1),
        Log1p => map1(a, o, f32::ln_1p),
        RoundNearestAfz => map1(a, o, f32::round),
        RoundNearestEven => map1(a, o, <f32 as crate::scalar::Real>::round_even),
        // Never planned (see `unary_fusible`); the identity keeps this total.
        Imag | Real | IsFinite | Clz | Not | Popcnt => map1(a, o, |x| x),
    }
}

/// `o = op(a, b)`.
#[inline(always)]
pub(crate) fn binary(op: BinaryOp, a: &[f32], b: &[f32], o: &mut [f32]) {
    use BinaryOp::*;
    match op {
        Add => map2(a, b, o, |x, y| x + y),
        Sub => map2(a, b, o, |x, y| x - y),
        Mul => map2(a, b, o, |x, y| x * y),
        Div => map2(a, b, o, |x, y| x / y),
        Max => map2(a, b, o, vmax),
        Min => map2(a, b, o, vmin),
        Rem => map2(a, b, o, |x, y| x % y),
        Pow => map2(a, b, o, f32::powf),
        Atan2 => map2(a, b, o, f32::atan2),
        // Never planned (see `binary_fusible`).
        Complex | And | Or | Xor | ShiftLeft | ShiftRightArithmetic | ShiftRightLogical => {
            map2(a, b, o, |x, _| x)
        }
    }
}

/// A compare result as a 0/1 mask.
#[inline(always)]
pub(crate) fn mask(c: bool) -> f32 {
    if c {
        1.0
    } else {
        0.0
    }
}

/// `o = (a dir b)` as a 0/1 mask (IEEE order: NaN compares unordered).
#[inline(always)]
pub(crate) fn compare(dir: ComparisonDirection, a: &[f32], b: &[f32], o: &mut [f32]) {
    use ComparisonDirection::*;
    match dir {
        Eq => map2(a, b, o, |x, y| mask(x == y)),
        Ne => map2(a, b, o, |x, y| mask(x != y)),
        Ge => map2(a, b, o, |x, y| mask(x >= y)),
        Gt => map2(a, b, o, |x, y| mask(x > y)),
        Le => map2(a, b, o, |x, y| mask(x <= y)),
        Lt => map2(a, b, o, |x, y| mask(x < y)),
    }
}

/// `o = p ? a : b` with `p` a 0/1 mask.
#[inline(always)]
pub(crate) fn select(p: &[f32], a: &[f32], b: &[f32], o: &mut [f32]) {
    for (((o, &p), &x), &y) in o.iter_mut().zip(p).zip(a).zip(b) {
        *o = if p != 0.0 { x } else { y };
    }
}

/// `o = min(max(x, lo), hi)`.
#[inline(always)]
pub(crate) fn clamp(lo: &[f32], x: &[f32], hi: &[f32], o: &mut [f32]) {
    for (((o, &l), &x), &h) in o.iter_mut().zip(lo).zip(x).zip(hi) {
        *o = vmin(vmax(x, l), h);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::elementwise::{fmax, fmin};

    #[test]
    fn vmax_vmin_match_the_reference_corners() {
        let vals = [
            0.0f32,
            -0.0,
            1.0,
            -1.0,
            f32::INFINITY,
            f32::NEG_INFINITY,
            f32::NAN,
        ];
        for &a in &vals {
            for &b in &vals {
                for (got, want) in [(vmax(a, b), fmax(a, b)), (vmin(a, b), fmin(a, b))] {
                    if want.is_nan() {
                        assert!(got.is_nan(), "{a} {b}");
                    } else {
                        assert_eq!(got.to_bits(), want.to_bits(), "{a} {b}");
                    }
                }
            }
        }
    }
}
