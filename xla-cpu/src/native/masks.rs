//! `compare` and `select` on 32-bit elements (f32, s32, u32) four lanes at a time. A
//! compare's lanes are narrowed to four predicate bytes (0 or 1) stored as one word; a
//! select widens four predicate bytes to lane masks (any nonzero byte is true, as the
//! per-element `select` reads it) and picks whole bit patterns, so both give the
//! per-element code's bits. The last `n % 4` elements go through the per-element code.

use super::emit::{Em, Ix};
use super::program::{Inst, SlotId, Ty};
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{types, Endianness, InstBuilder, MemFlagsData, Value};

/// Shortest slot given a vector loop (shorter ones are unrolled per element).
const MIN_ELEMS: usize = super::emit::UNROLL + 1;

fn word(ty: Ty) -> bool {
    matches!(ty, Ty::F32 | Ty::S32 | Ty::U32)
}

/// True when `ins` is a compare or select these vector forms cover.
pub(crate) fn fits(em: &Em<'_, '_>, ins: &Inst) -> bool {
    let full_or_one = |s: SlotId, n: usize, ty: Ty| {
        em.slot(s)
            .is_some_and(|x| x.ty == ty && (x.n == n || x.n == 1))
    };
    // `if let` rather than a `match` over `Inst`: other instructions have no form here.
    if let Inst::Compare { a, b, dst, .. } = *ins {
        let (Some(x), Some(d)) = (em.slot(a), em.slot(dst)) else {
            return false;
        };
        // A one-element operand (a broadcast scalar read as the scalar, `scalars.rs`) is
        // splat across the lanes, as in a select.
        d.ty == Ty::Pred
            && word(x.ty)
            && d.n >= MIN_ELEMS
            && full_or_one(a, d.n, x.ty)
            && full_or_one(b, d.n, x.ty)
    } else if let Inst::Select { p, a, b, dst } = *ins {
        let Some(d) = em.slot(dst) else {
            return false;
        };
        word(d.ty)
            && d.n >= MIN_ELEMS
            && full_or_one(p, d.n, Ty::Pred)
            && full_or_one(a, d.n, d.ty)
            && full_or_one(b, d.n, d.ty)
    } else {
        false
    }
}

/// Emits `ins` (one [`fits`] accepts): the vector loop, then the per-element tail through
/// `tail`.
pub(crate) fn emit(
    em: &mut Em<'_, '_>,
    ins: &Inst,
    mut tail: impl FnMut(&mut Em<'_, '_>, Ix) -> Option<()>,
) -> Option<()> {
    let (Inst::Compare { dst, .. } | Inst::Select { dst, .. }) = *ins else {
        return None;
    };
    let n = em.slot(dst)?.n;
    let nv = n / 4;
    em.each(nv, |em, ix| {
        let e = em.affine(ix, 0, 4)?;
        if let Inst::Compare { dir, a, b, dst } = *ins {
            let ty = em.slot(a)?.ty;
            let (x, y) = (lanes(em, a, e)?, lanes(em, b, e)?);
            let m = super::elementwise::compare(em, dir, ty, x, y);
            let one = em.b.ins().iconst(types::I32, 1);
            let one = em.b.ins().splat(types::I32X4, one);
            let bits = em.b.ins().band(m, one);
            let h = em.b.ins().snarrow(bits, bits);
            let q = em.b.ins().snarrow(h, h);
            let w = em.b.ins().bitcast(types::I32X4, little(), q);
            let w = em.b.ins().extractlane(w, 0);
            let (p, off) = em.at(em.slot(dst)?, e)?;
            em.b.ins().store(MemFlagsData::trusted(), w, p, off);
        } else if let Inst::Select { p, a, b, dst } = *ins {
            let m = mask(em, p, e)?;
            let (x, y) = (raw(em, a, e)?, raw(em, b, e)?);
            let r = em.b.ins().bitselect(m, x, y);
            let (ptr, off) = em.at(em.slot(dst)?, e)?;
            em.b.ins().store(MemFlagsData::trusted(), r, ptr, off);
        }
        Some(())
    })?;
    em.forget(dst);
    let start = nv * 4;
    em.each(n - start, |em, ix| {
        let ix = em.affine(ix, start, 1)?;
        tail(em, ix)
    })
}

fn little() -> MemFlagsData {
    MemFlagsData::new().with_endianness(Endianness::Little)
}

/// Elements `e..e + 4` of 32-bit slot `s` as raw bits (element 0 in every lane for a
/// one-element slot).
fn raw(em: &mut Em<'_, '_>, s: SlotId, e: Ix) -> Option<Value> {
    let sl = em.slot(s)?;
    if sl.n == 1 {
        let x = em.load_raw(s, Ix::C(0))?;
        return Some(em.b.ins().splat(types::I32X4, x));
    }
    let (p, off) = em.at(sl, e)?;
    Some(
        em.b.ins()
            .load(types::I32X4, MemFlagsData::trusted(), p, off),
    )
}

/// As [`raw`], typed as the slot's lanes (f32 lanes for f32).
fn lanes(em: &mut Em<'_, '_>, s: SlotId, e: Ix) -> Option<Value> {
    let r = raw(em, s, e)?;
    Some(if em.slot(s)?.ty == Ty::F32 {
        em.b.ins().bitcast(types::F32X4, little(), r)
    } else {
        r
    })
}

/// All-ones lanes where predicate bytes `e..e + 4` of `p` are nonzero (byte 0 in every
/// lane for a one-element predicate).
fn mask(em: &mut Em<'_, '_>, p: SlotId, e: Ix) -> Option<Value> {
    let sl = em.slot(p)?;
    let wide = if sl.n == 1 {
        let c = em.load(p, Ix::C(0))?;
        let c = em.b.ins().uextend(types::I32, c);
        em.b.ins().splat(types::I32X4, c)
    } else {
        let (ptr, off) = em.at(sl, e)?;
        let w =
            em.b.ins()
                .load(types::I32, MemFlagsData::trusted(), ptr, off);
        let v = em.b.ins().scalar_to_vector(types::I32X4, w);
        let v = em.b.ins().bitcast(types::I8X16, little(), v);
        let v = em.b.ins().uwiden_low(v);
        em.b.ins().uwiden_low(v)
    };
    let zero = em.b.ins().iconst(types::I32, 0);
    let zero = em.b.ins().splat(types::I32X4, zero);
    Some(em.b.ins().icmp(IntCC::NotEqual, wide, zero))
}
