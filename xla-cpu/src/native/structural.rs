//! Structural ops as element moves: broadcast, transpose, reverse, slice, concatenate and
//! pad become index maps computed once at lowering, stored as runs of constant stride.

use super::emit::{Em, Ix};
use super::lower::Lowerer;
use super::program::{Inst, Run, SlotId};
use crate::index::strides;
use xla_core::attrs::PadDim;
use xla_core::ir::Computation;

/// `dst[..n] = src[..n]`.
pub(crate) fn copy(dst: SlotId, src: SlotId, n: usize) -> Inst {
    Inst::Move {
        dst,
        runs: vec![Run {
            src,
            src_start: 0,
            src_step: 1,
            dst_start: 0,
            len: n,
        }],
    }
}

fn dims(comp: &Computation, id: usize) -> Option<Vec<usize>> {
    let s = &comp.instructions.get(id)?.shape;
    s.as_array()?
        .dims
        .iter()
        .map(|&d| usize::try_from(d).ok())
        .collect()
}

/// Calls `f` with every multi-index of `dims` in row-major order.
fn each_index(dims: &[usize], mut f: impl FnMut(&[usize]) -> Option<()>) -> Option<()> {
    if dims.contains(&0) {
        return Some(());
    }
    let mut idx = vec![0usize; dims.len()];
    loop {
        f(&idx)?;
        let mut d = dims.len();
        loop {
            if d == 0 {
                return Some(());
            }
            d -= 1;
            idx[d] += 1;
            if idx[d] < dims[d] {
                break;
            }
            idx[d] = 0;
        }
    }
}

fn uidx(v: &[i64], d: usize) -> Option<usize> {
    usize::try_from(*v.get(d)?).ok()
}

/// A structural op, with its attributes.
#[derive(Clone, Copy)]
pub(crate) enum Mv<'a> {
    /// `broadcast`, result dim of each operand dim.
    Broadcast(&'a [i64]),
    /// `transpose`.
    Transpose(&'a [i64]),
    /// `reverse` of these dims.
    Reverse(&'a [i64]),
    /// `slice` with starts and strides.
    Slice(&'a [i64], &'a [i64]),
    /// `concatenate` along a dim.
    Concatenate(i64),
    /// `pad`.
    Pad(&'a [PadDim]),
}

/// The source `(slot, element)` of each destination element of instruction `i`.
fn source_map(
    comp: &Computation,
    i: usize,
    mv: Mv<'_>,
    ops: &[SlotId],
) -> Option<Vec<(SlotId, usize)>> {
    let ins = comp.instructions.get(i)?;
    let out = dims(comp, i)?;
    let odims = |k: usize| dims(comp, ins.operands.get(k)?.0);
    let mut map = Vec::new();
    let x = *ops.first()?;
    match mv {
        Mv::Broadcast(dimensions) => {
            let sd = odims(0)?;
            let ss = strides(&sd);
            each_index(&out, |o| {
                let mut off = 0;
                for (j, &d) in dimensions.iter().enumerate() {
                    off += o.get(usize::try_from(d).ok()?)? * ss.get(j)?;
                }
                map.push((x, off));
                Some(())
            })?;
        }
        Mv::Transpose(permutation) => {
            let ss = strides(&odims(0)?);
            each_index(&out, |o| {
                let mut off = 0;
                for (j, &oj) in o.iter().enumerate() {
                    off += oj * ss.get(uidx(permutation, j)?)?;
                }
                map.push((x, off));
                Some(())
            })?;
        }
        Mv::Reverse(dimensions) => {
            let sd = odims(0)?;
            let ss = strides(&sd);
            each_index(&out, |o| {
                let mut off = 0;
                for (d, &od) in o.iter().enumerate() {
                    let rev = dimensions.contains(&(d as i64));
                    let p = if rev {
                        sd.get(d)?.checked_sub(od + 1)?
                    } else {
                        od
                    };
                    off += p * ss.get(d)?;
                }
                map.push((x, off));
                Some(())
            })?;
        }
        Mv::Slice(start, stride) => {
            let ss = strides(&odims(0)?);
            each_index(&out, |o| {
                let mut off = 0;
                for (d, &od) in o.iter().enumerate() {
                    off += (uidx(start, d)? + od * uidx(stride, d)?) * ss.get(d)?;
                }
                map.push((x, off));
                Some(())
            })?;
        }
        Mv::Concatenate(dimension) => {
            let parts = (0..ops.len()).map(odims).collect::<Option<Vec<_>>>()?;
            concat_map(
                &out,
                &parts,
                usize::try_from(dimension).ok()?,
                ops,
                &mut map,
            )?;
        }
        Mv::Pad(padding) => pad_map(&out, &odims(0)?, padding, [x, *ops.get(1)?], &mut map)?,
    }
    Some(map)
}

/// `concatenate` of operands `ops` (dims `parts`) along `cd` into `out`.
fn concat_map(
    out: &[usize],
    parts: &[Vec<usize>],
    cd: usize,
    ops: &[SlotId],
    map: &mut Vec<(SlotId, usize)>,
) -> Option<()> {
    each_index(out, |o| {
        let mut p = *o.get(cd)?;
        for (k, pd) in parts.iter().enumerate() {
            let len = *pd.get(cd)?;
            if p < len {
                let ss = strides(pd);
                let mut off = 0;
                for (d, &od) in o.iter().enumerate() {
                    off += if d == cd { p } else { od } * ss.get(d)?;
                }
                map.push((*ops.get(k)?, off));
                return Some(());
            }
            p -= len;
        }
        None
    })
}

/// `pad` of `x` (dims `sd`) with the value `pad` into `out`.
fn pad_map(
    out: &[usize],
    sd: &[usize],
    padding: &[PadDim],
    [x, pad]: [SlotId; 2],
    map: &mut Vec<(SlotId, usize)>,
) -> Option<()> {
    let ss = strides(sd);
    each_index(out, |o| {
        let mut off = Some(0usize);
        for (d, &od) in o.iter().enumerate() {
            let pd = padding.get(d)?;
            let step = pd.interior.checked_add(1).filter(|&s| s >= 1)?;
            let p = i64::try_from(od).ok()? - pd.low;
            let inside = p >= 0 && p % step == 0 && p / step < i64::try_from(*sd.get(d)?).ok()?;
            off = match (off, inside) {
                (Some(a), true) => Some(a + usize::try_from(p / step).ok()? * ss.get(d)?),
                (Some(_), false) | (None, _) => None,
            };
        }
        map.push(off.map_or((pad, 0), |f| (x, f)));
        Some(())
    })
}

/// Runs of constant stride covering `map` (destination elements in order).
pub(crate) fn runs_of(map: &[(SlotId, usize)]) -> Vec<Run> {
    runs_along(map.iter().enumerate().map(|(d, &(src, j))| (d, src, j)))
}

/// Runs over `(a, src, b)` items: a run continues while `a` advances by one, `src` stays
/// and `b` advances by a fixed step; `dst_start` takes `a`, `src_start`/`src_step` take `b`.
pub(crate) fn runs_along(items: impl IntoIterator<Item = (usize, SlotId, usize)>) -> Vec<Run> {
    let mut runs: Vec<Run> = Vec::new();
    for (a, src, j) in items {
        if let Some(r) = runs.last_mut() {
            let last = r.src_start as isize + (r.len as isize - 1) * r.src_step;
            let step = j as isize - last;
            if r.src == src && a == r.dst_start + r.len && (r.len == 1 || step == r.src_step) {
                r.src_step = step;
                r.len += 1;
                continue;
            }
        }
        runs.push(Run {
            src,
            src_start: j,
            src_step: 1,
            dst_start: a,
            len: 1,
        });
    }
    runs
}

/// Lowers structural instruction `i` (operands in `ops`) into a move to `dst`.
pub(crate) fn lower(
    lw: &mut Lowerer<'_>,
    comp: &Computation,
    i: usize,
    mv: Mv<'_>,
    ops: &[SlotId],
    dst: SlotId,
) -> Option<Inst> {
    let map = source_map(comp, i, mv, ops)?;
    let d = lw.info(dst)?;
    if map.len() != d.n {
        return None;
    }
    for &(s, j) in &map {
        let si = lw.info(s)?;
        if si.ty != d.ty || j >= si.n {
            return None;
        }
    }
    Some(Inst::Move {
        dst,
        runs: runs_of(&map),
    })
}

/// Emits the moves of `runs` into `dst`.
pub(crate) fn emit(em: &mut Em<'_, '_>, dst: SlotId, runs: &[Run]) -> Option<()> {
    for r in runs {
        // Short runs go through the element cache (values stay in registers); long ones
        // copy raw bits in a loop, 16 bytes at a time where the source is one element or
        // contiguous.
        let short = r.len <= 32;
        let r = &if short { *r } else { vector_run(em, dst, r)? };
        if r.src_step == 0 {
            let v = if short {
                em.load(r.src, Ix::C(r.src_start))?
            } else {
                em.load_raw(r.src, Ix::C(r.src_start))?
            };
            em.each(r.len, |em, ix| {
                let d = em.affine(ix, r.dst_start, 1)?;
                if short {
                    em.store(dst, d, v)
                } else {
                    em.store_raw(dst, d, v)
                }
            })?;
        } else {
            em.each(r.len, |em, ix| {
                let s = em.affine(ix, r.src_start, r.src_step)?;
                let d = em.affine(ix, r.dst_start, 1)?;
                if short {
                    let v = em.load(r.src, s)?;
                    em.store(dst, d, v)
                } else {
                    let v = em.load_raw(r.src, s)?;
                    em.store_raw(dst, d, v)
                }
            })?;
        }
    }
    Some(())
}

/// Vector moves per pass of a long move's loop.
const MOVES_PER_PASS: usize = 4;

/// Copies the leading whole 16-byte vectors of long run `r` (a broadcast element or a
/// contiguous source) as vectors; the run of what is left (all of `r` for other strides).
fn vector_run(em: &mut Em<'_, '_>, dst: SlotId, r: &Run) -> Option<Run> {
    use cranelift_codegen::ir::{types, InstBuilder, MemFlagsData};
    let (d, s) = (em.slot(dst)?, em.slot(r.src)?);
    let size = d.ty.size();
    let vt = match size {
        1 => types::I8X16,
        2 => types::I16X8,
        4 => types::I32X4,
        8 => types::I64X2,
        _ => return Some(*r),
    };
    let w = 16 / size;
    let nv = r.len / w;
    if (r.src_step != 0 && r.src_step != 1) || s.ty.size() != size || nv == 0 || r.src == dst {
        return Some(*r);
    }
    // No alignment is claimed: runs start anywhere in their slots.
    let fl = MemFlagsData::new();
    let splat = if r.src_step == 0 {
        let x = em.load_raw(r.src, Ix::C(r.src_start))?;
        Some(em.b.ins().splat(vt, x))
    } else {
        None
    };
    // Vector `k` of the run, at `ix * per` vectors on from vector `k0`.
    let one = |em: &mut Em<'_, '_>, ix: Ix, k0: usize, per: usize| {
        let v = match splat {
            Some(v) => v,
            None => {
                let si = em.affine(ix, r.src_start + k0 * w, (per * w) as isize)?;
                let (p, off) = em.at(s, si)?;
                em.b.ins().load(vt, fl, p, off)
            }
        };
        let di = em.affine(ix, r.dst_start + k0 * w, (per * w) as isize)?;
        let (p, off) = em.at(d, di)?;
        em.b.ins().store(fl, v, p, off);
        Some(())
    };
    // Four vectors per pass of the loop (a loop of one 16-byte move per pass spent more
    // on its counter and branches than on the move: BFGS's f32[500] copies, E3), then the
    // vectors left over.
    em.each(nv / MOVES_PER_PASS, |em, ix| {
        (0..MOVES_PER_PASS).try_for_each(|k| one(em, ix, k, MOVES_PER_PASS))
    })?;
    let full = nv - nv % MOVES_PER_PASS;
    (full..nv).try_for_each(|k| one(em, Ix::C(0), k, 1))?;
    em.forget(dst);
    let done = nv * w;
    Some(Run {
        src: r.src,
        src_start: r.src_start + if r.src_step == 0 { 0 } else { done },
        src_step: r.src_step,
        dst_start: r.dst_start + done,
        len: r.len - done,
    })
}
