//! The Rows and Cols forms of `conv_rows` without a gather, for products with few output
//! features (Flax's last `ConvTranspose` to one channel, its kernel gradient): with one or
//! two columns the product is a matrix-vector product, so gathering `A` costs more than
//! the arithmetic. Here each output element is summed straight from the lhs:
//! - **Rows**: `out[(batch, position), o] = sum over taps t, input features c of
//!   lhs[batch, pos(position, t), c] * w[t, c, o]`, each tap a dot product over the
//!   contiguous input features, summed in lanes.
//! - **Cols**: `out[(position, batch), o] = sum over input features c, taps t of
//!   lhs[c, pos(position, t), batch] * w[c, t, o]`, each tap an axpy over the contiguous
//!   batch elements.
//!
//! Taps in padding or between dilated lhs elements are skipped, as in the reference loop,
//! so a non-finite weight never meets an implicit zero. Each output element is summed by
//! one task in a fixed order, so results do not depend on the thread count.

use super::contraction::ConvPlan;
use super::conv::OutPtr;
use super::conv_rows::{Geo, Prob};
use super::matmul::{FaerElem, MIN_PAR_FLOPS};
use crate::index::for_each_index;
use crate::invariant;
use crate::limits::stop::Stop;
use crate::parallel::Parallel;
use rayon::prelude::*;

/// Products with at most this many output features take these kernels.
pub(super) const SMALL_N: usize = 2;
/// Lanes of the Rows dot products.
const LANES: usize = 8;
/// Multiply-adds from which the work is split over threads: these loops do about one per
/// cycle, a product's kernel many more, so the products' threshold is divided.
const MIN_PAR_MACS: usize = MIN_PAR_FLOPS / 32;
/// Batch elements summed together in the Cols kernel.
const BATCH_CHUNK: usize = 16;
/// Output rows per Rows task.
const ROWS_TASK: usize = 256;

/// The kernel of `pr` per output feature: `n` runs of `window * kic` weights, each ordered
/// (window position, input feature) with reversal applied (`tap_major`) or (input feature,
/// window position).
fn weights_per_feature<T: Copy + Default>(
    r: &[T],
    p: &ConvPlan,
    g: &Geo,
    pr: Prob,
    tap_major: bool,
) -> Vec<T> {
    // The kernel offset of each window position, in flat window order.
    let mut taps = Vec::with_capacity(g.window);
    for_each_index(&g.ksizes, |k| {
        let mut at = 0;
        for (s, (&(size, stride), &kk)) in p.rhs_spatial.iter().zip(k).enumerate() {
            let rev = p.win.get(s).is_some_and(|w| w.window_reversal);
            at += if rev { size - 1 - kk } else { kk } * stride;
        }
        taps.push(at);
    });
    let get = |at: usize| r.get(at).copied().unwrap_or_default();
    let mut w = Vec::with_capacity((pr.o1 - pr.o0) * g.window * p.kic);
    for o in pr.o0..pr.o1 {
        let ob = o * p.rhs_out_stride;
        if tap_major {
            for &t in &taps {
                w.extend((0..p.kic).map(|c| get(ob + t + c * p.rhs_in_stride)));
            }
        } else {
            for c in 0..p.kic {
                let cb = ob + c * p.rhs_in_stride;
                w.extend(taps.iter().map(|&t| get(cb + t)));
            }
        }
    }
    w
}

/// `sum(x[i] * w[i])` into `lanes` (lane `i % LANES`).
#[inline]
fn dot_lanes<T: FaerElem>(lanes: &mut [T; LANES], x: &[T], w: &[T]) {
    let mut xs = x.chunks_exact(LANES);
    let mut ws = w.chunks_exact(LANES);
    for (xc, wc) in (&mut xs).zip(&mut ws) {
        for ((a, &xv), &wv) in lanes.iter_mut().zip(xc).zip(wc) {
            *a += xv * wv;
        }
    }
    for ((a, &xv), &wv) in lanes.iter_mut().zip(xs.remainder()).zip(ws.remainder()) {
        *a += xv * wv;
    }
}

/// The sum of the lanes, as a tree (three dependent adds).
#[inline]
fn reduce<T: FaerElem>(l: [T; LANES]) -> T {
    let [a0, a1, a2, a3, a4, a5, a6, a7] = l;
    ((a0 + a4) + (a2 + a6)) + ((a1 + a5) + (a3 + a7))
}

/// One run of a Rows dot product: `len` lhs elements from spatial offset `off`, against
/// the weights from `woff`.
#[derive(Clone, Copy, Debug)]
struct Run {
    off: usize,
    woff: usize,
    len: usize,
}

/// Per output position, its runs (`starts[q]..starts[q + 1]` of the list): taps in padding
/// or between dilated lhs elements left out, taps whose input features follow each other
/// in the lhs (and so in the weights) merged when `unit`.
fn rows_runs(g: &Geo, kic: usize, unit: bool) -> (Vec<Run>, Vec<usize>) {
    let (mut runs, mut starts) = (Vec::new(), vec![0]);
    for offs in g.offs.chunks(g.window.max(1)) {
        let mut t = 0;
        while let Some(&off) = offs.get(t) {
            let mut n = 1;
            while unit && off >= 0 && offs.get(t + n) == Some(&(off + (n * kic) as isize)) {
                n += 1;
            }
            if let Ok(off) = usize::try_from(off) {
                let (woff, len) = (t * kic, n * kic);
                runs.push(Run { off, woff, len });
            }
            t += n;
        }
        starts.push(runs.len());
    }
    (runs, starts)
}

/// The Rows output rows `r0..r1` of `pr` (weights `w` from [`weights_per_feature`],
/// tap-major; runs from [`rows_runs`]).
fn rows_task<T: FaerElem>(
    l: &[T],
    p: &ConvPlan,
    g: &Geo,
    (pr, w): (Prob, &[T]),
    (runs, starts): (&[Run], &[usize]),
    (r0, r1): (usize, usize),
    out: OutPtr<T>,
) {
    let (kic, fs) = (p.kic, p.lhs_feature_stride);
    let kg = g.window * kic;
    let unit = fs == 1 || kic == 1;
    let mut x = vec![T::default(); kic];
    let np = g.positions.max(1);
    let (mut b, mut q) = (r0 / np, r0 % np);
    for _ in r0..r1 {
        let base = (pr.lb0 + b) * p.lhs_batch_stride + pr.c0 * fs;
        let mine = match (starts.get(q), starts.get(q + 1)) {
            (Some(&a), Some(&z)) => invariant::span(runs, a..z, "conv runs per position"),
            _ => &[],
        };
        let at = b * g.obs + invariant::at(&g.out_pos, q, "conv output positions");
        for (j, wo) in w.chunks(kg.max(1)).enumerate() {
            let mut lanes = [T::default(); LANES];
            for run in mine {
                let start = base + run.off;
                let xs = match l.get(start..start + run.len).filter(|_| unit) {
                    Some(s) => s,
                    None => {
                        for (c, v) in x.iter_mut().enumerate() {
                            *v = l.get(start + c * fs).copied().unwrap_or_default();
                        }
                        &x[..]
                    }
                };
                let ws = invariant::span(wo, run.woff..run.woff + run.len, "conv run weights");
                dot_lanes(&mut lanes, xs, ws);
            }
            let o = at + (pr.o0 + j) * g.ofs;
            if o < out.1 {
                // SAFETY: `o` is in bounds, and only the task owning rows `r0..r1` of
                // these features writes element `o`.
                unsafe { *out.0.add(o) = reduce(lanes) };
            }
        }
        q += 1;
        if q == np {
            (b, q) = (b + 1, 0);
        }
    }
}

/// The Rows form for products of at most [`SMALL_N`] features.
pub(super) fn rows_small<T: FaerElem>(
    l: &[T],
    r: &[T],
    p: &ConvPlan,
    g: &Geo,
    out: OutPtr<T>,
    par: Parallel<'_>,
) {
    let rows = g.positions * g.batch;
    let ws: Vec<Vec<T>> = g
        .probs
        .iter()
        .map(|&pr| weights_per_feature(r, p, g, pr, true))
        .collect();
    let mut tasks = Vec::new();
    for (i, &pr) in g.probs.iter().enumerate() {
        for r0 in (0..rows).step_by(ROWS_TASK) {
            tasks.push((i, pr, r0, (r0 + ROWS_TASK).min(rows)));
        }
    }
    let unit = p.lhs_feature_stride == 1 || p.kic == 1;
    let (runs, starts) = rows_runs(g, p.kic, unit);
    let stop = Stop::current();
    let run = |&(i, pr, r0, r1): &(usize, Prob, usize, usize)| {
        if stop.stopped() {
            return;
        }
        let w = ws.get(i).map_or(&[][..], |w| &w[..]);
        rows_task(l, p, g, (pr, w), (&runs, &starts), (r0, r1), out);
    };
    let macs = rows * g.window * p.kic * SMALL_N * g.probs.len();
    if par.threads() > 1 && macs >= MIN_PAR_MACS && tasks.len() > 1 {
        par.install(|| tasks.par_iter().for_each(run));
    } else {
        tasks.iter().for_each(run);
    }
}

/// The Cols output of position `q` for `pr` (weights `w` from [`weights_per_feature`],
/// feature-major): `batch` sums per feature, in `acc`, [`BATCH_CHUNK`] batch elements at a
/// time held in registers.
fn cols_task<T: FaerElem>(
    l: &[T],
    p: &ConvPlan,
    g: &Geo,
    (pr, w): (Prob, &[T]),
    q: usize,
    acc: &mut [T],
) {
    let (nb, bs) = (g.batch, p.lhs_batch_stride);
    let offs = invariant::span(
        &g.offs,
        q * g.window..(q + 1) * g.window,
        "conv window offsets",
    );
    let k = g.window * p.kic;
    for (a, wo) in acc.chunks_mut(nb.max(1)).zip(w.chunks(k.max(1))) {
        for (i, dst) in a.chunks_mut(BATCH_CHUNK).enumerate() {
            let mut sums = [T::default(); BATCH_CHUNK];
            for c in 0..p.kic {
                let base = (pr.lb0 + i * BATCH_CHUNK) * bs + (pr.c0 + c) * p.lhs_feature_stride;
                let wc = invariant::span(
                    wo,
                    c * g.window..(c + 1) * g.window,
                    "conv weights per input feature",
                );
                for (&off, &wv) in offs.iter().zip(wc) {
                    if let Ok(off) = usize::try_from(off) {
                        axpy(&mut sums, l, (base + off, bs, dst.len()), wv);
                    }
                }
            }
            dst.copy_from_slice(crate::invariant::span(
                &sums,
                0..dst.len(),
                "conv cols: one sum per feature",
            ));
        }
    }
}

/// `sums[i] += l[at + i * stride] * wv` for `i < len` (`len <= BATCH_CHUNK`).
#[inline]
fn axpy<T: FaerElem>(
    sums: &mut [T; BATCH_CHUNK],
    l: &[T],
    (at, stride, len): (usize, usize, usize),
    wv: T,
) {
    match l.get(at..at + len).filter(|_| stride == 1 || len == 1) {
        Some(run) => match <&[T; BATCH_CHUNK]>::try_from(run) {
            Ok(xs) => {
                for (y, &xv) in sums.iter_mut().zip(xs) {
                    *y += xv * wv;
                }
            }
            Err(_) => {
                for (y, &xv) in sums.iter_mut().zip(run) {
                    *y += xv * wv;
                }
            }
        },
        None => {
            for (j, y) in sums.iter_mut().take(len).enumerate() {
                *y += l.get(at + j * stride).copied().unwrap_or_default() * wv;
            }
        }
    }
}

/// The Cols form for products of at most [`SMALL_N`] features.
pub(super) fn cols_small<T: FaerElem>(
    l: &[T],
    r: &[T],
    p: &ConvPlan,
    g: &Geo,
    out: &mut [T],
    par: Parallel<'_>,
) {
    let ws: Vec<Vec<T>> = g
        .probs
        .iter()
        .map(|&pr| weights_per_feature(r, p, g, pr, false))
        .collect();
    let mut tasks: Vec<(usize, usize, Vec<T>)> = Vec::new();
    for (i, pr) in g.probs.iter().enumerate() {
        for q in 0..g.positions {
            tasks.push((i, q, vec![T::default(); g.batch * (pr.o1 - pr.o0)]));
        }
    }
    let stop = Stop::current();
    let run = |(i, q, acc): &mut (usize, usize, Vec<T>)| {
        if stop.stopped() {
            return;
        }
        if let (Some(&pr), Some(w)) = (g.probs.get(*i), ws.get(*i)) {
            cols_task(l, p, g, (pr, w), *q, acc);
        }
    };
    let macs = g.positions * g.batch * g.window * p.kic * SMALL_N * g.probs.len();
    if par.threads() > 1 && macs >= MIN_PAR_MACS && tasks.len() > 1 {
        par.install(|| tasks.par_iter_mut().for_each(run));
    } else {
        tasks.iter_mut().for_each(run);
    }
    for (i, q, acc) in &tasks {
        let Some(pr) = g.probs.get(*i) else { continue };
        let at = invariant::at(&g.out_pos, *q, "conv output positions");
        for (j, feature) in acc.chunks(g.batch.max(1)).enumerate() {
            for (b, &v) in feature.iter().enumerate() {
                if let Some(o) = out.get_mut(at + b * g.obs + (pr.o0 + j) * g.ofs) {
                    *o = v;
                }
            }
        }
    }
}
