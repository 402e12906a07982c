//! The AVX-512 instructions of the code generator: 16 lanes per `zmm` register, compares
//! into opmask registers, constants as embedded broadcasts (`{1to16}`).

use super::bank::{self, Bank};
use super::{log, Asm, Fop, Pool, Width, R, Z};
use super::{operands, predicate, LT_OQ, NEQ_UQ, NLT_UQ, UNORD_Q};
use iced_x86::code_asm::*;
use iced_x86::IcedError;
use xla_core::attrs::{BinaryOp, UnaryOp};

/// AVX-512F/BW/DQ/VL.
pub(super) struct Avx512;

/// The fold accumulators (lanes 0-15, 16-31, 32-47, 48-63 of `LANES`), taken from the
/// top of `SINGLE`'s value registers.
const ACC: [Z; 4] = [zmm20, zmm21, zmm22, zmm23];

impl Width for Avx512 {
    type Z = Z;
    const BYTES: i32 = 64;
    const SINGLE: &'static [Bank<Z>] = &[bank::SINGLE];
    const PAIR: [Bank<Z>; 2] = [bank::PAIR_A, bank::PAIR_B];
    const FOLD_REGS: usize = ACC.len();

    fn load(a: &mut Asm, d: Z, m: AsmMemoryOperand) -> R {
        a.vmovups(d, zmmword_ptr(m))
    }
    fn bcast(a: &mut Asm, d: Z, m: AsmMemoryOperand) -> R {
        a.vbroadcastss(d, dword_ptr(m))
    }
    fn store(a: &mut Asm, m: AsmMemoryOperand, v: Z, streamed: bool) -> R {
        if streamed {
            a.vmovntps(zmmword_ptr(m), v)
        } else {
            a.vmovups(zmmword_ptr(m), v)
        }
    }
    fn op(
        a: &mut Asm,
        p: &mut Pool,
        b: &Bank<Z>,
        f: Fop,
        d: Z,
        s: &[Z],
    ) -> Result<bool, IcedError> {
        emit_op(a, p, b, f, d, s)
    }
    fn fold_enter(a: &mut Asm) -> R {
        for (i, acc) in ACC.iter().enumerate() {
            a.vmovups(*acc, zmmword_ptr(rsi + (64 * i) as i32))?;
        }
        Ok(())
    }
    fn fold_leave(a: &mut Asm) -> R {
        for (i, acc) in ACC.iter().enumerate() {
            a.vmovups(zmmword_ptr(rsi + (64 * i) as i32), *acc)?;
        }
        Ok(())
    }
    fn fold(a: &mut Asm, b: &Bank<Z>, op: BinaryOp, i: usize, v: Z) -> Result<bool, IcedError> {
        let Some(&acc) = ACC.get(i) else {
            return Ok(false);
        };
        match op {
            BinaryOp::Add => a.vaddps(acc, acc, v)?,
            BinaryOp::Mul => a.vmulps(acc, acc, v)?,
            BinaryOp::Max | BinaryOp::Min => {
                let t6 = b.t[6];
                emit_max(a, b, t6, acc, v, op == BinaryOp::Min)?;
                a.vmovaps(acc, t6)?;
            }
            _ => return Ok(false),
        }
        Ok(true)
    }
}

/// `d = max(x, y)` (`min` when asked) exactly as `ops::vmax`: both orders of `maxps`
/// (each gives its second operand on ties and NaN), their bitwise and (or) for ±0, and
/// `x + y` where either is NaN.
pub(super) fn emit_max(a: &mut Asm, b: &Bank<Z>, d: Z, x: Z, y: Z, min: bool) -> R {
    let t0 = b.t[0];
    if min {
        a.vminps(t0, x, y)?;
        a.vminps(d, y, x)?;
        a.vpord(d, d, t0)?;
    } else {
        a.vmaxps(t0, x, y)?;
        a.vmaxps(d, y, x)?;
        a.vpandd(d, d, t0)?;
    }
    a.vcmpps(b.kr(0), x, y, UNORD_Q)?;
    a.vaddps(b.m(d, 0), x, y)
}

/// `d = exp(x)` exactly as `math::exp_f32` (Cephes with FMA, XLA's clamps and flush).
pub(super) fn emit_exp(a: &mut Asm, p: &mut Pool, b: &Bank<Z>, d: Z, x: Z) -> R {
    use crate::math::{EXP_C1, EXP_C2, EXP_LO, EXP_POLY, ROUNDER};
    let (t0, t2, t4, t5) = (b.t[0], b.t[2], b.t[4], b.t[5]);
    // `x < LO ? LO : x` (NaN stays): `maxps` gives its second operand on NaN and ties.
    // Written without register copies (each a uop on the ports the polynomial needs):
    // the fused multiply-adds accumulate into the register that is free to overwrite,
    // with the same operands, so the same bits.
    a.vbroadcastss(t0, p.ptr(EXP_LO))?;
    a.vmaxps(t0, t0, x)?;
    a.vbroadcastss(t2, p.ptr(0.5))?;
    a.vfmadd231ps(t2, t0, p.f(std::f32::consts::LOG2_E))?;
    a.vrndscaleps(t2, t2, 0x09)?;
    a.vminps(t2, t2, p.f(127.0))?;
    a.vfmadd231ps(t0, t2, p.f(-EXP_C1))?;
    a.vfmadd231ps(t0, t2, p.f(EXP_C2))?;
    let t3 = t0;
    a.vmulps(t4, t3, t3)?;
    a.vbroadcastss(d, p.ptr(EXP_POLY[0]))?;
    for &c in &EXP_POLY[1..] {
        a.vfmadd213ps(d, t3, p.f(c))?;
    }
    a.vfmadd213ps(d, t4, t3)?;
    a.vaddps(d, d, p.f(1.0))?;
    a.vaddps(t5, t2, p.f(ROUNDER))?;
    a.vpsubd(t5, t5, p.bits(0x4b40_0000))?;
    a.vpaddd(t5, t5, p.bits(127))?;
    a.vpmaxsd(t5, t5, p.bits(0))?;
    a.vpslld(t5, t5, 23)?;
    a.vmulps(d, d, t5)?;
    a.vcmpps(b.kr(0), d, p.f(f32::MIN_POSITIVE), NLT_UQ)?;
    a.vmovaps(b.m(d, 0).z(), d)
}

/// `d = tanh(x)` exactly as `math::tanh_f32` (Eigen's rational form with FMA).
fn emit_tanh(a: &mut Asm, p: &mut Pool, b: &Bank<Z>, d: Z, x: Z) -> R {
    use crate::math::{TANH_CLAMP, TANH_P, TANH_Q};
    let (t0, t1, t2, t3, t4) = (b.t[0], b.t[1], b.t[2], b.t[3], b.t[4]);
    // The clamp to ±CLAMP (NaN stays): `maxps`/`minps` give their second operand on NaN.
    a.vbroadcastss(t0, p.ptr(-TANH_CLAMP))?;
    a.vmaxps(t0, t0, x)?;
    a.vbroadcastss(t1, p.ptr(TANH_CLAMP))?;
    a.vminps(t0, t1, t0)?;
    a.vmulps(t1, t0, t0)?;
    a.vbroadcastss(t2, p.ptr(TANH_P[0]))?;
    for &c in &TANH_P[1..] {
        a.vfmadd213ps(t2, t1, p.f(c))?;
    }
    a.vbroadcastss(t3, p.ptr(TANH_Q[0]))?;
    for &c in &TANH_Q[1..] {
        a.vfmadd213ps(t3, t1, p.f(c))?;
    }
    a.vmulps(d, t0, t2)?;
    a.vdivps(d, d, t3)?;
    a.vpandd(t4, x, p.bits(0x7fff_ffff))?;
    a.vcmpps(b.kr(0), t4, p.f(0.0004), LT_OQ)?;
    a.vmovaps(b.m(d, 0), x)
}

/// Emits op `f` into `d` (distinct from its sources); `Ok(false)` when not supported.
pub(super) fn emit_op(
    a: &mut Asm,
    p: &mut Pool,
    b: &Bank<Z>,
    f: Fop,
    d: Z,
    s: &[Z],
) -> Result<bool, IcedError> {
    use BinaryOp as B;
    use UnaryOp as U;
    let Some((x, y, z)) = operands(s) else {
        return Ok(false);
    };
    match f {
        Fop::Unary(U::Neg) => a.vpxord(d, x, p.bits(0x8000_0000))?,
        Fop::Unary(U::Abs) => a.vpandd(d, x, p.bits(0x7fff_ffff))?,
        Fop::Unary(U::Sqrt) => a.vsqrtps(d, x)?,
        Fop::Unary(U::Rsqrt) => {
            a.vsqrtps(b.t[0], x)?;
            a.vbroadcastss(d, p.ptr(1.0))?;
            a.vdivps(d, d, b.t[0])?;
        }
        Fop::Unary(U::Floor) => a.vrndscaleps(d, x, 0x09)?,
        Fop::Unary(U::Ceil) => a.vrndscaleps(d, x, 0x0a)?,
        Fop::Unary(U::RoundNearestEven) => a.vrndscaleps(d, x, 0x08)?,
        Fop::Unary(U::Exp) => emit_exp(a, p, b, d, x)?,
        Fop::Unary(U::Tanh) => emit_tanh(a, p, b, d, x)?,
        Fop::Unary(U::Log) => log::emit_ln(a, p, b, d, x)?,
        Fop::Unary(U::Log1p) => log::emit_log1p(a, p, b, d, x)?,
        Fop::Unary(U::Logistic) => {
            let t7 = b.t[7];
            a.vpxord(t7, x, p.bits(0x8000_0000))?;
            emit_exp(a, p, b, d, t7)?;
            a.vaddps(d, d, p.f(1.0))?;
            a.vbroadcastss(t7, p.ptr(1.0))?;
            a.vdivps(d, t7, d)?;
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
            a.vcmpps(b.kr(0), x, y, pred)?;
            a.vbroadcastss(b.m(d, 0).z(), p.ptr(1.0))?;
        }
        Fop::Select => {
            a.vcmpps(b.kr(0), x, p.f(0.0), NEQ_UQ)?;
            a.vblendmps(b.m(d, 0), z, y)?;
        }
        Fop::Clamp => {
            let t7 = b.t[7];
            emit_max(a, b, t7, y, x, false)?;
            emit_max(a, b, d, t7, z, true)?;
        }
    }
    Ok(true)
}
