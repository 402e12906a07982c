//! Convolution lowered to matrix products (im2col): for each output batch element and batch
//! group, the lhs windows are gathered once into a `[features * window, positions]` matrix
//! (zeros where the window falls into padding or between dilated lhs elements), and each
//! feature group's output block is one faer product `W_g x col_g`. Handles any strides,
//! padding, lhs/rhs dilation, window reversal, dimension labels, feature groups and batch
//! groups. Convolutions with lhs dilation are first split into ordinary ones
//! (`conv_subpixel`), and most others take the products of `conv_rows`.
//!
//! Work is split over (batch element, batch group) tasks, each with its own gather buffer and
//! a sequential product; with fewer tasks than threads the products themselves run in
//! parallel. Either way each output element is one sum in a fixed order, so results do not
//! depend on the thread count.

use super::contraction::{redo_filled, ConvPlan};
use super::conv_rows::{conv_rows, form, rhs_flat_stride, weights_ok};
use super::matmul::{gemm_par, FaerElem, MIN_PAR_FLOPS};
use crate::index::{count, strides};
use crate::limits::stop::Stop;
use crate::parallel::Parallel;
use faer::{MatMut, MatRef};
use rayon::prelude::*;

/// Gather buffers larger than this (in elements) are not built; the reference loop runs.
const MAX_COL: usize = 1 << 26;

/// The lhs offsets a run of window taps reads along one spatial dim, when the lhs is not
/// dilated: indices `lo..hi` of the run are inside the lhs, at `start + i * step`.
#[derive(Clone, Copy, Debug)]
struct Seg {
    lo: usize,
    hi: usize,
    start: isize,
    step: isize,
}

/// The run `pos(i) = a + i * c` for `i < len` over an lhs dim of `size` elements at `stride`.
fn seg(
    size: usize,
    stride: usize,
    (a, c): (i64, i64),
    len: usize,
    base_dilation: i64,
) -> Option<Seg> {
    if base_dilation != 1 || c <= 0 {
        return None;
    }
    let ceil_div = |x: i64| if x <= 0 { 0 } else { (x + c - 1) / c };
    let lo = (ceil_div(-a) as usize).min(len);
    let hi = (ceil_div(size as i64 - a) as usize).clamp(lo, len);
    Some(Seg {
        lo,
        hi,
        start: (a * stride as i64) as isize,
        step: (c * stride as i64) as isize,
    })
}

/// Sizes and offsets of one lowered convolution. A convolution without spatial dims is
/// given one of size 1.
struct Lowered {
    /// Output spatial sizes, and the output offset of each flattened output position.
    osizes: Vec<usize>,
    out_pos: Vec<usize>,
    /// Per spatial dim, per window position, per output position: lhs offset or -1.
    taps: Vec<Vec<Vec<isize>>>,
    /// The last spatial dim: taps per output position over window positions.
    last_taps_t: Vec<Vec<isize>>,
    /// The last spatial dim as runs: over output positions (per window position), and over
    /// window positions (per output position).
    runs_o: Vec<Option<Seg>>,
    runs_k: Vec<Option<Seg>>,
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
pub(super) fn tap(p: &ConvPlan, s: usize, o: usize, k: usize) -> isize {
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

/// Output roles: (batch size, batch stride, features, feature stride, spatial sizes,
/// spatial strides).
#[allow(clippy::type_complexity)]
pub(super) fn out_roles(p: &ConvPlan) -> (usize, usize, usize, usize, Vec<usize>, Vec<usize>) {
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
    (out_batch, obs, oc, ofs, osizes, ostrides)
}

fn lower(p: &ConvPlan) -> Lowered {
    let (out_batch, obs, oc, ofs, mut osizes, mut ostrides) = out_roles(p);
    let ns = p.lhs_spatial.len();
    let mut ksizes: Vec<usize> = p.rhs_spatial.iter().map(|s| s.0).collect();
    let mut taps: Vec<Vec<Vec<isize>>> = (0..ns)
        .map(|s| {
            (0..ksizes[s])
                .map(|k| (0..osizes[s]).map(|o| tap(p, s, o, k)).collect())
                .collect()
        })
        .collect();
    let (runs_o, runs_k) = match ns.checked_sub(1) {
        None => {
            (osizes, ostrides, ksizes) = (vec![1], vec![0], vec![1]);
            taps = vec![vec![vec![0]]];
            (vec![None], vec![None])
        }
        Some(s) => {
            let (size, stride) = p.lhs_spatial[s];
            let w = &p.win[s];
            let (bd, wd, st) = (w.base_dilation, w.window_dilation, w.stride);
            let ro = (0..ksizes[s])
                .map(|k| {
                    seg(
                        size,
                        stride,
                        (k as i64 * wd - w.padding_low, st),
                        osizes[s],
                        bd,
                    )
                })
                .collect();
            let rk = (0..osizes[s])
                .map(|o| {
                    seg(
                        size,
                        stride,
                        (o as i64 * st - w.padding_low, wd),
                        ksizes[s],
                        bd,
                    )
                })
                .collect();
            (ro, rk)
        }
    };
    let last = taps.len() - 1;
    let last_taps_t = (0..osizes[last])
        .map(|o| (0..ksizes[last]).map(|k| taps[last][k][o]).collect())
        .collect();
    let mut out_pos = Vec::with_capacity(count(&osizes));
    crate::index::for_each_index(&osizes, |o| {
        out_pos.push(o.iter().zip(&ostrides).map(|(a, b)| a * b).sum());
    });
    Lowered {
        positions: count(&osizes),
        window: count(&ksizes),
        osizes,
        out_pos,
        taps,
        last_taps_t,
        runs_o,
        runs_k,
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
    // Without reversal and with row-major spatial dims, each block is one contiguous run.
    let mut expect = 1;
    let mut contiguous = true;
    for (s, &(size, stride)) in p.rhs_spatial.iter().enumerate().rev() {
        contiguous &= !p.win[s].window_reversal && (stride == expect || size <= 1);
        expect *= size;
    }
    for o in 0..lw.out_features {
        for c in 0..p.kic {
            let base = o * p.rhs_out_stride + c * p.rhs_in_stride;
            if let Some(run) = r.get(base..base + lw.window).filter(|_| contiguous) {
                w.extend_from_slice(run);
                continue;
            }
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

/// Fills `dst` from lhs offsets `base + taps[i]` (zero where a tap is -1), through the run
/// `run` when there is one.
fn fill<T: Copy + Default>(dst: &mut [T], l: &[T], base: isize, run: Option<&Seg>, taps: &[isize]) {
    let get = |off: isize| {
        usize::try_from(off)
            .ok()
            .and_then(|o| l.get(o))
            .copied()
            .unwrap_or_default()
    };
    let Some(r) = run else {
        for (x, &t) in dst.iter_mut().zip(taps) {
            *x = if t < 0 { T::default() } else { get(base + t) };
        }
        return;
    };
    let (lo, hi) = (r.lo.min(dst.len()), r.hi.min(dst.len()));
    dst[..lo].fill(T::default());
    dst[hi..].fill(T::default());
    let first = base + r.start + lo as isize * r.step;
    let src = usize::try_from(first)
        .ok()
        .and_then(|f| l.get(f..f + (hi - lo)));
    match src {
        Some(src) if r.step == 1 => dst[lo..hi].copy_from_slice(src),
        _ => {
            for (i, x) in dst[lo..hi].iter_mut().enumerate() {
                *x = get(first + i as isize * r.step);
            }
        }
    }
}

/// The offset of the outer spatial dims (all but the last) of output index `o`, window
/// index `k`, or `None` when the tap falls outside the lhs.
fn outer_offset(lw: &Lowered, o: &[usize], k: &[usize]) -> Option<isize> {
    let mut off = 0;
    for s in 0..lw.taps.len() - 1 {
        let t = lw.taps[s][k[s]][o[s]];
        if t < 0 {
            return None;
        }
        off += t;
    }
    Some(off)
}

/// Splits dims into (outer, last) with the last of them separate.
fn split_last(d: &[usize]) -> (&[usize], usize) {
    match d.split_last() {
        Some((l, rest)) => (rest, *l),
        None => (&[], 1),
    }
}

/// Fills `col` (`[in features * window, positions]`, row-major) from lhs batch element `lb`.
fn im2col<T: Copy + Default>(l: &[T], p: &ConvPlan, lw: &Lowered, lb: usize, col: &mut [T]) {
    let (outer_o, inner) = split_last(&lw.osizes);
    let last = lw.taps.len() - 1;
    let mut rows = col.chunks_mut(lw.positions.max(1));
    for c in 0..lw.in_features {
        let base = (lb * p.lhs_batch_stride + c * p.lhs_feature_stride) as isize;
        crate::index::for_each_index(&lw.ksizes, |k| {
            let Some(row) = rows.next() else { return };
            let mut segs = row.chunks_mut(inner.max(1));
            let kl = k[last];
            crate::index::for_each_index(outer_o, |o| {
                let Some(dst) = segs.next() else { return };
                match outer_offset(lw, o, k) {
                    None => dst.fill(T::default()),
                    Some(off) => fill(
                        dst,
                        l,
                        base + off,
                        lw.runs_o[kl].as_ref(),
                        &lw.taps[last][kl],
                    ),
                }
            });
        });
    }
}

/// Fills `col` (`[positions, in features * window]`, row-major) from lhs batch element `lb`:
/// the transposed gather, with long contiguous runs when the window is large.
fn im2row<T: Copy + Default>(l: &[T], p: &ConvPlan, lw: &Lowered, lb: usize, col: &mut [T]) {
    let (outer_k, inner) = split_last(&lw.ksizes);
    let mut rows = col.chunks_mut((lw.in_features * lw.window).max(1));
    crate::index::for_each_index(&lw.osizes, |o| {
        let Some(row) = rows.next() else { return };
        let ol = o[o.len() - 1];
        let mut segs = row.chunks_mut(inner.max(1));
        for c in 0..lw.in_features {
            let base = (lb * p.lhs_batch_stride + c * p.lhs_feature_stride) as isize;
            crate::index::for_each_index(outer_k, |k| {
                let Some(dst) = segs.next() else { return };
                match outer_offset(lw, o, k) {
                    None => dst.fill(T::default()),
                    Some(off) => fill(
                        dst,
                        l,
                        base + off,
                        lw.runs_k[ol].as_ref(),
                        &lw.last_taps_t[ol],
                    ),
                }
            });
        }
    });
}

/// The output buffer, shared by tasks that write disjoint elements.
#[derive(Clone, Copy)]
pub(super) struct OutPtr<T>(pub(super) *mut T, pub(super) usize);
// SAFETY: tasks write disjoint elements (distinct (batch, feature) pairs) through it, and the
// buffer outlives the parallel section.
unsafe impl<T: Send> Send for OutPtr<T> {}
unsafe impl<T: Send> Sync for OutPtr<T> {}

/// Writes `res` (row-major, features `o0..` by `cols` columns of (batch `b0 + t`, position
/// `p`)) into the output.
fn scatter<T: Copy>(
    res: &[T],
    cols: usize,
    (b0, o0): (usize, usize),
    lw: &Lowered,
    out: OutPtr<T>,
) {
    let np = lw.positions.max(1);
    for (i, row) in res.chunks(cols.max(1)).enumerate() {
        let base = (o0 + i) * lw.out_feature_stride;
        for (j, &v) in row.iter().enumerate() {
            let (b, q) = (
                b0 + j / np,
                crate::invariant::at(&lw.out_pos, j % np, "conv output positions"),
            );
            let at = base + b * lw.out_batch_stride + q;
            if at < out.1 {
                // SAFETY: `at` is in bounds, and no other task writes element `at` (each
                // task owns its batches and features).
                unsafe { *out.0.add(at) = v };
            }
        }
    }
}

/// The output features of batch group `bg` and feature group `fg`, if any.
pub(super) fn features(p: &ConvPlan, bg: usize, fg: usize) -> Option<(usize, usize)> {
    let o0 = (bg * p.oc_per_bgroup).max(fg * p.oc_per_fgroup);
    let o1 = ((bg + 1) * p.oc_per_bgroup).min((fg + 1) * p.oc_per_fgroup);
    (o0 < o1).then_some((o0, o1))
}

/// `dst = lhs * rhs` straight into the output rows of batch `b`, features `o0..o1`, when the
/// output positions are contiguous; false (nothing done) otherwise.
fn gemm_direct<T: FaerElem>(
    (lhs, rhs): (MatRef<'_, T>, MatRef<'_, T>),
    (b, o0, o1): (usize, usize, usize),
    lw: &Lowered,
    out: OutPtr<T>,
    (par, stop): (Parallel<'_>, &Stop),
) -> bool {
    let (n, ofs) = (lw.positions, lw.out_feature_stride);
    let contiguous = lw.out_pos.iter().enumerate().all(|(i, &q)| q == i);
    let base = b * lw.out_batch_stride + o0 * ofs;
    if !contiguous || n == 0 || (ofs < n && o1 - o0 > 1) || base + (o1 - o0 - 1) * ofs + n > out.1 {
        return false;
    }
    // SAFETY: rows `o0..o1` of `n` contiguous elements at stride `ofs >= n` lie inside the
    // buffer (checked above) and belong to this task alone.
    let dst = unsafe { MatMut::from_raw_parts_mut(out.0.add(base), o1 - o0, n, ofs as isize, 1) };
    gemm_par(dst, lhs, rhs, par, stop);
    true
}

/// One task of the column gather: output batch element `b`, batch group `bg`.
#[allow(clippy::too_many_arguments)]
fn task<T: FaerElem>(
    l: &[T],
    w: MatRef<'_, T>,
    p: &ConvPlan,
    lw: &Lowered,
    (b, bg): (usize, usize),
    bufs: &mut (Vec<T>, Vec<T>),
    out: OutPtr<T>,
    (par, stop): (Parallel<'_>, &Stop),
) {
    let (col, tmp) = bufs;
    col.resize(lw.in_features * lw.window * lw.positions, T::default());
    im2col(l, p, lw, bg * p.batch_per_group + b, col);
    let (kg, n) = (p.kic * lw.window, lw.positions);
    for fg in 0..lw.in_features / p.kic.max(1) {
        let Some((o0, o1)) = features(p, bg, fg) else {
            continue;
        };
        let lhs = w.subrows(o0, o1 - o0);
        let rhs = MatRef::from_row_major_slice(&col[fg * kg * n..(fg + 1) * kg * n], kg, n);
        if !gemm_direct((lhs, rhs), (b, o0, o1), lw, out, (par, stop)) {
            tmp.resize((o1 - o0) * n, T::default());
            gemm_par(
                MatMut::from_row_major_slice_mut(tmp, o1 - o0, n),
                lhs,
                rhs,
                par,
                stop,
            );
            scatter(tmp, n, (b, o0), lw, out);
        }
    }
}

/// One job of the row gather: output batch elements `b0..b0 + t` of batch group `bg`, as
/// one product per feature group with `t * positions` columns.
#[allow(clippy::too_many_arguments)]
fn job_rows<T: FaerElem>(
    l: &[T],
    w: MatRef<'_, T>,
    p: &ConvPlan,
    lw: &Lowered,
    (bg, b0, t): (usize, usize, usize),
    bufs: &mut (Vec<T>, Vec<T>),
    out: OutPtr<T>,
    (par, stop): (Parallel<'_>, &Stop),
) {
    let (col, tmp) = bufs;
    let (kall, kg, n) = (
        lw.in_features * lw.window,
        p.kic * lw.window,
        t * lw.positions,
    );
    col.resize(n * kall, T::default());
    let per = (lw.positions * kall).max(1);
    let lb0 = bg * p.batch_per_group + b0;
    if par.threads() > 1 {
        par.install(|| {
            col.par_chunks_mut(per)
                .enumerate()
                .for_each(|(i, c)| im2row(l, p, lw, lb0 + i, c));
        });
    } else {
        col.chunks_mut(per)
            .enumerate()
            .for_each(|(i, c)| im2row(l, p, lw, lb0 + i, c));
    }
    let rows = MatRef::from_row_major_slice(&col[..], n, kall);
    for fg in 0..lw.in_features / p.kic.max(1) {
        let Some((o0, o1)) = features(p, bg, fg) else {
            continue;
        };
        let lhs = w.subrows(o0, o1 - o0);
        let rhs = rows.subcols(fg * kg, kg).transpose();
        tmp.resize((o1 - o0) * n, T::default());
        gemm_par(
            MatMut::from_row_major_slice_mut(tmp, o1 - o0, n),
            lhs,
            rhs,
            par,
            stop,
        );
        scatter(tmp, n, (b0, o0), lw, out);
    }
}

/// Row-gather jobs hold at most about this many elements.
const ROWS_CHUNK: usize = 1 << 24;

/// The convolution through the sub-pixel decomposition (lhs dilation), the depthwise or
/// per-tap kernels, the Rows/Cols products or im2col and faer; `None` when the gather buffer would be too big.
pub(crate) fn conv_gemm<T: FaerElem>(
    l: &[T],
    r: &[T],
    p: &ConvPlan,
    par: Parallel<'_>,
) -> Option<Vec<T>> {
    if let Some(out) = super::conv_subpixel::conv_subpixel(l, r, p, par) {
        return Some(out);
    }
    if let Some(out) = super::conv_depthwise::conv_depthwise(l, r, p, par) {
        return Some(out);
    }
    if let Some(out) = super::conv_taps::conv_taps(l, r, p, par) {
        return Some(out);
    }
    if let Some(out) = super::conv_tap_grads::conv_tap_grads(l, r, p, par) {
        return Some(out);
    }
    if let Some(f) = form(p) {
        if let Some(out) = conv_rows(l, r, p, f, par) {
            return Some(out);
        }
    }
    column_gemm(l, r, p, par)
}

/// The kernel viewed in place as `[out features, kic * window]` (columns ordered (input
/// feature, window position)), when its layout allows.
fn weights_view<'a, T>(r: &'a [T], p: &ConvPlan, lw: &Lowered) -> Option<MatRef<'a, T>> {
    let (m, n, ros) = (lw.out_features, p.kic * lw.window, p.rhs_out_stride);
    let u = rhs_flat_stride(p)?;
    let s = r.get(..((m.checked_sub(1)? * ros) + (n.checked_sub(1)? * u) + 1))?;
    if u == 1 {
        Some(MatRef::from_row_major_slice_with_stride(s, m, n, ros))
    } else if ros == 1 {
        Some(MatRef::from_column_major_slice_with_stride(s, m, n, u))
    } else {
        None
    }
}

/// The column (or row) gather and its products; `None` when the gather would be too big. A
/// non-finite weight makes the elements whose windows read fill be redone (see
/// [`weights_ok`], [`redo_filled`]).
fn column_gemm<T: FaerElem>(l: &[T], r: &[T], p: &ConvPlan, par: Parallel<'_>) -> Option<Vec<T>> {
    let lw = lower(p);
    let mut out = vec![T::default(); count(&p.out_dims)];
    let per = lw.in_features * lw.window * lw.positions;
    // Without room for the columns (the budget's headroom), the direct loops need none.
    let room = || {
        crate::limits::scratch::fits(
            "convolution (im2col columns)",
            crate::limits::scratch::bytes_of::<T>(per),
        )
    };
    if per > MAX_COL || !room() {
        return None;
    }
    if out.is_empty() {
        return Some(out);
    }
    let view = weights_view(r, p, &lw).filter(|_| lw.window > lw.positions);
    let w = if view.is_some() {
        Vec::new()
    } else {
        weights(r, p, &lw)
    };
    let kg = p.kic * lw.window;
    let wm = view.unwrap_or_else(|| MatRef::from_row_major_slice(&w, lw.out_features, kg));
    let wslice = if view.is_some() { r } else { &w[..] };
    let bgc = lw.out_features / p.oc_per_bgroup.max(1);
    let ptr = OutPtr(out.as_mut_ptr(), out.len());
    let mut bufs = (Vec::new(), Vec::new());
    let flops = lw.out_features * p.kic * lw.window * lw.positions * lw.out_batch;
    let par = if flops < MIN_PAR_FLOPS {
        Parallel::SEQ
    } else {
        par
    };
    // Polled between jobs and tasks (`limits/stop.rs`).
    let stop = Stop::current();
    if lw.window > lw.positions {
        let t = (ROWS_CHUNK / per.max(1)).clamp(1, lw.out_batch.max(1));
        for bg in 0..bgc {
            for b0 in (0..lw.out_batch).step_by(t) {
                if stop.stopped() {
                    return Some(out);
                }
                let job = (bg, b0, t.min(lw.out_batch - b0));
                job_rows(l, wm, p, &lw, job, &mut bufs, ptr, (par, &stop));
            }
        }
        if !weights_ok(p, wslice, &out) {
            redo_filled(l, r, p, &mut out);
        }
        return Some(out);
    }
    let tasks: Vec<(usize, usize)> = (0..lw.out_batch)
        .flat_map(|b| (0..bgc).map(move |g| (b, g)))
        .collect();
    if tasks.len() >= par.threads() && par.threads() > 1 {
        par.install(|| {
            tasks.par_iter().for_each_init(
                || (Vec::new(), Vec::new()),
                |bufs, &t| {
                    if !stop.stopped() {
                        task(l, wm, p, &lw, t, bufs, ptr, (Parallel::SEQ, &stop));
                    }
                },
            );
        });
    } else {
        for &t in &tasks {
            if stop.stopped() {
                return Some(out);
            }
            task(l, wm, p, &lw, t, &mut bufs, ptr, (par, &stop));
        }
    }
    if !weights_ok(p, wslice, &out) {
        redo_filled(l, r, p, &mut out);
    }
    Some(out)
}
