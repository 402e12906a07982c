//! `gather` and `scatter` with the window maps fixed at lowering: a gather is one
//! dynamic slice per batch position (starts read from the index slot, clamped as the
//! interpreter clamps them); a scatter applies each window whose start fits, in update
//! order, with a recognised combiner (set, add, multiply).

use super::dynamic::{copy_whole, index, shifted};
use super::emit::Em;
use super::lower::Lowerer;
use super::program::{Inst, Run, SlotId, Start, Ty};
use crate::index::strides;
use crate::kernels::combiner::Combiner;
use cranelift_codegen::ir::{condcodes::IntCC, types, InstBuilder};
use xla_core::attrs::{BinaryOp, GatherDims, ScatterDims};
use xla_core::ir::CompId;
use xla_core::Shape;

fn dims(s: &Shape) -> Option<Vec<usize>> {
    crate::index::dims_of(s).ok()
}

fn uvec(v: &[i64]) -> Option<Vec<usize>> {
    v.iter().map(|&d| usize::try_from(d).ok()).collect()
}

/// Row-major multi-indices of `dims`.
fn indices(dims: &[usize]) -> Vec<Vec<usize>> {
    let n: usize = dims.iter().product();
    let mut out = Vec::with_capacity(n);
    let mut idx = vec![0usize; dims.len()];
    for _ in 0..n {
        out.push(idx.clone());
        crate::index::advance(&mut idx, dims);
    }
    out
}

/// Runs over `pairs` of (element advancing by one, offset advancing by a fixed step).
fn runs_at(src: SlotId, pairs: &[(usize, usize)]) -> Vec<Run> {
    super::structural::runs_along(pairs.iter().map(|&(a, b)| (a, src, b)))
}

/// The index slot's layout: for batch position `g` (a multi-index over every dim but the
/// index vector dim), the flat element of component `k`.
struct IndexLayout {
    dims: Vec<usize>,
    vector_dim: usize,
    strides: Vec<usize>,
}

impl IndexLayout {
    fn new(shape: &Shape, vector_dim: i64) -> Option<Self> {
        let dims = dims(shape)?;
        let vector_dim = usize::try_from(vector_dim).ok()?;
        (vector_dim <= dims.len()).then(|| IndexLayout {
            strides: strides(&dims),
            dims,
            vector_dim,
        })
    }

    fn batch_dims(&self) -> Vec<usize> {
        (0..self.dims.len())
            .filter(|&d| d != self.vector_dim)
            .filter_map(|d| self.dims.get(d).copied())
            .collect()
    }

    fn elem(&self, g: &[usize], k: usize) -> usize {
        let mut it = g.iter();
        let mut off = 0;
        for (d, st) in self.strides.iter().enumerate() {
            let i = if d == self.vector_dim {
                k
            } else {
                let i = it.next().copied();
                debug_assert!(
                    i.is_some(),
                    "xla-cpu invariant broken: a batch position per dim"
                );
                i.unwrap_or(0)
            };
            off += i * st;
        }
        off
    }
}

/// True when `s` holds integer indices.
fn is_index(lw: &Lowerer<'_>, s: SlotId) -> Option<bool> {
    Some(!lw.info(s)?.ty.is_float() && lw.info(s)?.ty != Ty::Pred)
}

/// Lowers `gather(operand, indices)` into `dst`: one dynamic slice per batch position.
pub(crate) fn lower_gather(
    lw: &Lowerer<'_>,
    g: &GatherDims,
    [x, ix]: [SlotId; 2],
    [xs, is, out]: [&Shape; 3],
    dst: SlotId,
) -> Option<Vec<Inst>> {
    if !g.operand_batching_dims.is_empty() || !is_index(lw, ix)? {
        return None;
    }
    let (od, outd) = (dims(xs)?, dims(out)?);
    let (sizes, collapsed) = (uvec(&g.slice_sizes)?, uvec(&g.collapsed_slice_dims)?);
    let (offset, map) = (uvec(&g.offset_dims)?, uvec(&g.start_index_map)?);
    let window: Vec<usize> = (0..od.len()).filter(|d| !collapsed.contains(d)).collect();
    let lay = IndexLayout::new(is, g.index_vector_dim)?;
    let batch_out: Vec<usize> = (0..outd.len()).filter(|d| !offset.contains(d)).collect();
    if sizes.len() != od.len() || window.len() != offset.len() || lw.info(x)?.ty != lw.info(dst)?.ty
    {
        return None;
    }
    let (ost, outst) = (strides(&od), strides(&outd));
    let wdims: Vec<usize> = window
        .iter()
        .map(|&d| sizes.get(d).copied())
        .collect::<Option<_>>()?;
    let wins = indices(&wdims);
    let mut insts = Vec::new();
    for gi in indices(&lay.batch_dims()) {
        let mut starts = Vec::new();
        for (k, &d) in map.iter().enumerate() {
            starts.push(Start {
                slot: ix,
                elem: lay.elem(&gi, k),
                hi: i64::try_from(od.get(d)?.checked_sub(*sizes.get(d)?)?).ok()?,
                stride: *ost.get(d)?,
            });
        }
        let gbase: usize = batch_out.iter().zip(&gi).map(|(&d, &i)| i * outst[d]).sum();
        let pairs: Vec<(usize, usize)> = wins
            .iter()
            .map(|w| {
                let to = gbase
                    + offset
                        .iter()
                        .zip(w)
                        .map(|(&d, &i)| i * outst[d])
                        .sum::<usize>();
                let from = window
                    .iter()
                    .zip(w)
                    .map(|(&d, &i)| i * ost[d])
                    .sum::<usize>();
                (to, from)
            })
            .collect();
        insts.push(Inst::DynSlice {
            dst,
            starts,
            runs: runs_at(x, &pairs),
        });
    }
    Some(insts)
}

/// Lowers `scatter(operand, indices, updates)` with combiner `f` into `dst`.
pub(crate) fn lower_scatter(
    lw: &Lowerer<'_>,
    s: &ScatterDims,
    f: CompId,
    [x, ix, u]: [SlotId; 3],
    [xs, is, us]: [&Shape; 3],
    dst: SlotId,
) -> Option<Inst> {
    let op = match lw.exe.plan_of(f)?.combiner {
        Some(Combiner::Second) => None,
        Some(Combiner::Binary(op @ (BinaryOp::Add | BinaryOp::Mul))) => Some(op),
        Some(Combiner::Binary(_) | Combiner::Compare(..) | Combiner::KeyCompare(..)) | None => {
            return None
        }
    };
    let ty = lw.info(dst)?.ty;
    if !s.input_batching_dims.is_empty()
        || !is_index(lw, ix)?
        || lw.info(x)?.ty != ty
        || lw.info(u)?.ty != ty
        || ty == Ty::Pred
    {
        return None;
    }
    let (od, ud) = (dims(xs)?, dims(us)?);
    let (uwd, inserted) = (uvec(&s.update_window_dims)?, uvec(&s.inserted_window_dims)?);
    let map = uvec(&s.scatter_dims_to_operand_dims)?;
    // Update order is row-major over the update's dims; applying window after window
    // keeps it only when every scatter dim comes before every window dim.
    let nscat = ud.len().checked_sub(uwd.len())?;
    if uwd.iter().enumerate().any(|(j, &d)| d != nscat + j) {
        return None;
    }
    let window: Vec<usize> = (0..od.len()).filter(|d| !inserted.contains(d)).collect();
    if window.len() != uwd.len() {
        return None;
    }
    let mut wsize = vec![1usize; od.len()];
    for (&d, &w) in window.iter().zip(&uwd) {
        *wsize.get_mut(d)? = *ud.get(w)?;
    }
    if wsize.iter().zip(&od).any(|(w, o)| w > o) {
        // No window fits: the result is the operand.
        return Some(Inst::Scatter {
            dst,
            operand: x,
            update: u,
            op,
            windows: Vec::new(),
        });
    }
    let lay = IndexLayout::new(is, s.index_vector_dim)?;
    let (ost, ust) = (strides(&od), strides(&ud));
    let wdims: Vec<usize> = uwd
        .iter()
        .map(|&d| ud.get(d).copied())
        .collect::<Option<_>>()?;
    let wins = indices(&wdims);
    let mut windows = Vec::new();
    for gi in indices(ud.get(..nscat)?) {
        let mut starts = Vec::new();
        for (k, &d) in map.iter().enumerate() {
            starts.push(Start {
                slot: ix,
                elem: lay.elem(&gi, k),
                hi: i64::try_from(od.get(d)? - wsize.get(d)?).ok()?,
                stride: *ost.get(d)?,
            });
        }
        let ubase: usize = gi.iter().zip(&ust).map(|(i, st)| i * st).sum();
        let pairs: Vec<(usize, usize)> = wins
            .iter()
            .map(|w| {
                let ue = ubase + uwd.iter().zip(w).map(|(&d, &i)| i * ust[d]).sum::<usize>();
                let to = window
                    .iter()
                    .zip(w)
                    .map(|(&d, &i)| i * ost[d])
                    .sum::<usize>();
                (ue, to)
            })
            .collect();
        windows.push((starts, runs_at(u, &pairs)));
    }
    Some(Inst::Scatter {
        dst,
        operand: x,
        update: u,
        op,
        windows,
    })
}

/// Emits a scatter.
pub(crate) fn emit_scatter(em: &mut Em<'_, '_>, ins: &Inst) -> Option<()> {
    let Inst::Scatter {
        dst,
        operand,
        update,
        op,
        windows,
    } = ins
    else {
        return None;
    };
    let (dst, operand, update) = (*dst, *operand, *update);
    copy_whole(em, dst, operand)?;
    let ty = em.slot(dst)?.ty;
    for (starts, runs) in windows {
        let (apply, next) = (em.b.create_block(), em.b.create_block());
        let mut ok = em.b.ins().iconst(types::I8, 1);
        let mut base = em.b.ins().iconst(types::I64, 0);
        for st in starts {
            let v = index(em, st)?;
            let lo = em.b.ins().icmp_imm_s(IntCC::SignedGreaterThanOrEqual, v, 0);
            let hi =
                em.b.ins()
                    .icmp_imm_s(IntCC::SignedLessThanOrEqual, v, st.hi);
            let both = em.b.ins().band(lo, hi);
            ok = em.b.ins().band(ok, both);
            let off = em.b.ins().imul_imm_s(v, i64::try_from(st.stride).ok()?);
            base = em.b.ins().iadd(base, off);
        }
        em.b.ins().brif(ok, apply, &[], next, &[]);
        em.switch(apply);
        for r in runs {
            em.each(r.len, |em, i| {
                let t = em.affine(i, r.src_start, r.src_step)?;
                let t = shifted(em, base, t);
                let ue = em.affine(i, r.dst_start, 1)?;
                match op {
                    None => {
                        let v = em.load_raw(update, ue)?;
                        em.store_raw(dst, t, v)
                    }
                    Some(op) => {
                        let (old, x) = (em.load(dst, t)?, em.load(update, ue)?);
                        let v = super::elementwise::combine(em, *op, ty, false, old, x)?;
                        em.store(dst, t, v)
                    }
                }
            })?;
        }
        em.b.ins().jump(next, &[]);
        em.switch(next);
    }
    Some(())
}
