//! `dynamic-slice` and `dynamic-update-slice`: the element map relative to the start is
//! fixed at lowering; the start (each index clamped so the slice fits, as the
//! interpreter does) is computed at run time.

use super::emit::{Em, Ix};
use super::lower::Lowerer;
use super::program::{Inst, Run, SlotId, Start, Ty};
use super::structural::runs_of;
use cranelift_codegen::ir::{types, InstBuilder, Value};
use xla_core::Shape;

fn dims(s: &Shape) -> Option<Vec<usize>> {
    crate::index::dims_of(s).ok()
}

/// The starts of an operand of `dims` sliced to `sizes`, and the offset (relative to the
/// start) of each element of the slice, row-major.
fn layout(
    lw: &Lowerer<'_>,
    dims: &[usize],
    sizes: &[usize],
    starts: &[SlotId],
) -> Option<(Vec<Start>, Vec<usize>)> {
    if starts.len() != dims.len() || sizes.len() != dims.len() {
        return None;
    }
    let st = crate::index::strides(dims);
    let mut out = Vec::new();
    for ((&s, (&d, &z)), &stride) in starts.iter().zip(dims.iter().zip(sizes)).zip(&st) {
        let si = lw.info(s)?;
        let int = matches!(
            si.ty,
            Ty::S8 | Ty::S16 | Ty::S32 | Ty::S64 | Ty::U8 | Ty::U16 | Ty::U32
        );
        if !int || si.n != 1 || z > d {
            return None;
        }
        out.push(Start {
            slot: s,
            elem: 0,
            hi: i64::try_from(d - z).ok()?,
            stride,
        });
    }
    let n: usize = sizes.iter().product();
    let mut rel = Vec::with_capacity(n);
    let mut idx = vec![0usize; sizes.len()];
    for _ in 0..n {
        rel.push(idx.iter().zip(&st).map(|(i, s)| i * s).sum());
        crate::index::advance(&mut idx, sizes);
    }
    Some((out, rel))
}

/// Lowers `dynamic-slice(x, starts...)` of `sizes` (operand shape `xs`) into `dst`.
pub(crate) fn lower_slice(
    lw: &Lowerer<'_>,
    ops: &[SlotId],
    xs: &Shape,
    sizes: &[i64],
    dst: SlotId,
) -> Option<Inst> {
    let (&x, starts) = ops.split_first()?;
    let sizes: Vec<usize> = sizes
        .iter()
        .map(|&s| usize::try_from(s).ok())
        .collect::<Option<_>>()?;
    let (starts, rel) = layout(lw, &dims(xs)?, &sizes, starts)?;
    let (xi, di) = (lw.info(x)?, lw.info(dst)?);
    if xi.ty != di.ty || rel.len() != di.n {
        return None;
    }
    let map: Vec<(SlotId, usize)> = rel.into_iter().map(|r| (x, r)).collect();
    Some(Inst::DynSlice {
        dst,
        starts,
        runs: runs_of(&map),
    })
}

/// Lowers `dynamic-update-slice(x, update, starts...)` (operand shape `xs`, update shape
/// `us`) into `dst`.
pub(crate) fn lower_update(
    lw: &Lowerer<'_>,
    ops: &[SlotId],
    xs: &Shape,
    us: &Shape,
    dst: SlotId,
) -> Option<Inst> {
    let [x, u, starts @ ..] = ops else {
        return None;
    };
    let (starts, rel) = layout(lw, &dims(xs)?, &dims(us)?, starts)?;
    let (xi, ui, di) = (lw.info(*x)?, lw.info(*u)?, lw.info(dst)?);
    if xi.ty != di.ty || ui.ty != di.ty || xi.n != di.n || rel.len() != ui.n {
        return None;
    }
    let map: Vec<(SlotId, usize)> = rel.into_iter().map(|r| (*u, r)).collect();
    Some(Inst::DynUpdate {
        dst,
        operand: *x,
        starts,
        runs: runs_of(&map),
    })
}

/// Start `s` as an i64.
pub(crate) fn index(em: &mut Em<'_, '_>, s: &Start) -> Option<Value> {
    let ty = em.slot(s.slot)?.ty;
    let v = em.load(s.slot, Ix::C(s.elem))?;
    Some(if super::emit::clif(ty) == types::I64 {
        v
    } else if ty.is_signed() {
        em.b.ins().sextend(types::I64, v)
    } else {
        em.b.ins().uextend(types::I64, v)
    })
}

/// The clamped start offset, in elements, as an i64.
fn base(em: &mut Em<'_, '_>, starts: &[Start]) -> Option<Value> {
    let mut acc = em.b.ins().iconst(types::I64, 0);
    for s in starts {
        let w = index(em, s)?;
        let zero = em.b.ins().iconst(types::I64, 0);
        let top = em.b.ins().iconst(types::I64, s.hi);
        let lo = em.b.ins().smax(w, zero);
        let c = em.b.ins().smin(lo, top);
        let off = em.b.ins().imul_imm_s(c, i64::try_from(s.stride).ok()?);
        acc = em.b.ins().iadd(acc, off);
    }
    Some(acc)
}

pub(crate) fn shifted(em: &mut Em<'_, '_>, base: Value, ix: Ix) -> Ix {
    match ix {
        Ix::C(c) => Ix::D(em.b.ins().iadd_imm_s(base, c as i64)),
        Ix::D(v) => Ix::D(em.b.ins().iadd(base, v)),
    }
}

/// `dst = operand` (nothing when the update runs in place, `dst` being `operand`): the
/// copy of a `Move` (16 bytes at a time for long slots, through the element cache for
/// short ones).
pub(crate) fn copy_whole(em: &mut Em<'_, '_>, dst: SlotId, operand: SlotId) -> Option<()> {
    if dst != operand {
        let n = em.slot(dst)?.n;
        let run = Run {
            src: operand,
            src_start: 0,
            src_step: 1,
            dst_start: 0,
            len: n,
        };
        super::structural::emit(em, dst, &[run])?;
    }
    Some(())
}

/// Emits a dynamic slice: `dst[d] = src[base + rel]` along the runs.
pub(crate) fn emit_slice(
    em: &mut Em<'_, '_>,
    dst: SlotId,
    starts: &[Start],
    runs: &[Run],
) -> Option<()> {
    let b = base(em, starts)?;
    for r in runs {
        em.each(r.len, |em, ix| {
            let s = em.affine(ix, r.src_start, r.src_step)?;
            let s = shifted(em, b, s);
            let d = em.affine(ix, r.dst_start, 1)?;
            let v = em.load_raw(r.src, s)?;
            em.store_raw(dst, d, v)
        })?;
    }
    Some(())
}

/// Emits a dynamic update: `dst = operand`, then `dst[base + rel] = update[j]` along the
/// runs (whose `src` is the update, `src_start`/`src_step` the destination offsets
/// relative to the start, and `dst_start` the update element).
pub(crate) fn emit_update(
    em: &mut Em<'_, '_>,
    dst: SlotId,
    operand: SlotId,
    starts: &[Start],
    runs: &[Run],
) -> Option<()> {
    copy_whole(em, dst, operand)?;
    let b = base(em, starts)?;
    for r in runs {
        em.each(r.len, |em, ix| {
            let t = em.affine(ix, r.src_start, r.src_step)?;
            let t = shifted(em, b, t);
            let u = em.affine(ix, r.dst_start, 1)?;
            let v = em.load_raw(r.src, u)?;
            em.store_raw(dst, t, v)
        })?;
    }
    Some(())
}
