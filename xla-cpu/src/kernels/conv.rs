//! Convolution lowered to matrix products (im2col): for each output batch element and batch
//! group, the lhs windows are gathered once into a `[features * window, positions]` matrix
//! (zeros where the window falls into padding or between dilated lhs elements), and each
//! feature group's output block is one faer product `W_g x col_g`. Handles any strides,
//! padding, lhs/rhs dilation, window reversal, dimension labels, feature groups and batch
//! groups.
//!
//! Work is split over (batch element, batch group) tasks, each with its own gather buffer and
//! a sequential product; with fewer tasks than threads the products themselves run in
//! parallel. Either way each output element is one sum in a fixed order, so results do not
//! depend on the thread count.

use super::contraction::ConvPlan;
use super::matmul::{gemm_par, FaerElem};
use crate::index::{count, strides};
use crate::parallel::Parallel;
use faer::{MatMut, MatRef};
use rayon::prelude::*;

/// Gather buffers larger than this (in elements) are not built; the reference loop runs.
const MAX_COL: usize = 1 << 26;

/// Sizes and offsets of one lowered convolution.
struct Lowered {
    /// Output spatial sizes, and the output offset of each flattened output position.
    osizes: Vec<usize>,
    out_pos: Vec<usize>,
    /// Per spatial dim, per window position, per output position: lhs offset or -1.
    taps: Vec<Vec<Vec<isize>>>,
    ksizes: Vec<usize>,
    positions: usize,
    window: usize,
    in_features: usize,
    out_features: usize,
    out_batch: usize,
    out_batch_stride: usize,
    out_feature_stride: usize,
}

/// The lhs offset contribution of spatial dim `s` at output index `o`, window index `k`.
fn tap(p: &ConvPlan, s: usize, o: usize, k: usize) -> isize {
    let (size, stride) = p.lhs_spatial[s];
    let w = &p.win[s];
    let pos = o as i64 * w.stride + k as i64 * w.window_dilation - w.padding_low;
    let dilated = if size == 0 {
        0
    } else {
        (size as i64 - 1) * w.base_dilation + 1
    };
    if w.base_dilation <= 0 || pos < 0 || pos >= dilated || pos % w.base_dilation != 0 {
        return -1;
    }
    ((pos / w.base_dilation) as usize * stride) as isize
}

fn lower(p: &ConvPlan) -> Lowered {
    let ost = strides(&p.out_dims);
    let ns = p.lhs_spatial.len();
    let (mut osizes, mut ostrides) = (vec![0; ns], vec![0; ns]);
    let (mut out_batch, mut obs, mut oc, mut ofs) = (0, 0, 0, 0);
    for (d, &(role, s)) in p.out_role.iter().enumerate() {
        match role {
            0 => (out_batch, obs) = (p.out_dims[d], ost[d]),
            1 => (oc, ofs) = (p.out_dims[d], ost[d]),
            _ => (osizes[s], ostrides[s]) = (p.out_dims[d], ost[d]),
        }
    }
    let mut out_pos = Vec::with_capacity(count(&osizes));
    crate::index::for_each_index(&osizes, |o| {
        out_pos.push(o.iter().zip(&ostrides).map(|(a, b)| a * b).sum());
    });
    let ksizes: Vec<usize> = p.rhs_spatial.iter().map(|s| s.0).collect();
    let taps = (0..ns)
        .map(|s| {
            (0..ksizes[s])
                .map(|k| (0..osizes[s]).map(|o| tap(p, s, o, k)).collect())
                .collect()
        })
        .collect();
    Lowered {
        positions: count(&osizes),
        window: count(&ksizes),
        osizes,
        out_pos,
        taps,
        ksizes,
        in_features: p.kic * (oc / p.oc_per_fgroup.max(1)),
        out_features: oc,
        out_batch,
        out_batch_stride: obs,
        out_feature_stride: ofs,
    }
}

/// The kernel as a row-major `[out features, kic * window]` matrix, columns ordered
/// (input feature, window position) with reversal applied.
fn weights<T: Copy + Default>(r: &[T], p: &ConvPlan, lw: &Lowered) -> Vec<T> {
    let kg = p.kic * lw.window;
    let mut w = Vec::with_capacity(lw.out_features * kg);
    for o in 0..lw.out_features {
        for c in 0..p.kic {
            let base = o * p.rhs_out_stride + c * p.rhs_in_stride;
            crate::index::for_each_index(&lw.ksizes, |k| {
                let mut off = base;
                for (s, &(size, stride)) in p.rhs_spatial.iter().enumerate() {
                    let kk = if p.win[s].window_reversal {
                        size - 1 - k[s]
                    } else {
                        k[s]
                    };
                    off += kk * stride;
                }
                w.push(r.get(off).copied().unwrap_or_default());
            });
        }
    }
    w
}

/// Fills `col` (`[in features * window, positions]`, row-major) from lhs batch element `lb`.
fn im2col<T: Copy + Default>(l: &[T], p: &ConvPlan, lw: &Lowered, lb: usize, col: &mut [T]) {
    let ns = lw.osizes.len();
    let inner = if ns == 0 { 1 } else { lw.osizes[ns - 1] };
    let outer_dims = if ns == 0 {
        &[][..]
    } else {
        &lw.osizes[..ns - 1]
    };
    let mut rows = col.chunks_mut(lw.positions.max(1));
    for c in 0..lw.in_features {
        let base = (lb * p.lhs_batch_stride + c * p.lhs_feature_stride) as isize;
        crate::index::for_each_index(&lw.ksizes, |k| {
            let Some(row) = rows.next() else { return };
            let mut segs = row.chunks_mut(inner.max(1));
            crate::index::for_each_index(outer_dims, |o| {
                let Some(seg) = segs.next() else { return };
                let mut off = base;
                for s in 0..o.len() {
                    let t = lw.taps[s][k[s]][o[s]];
                    if t < 0 {
                        seg.fill(T::default());
                        return;
                    }
                    off += t;
                }
                if ns == 0 {
                    seg[0] = l.get(off as usize).copied().unwrap_or_default();
                    return;
                }
                let last = &lw.taps[ns - 1][k[ns - 1]];
                for (x, &t) in seg.iter_mut().zip(last) {
                    *x = if t < 0 {
                        T::default()
                    } else {
                        l.get((off + t) as usize).copied().unwrap_or_default()
                    };
                }
            });
        });
    }
}

/// The output buffer, shared by tasks that write disjoint elements.
#[derive(Clone, Copy)]
struct OutPtr<T>(*mut T, usize);
// SAFETY: tasks write disjoint elements (distinct (batch, feature) pairs) through it, and the
// buffer outlives the parallel section.
unsafe impl<T: Send> Send for OutPtr<T> {}
unsafe impl<T: Send> Sync for OutPtr<T> {}

/// One task: output batch element `b`, batch group `bg`.
#[allow(clippy::too_many_arguments)]
fn task<T: FaerElem>(
    l: &[T],
    w: &[T],
    p: &ConvPlan,
    lw: &Lowered,
    (b, bg): (usize, usize),
    bufs: &mut (Vec<T>, Vec<T>),
    out: OutPtr<T>,
    par: Parallel<'_>,
) {
    let (col, tmp) = bufs;
    let lb = bg * p.batch_per_group + b;
    col.resize(lw.in_features * lw.window * lw.positions, T::default());
    im2col(l, p, lw, lb, col);
    let kg = p.kic * lw.window;
    let groups = lw.in_features / p.kic.max(1);
    for fg in 0..groups {
        let o0 = (bg * p.oc_per_bgroup).max(fg * p.oc_per_fgroup);
        let o1 = ((bg + 1) * p.oc_per_bgroup).min((fg + 1) * p.oc_per_fgroup);
        if o0 >= o1 {
            continue;
        }
        let n = lw.positions;
        tmp.resize((o1 - o0) * n, T::default());
        let lhs = MatRef::from_row_major_slice(&w[o0 * kg..o1 * kg], o1 - o0, kg);
        let rhs = MatRef::from_row_major_slice(&col[fg * kg * n..(fg + 1) * kg * n], kg, n);
        gemm_par(
            MatMut::from_row_major_slice_mut(tmp, o1 - o0, n),
            lhs,
            rhs,
            par,
        );
        for (i, row) in tmp.chunks(n.max(1)).enumerate() {
            let base = b * lw.out_batch_stride + (o0 + i) * lw.out_feature_stride;
            for (&v, &q) in row.iter().zip(&lw.out_pos) {
                let at = base + q;
                if at < out.1 {
                    // SAFETY: `at` is in bounds, and no other task writes element `at`
                    // (this task owns batch `b`, features `o0..o1`).
                    unsafe { *out.0.add(at) = v };
                }
            }
        }
    }
}

/// The convolution through im2col and faer; `None` when the gather buffer would be too big.
pub(crate) fn conv_gemm<T: FaerElem>(
    l: &[T],
    r: &[T],
    p: &ConvPlan,
    par: Parallel<'_>,
) -> Option<Vec<T>> {
    let lw = lower(p);
    let mut out = vec![T::default(); count(&p.out_dims)];
    if lw.in_features * lw.window * lw.positions > MAX_COL {
        return None;
    }
    if out.is_empty() {
        return Some(out);
    }
    let w = weights(r, p, &lw);
    let bgc = lw.out_features / p.oc_per_bgroup.max(1);
    let tasks: Vec<(usize, usize)> = (0..lw.out_batch)
        .flat_map(|b| (0..bgc).map(move |g| (b, g)))
        .collect();
    let ptr = OutPtr(out.as_mut_ptr(), out.len());
    if tasks.len() >= par.threads() && par.threads() > 1 {
        par.install(|| {
            tasks.par_iter().for_each_init(
                || (Vec::new(), Vec::new()),
                |bufs, &t| task(l, &w, p, &lw, t, bufs, ptr, Parallel::SEQ),
            );
        });
    } else {
        let mut bufs = (Vec::new(), Vec::new());
        for &t in &tasks {
            task(l, &w, p, &lw, t, &mut bufs, ptr, par);
        }
    }
    Some(out)
}
