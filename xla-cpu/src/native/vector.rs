//! Elementwise ops four (f32, s32, u32) or two (f64) lanes at a time: float add, subtract,
//! multiply, divide, negate, absolute value and square root, and 32-bit integer add,
//! subtract, multiply, and, or, xor, negate and not (wrapping) over whole slots, an operand of one
//! element broadcast to every lane. Each lane is the same IEEE operation the per-element
//! code performs, on operands in the same order (loaded as integers and moved over, as
//! [`Em::load`] does, so Cranelift cannot swap a commutative op's operands and change
//! which NaN comes out), so the results are the same bits; the last `n % lanes` elements
//! go through the per-element code.

use super::emit::{Em, Ix};
use super::program::{Inst, SlotId, Ty};
use cranelift_codegen::ir::{types, Endianness, InstBuilder, MemFlagsData, Type, Value};
use xla_core::attrs::{BinaryOp, UnaryOp};

/// Shortest slot given vector code: one vector. Short slots are unrolled, and their
/// vectors stay in registers from one instruction to the next (`Em::vcached`); a vector
/// whose elements were just written one by one is put together from those registers, not
/// loaded (a vector load of values just stored one by one cannot be forwarded from the
/// store buffer: such loads made an eight-schools HMC loop 1.5x slower).
fn min_elems(ty: Ty) -> usize {
    lanes(ty).map_or(usize::MAX, |l| l.2)
}

/// 128-bit vectors: what Cranelift's x64 and aarch64 backends both emit.
fn lanes(ty: Ty) -> Option<(Type, Type, usize)> {
    match ty {
        Ty::F32 => Some((types::F32X4, types::I32X4, 4)),
        Ty::F64 => Some((types::F64X2, types::I64X2, 2)),
        Ty::S32 | Ty::U32 => Some((types::I32X4, types::I32X4, 4)),
        Ty::Pred | Ty::S8 | Ty::U8 | Ty::S16 | Ty::U16 | Ty::S64 | Ty::U64 => None,
    }
}

type Builder<'f> = cranelift_frontend::FunctionBuilder<'f>;

/// The vector form of unary op `op` on floats (`float`) or 32-bit integers, if it has one
/// (an `if` chain rather than a `match`: ops without one, including ops added later, need
/// no arm).
fn unary_op(op: UnaryOp, float: bool) -> Option<fn(&mut Builder<'_>, Value) -> Value> {
    let f: fn(&mut Builder<'_>, Value) -> Value = if float && op == UnaryOp::Abs {
        |b, x| b.ins().fabs(x)
    } else if float && op == UnaryOp::Neg {
        |b, x| b.ins().fneg(x)
    } else if float && op == UnaryOp::Sqrt {
        |b, x| b.ins().sqrt(x)
    } else if !float && op == UnaryOp::Neg {
        |b, x| b.ins().ineg(x)
    } else if !float && op == UnaryOp::Not {
        |b, x| b.ins().bnot(x)
    } else {
        return None;
    };
    Some(f)
}

/// The vector form of binary op `op` (as [`unary_op`]); integer arithmetic wraps, as the
/// interpreter's does.
fn binary_op(
    op: BinaryOp,
    float: bool,
    fused: bool,
) -> Option<fn(&mut Builder<'_>, Value, Value) -> Value> {
    if !float {
        return int_binary_op(op);
    }
    let f: fn(&mut Builder<'_>, Value, Value) -> Value = if op == BinaryOp::Max && fused {
        |b, x, y| minmax(b, x, y, true, true)
    } else if op == BinaryOp::Max {
        |b, x, y| minmax(b, x, y, true, false)
    } else if op == BinaryOp::Min && fused {
        |b, x, y| minmax(b, x, y, false, true)
    } else if op == BinaryOp::Min {
        |b, x, y| minmax(b, x, y, false, false)
    } else if op == BinaryOp::Add {
        |b, x, y| b.ins().fadd(x, y)
    } else if op == BinaryOp::Sub {
        |b, x, y| b.ins().fsub(x, y)
    } else if op == BinaryOp::Mul {
        |b, x, y| b.ins().fmul(x, y)
    } else if op == BinaryOp::Div {
        |b, x, y| b.ins().fdiv(x, y)
    } else {
        return None;
    };
    Some(f)
}

/// The interpreter's float max (`max`) or min lane by lane, in the fused kernels'
/// flavour (`fused`: both orders of `a > b ? a : b` combined bitwise, a NaN operand
/// giving `a + b`) or the reference one (`a` if NaN or winning, else `b` if NaN, winning
/// or the sign of `a` says so), as `elementwise::fminmax` computes each element.
fn minmax(b: &mut Builder<'_>, x: Value, y: Value, max: bool, fused: bool) -> Value {
    use cranelift_codegen::ir::condcodes::{FloatCC, IntCC};
    let ft = b.func.dfg.value_type(x);
    let it = ft.as_int();
    let little = MemFlagsData::new().with_endianness(Endianness::Little);
    let xi = b.ins().bitcast(it, little, x);
    let yi = b.ins().bitcast(it, little, y);
    let cc = if max {
        FloatCC::GreaterThan
    } else {
        FloatCC::LessThan
    };
    let r = if fused {
        let c1 = b.ins().fcmp(cc, x, y);
        let m1 = b.ins().bitselect(c1, xi, yi);
        let c2 = b.ins().fcmp(cc, y, x);
        let m2 = b.ins().bitselect(c2, yi, xi);
        let m = if max {
            b.ins().band(m1, m2)
        } else {
            b.ins().bor(m1, m2)
        };
        let nan = b.ins().fcmp(FloatCC::Unordered, x, y);
        let s = b.ins().fadd(x, y);
        let s = b.ins().bitcast(it, little, s);
        b.ins().bitselect(nan, s, m)
    } else {
        let an = b.ins().fcmp(FloatCC::Unordered, x, x);
        let aw = b.ins().fcmp(cc, x, y);
        let c1 = b.ins().bor(an, aw);
        let bn = b.ins().fcmp(FloatCC::Unordered, y, y);
        let bw = b.ins().fcmp(cc, y, x);
        let zero = b.ins().iconst(it.lane_type(), 0);
        let zero = b.ins().splat(it, zero);
        let sign = if max {
            IntCC::SignedLessThan
        } else {
            IntCC::SignedGreaterThanOrEqual
        };
        let sg = b.ins().icmp(sign, xi, zero);
        let c2 = b.ins().bor(bn, bw);
        let c2 = b.ins().bor(c2, sg);
        let inner = b.ins().bitselect(c2, yi, xi);
        b.ins().bitselect(c1, xi, inner)
    };
    b.ins().bitcast(ft, little, r)
}

/// The 32-bit integer vector form of binary op `op`, if it has one.
fn int_binary_op(op: BinaryOp) -> Option<fn(&mut Builder<'_>, Value, Value) -> Value> {
    let f: fn(&mut Builder<'_>, Value, Value) -> Value = if op == BinaryOp::Add {
        |b, x, y| b.ins().iadd(x, y)
    } else if op == BinaryOp::Sub {
        |b, x, y| b.ins().isub(x, y)
    } else if op == BinaryOp::Mul {
        |b, x, y| b.ins().imul(x, y)
    } else if op == BinaryOp::And {
        |b, x, y| b.ins().band(x, y)
    } else if op == BinaryOp::Or {
        |b, x, y| b.ins().bor(x, y)
    } else if op == BinaryOp::Xor {
        |b, x, y| b.ins().bxor(x, y)
    } else {
        return None;
    };
    Some(f)
}

fn is_shift(op: BinaryOp) -> bool {
    matches!(
        op,
        BinaryOp::ShiftLeft | BinaryOp::ShiftRightLogical | BinaryOp::ShiftRightArithmetic
    )
}

/// Lanes of 32-bit vector `x` shifted by scalar `amount`, as the per-element code shifts
/// (`elementwise::shift`): an amount of 32 or more gives 0, or the sign for an arithmetic
/// right shift (Cranelift's shifts take it modulo 32, so those lanes are selected away).
fn shift(b: &mut Builder<'_>, op: BinaryOp, x: Value, amount: Value) -> Value {
    use cranelift_codegen::ir::condcodes::IntCC;
    let vt = b.func.dfg.value_type(x);
    let (r, over) = if op == BinaryOp::ShiftLeft {
        (b.ins().ishl(x, amount), None)
    } else if op == BinaryOp::ShiftRightLogical {
        (b.ins().ushr(x, amount), None)
    } else {
        (b.ins().sshr(x, amount), Some(b.ins().sshr_imm_s(x, 31)))
    };
    let over = over.unwrap_or_else(|| {
        let zero = b.ins().iconst(types::I32, 0);
        b.ins().splat(vt, zero)
    });
    let big = b
        .ins()
        .icmp_imm_s(IntCC::UnsignedGreaterThanOrEqual, amount, 32);
    b.ins().select(big, over, r)
}

/// True when `ins` has a vector form (checked before anything is emitted).
pub(crate) fn fits(em: &Em<'_, '_>, ins: &Inst) -> bool {
    // `if let` rather than a `match` over `Inst`: every other instruction has no vector
    // form, and a new one must not need an arm here.
    let (uop, bop, ops, dst, fused) = if let Inst::Unary { op, x, dst } = *ins {
        (Some(op), None, [x, x], dst, false)
    } else if let Inst::Binary {
        op,
        a,
        b,
        dst,
        fused,
    } = *ins
    {
        (None, Some(op), [a, b], dst, fused)
    } else {
        return false;
    };
    let Some(d) = em.slot(dst).filter(|d| lanes(d.ty).is_some()) else {
        return false;
    };
    let float = d.ty.is_float();
    // A shift by one amount for every lane (a one-element slot, see `scalars.rs`).
    let shift = bop.is_some_and(is_shift) && !float && em.slot(ops[1]).is_some_and(|s| s.n == 1);
    let ok = uop.is_some_and(|o| unary_op(o, float).is_some())
        || bop.is_some_and(|o| binary_op(o, float, fused).is_some())
        || shift;
    let same = |o: SlotId| {
        em.slot(o)
            .is_some_and(|s| s.ty == d.ty && (s.n == d.n || s.n == 1))
    };
    ok && d.n >= min_elems(d.ty) && ops.iter().all(|&o| same(o))
}

/// Emits `ins` (one [`fits`] accepts): the vector loop, then the per-element tail
/// through `tail`.
pub(crate) fn emit(
    em: &mut Em<'_, '_>,
    ins: &Inst,
    mut tail: impl FnMut(&mut Em<'_, '_>, Ix) -> Option<()>,
) -> Option<()> {
    let (Inst::Unary { dst, .. } | Inst::Binary { dst, .. }) = *ins else {
        return None;
    };
    let d = em.slot(dst)?;
    let l = lanes(d.ty)?;
    let nv = d.n / l.2;
    let float = d.ty.is_float();
    em.each(nv, |em, ix| {
        let r = if let Inst::Unary { op, x, .. } = *ins {
            let x = load(em, x, ix, l)?;
            unary_op(op, float)?(&mut em.b, x)
        } else if let Inst::Binary {
            op, a, b, fused, ..
        } = *ins
        {
            let x = load(em, a, ix, l)?;
            if is_shift(op) {
                let amount = em.load(b, Ix::C(0))?;
                shift(&mut em.b, op, x, amount)
            } else {
                let y = load(em, b, ix, l)?;
                binary_op(op, float, fused)?(&mut em.b, x, y)
            }
        } else {
            return None;
        };
        let (p, off) = address(em, dst, ix, l.2)?;
        em.b.ins().store(MemFlagsData::trusted(), r, p, off);
        match ix {
            Ix::C(j) => em.vstored(dst, j * l.2, l.2, r),
            Ix::D(_) => em.forget(dst),
        }
        Some(())
    })?;
    let start = nv * l.2;
    em.each(d.n - start, |em, ix| {
        let ix = em.affine(ix, start, 1)?;
        tail(em, ix)
    })
}

/// Vector `ix` of slot `s` (elements `ix * w ..`), or element 0 splat for a one-element
/// slot.
fn load(em: &mut Em<'_, '_>, s: SlotId, ix: Ix, (vt, it, w): (Type, Type, usize)) -> Option<Value> {
    if em.slot(s)?.n == 1 {
        let x = em.load(s, Ix::C(0))?;
        return Some(em.b.ins().splat(vt, x));
    }
    if let Ix::C(j) = ix {
        let first = j.checked_mul(w)?;
        if let Some(v) = em.vcached(s, first) {
            return Some(v);
        }
        if (first..first + w).any(|i| em.cached(s, i).is_some()) {
            // Elements just computed or stored one by one: put together in registers.
            let mut v = None;
            for (k, i) in (first..first + w).enumerate() {
                let x = em.load(s, Ix::C(i))?;
                v = Some(match v {
                    None => em.b.ins().scalar_to_vector(vt, x),
                    Some(v) => em.b.ins().insertlane(v, x, u8::try_from(k).ok()?),
                });
            }
            return v;
        }
    }
    let (p, off) = address(em, s, ix, w)?;
    let raw = em.b.ins().load(it, MemFlagsData::trusted(), p, off);
    if vt == it {
        return Some(raw);
    }
    let little = MemFlagsData::new().with_endianness(Endianness::Little);
    Some(em.b.ins().bitcast(vt, little, raw))
}

/// The address of vector `ix` of slot `s` as (base, offset).
fn address(em: &mut Em<'_, '_>, s: SlotId, ix: Ix, w: usize) -> Option<(Value, i32)> {
    let sl = em.slot(s)?;
    let ix = match ix {
        Ix::C(i) => Ix::C(i.checked_mul(w)?),
        Ix::D(v) => Ix::D(em.b.ins().imul_imm_s(v, w as i64)),
    };
    em.at(sl, ix)
}
