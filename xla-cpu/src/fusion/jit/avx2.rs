//! The AVX2 instructions of the code generator: 8 lanes per `ymm` register, so a 16-lane
//! step is two registers' worth (`bank.rs`). AVX2 has no opmask registers and no embedded
//! broadcasts: compares write all-ones lanes into a scratch register that `vblendvps`
//! selects by, and constants are 32-byte vectors in the pool (`Pool::wide`). Every
//! expansion computes exactly what its AVX-512 twin (`avx512.rs`, `log.rs`) and the
//! interpreter compute: the same IEEE operations in the same order.

use super::bank::{self, Bank};
use super::{operands, predicate, EQ_OQ, LT_OQ, NEQ_UQ, NGE_UQ, NLT_UQ, UNORD_Q};
use super::{Asm, Fop, Pool, Width, R};
use iced_x86::code_asm::*;
use iced_x86::IcedError;
use xla_core::attrs::{BinaryOp, UnaryOp};

/// A vector register.
type Y = AsmRegisterYmm;

/// AVX2 with FMA.
pub(super) struct Avx2;

impl Width for Avx2 {
    type Z = Y;
    const BYTES: i32 = 32;
    const SINGLE: &'static [Bank<Y>] = &[bank::Y_SINGLE, bank::Y_SINGLE_HI];
    const PAIR: [Bank<Y>; 2] = [bank::Y_PAIR_A, bank::Y_PAIR_B];
    const FOLD_REGS: usize = 0;

    fn load(a: &mut Asm, d: Y, m: AsmMemoryOperand) -> R {
        a.vmovups(d, ymmword_ptr(m))
    }
    fn bcast(a: &mut Asm, d: Y, m: AsmMemoryOperand) -> R {
        a.vbroadcastss(d, dword_ptr(m))
    }
    fn store(a: &mut Asm, m: AsmMemoryOperand, v: Y, streamed: bool) -> R {
        if streamed {
            a.vmovntps(ymmword_ptr(m), v)
        } else {
            a.vmovups(ymmword_ptr(m), v)
        }
    }
    fn op(
        a: &mut Asm,
        p: &mut Pool,
        b: &Bank<Y>,
        f: Fop,
        d: Y,
        s: &[Y],
    ) -> Result<bool, IcedError> {
        if b.t.len() < scratch(f) {
            return Ok(false);
        }
        emit_op(a, p, b, f, d, s)
    }
    // The accumulators stay in memory (eight registers of them would leave the body
    // eight): each is read, combined and written back once per pass of 64 values.
    fn fold_enter(_: &mut Asm) -> R {
        Ok(())
    }
    fn fold_leave(_: &mut Asm) -> R {
        Ok(())
    }
    fn fold(a: &mut Asm, b: &Bank<Y>, op: BinaryOp, i: usize, v: Y) -> Result<bool, IcedError> {
        if b.t.len() < 7 {
            return Ok(false);
        }
        let (acc, t6) = (b.t[5], b.t[6]);
        let at = rsi + (32 * i) as i32;
        a.vmovups(acc, ymmword_ptr(at))?;
        match op {
            BinaryOp::Add => a.vaddps(acc, acc, v)?,
            BinaryOp::Mul => a.vmulps(acc, acc, v)?,
            BinaryOp::Max | BinaryOp::Min => {
                emit_max(a, b, t6, acc, v, op == BinaryOp::Min)?;
                a.vmovaps(acc, t6)?;
            }
            _ => return Ok(false),
        }
        a.vmovups(ymmword_ptr(at), acc)?;
        Ok(true)
    }
}

/// Scratch registers op `f`'s expansion uses (`t[0..n]`).
fn scratch(f: Fop) -> usize {
    use BinaryOp as B;
    use UnaryOp as U;
    match f {
        Fop::Unary(U::Rsqrt) | Fop::Select => 1,
        Fop::Binary(B::Max | B::Min) => 2,
        Fop::Clamp => 3,
        Fop::Unary(U::Exp | U::Logistic | U::Tanh) => 4,
        Fop::Unary(U::Log) => 5,
        Fop::Unary(U::Log1p) => 8,
        _ => 0,
    }
}

/// `d = max(x, y)` (`min` when asked) exactly as `ops::vmax`: both orders of `maxps`,
/// their bitwise and (or) for ±0, and `x + y` where either is NaN. Uses `t[0..2]`.
fn emit_max(a: &mut Asm, b: &Bank<Y>, d: Y, x: Y, y: Y, min: bool) -> R {
    let (t0, t1) = (b.t[0], b.t[1]);
    if min {
        a.vminps(t0, x, y)?;
        a.vminps(d, y, x)?;
        a.vorps(d, d, t0)?;
    } else {
        a.vmaxps(t0, x, y)?;
        a.vmaxps(d, y, x)?;
        a.vandps(d, d, t0)?;
    }
    a.vcmpps(t0, x, y, UNORD_Q)?;
    a.vaddps(t1, x, y)?;
    a.vblendvps(d, d, t1, t0)
}

/// `d = exp(x)` exactly as `math::exp_f32`. Uses `t[0..4]`; `x` may be `d` (read before
/// `d` is first written).
fn emit_exp(a: &mut Asm, p: &mut Pool, b: &Bank<Y>, d: Y, x: Y) -> R {
    use crate::math::{EXP_C1, EXP_C2, EXP_LO, EXP_POLY, ROUNDER};
    let (t0, t1, t2, t3) = (b.t[0], b.t[1], b.t[2], b.t[3]);
    a.vbroadcastss(t0, p.ptr(EXP_LO))?;
    a.vmaxps(t0, t0, x)?;
    a.vbroadcastss(t1, p.ptr(0.5))?;
    a.vfmadd231ps(t1, t0, p.wf(std::f32::consts::LOG2_E))?;
    a.vroundps(t1, t1, 0x09)?;
    a.vminps(t1, t1, p.wf(127.0))?;
    a.vfmadd231ps(t0, t1, p.wf(-EXP_C1))?;
    a.vfmadd231ps(t0, t1, p.wf(EXP_C2))?;
    a.vmulps(t2, t0, t0)?;
    a.vbroadcastss(d, p.ptr(EXP_POLY[0]))?;
    for &c in &EXP_POLY[1..] {
        a.vfmadd213ps(d, t0, p.wf(c))?;
    }
    a.vfmadd213ps(d, t2, t0)?;
    a.vaddps(d, d, p.wf(1.0))?;
    a.vaddps(t3, t1, p.wf(ROUNDER))?;
    a.vpsubd(t3, t3, p.wide(0x4b40_0000))?;
    a.vpaddd(t3, t3, p.wide(127))?;
    a.vpmaxsd(t3, t3, p.wide(0))?;
    a.vpslld(t3, t3, 23)?;
    a.vmulps(d, d, t3)?;
    // Results below the smallest normal (not NaN) flush to +0.
    a.vcmpps(t0, d, p.wf(f32::MIN_POSITIVE), NLT_UQ)?;
    a.vandps(d, d, t0)
}

/// `d = tanh(x)` exactly as `math::tanh_f32`. Uses `t[0..4]` (four, so that a gelu fits
/// a pair's half of the registers, `bank::Y_PAIR_A`).
fn emit_tanh(a: &mut Asm, p: &mut Pool, b: &Bank<Y>, d: Y, x: Y) -> R {
    use crate::math::{TANH_CLAMP, TANH_P, TANH_Q};
    let (t0, t1, t2, t3) = (b.t[0], b.t[1], b.t[2], b.t[3]);
    a.vbroadcastss(t0, p.ptr(-TANH_CLAMP))?;
    a.vmaxps(t0, t0, x)?;
    a.vbroadcastss(t1, p.ptr(TANH_CLAMP))?;
    a.vminps(t0, t1, t0)?;
    a.vmulps(t1, t0, t0)?;
    a.vbroadcastss(t2, p.ptr(TANH_P[0]))?;
    for &c in &TANH_P[1..] {
        a.vfmadd213ps(t2, t1, p.wf(c))?;
    }
    a.vbroadcastss(t3, p.ptr(TANH_Q[0]))?;
    for &c in &TANH_Q[1..] {
        a.vfmadd213ps(t3, t1, p.wf(c))?;
    }
    a.vmulps(d, t0, t2)?;
    a.vdivps(d, d, t3)?;
    // x itself where |x| < 0.0004 (the mask in `t1`: z is done with).
    a.vandps(t1, x, p.wide(0x7fff_ffff))?;
    a.vcmpps(t1, t1, p.wf(0.0004), LT_OQ)?;
    a.vblendvps(d, d, x, t1)
}

/// `d = ln(x)` exactly as `math::ln_f32`. Uses `t[0..5]`.
fn emit_ln(a: &mut Asm, p: &mut Pool, b: &Bank<Y>, d: Y, x: Y) -> R {
    use crate::math::{LN2_HI, LN2_LO, LN_POLY};
    let (t0, t1, t2, t3, t4) = (b.t[0], b.t[1], b.t[2], b.t[3], b.t[4]);
    // e = ((bits >> 23) & 0xff) - 126.
    a.vpsrld(t1, x, 23)?;
    a.vpand(t1, t1, p.wide(0xff))?;
    a.vpsubd(t1, t1, p.wide(126))?;
    // m in [0.5, 1); below 1/sqrt(2) (t3): e - 1 and m + m.
    a.vandps(t2, x, p.wide(0x007f_ffff))?;
    a.vorps(t2, t2, p.wide(0x3f00_0000))?;
    a.vcmpps(t3, t2, p.wf(std::f32::consts::FRAC_1_SQRT_2), LT_OQ)?;
    a.vpsubd(t0, t1, p.wide(1))?;
    a.vblendvps(t1, t1, t0, t3)?;
    a.vaddps(t0, t2, t2)?;
    a.vblendvps(t2, t2, t0, t3)?;
    a.vsubps(t2, t2, p.wf(1.0))?;
    a.vcvtdq2ps(t1, t1)?;
    a.vmulps(t3, t2, t2)?;
    a.vbroadcastss(t4, p.ptr(LN_POLY[0]))?;
    for &c in &LN_POLY[1..] {
        a.vmulps(t4, t4, t2)?;
        a.vaddps(t4, t4, p.wf(c))?;
    }
    // y = p * m * z + LN2_LO * e - 0.5 * z; r = m + y + LN2_HI * e.
    a.vmulps(t4, t4, t2)?;
    a.vmulps(t4, t4, t3)?;
    a.vmulps(t0, t1, p.wf(LN2_LO))?;
    a.vaddps(t4, t4, t0)?;
    a.vmulps(t0, t3, p.wf(0.5))?;
    a.vsubps(t4, t4, t0)?;
    a.vaddps(d, t2, t4)?;
    a.vmulps(t0, t1, p.wf(LN2_HI))?;
    a.vaddps(d, d, t0)?;
    // +inf -> +inf, below 0 and NaN -> NaN, then ±0 and subnormals (by their bits) -> -inf
    // (the magnitude's bits are below 2^31, so a signed compare is the unsigned one).
    a.vcmpps(t0, x, p.wf(f32::INFINITY), EQ_OQ)?;
    a.vblendvps(d, d, x, t0)?;
    a.vcmpps(t0, x, p.wf(0.0), NGE_UQ)?;
    a.vblendvps(d, d, p.wf(f32::NAN), t0)?;
    a.vandps(t0, x, p.wide(0x7fff_ffff))?;
    a.vmovups(t1, p.wide(0x0080_0000))?;
    a.vpcmpgtd(t1, t1, t0)?;
    a.vblendvps(d, d, p.wf(f32::NEG_INFINITY), t1)
}

/// `d = ln(1 + x)` exactly as `math::log1p_f32`. Uses `t[0..8]`.
fn emit_log1p(a: &mut Asm, p: &mut Pool, b: &Bank<Y>, d: Y, x: Y) -> R {
    let (t5, t6, t7) = (b.t[5], b.t[6], b.t[7]);
    let horner = |a: &mut Asm, p: &mut Pool, t: Y, c: &[f32; 7]| -> R {
        a.vbroadcastss(t, p.ptr(c[0]))?;
        for &k in &c[1..] {
            a.vmulps(t, t, x)?;
            a.vaddps(t, t, p.wf(k))?;
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
    a.vmulps(t5, t6, p.wf(-0.5))?;
    a.vaddps(t5, t5, t7)?;
    a.vaddps(t5, x, t5)?;
    // large = ln(x + 1), then small where |x| < sqrt(2) - 1.
    a.vaddps(t6, x, p.wf(1.0))?;
    emit_ln(a, p, b, d, t6)?;
    a.vandps(t7, x, p.wide(0x7fff_ffff))?;
    a.vcmpps(t7, t7, p.wf(crate::math::LOG1P_SMALL), LT_OQ)?;
    a.vblendvps(d, d, t5, t7)
}

/// Emits op `f` into `d` (distinct from its sources); `Ok(false)` when not supported.
/// The caller has checked that the bank has `scratch(f)` scratch registers.
fn emit_op(
    a: &mut Asm,
    p: &mut Pool,
    b: &Bank<Y>,
    f: Fop,
    d: Y,
    s: &[Y],
) -> Result<bool, IcedError> {
    use BinaryOp as B;
    use UnaryOp as U;
    let Some((x, y, z)) = operands(s) else {
        return Ok(false);
    };
    match f {
        Fop::Unary(U::Neg) => a.vxorps(d, x, p.wide(0x8000_0000))?,
        Fop::Unary(U::Abs) => a.vandps(d, x, p.wide(0x7fff_ffff))?,
        Fop::Unary(U::Sqrt) => a.vsqrtps(d, x)?,
        Fop::Unary(U::Rsqrt) => {
            a.vsqrtps(b.t[0], x)?;
            a.vbroadcastss(d, p.ptr(1.0))?;
            a.vdivps(d, d, b.t[0])?;
        }
        Fop::Unary(U::Floor) => a.vroundps(d, x, 0x09)?,
        Fop::Unary(U::Ceil) => a.vroundps(d, x, 0x0a)?,
        Fop::Unary(U::RoundNearestEven) => a.vroundps(d, x, 0x08)?,
        Fop::Unary(U::Exp) => emit_exp(a, p, b, d, x)?,
        Fop::Unary(U::Tanh) => emit_tanh(a, p, b, d, x)?,
        Fop::Unary(U::Log) => emit_ln(a, p, b, d, x)?,
        Fop::Unary(U::Log1p) => emit_log1p(a, p, b, d, x)?,
        Fop::Unary(U::Logistic) => {
            // exp(-x) with -x in `d` (`emit_exp` reads its input before it writes `d`).
            a.vxorps(d, x, p.wide(0x8000_0000))?;
            emit_exp(a, p, b, d, d)?;
            a.vaddps(d, d, p.wf(1.0))?;
            a.vbroadcastss(b.t[0], p.ptr(1.0))?;
            a.vdivps(d, b.t[0], d)?;
        }
        Fop::Unary(_) => return Ok(false),
        Fop::Binary(B::Add) => a.vaddps(d, x, y)?,
        Fop::Binary(B::Sub) => a.vsubps(d, x, y)?,
        Fop::Binary(B::Mul) => a.vmulps(d, x, y)?,
        Fop::Binary(B::Div) => a.vdivps(d, x, y)?,
        Fop::Binary(B::Max) => emit_max(a, b, d, x, y, false)?,
        Fop::Binary(B::Min) => emit_max(a, b, d, x, y, true)?,
        Fop::Binary(_) => return Ok(false),
        Fop::Cmp(c) => {
            let pred = predicate(c);
            a.vcmpps(d, x, y, pred)?;
            a.vandps(d, d, p.wf(1.0))?;
        }
        Fop::Select => {
            a.vcmpps(b.t[0], x, p.wf(0.0), NEQ_UQ)?;
            a.vblendvps(d, z, y, b.t[0])?;
        }
        Fop::Clamp => {
            let t2 = b.t[2];
            emit_max(a, b, t2, y, x, false)?;
            emit_max(a, b, d, t2, z, true)?;
        }
    }
    Ok(true)
}
