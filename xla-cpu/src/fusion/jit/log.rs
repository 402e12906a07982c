//! `ln` and `log1p` for the AVX-512 code generator, the same IEEE operations in the same order as
//! `math::ln_f32` and `math::log1p_f32` (no fused multiply-adds: those functions have
//! none), so generated code and interpreter give the same bits.

use super::{Asm, Bank, Pool, EQ_OQ, LT_OQ, NGE_UQ, R, Z};

/// `vpcmpud`'s unsigned less-than.
const LT_UINT: i32 = 1;

/// `d = ln(x)` exactly as `math::ln_f32`; uses scratch `t[0..5]` and masks 1 and 2.
pub(super) fn emit_ln(a: &mut Asm, p: &mut Pool, b: &Bank<Z>, d: Z, x: Z) -> R {
    let (t0, t1, t2, t3, t4) = (b.t[0], b.t[1], b.t[2], b.t[3], b.t[4]);
    // e = ((bits >> 23) & 0xff) - 126.
    a.vpsrld(t1, x, 23)?;
    a.vpandd(t1, t1, p.bits(0xff))?;
    a.vpsubd(t1, t1, p.bits(126))?;
    // m in [0.5, 1); below 1/sqrt(2) (mask 2): e - 1 and m + m.
    a.vpandd(t2, x, p.bits(0x007f_ffff))?;
    a.vpord(t2, t2, p.bits(0x3f00_0000))?;
    a.vcmpps(b.kr(2), t2, p.f(std::f32::consts::FRAC_1_SQRT_2), LT_OQ)?;
    a.vpsubd(b.m(t1, 2), t1, p.bits(1))?;
    a.vaddps(b.m(t2, 2), t2, t2)?;
    a.vsubps(t2, t2, p.f(1.0))?;
    a.vcvtdq2ps(t1, t1)?;
    a.vmulps(t3, t2, t2)?;
    a.vbroadcastss(t4, p.ptr(crate::math::LN_POLY[0]))?;
    for &c in &crate::math::LN_POLY[1..] {
        a.vmulps(t4, t4, t2)?;
        a.vaddps(t4, t4, p.f(c))?;
    }
    // y = p * m * z + LN2_LO * e - 0.5 * z; r = m + y + LN2_HI * e.
    a.vmulps(t4, t4, t2)?;
    a.vmulps(t4, t4, t3)?;
    a.vmulps(t0, t1, p.f(crate::math::LN2_LO))?;
    a.vaddps(t4, t4, t0)?;
    a.vmulps(t0, t3, p.f(0.5))?;
    a.vsubps(t4, t4, t0)?;
    a.vaddps(d, t2, t4)?;
    a.vmulps(t0, t1, p.f(crate::math::LN2_HI))?;
    a.vaddps(d, d, t0)?;
    // +inf -> +inf, below 0 and NaN -> NaN, then ±0 and subnormals (by their bits) -> -inf.
    a.vcmpps(b.kr(1), x, p.f(f32::INFINITY), EQ_OQ)?;
    a.vmovaps(b.m(d, 1), x)?;
    a.vcmpps(b.kr(1), x, p.f(0.0), NGE_UQ)?;
    a.vbroadcastss(b.m(d, 1), p.ptr(f32::NAN))?;
    a.vpandd(t0, x, p.bits(0x7fff_ffff))?;
    a.vpcmpud(b.kr(1), t0, p.bits(0x0080_0000), LT_UINT)?;
    a.vbroadcastss(b.m(d, 1), p.ptr(f32::NEG_INFINITY))
}

/// `d = ln(1 + x)` exactly as `math::log1p_f32`; uses all scratch registers and masks 1
/// and 2 (mask 1 again once `ln` is done with it).
#[allow(clippy::excessive_precision)]
pub(super) fn emit_log1p(a: &mut Asm, p: &mut Pool, b: &Bank<Z>, d: Z, x: Z) -> R {
    let (t5, t6, t7) = (b.t[5], b.t[6], b.t[7]);
    // Horner's rule from the leading coefficient (the fold's `0 * x + c` is `c` for the
    // finite x this branch is taken for).
    let horner = |a: &mut Asm, p: &mut Pool, t: Z, c: &[f32; 7]| -> R {
        a.vbroadcastss(t, p.ptr(c[0]))?;
        for &k in &c[1..] {
            a.vmulps(t, t, x)?;
            a.vaddps(t, t, p.f(k))?;
        }
        Ok(())
    };
    horner(a, p, t5, &crate::math::LOG1P_NUM)?;
    horner(a, p, t6, &crate::math::LOG1P_DEN)?;
    a.vdivps(t5, t5, t6)?;
    // small = x + (-0.5 * x² + x * x² * (num / den)).
    a.vmulps(t6, x, x)?;
    a.vmulps(t7, x, t6)?;
    a.vmulps(t7, t7, t5)?;
    a.vmulps(t5, t6, p.f(-0.5))?;
    a.vaddps(t5, t5, t7)?;
    a.vaddps(t5, x, t5)?;
    // large = ln(x + 1), then small where |x| < sqrt(2) - 1 (mask 1).
    a.vaddps(t6, x, p.f(1.0))?;
    emit_ln(a, p, b, d, t6)?;
    a.vpandd(t7, x, p.bits(0x7fff_ffff))?;
    a.vcmpps(b.kr(1), t7, p.f(crate::math::LOG1P_SMALL), LT_OQ)?;
    a.vmovaps(b.m(d, 1), t5)
}
