//! Elementwise ops: checking what native code reproduces exactly, and emitting it per
//! element. Float add/sub/mul/div/sqrt are IEEE operations (exact everywhere); max and
//! min copy the interpreter's NaN and ±0 rules (the fused kernels' `vmax`/`vmin` inside
//! fused steps, `fmax`/`fmin` elsewhere); every other float function is a call to the
//! interpreter's own function (see `externs.rs`).

use super::emit::{clif, Em, Ix};
use super::externs::{binary_name, unary_name};
use super::lower::Lowerer;
use super::program::{Inst, SlotId, Ty};
use cranelift_codegen::ir::condcodes::{FloatCC, IntCC};
use cranelift_codegen::ir::{types, InstBuilder, MemFlagsData, Type, Value};
use xla_core::attrs::{BinaryOp, ComparisonDirection, ComparisonType, UnaryOp};

fn unary_ok(op: UnaryOp, ty: Ty) -> bool {
    use UnaryOp as U;
    match ty {
        Ty::F32 | Ty::F64 => {
            matches!(op, U::Abs | U::Neg | U::Sqrt | U::Rsqrt) || unary_name(op, ty).is_some()
        }
        Ty::Pred => op == U::Not,
        Ty::S8 | Ty::U8 | Ty::S16 | Ty::U16 | Ty::S32 | Ty::U32 | Ty::S64 | Ty::U64 => {
            matches!(op, U::Abs | U::Neg | U::Not)
        }
    }
}

fn binary_ok(op: BinaryOp, ty: Ty) -> bool {
    use BinaryOp as B;
    match ty {
        Ty::F32 | Ty::F64 => {
            matches!(op, B::Add | B::Sub | B::Mul | B::Div | B::Max | B::Min)
                || binary_name(op, ty).is_some()
        }
        Ty::Pred => matches!(
            op,
            B::And | B::Or | B::Xor | B::Min | B::Max | B::Mul | B::Add | B::Sub
        ),
        Ty::S8 | Ty::U8 | Ty::S16 | Ty::U16 | Ty::S32 | Ty::U32 | Ty::S64 | Ty::U64 => matches!(
            op,
            B::Add
                | B::Sub
                | B::Mul
                | B::Max
                | B::Min
                | B::And
                | B::Or
                | B::Xor
                | B::ShiftLeft
                | B::ShiftRightArithmetic
                | B::ShiftRightLogical
        ),
    }
}

fn convert_ok(from: Ty, to: Ty) -> bool {
    let wide = |t: Ty| matches!(t, Ty::S32 | Ty::U32 | Ty::S64 | Ty::U64);
    !from.is_float() || to.is_float() || to == Ty::Pred || wide(to)
}

/// An elementwise op, with its attributes.
#[derive(Clone, Copy)]
pub(crate) enum Ew {
    /// One-operand op.
    Unary(UnaryOp),
    /// Two-operand op.
    Binary(BinaryOp),
    /// `compare`.
    Compare(ComparisonDirection, Option<ComparisonType>),
    /// `select`.
    Select,
    /// `clamp`.
    Clamp,
    /// `convert`.
    Convert,
}

/// Checks an elementwise instruction and returns its program instruction.
pub(crate) fn lower(
    lw: &Lowerer<'_>,
    op: Ew,
    ops: &[SlotId],
    dst: SlotId,
    fused: bool,
) -> Option<Inst> {
    let d = lw.info(dst)?;
    let s = |k: usize| ops.get(k).and_then(|&o| lw.info(o));
    let full = |k: usize| s(k).filter(|x| x.n == d.n);
    let any = |k: usize| s(k).filter(|x| x.n == d.n || x.n == 1);
    let o = |k: usize| ops.get(k).copied();
    let inst = match op {
        Ew::Unary(UnaryOp::IsFinite) => {
            full(0).filter(|x| x.ty.is_float() && d.ty == Ty::Pred)?;
            Inst::Unary {
                op: UnaryOp::IsFinite,
                x: o(0)?,
                dst,
            }
        }
        Ew::Unary(u) => {
            full(0).filter(|x| x.ty == d.ty && unary_ok(u, d.ty))?;
            Inst::Unary {
                op: u,
                x: o(0)?,
                dst,
            }
        }
        Ew::Binary(b) => {
            let (x, y) = (full(0)?, full(1)?);
            (x.ty == d.ty && y.ty == d.ty && binary_ok(b, d.ty)).then_some(())?;
            Inst::Binary {
                op: b,
                a: o(0)?,
                b: o(1)?,
                dst,
                fused,
            }
        }
        Ew::Compare(direction, comparison_type) => {
            let (x, y) = (full(0)?, full(1)?);
            let total = comparison_type == Some(ComparisonType::TotalOrder);
            (x.ty == y.ty && d.ty == Ty::Pred && !(total && x.ty.is_float())).then_some(())?;
            Inst::Compare {
                dir: direction,
                a: o(0)?,
                b: o(1)?,
                dst,
            }
        }
        Ew::Select => {
            let (p, x, y) = (any(0)?, any(1)?, any(2)?);
            (p.ty == Ty::Pred && x.ty == d.ty && y.ty == d.ty).then_some(())?;
            Inst::Select {
                p: o(0)?,
                a: o(1)?,
                b: o(2)?,
                dst,
            }
        }
        Ew::Clamp => {
            let (lo, x, hi) = (any(0)?, full(1)?, any(2)?);
            (lo.ty == d.ty && x.ty == d.ty && hi.ty == d.ty).then_some(())?;
            Inst::Clamp {
                lo: o(0)?,
                x: o(1)?,
                hi: o(2)?,
                dst,
                fused,
            }
        }
        Ew::Convert => {
            full(0).filter(|x| convert_ok(x.ty, d.ty))?;
            Inst::Convert { x: o(0)?, dst }
        }
    };
    Some(inst)
}

/// Emits an elementwise instruction.
pub(crate) fn emit(em: &mut Em<'_, '_>, ins: &Inst) -> Option<()> {
    match *ins {
        Inst::Unary {
            op: UnaryOp::IsFinite,
            x,
            dst,
        } => {
            let ty = em.slot(x)?.ty;
            each(em, dst, |em, ix| {
                let v = em.load(x, ix)?;
                let a = em.b.ins().fabs(v);
                let inf = fconst(em, ty, f64::INFINITY);
                Some(em.b.ins().fcmp(FloatCC::LessThan, a, inf))
            })
        }
        Inst::Unary { op, x, dst } => {
            if super::slices::emit(em, ins).is_some() {
                return Some(());
            }
            let ty = em.slot(dst)?.ty;
            let one = move |em: &mut Em<'_, '_>, ix| {
                let v = em.load(x, ix)?;
                unary(em, op, ty, v)
            };
            per_element_or_vector(em, ins, dst, one)
        }
        Inst::Binary {
            op,
            a,
            b,
            dst,
            fused,
        } => {
            let ty = em.slot(dst)?.ty;
            let one = move |em: &mut Em<'_, '_>, ix| {
                let (x, y) = (em.load(a, ix)?, em.load(b, ix)?);
                binary(em, op, ty, fused, x, y)
            };
            per_element_or_vector(em, ins, dst, one)
        }
        Inst::Compare { dir, a, b, dst } => {
            let ty = em.slot(a)?.ty;
            let one = move |em: &mut Em<'_, '_>, ix| {
                let (x, y) = (em.load(a, ix)?, em.load(b, ix)?);
                Some(compare(em, dir, ty, x, y))
            };
            per_element_or_vector(em, ins, dst, one)
        }
        Inst::Select { p, a, b, dst } => {
            let one = move |em: &mut Em<'_, '_>, ix| {
                let (c, x, y) = (em.load(p, ix)?, em.load(a, ix)?, em.load(b, ix)?);
                Some(em.b.ins().select(c, x, y))
            };
            per_element_or_vector(em, ins, dst, one)
        }
        Inst::Clamp {
            lo,
            x,
            hi,
            dst,
            fused,
        } => {
            let ty = em.slot(dst)?.ty;
            each(em, dst, |em, ix| {
                let (l, v, h) = (em.load(lo, ix)?, em.load(x, ix)?, em.load(hi, ix)?);
                let m = binary(em, BinaryOp::Max, ty, fused, v, l)?;
                binary(em, BinaryOp::Min, ty, fused, m, h)
            })
        }
        Inst::Convert { x, dst } => {
            let (from, to) = (em.slot(x)?.ty, em.slot(dst)?.ty);
            each(em, dst, |em, ix| {
                let v = em.load(x, ix)?;
                convert(em, from, to, v)
            })
        }
        Inst::Move { .. }
        | Inst::Fold { .. }
        | Inst::Dot { .. }
        | Inst::DynSlice { .. }
        | Inst::DynUpdate { .. }
        | Inst::Scatter { .. }
        | Inst::Loop { .. }
        | Inst::Branch { .. }
        | Inst::Host(_) => None,
    }
}

/// `ins` as vector code when it has a vector form (`vector.rs`, `masks.rs`), `one` per
/// element for the rest; else `one` for every element.
fn per_element_or_vector(
    em: &mut Em<'_, '_>,
    ins: &Inst,
    dst: SlotId,
    mut one: impl FnMut(&mut Em<'_, '_>, Ix) -> Option<Value>,
) -> Option<()> {
    let tail = |em: &mut Em<'_, '_>, ix| {
        let r = one(em, ix)?;
        em.store(dst, ix, r)
    };
    if super::vector::fits(em, ins) {
        super::vector::emit(em, ins, tail)
    } else if super::masks::fits(em, ins) {
        super::masks::emit(em, ins, tail)
    } else {
        each(em, dst, one)
    }
}

fn each(
    em: &mut Em<'_, '_>,
    dst: SlotId,
    mut f: impl FnMut(&mut Em<'_, '_>, Ix) -> Option<Value>,
) -> Option<()> {
    let n = em.slot(dst)?.n;
    em.each(n, |em, ix| {
        let v = f(em, ix)?;
        em.store(dst, ix, v)
    })
}

fn call(em: &mut Em<'_, '_>, name: &'static str, t: Type, args: &[Value]) -> Option<Value> {
    let f = em.func(name, t, args.len())?;
    let c = em.b.ins().call(f, args);
    em.b.inst_results(c).first().copied()
}

fn fconst(em: &mut Em<'_, '_>, ty: Ty, x: f64) -> Value {
    if ty == Ty::F32 {
        em.b.ins().f32const(x as f32)
    } else {
        em.b.ins().f64const(x)
    }
}

fn unary(em: &mut Em<'_, '_>, op: UnaryOp, ty: Ty, x: Value) -> Option<Value> {
    use UnaryOp as U;
    if !ty.is_float() {
        let i = em.b.ins();
        return match op {
            U::Not if ty == Ty::Pred => Some(i.bxor_imm_u(x, 1)),
            U::Not => Some(i.bnot(x)),
            U::Abs => Some(i.iabs(x)),
            U::Neg => Some(i.ineg(x)),
            U::Cbrt
            | U::Ceil
            | U::Clz
            | U::Cos
            | U::Erf
            | U::Exp
            | U::Expm1
            | U::Floor
            | U::Imag
            | U::IsFinite
            | U::Log
            | U::Log1p
            | U::Logistic
            | U::Popcnt
            | U::Real
            | U::RoundNearestAfz
            | U::RoundNearestEven
            | U::Rsqrt
            | U::Sign
            | U::Sin
            | U::Sqrt
            | U::Tan
            | U::Tanh => None,
        };
    }
    Some(match op {
        U::Abs => em.b.ins().fabs(x),
        U::Neg => em.b.ins().fneg(x),
        U::Sqrt => em.b.ins().sqrt(x),
        U::Rsqrt => {
            let s = em.b.ins().sqrt(x);
            let one = fconst(em, ty, 1.0);
            em.b.ins().fdiv(one, s)
        }
        U::Cbrt
        | U::Ceil
        | U::Clz
        | U::Cos
        | U::Erf
        | U::Exp
        | U::Expm1
        | U::Floor
        | U::Imag
        | U::IsFinite
        | U::Log
        | U::Log1p
        | U::Logistic
        | U::Not
        | U::Popcnt
        | U::Real
        | U::RoundNearestAfz
        | U::RoundNearestEven
        | U::Sign
        | U::Sin
        | U::Tan
        | U::Tanh => return call(em, unary_name(op, ty)?, clif(ty), &[x]),
    })
}

fn bits(em: &mut Em<'_, '_>, ty: Ty, x: Value) -> Value {
    let it = if ty == Ty::F32 {
        types::I32
    } else {
        types::I64
    };
    em.b.ins().bitcast(it, MemFlagsData::new(), x)
}

/// The interpreter's float max (`max`) or min, fused-kernel or reference flavour.
fn fminmax(em: &mut Em<'_, '_>, max: bool, fused: bool, ty: Ty, a: Value, b: Value) -> Value {
    let cc = if max {
        FloatCC::GreaterThan
    } else {
        FloatCC::LessThan
    };
    if fused {
        // vmax / vmin: both orders of `a > b ? a : b`, combined bitwise; NaN gives a + b.
        let c1 = em.b.ins().fcmp(cc, a, b);
        let m1 = em.b.ins().select(c1, a, b);
        let c2 = em.b.ins().fcmp(cc, b, a);
        let m2 = em.b.ins().select(c2, b, a);
        let (b1, b2) = (bits(em, ty, m1), bits(em, ty, m2));
        let m = if max {
            em.b.ins().band(b1, b2)
        } else {
            em.b.ins().bor(b1, b2)
        };
        let m = em.b.ins().bitcast(clif(ty), MemFlagsData::new(), m);
        let nan = em.b.ins().fcmp(FloatCC::Unordered, a, b);
        let s = em.b.ins().fadd(a, b);
        return em.b.ins().select(nan, s, m);
    }
    // fmax / fmin: `a` if it is NaN or wins; else `b` if it is NaN, wins, or the sign of
    // `a` says so (max(-0, +0) = +0, min(-0, +0) = -0); else `a`.
    let an = em.b.ins().fcmp(FloatCC::Unordered, a, a);
    let aw = em.b.ins().fcmp(cc, a, b);
    let c1 = em.b.ins().bor(an, aw);
    let bn = em.b.ins().fcmp(FloatCC::Unordered, b, b);
    let bw = em.b.ins().fcmp(cc, b, a);
    let ab = bits(em, ty, a);
    let sign = if max {
        IntCC::SignedLessThan
    } else {
        IntCC::SignedGreaterThanOrEqual
    };
    let s = em.b.ins().icmp_imm_s(sign, ab, 0);
    let c2 = em.b.ins().bor(bn, bw);
    let c2 = em.b.ins().bor(c2, s);
    let inner = em.b.ins().select(c2, b, a);
    em.b.ins().select(c1, a, inner)
}

fn binary(
    em: &mut Em<'_, '_>,
    op: BinaryOp,
    ty: Ty,
    fused: bool,
    a: Value,
    b: Value,
) -> Option<Value> {
    use BinaryOp as B;
    if ty.is_float() {
        return Some(match op {
            B::Add => em.b.ins().fadd(a, b),
            B::Sub => em.b.ins().fsub(a, b),
            B::Mul => em.b.ins().fmul(a, b),
            B::Div => em.b.ins().fdiv(a, b),
            B::Max => fminmax(em, true, fused, ty, a, b),
            B::Min => fminmax(em, false, fused, ty, a, b),
            B::Pow
            | B::Rem
            | B::Atan2
            | B::Complex
            | B::And
            | B::Or
            | B::Xor
            | B::ShiftLeft
            | B::ShiftRightArithmetic
            | B::ShiftRightLogical => return call(em, binary_name(op, ty)?, clif(ty), &[a, b]),
        });
    }
    let signed = ty.is_signed();
    let i = em.b.ins();
    Some(match op {
        B::And => i.band(a, b),
        B::Or => i.bor(a, b),
        B::Xor => i.bxor(a, b),
        B::Min | B::Mul if ty == Ty::Pred => i.band(a, b),
        B::Max | B::Add if ty == Ty::Pred => i.bor(a, b),
        B::Sub if ty == Ty::Pred => i.bxor(a, b),
        B::Add => i.iadd(a, b),
        B::Sub => i.isub(a, b),
        B::Mul => i.imul(a, b),
        B::Max if signed => i.smax(a, b),
        B::Max => i.umax(a, b),
        B::Min if signed => i.smin(a, b),
        B::Min => i.umin(a, b),
        B::ShiftLeft | B::ShiftRightArithmetic | B::ShiftRightLogical => {
            return Some(shift(em, op, ty, a, b))
        }
        B::Div | B::Rem | B::Pow | B::Atan2 | B::Complex => return None,
    })
}

/// An integer shift as XLA defines it (and the interpreter computes it): the amount read
/// as unsigned; from the bit width up, 0 (left, logical right) or the sign filled in
/// (arithmetic right). Cranelift's shifts take the amount modulo the width, so the
/// overflowing amounts are selected away.
fn shift(em: &mut Em<'_, '_>, op: BinaryOp, ty: Ty, a: Value, b: Value) -> Value {
    let bits = 8 * ty.size() as i64;
    let i = em.b.ins();
    let (r, over) = if op == BinaryOp::ShiftLeft {
        (i.ishl(a, b), None)
    } else if op == BinaryOp::ShiftRightLogical {
        (i.ushr(a, b), None)
    } else {
        (i.sshr(a, b), Some(bits - 1))
    };
    let over = match over {
        Some(k) => em.b.ins().sshr_imm_s(a, k),
        None => em.b.ins().iconst(clif(ty), 0),
    };
    let big =
        em.b.ins()
            .icmp_imm_s(IntCC::UnsignedGreaterThanOrEqual, b, bits);
    em.b.ins().select(big, over, r)
}

/// `a dir b` on scalars, or lane by lane on vectors (an all-ones lane for true).
pub(crate) fn compare(
    em: &mut Em<'_, '_>,
    dir: ComparisonDirection,
    ty: Ty,
    a: Value,
    b: Value,
) -> Value {
    use ComparisonDirection as D;
    if ty.is_float() {
        let cc = match dir {
            D::Eq => FloatCC::Equal,
            D::Ne => FloatCC::NotEqual,
            D::Lt => FloatCC::LessThan,
            D::Le => FloatCC::LessThanOrEqual,
            D::Gt => FloatCC::GreaterThan,
            D::Ge => FloatCC::GreaterThanOrEqual,
        };
        return em.b.ins().fcmp(cc, a, b);
    }
    let s = ty.is_signed();
    let cc = match (dir, s) {
        (D::Eq, _) => IntCC::Equal,
        (D::Ne, _) => IntCC::NotEqual,
        (D::Lt, true) => IntCC::SignedLessThan,
        (D::Le, true) => IntCC::SignedLessThanOrEqual,
        (D::Gt, true) => IntCC::SignedGreaterThan,
        (D::Ge, true) => IntCC::SignedGreaterThanOrEqual,
        (D::Lt, false) => IntCC::UnsignedLessThan,
        (D::Le, false) => IntCC::UnsignedLessThanOrEqual,
        (D::Gt, false) => IntCC::UnsignedGreaterThan,
        (D::Ge, false) => IntCC::UnsignedGreaterThanOrEqual,
    };
    em.b.ins().icmp(cc, a, b)
}

/// An integer of `from` widened to i64 (sign- or zero-extended as the type is).
fn widen(em: &mut Em<'_, '_>, from: Ty, x: Value) -> Value {
    if clif(from) == types::I64 {
        x
    } else if from.is_signed() {
        em.b.ins().sextend(types::I64, x)
    } else {
        em.b.ins().uextend(types::I64, x)
    }
}

fn convert(em: &mut Em<'_, '_>, from: Ty, to: Ty, x: Value) -> Option<Value> {
    let (ft, tt) = (clif(from), clif(to));
    if from == to {
        return Some(x);
    }
    if to == Ty::Pred {
        return Some(if from.is_float() {
            let z = fconst(em, from, 0.0);
            em.b.ins().fcmp(FloatCC::NotEqual, x, z)
        } else {
            em.b.ins().icmp_imm_s(IntCC::NotEqual, x, 0)
        });
    }
    Some(match (from.is_float(), to.is_float()) {
        (true, true) if ft == types::F32 => em.b.ins().fpromote(tt, x),
        (true, true) => em.b.ins().fdemote(tt, x),
        (true, false) if to.is_signed() => em.b.ins().fcvt_to_sint_sat(tt, x),
        (true, false) => em.b.ins().fcvt_to_uint_sat(tt, x),
        (false, true) => {
            let w = widen(em, from, x);
            if from.is_signed() {
                em.b.ins().fcvt_from_sint(tt, w)
            } else {
                em.b.ins().fcvt_from_uint(tt, w)
            }
        }
        (false, false) => {
            let w = widen(em, from, x);
            if tt == types::I64 {
                w
            } else {
                em.b.ins().ireduce(tt, w)
            }
        }
    })
}

/// One combine step of a fold (`op` is add, mul, max or min on floats).
pub(crate) fn combine(
    em: &mut Em<'_, '_>,
    op: BinaryOp,
    ty: Ty,
    fused: bool,
    a: Value,
    b: Value,
) -> Option<Value> {
    binary(em, op, ty, fused, a, b)
}
