//! Convolution as one large product for every dimension-label order: the lhs is gathered
//! with its feature dim (forward-like convolutions, e.g. NHWC `b01f_01io->b01f` as Flax
//! writes it, and the input gradient `b01f_01oi->b01f`) or its batch dim (kernel gradients,
//! e.g. `f01b_i01o->01bf`) innermost, so each window tap copies one contiguous run. An lhs
//! whose needed dim is not unit-stride (NCHW, say) is first copied into that order, once.
//!
//! Both forms build `out[(batch, position), feature] = A[(batch, position), (window, input
//! feature)] x W` per (batch group, feature group):
//! - **Rows** (forward-like: window no larger than the output): `A` is gathered in blocks of
//!   rows, one contiguous run of input features per window tap, and each block's product is
//!   written straight into the output (or scattered when the output layout does not allow).
//!   Blocks are independent, so they run in parallel.
//! - **Cols** (kernel-gradient-like: the window covers the image, the contraction runs over
//!   batch x image): `Aᵀ` is gathered in blocks of contraction rows, one contiguous run of
//!   batch elements per output position, and multiplied with the matching rows of the rhs
//!   (viewed in place when its layout allows). The blocks are summed into a fixed number of
//!   partial products, added in a fixed order at the end.
//!
//! Products with one or two output features skip the gather and sum straight from the lhs
//! (`conv_small`).
//!
//! Block sizes and partial counts never depend on the thread count, so neither do results.

use super::contraction::{redo_filled, ConvPlan};
use super::conv::{features, out_roles, tap, OutPtr};
use super::conv_small::{cols_small, rows_small, SMALL_N};
use super::matmul::{gemm, FaerElem, MIN_PAR_FLOPS};
use crate::index::{count, for_each_index};
use crate::invariant;
use crate::limits::stop::Stop;
use crate::parallel::Parallel;
use faer::linalg::matmul::matmul;
use faer::{Accum, MatMut, MatRef, Par};
use rayon::prelude::*;

/// Elements of one gathered block of `A` (about a quarter of a typical L2).
const BLOCK: usize = 1 << 16;
/// Elements of one gathered block of `Aᵀ` in the Cols form.
const COL_BLOCK: usize = 1 << 18;
/// Largest offset table (output positions x window positions) built; larger convolutions
/// take the column gather.
const MAX_OFFS: usize = 1 << 22;
/// Elements of gathered blocks and partial products at most (unless one row is larger).
const MAX_BLOCK: usize = 1 << 22;
/// Partial products per (batch group, feature group) in the Cols form.
const PARTIALS: usize = 8;

/// One product: lhs batch elements from `lb0`, input features from `c0`, output features
/// `o0..o1`.
#[derive(Clone, Copy, Debug)]
pub(super) struct Prob {
    pub(super) lb0: usize,
    pub(super) c0: usize,
    pub(super) o0: usize,
    pub(super) o1: usize,
}

/// Sizes and offsets of the lowered convolution.
pub(super) struct Geo {
    osizes: Vec<usize>,
    pub(super) ksizes: Vec<usize>,
    /// Per output position, per window position (both flat): the lhs spatial offset, or
    /// -1 in padding or between dilated lhs elements.
    pub(super) offs: Vec<isize>,
    pub(super) positions: usize,
    pub(super) window: usize,
    pub(super) batch: usize,
    pub(super) obs: usize,
    pub(super) ofs: usize,
    pub(super) out_pos: Vec<usize>,
    pub(super) probs: Vec<Prob>,
}

fn geo(p: &ConvPlan) -> Option<Geo> {
    let (batch, obs, oc, ofs, osizes, ostrides) = out_roles(p);
    let ksizes: Vec<usize> = p.rhs_spatial.iter().map(|s| s.0).collect();
    let (positions, window) = (count(&osizes), count(&ksizes));
    if positions.saturating_mul(window) > MAX_OFFS {
        return None;
    }
    let taps: Vec<Vec<Vec<isize>>> = (0..osizes.len())
        .map(|s| {
            (0..ksizes[s])
                .map(|k| (0..osizes[s]).map(|o| tap(p, s, o, k)).collect())
                .collect()
        })
        .collect();
    let mut offs = Vec::with_capacity(positions * window);
    for_each_index(&osizes, |o| {
        for_each_index(&ksizes, |k| offs.push(tap_offset(&taps, k, o)));
    });
    let mut out_pos = Vec::with_capacity(count(&osizes));
    for_each_index(&osizes, |o| {
        out_pos.push(o.iter().zip(&ostrides).map(|(a, b)| a * b).sum());
    });
    let (fgc, bgc) = (oc / p.oc_per_fgroup.max(1), oc / p.oc_per_bgroup.max(1));
    let mut probs = Vec::new();
    for bg in 0..bgc {
        for fg in 0..fgc {
            if let Some((o0, o1)) = features(p, bg, fg) {
                let (lb0, c0) = (bg * p.batch_per_group, fg * p.kic);
                probs.push(Prob { lb0, c0, o0, o1 });
            }
        }
    }
    let g = Geo {
        positions,
        window,
        osizes,
        ksizes,
        offs,
        batch,
        obs,
        ofs,
        out_pos,
        probs,
    };
    let empty = g.osizes.is_empty() || g.positions == 0 || g.window == 0 || g.batch == 0;
    (!empty && p.kic > 0).then_some(g)
}

/// `o` set to the row-major multi-index of flat index `q` over `dims`.
fn unflatten(mut q: usize, dims: &[usize], o: &mut [usize]) {
    for (x, &d) in o.iter_mut().zip(dims).rev() {
        *x = q % d.max(1);
        q /= d.max(1);
    }
}

/// The lhs spatial offset of window position `k` at output position `o`, or -1 in padding
/// or between dilated lhs elements.
fn tap_offset(taps: &[Vec<Vec<isize>>], k: &[usize], o: &[usize]) -> isize {
    let mut off = 0isize;
    for (s, t) in taps.iter().enumerate() {
        let t = t[k[s]][o[s]];
        if t < 0 {
            return -1;
        }
        off += t;
    }
    off
}

/// Fills `dst` from `l` at `at`, `at + stride`, ... (zeros past the end of `l`).
fn copy_run<T: Copy + Default>(dst: &mut [T], l: &[T], at: usize, stride: usize) {
    if stride == 1 {
        if let Some(src) = l.get(at..at + dst.len()) {
            dst.copy_from_slice(src);
            return;
        }
    }
    for (i, x) in dst.iter_mut().enumerate() {
        *x = l.get(at + i * stride).copied().unwrap_or_default();
    }
}

/// Whether every element is finite.
fn all_finite<T: FaerElem>(s: &[T]) -> bool {
    s.chunks(256)
        .all(|c| c.iter().fold(true, |a, &x| a & T::finite(x)))
}

/// Whether a product's result `out` can stand for the reference: the product multiplies the
/// zeros of padding and lhs dilation by the weights `w`, which is the convolution's value
/// where XLA multiplies them too (`zeros_multiplied`) or where there is no fill; elsewhere
/// an infinite or NaN weight would make a NaN the reference does not have. Every weight
/// takes part in some output element, so a finite `out` has finite weights; the smaller of
/// the two is checked first.
pub(crate) fn weights_ok<T: FaerElem>(p: &ConvPlan, w: &[T], out: &[T]) -> bool {
    p.zeros_multiplied || no_fill(p) || (out.len() < w.len() && all_finite(out)) || all_finite(w)
}

/// Whether a kernel that skips the fill (`conv_small`'s) gives the convolution's value: where
/// XLA skips it too, where there is none, or where every weight is finite.
pub(crate) fn skipping_ok<T: FaerElem>(p: &ConvPlan, w: &[T]) -> bool {
    !p.zeros_multiplied || no_fill(p) || all_finite(w)
}

/// Whether every window tap reads a real lhs element: no padding and no lhs dilation, so
/// the products multiply no implicit zero and agree with the reference for any weights
/// (a 1×1 convolution whose weights hold a NaN stays on the products).
pub(crate) fn no_fill(p: &ConvPlan) -> bool {
    p.win
        .iter()
        .all(|w| w.padding_low <= 0 && w.padding_high <= 0 && w.base_dilation <= 1)
}

/// Which form a convolution takes, or `None` for the column gather.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Form {
    Rows,
    Cols,
}

/// The form for this plan: Rows when the window is no larger than the output, else Cols.
/// `None` (the column gather) without spatial dims, and where the run each tap copies is a
/// single element (one input feature for Rows, one batch element for Cols) while a spatial
/// lhs dim has unit stride: the column gather copies runs of that spatial dim instead, and
/// for Rows it must also write its output rows in place (output spatial dims innermost).
/// Measured on one thread: `f32[3,3,1,32]` kernel gradients 0.8-1.6 ms (column gather) vs
/// 2.0-2.7 ms (Cols); an NCHW forward from one input feature 0.3 ms vs 0.9 ms (Rows); for
/// every other benchmark convolution, NCHW included, the products here took 0.3-0.95x the
/// column gather's time.
pub(crate) fn form(p: &ConvPlan) -> Option<Form> {
    let role_dims = |role: u8| {
        p.out_role
            .iter()
            .zip(&p.out_dims)
            .filter(move |(r, _)| r.0 == role)
            .map(|(_, &d)| d)
    };
    let (window, positions): (usize, usize) = (
        p.rhs_spatial.iter().map(|s| s.0).product(),
        role_dims(2).product(),
    );
    let spatial_unit = p.lhs_spatial.iter().any(|&(size, st)| st == 1 && size > 1);
    let batch: usize = role_dims(0).product();
    // Output spatial dims innermost: the feature dim's stride covers every position.
    let ost = crate::index::strides(&p.out_dims);
    let spatial_inner = p
        .out_role
        .iter()
        .zip(&ost)
        .any(|(r, &st)| r.0 == 1 && st >= positions);
    if p.lhs_spatial.is_empty() {
        None
    } else if window <= positions {
        let single = p.kic == 1 && spatial_unit && spatial_inner;
        (!single).then_some(Form::Rows)
    } else if batch == 1 && spatial_unit {
        None
    } else {
        Some(Form::Cols)
    }
}

/// The kernel of `pr` as a row-major `[window * kic, features]` matrix, rows ordered
/// (window position, input feature), reversal applied.
fn weights_kc<T: Copy + Default>(r: &[T], p: &ConvPlan, g: &Geo, pr: Prob) -> Vec<T> {
    let n = pr.o1 - pr.o0;
    let mut w = Vec::with_capacity(g.window * p.kic * n);
    for_each_index(&g.ksizes, |k| {
        let mut base = 0;
        for (s, &(size, stride)) in p.rhs_spatial.iter().enumerate() {
            let kk = if p.win[s].window_reversal {
                size - 1 - k[s]
            } else {
                k[s]
            };
            base += kk * stride;
        }
        for c in 0..p.kic {
            let at = base + c * p.rhs_in_stride;
            w.extend((pr.o0..pr.o1).map(|o| {
                r.get(at + o * p.rhs_out_stride)
                    .copied()
                    .unwrap_or_default()
            }));
        }
    });
    w
}

/// Rows `r0..r1` of `A` for `pr`: row (batch, position), columns (window, input feature).
fn gather_rows<T: Copy + Default>(
    l: &[T],
    p: &ConvPlan,
    g: &Geo,
    pr: Prob,
    (r0, r1): (usize, usize),
    dst: &mut [T],
) {
    let (kic, fs) = (p.kic, p.lhs_feature_stride);
    // Runs of input features are contiguous (a single feature counts as one).
    let unit = fs == 1 || kic == 1;
    let step = if unit { 1 } else { fs };
    for (r, row) in (r0..r1).zip(dst.chunks_mut(g.window * kic)) {
        let (b, q) = (r / g.positions, r % g.positions);
        let base = (pr.lb0 + b) * p.lhs_batch_stride + pr.c0 * fs;
        let offs = invariant::span(
            &g.offs,
            q * g.window..(q + 1) * g.window,
            "conv window offsets",
        );
        let (mut rest, mut t) = (row, 0);
        while let Some(&off) = offs.get(t) {
            // Taps whose runs follow each other in the lhs are copied as one run.
            let mut n = 1;
            while unit && off >= 0 && offs.get(t + n) == Some(&(off + (n * kic) as isize)) {
                n += 1;
            }
            let len = (n * kic).min(rest.len());
            let (seg, tail) = std::mem::take(&mut rest).split_at_mut(len);
            match usize::try_from(off) {
                Err(_) => seg.fill(T::default()),
                Ok(off) => copy_run(seg, l, base + off, step),
            }
            (rest, t) = (tail, t + n);
        }
    }
}

/// Rows `q0..q1` of `Aᵀ` for `pr`: row (input feature, window position), columns
/// (position, batch).
fn gather_cols<T: Copy + Default>(
    l: &[T],
    p: &ConvPlan,
    g: &Geo,
    pr: Prob,
    (q0, q1): (usize, usize),
    dst: &mut [T],
) {
    let bs = p.lhs_batch_stride;
    // Runs of batch elements are contiguous (a single element counts as one).
    let unit = bs == 1 || g.batch == 1;
    let step = if unit { 1 } else { bs };
    for (q, row) in (q0..q1).zip(dst.chunks_mut(g.positions * g.batch)) {
        let (c, t) = (q / g.window, q % g.window);
        let base = pr.lb0 * bs + (pr.c0 + c) * p.lhs_feature_stride;
        let off_at = |q: usize| g.offs.get(q * g.window + t).copied();
        let (mut rest, mut q) = (row, 0);
        while let Some(off) = off_at(q) {
            // Positions whose runs follow each other in the lhs are copied as one run.
            let mut n = 1;
            while unit && off >= 0 && off_at(q + n) == Some(off + (n * g.batch) as isize) {
                n += 1;
            }
            let len = (n * g.batch).min(rest.len());
            let (seg, tail) = std::mem::take(&mut rest).split_at_mut(len);
            match usize::try_from(off) {
                Err(_) => seg.fill(T::default()),
                Ok(off) => copy_run(seg, l, base + off, step),
            }
            (rest, q) = (tail, q + n);
        }
    }
}

/// How Rows blocks reach the output: straight, with rows `stride` apart (`span` rows at a
/// time never crossing a multiple of `span`), or through a scatter.
#[derive(Clone, Copy, Debug)]
enum Write {
    Direct { stride: usize, span: usize },
    Scatter,
}

fn write_mode(g: &Geo) -> Write {
    let ps = if g.positions == 1 {
        g.obs
    } else {
        invariant::at(&g.out_pos, 1, "conv output positions")
    };
    let within = g.out_pos.iter().enumerate().all(|(q, &x)| x == q * ps);
    let rows = g.positions * g.batch;
    if within && (g.batch == 1 || g.obs == g.positions * ps) {
        Write::Direct {
            stride: ps,
            span: rows,
        }
    } else if within && g.positions >= 64 {
        Write::Direct {
            stride: ps,
            span: g.positions,
        }
    } else {
        Write::Scatter
    }
}

/// Writes `res` (rows `r0..` of `(batch, position)`, columns features `o0..`) into `out`.
fn scatter_rows<T: Copy>(res: MatRef<'_, T>, r0: usize, o0: usize, g: &Geo, out: OutPtr<T>) {
    for i in 0..res.nrows() {
        let (b, q) = ((r0 + i) / g.positions, (r0 + i) % g.positions);
        let base = b * g.obs + invariant::at(&g.out_pos, q, "conv output positions");
        for j in 0..res.ncols() {
            let at = base + (o0 + j) * g.ofs;
            if at < out.1 {
                // SAFETY: `at` is in bounds, and only the task owning rows `r0..` of these
                // features writes element `at`.
                unsafe { *out.0.add(at) = res[(i, j)] };
            }
        }
    }
}

/// One Rows block: gather rows `r0..r1` of `A`, multiply by `w`, write to the output.
#[allow(clippy::too_many_arguments)]
fn rows_block<T: FaerElem>(
    l: &[T],
    p: &ConvPlan,
    g: &Geo,
    (pr, w): (Prob, &[T]),
    (r0, r1): (usize, usize),
    mode: Write,
    bufs: &mut (Vec<T>, Vec<T>),
    out: OutPtr<T>,
) {
    let (kg, n, m) = (g.window * p.kic, pr.o1 - pr.o0, r1 - r0);
    let (a, tmp) = bufs;
    a.resize(m * kg, T::default());
    gather_rows(l, p, g, pr, (r0, r1), a);
    let lhs = MatRef::from_row_major_slice(&a[..], m, kg);
    let rhs = MatRef::from_row_major_slice(w, kg, n);
    if let Write::Direct { stride, .. } = mode {
        let (b, q) = (r0 / g.positions, r0 % g.positions);
        let base = b * g.obs + q * stride + pr.o0 * g.ofs;
        let last = base + (m - 1) * stride + (n - 1) * g.ofs;
        if last < out.1 {
            // SAFETY: every element `base + i * stride + j * ofs` (i < m, j < n) is at most
            // `last`, inside the buffer; rows `r0..r1` of features `o0..o1` belong to this
            // block alone, and distinct (row, feature) pairs are distinct output elements.
            let dst = unsafe {
                MatMut::from_raw_parts_mut(out.0.add(base), m, n, stride as isize, g.ofs as isize)
            };
            gemm(dst, lhs, rhs, Par::Seq);
            return;
        }
    }
    tmp.resize(m * n, T::default());
    let mut res = MatMut::from_row_major_slice_mut(&mut tmp[..], m, n);
    gemm(res.as_mut(), lhs, rhs, Par::Seq);
    scatter_rows(res.as_ref(), r0, pr.o0, g, out);
}

/// Rows per block for rows of `width` elements: about `target` elements, at least 16 rows
/// (products need some height) unless that would pass `MAX_BLOCK`, at most `most` rows.
fn block_len(target: usize, width: usize, most: usize) -> usize {
    let w = width.max(1);
    let floor = 16.min(MAX_BLOCK / w).max(1);
    (target / w).clamp(floor, most)
}

/// The Rows form.
fn run_rows<T: FaerElem>(
    l: &[T],
    r: &[T],
    p: &ConvPlan,
    g: &Geo,
    out: OutPtr<T>,
    par: Parallel<'_>,
) {
    let kg = g.window * p.kic;
    let ws: Vec<Vec<T>> = g.probs.iter().map(|&pr| weights_kc(r, p, g, pr)).collect();
    let mode = write_mode(g);
    let rows = g.positions * g.batch;
    let span = match mode {
        Write::Direct { span, .. } => span,
        Write::Scatter => rows,
    };
    let rc = block_len(BLOCK, kg, 1024);
    let mut blocks = Vec::new();
    for (i, &pr) in g.probs.iter().enumerate() {
        for s0 in (0..rows).step_by(span.max(1)) {
            let s1 = (s0 + span).min(rows);
            let pieces = (s1 - s0).div_ceil(rc);
            let step = (s1 - s0).div_ceil(pieces.max(1));
            for r0 in (s0..s1).step_by(step.max(1)) {
                blocks.push((i, pr, r0, (r0 + step).min(s1)));
            }
        }
    }
    let stop = Stop::current();
    let run = |bufs: &mut (Vec<T>, Vec<T>), &(i, pr, r0, r1): &(usize, Prob, usize, usize)| {
        if stop.stopped() {
            return;
        }
        let w = ws.get(i).map_or(&[][..], |w| &w[..]);
        rows_block(l, p, g, (pr, w), (r0, r1), mode, bufs, out);
    };
    let flops = rows * kg * (p.out_dims.iter().product::<usize>() / rows.max(1));
    if par.threads() > 1 && flops >= MIN_PAR_FLOPS && blocks.len() > 1 {
        par.install(|| {
            blocks
                .par_iter()
                .for_each_init(|| (Vec::new(), Vec::new()), run);
        });
    } else {
        let mut bufs = (Vec::new(), Vec::new());
        blocks.iter().for_each(|b| run(&mut bufs, b));
    }
}

/// The row stride of the rhs viewed as `[(input feature, window position), feature]`,
/// when its layout allows that view.
pub(crate) fn rhs_flat_stride(p: &ConvPlan) -> Option<usize> {
    if p.win
        .iter()
        .zip(&p.rhs_spatial)
        .any(|(w, s)| w.window_reversal && s.0 > 1)
    {
        return None;
    }
    let dims = std::iter::once((p.kic, p.rhs_in_stride)).chain(p.rhs_spatial.iter().copied());
    let (mut unit, mut expect) = (None, 0);
    for (size, stride) in dims.rev().filter(|d| d.0 > 1) {
        if unit.is_some() && stride != expect {
            return None;
        }
        unit.get_or_insert(stride);
        expect = stride * size;
    }
    Some(unit.unwrap_or(1))
}

/// Rows `q0..q1` of the rhs as `[(input feature, window position), features o0..o1]`:
/// viewed in place when `flat` allows, else gathered into `buf`.
fn rhs_rows<'a, T: FaerElem>(
    r: &'a [T],
    p: &ConvPlan,
    g: &Geo,
    (pr, flat): (Prob, Option<usize>),
    (q0, q1): (usize, usize),
    buf: &'a mut Vec<T>,
) -> MatRef<'a, T> {
    let (m, n, ros) = (q1 - q0, pr.o1 - pr.o0, p.rhs_out_stride);
    if let Some(u) = flat {
        let start = q0 * u + pr.o0 * ros;
        let len = (m - 1) * u + (n - 1) * ros + 1;
        if let Some(s) = r.get(start..start + len) {
            if ros == 1 {
                let w = MatRef::from_row_major_slice_with_stride(s, m, n, u);
                return w;
            }
            if u == 1 {
                return MatRef::from_column_major_slice_with_stride(s, m, n, ros);
            }
        }
    }
    buf.clear();
    let mut k = vec![0; g.ksizes.len()];
    for q in q0..q1 {
        let (c, t) = (q / g.window, q % g.window);
        unflatten(t, &g.ksizes, &mut k);
        let mut at = c * p.rhs_in_stride;
        for (s, &(size, stride)) in p.rhs_spatial.iter().enumerate() {
            let kk = if p.win[s].window_reversal {
                size - 1 - k[s]
            } else {
                k[s]
            };
            at += kk * stride;
        }
        buf.extend((pr.o0..pr.o1).map(|o| r.get(at + o * ros).copied().unwrap_or_default()));
    }
    MatRef::from_row_major_slice(&buf[..], m, n)
}

/// One Cols partial: the blocks `blocks` of `pr` summed in order into `acc` (`[rows,
/// features]`, row-major).
#[allow(clippy::too_many_arguments)]
fn cols_partial<T: FaerElem>(
    (l, r): (&[T], &[T]),
    p: &ConvPlan,
    g: &Geo,
    (pr, flat): (Prob, Option<usize>),
    blocks: &[(usize, usize)],
    acc: &mut [T],
    (bufs, stop): (&mut (Vec<T>, Vec<T>), &Stop),
) {
    let (rows, n) = (g.positions * g.batch, pr.o1 - pr.o0);
    let (a, wbuf) = bufs;
    let mut dst = MatMut::from_row_major_slice_mut(acc, rows, n);
    for (i, &(q0, q1)) in blocks.iter().enumerate() {
        if stop.stopped() {
            return;
        }
        a.resize((q1 - q0) * rows, T::default());
        gather_cols(l, p, g, pr, (q0, q1), a);
        let at = MatRef::from_row_major_slice(&a[..], q1 - q0, rows).transpose();
        let w = rhs_rows(r, p, g, (pr, flat), (q0, q1), wbuf);
        let accum = if i == 0 { Accum::Replace } else { Accum::Add };
        matmul(dst.as_mut(), accum, at, w, T::ONE, Par::Seq);
    }
}

/// Writes the sum of `parts` (each `[(position, batch), features o0..]`) into `out`.
fn scatter_cols<T: FaerElem>(parts: &mut [Vec<T>], pr: Prob, g: &Geo, out: &mut [T]) {
    let Some((first, rest)) = parts.split_first_mut() else {
        return;
    };
    for part in rest.iter() {
        for (x, &y) in first.iter_mut().zip(part) {
            *x += y;
        }
    }
    let n = pr.o1 - pr.o0;
    for (i, row) in first.chunks(n).enumerate() {
        let (q, b) = (i / g.batch, i % g.batch);
        let base = b * g.obs + invariant::at(&g.out_pos, q, "conv output positions");
        for (j, &v) in row.iter().enumerate() {
            if let Some(o) = out.get_mut(base + (pr.o0 + j) * g.ofs) {
                *o = v;
            }
        }
    }
}

/// The Cols form; false when a non-finite rhs element made the elements whose windows read
/// fill unusable (see [`redo_filled`]).
fn run_cols<T: FaerElem>(
    l: &[T],
    r: &[T],
    p: &ConvPlan,
    g: &Geo,
    out: &mut [T],
    par: Parallel<'_>,
) -> bool {
    let rows = g.positions * g.batch;
    let k = p.kic * g.window;
    let kc = block_len(COL_BLOCK, rows, 4096).min(k);
    let blocks: Vec<(usize, usize)> = (0..k).step_by(kc).map(|q| (q, (q + kc).min(k))).collect();
    let most =
        MAX_BLOCK / (rows * g.probs.iter().map(|pr| pr.o1 - pr.o0).max().unwrap_or(1)).max(1);
    let parts = PARTIALS.min(blocks.len()).min(most.max(1));
    let flat = rhs_flat_stride(p);
    let mut tasks = Vec::new();
    for (i, &pr) in g.probs.iter().enumerate() {
        for j in 0..parts {
            let (b0, b1) = (j * blocks.len() / parts, (j + 1) * blocks.len() / parts);
            let range = blocks.get(b0..b1).unwrap_or(&[]);
            tasks.push((i, pr, range, vec![T::default(); rows * (pr.o1 - pr.o0)]));
        }
    }
    let stop = Stop::current();
    let run = |bufs: &mut (Vec<T>, Vec<T>), t: &mut (usize, Prob, &[(usize, usize)], Vec<T>)| {
        cols_partial((l, r), p, g, (t.1, flat), t.2, &mut t.3, (bufs, &stop));
    };
    let flops = rows * k * g.probs.iter().map(|pr| pr.o1 - pr.o0).sum::<usize>();
    if par.threads() > 1 && flops >= MIN_PAR_FLOPS && tasks.len() > 1 {
        par.install(|| {
            tasks
                .par_iter_mut()
                .for_each_init(|| (Vec::new(), Vec::new()), run);
        });
    } else {
        let mut bufs = (Vec::new(), Vec::new());
        tasks.iter_mut().for_each(|t| run(&mut bufs, t));
    }
    let exact =
        p.zeros_multiplied || no_fill(p) || tasks.iter().all(|t| all_finite(&t.3)) || all_finite(r);
    for (i, &pr) in g.probs.iter().enumerate() {
        let mut mine: Vec<Vec<T>> = tasks
            .iter_mut()
            .filter(|t| t.0 == i)
            .map(|t| std::mem::take(&mut t.3))
            .collect();
        scatter_cols(&mut mine, pr, g, out);
    }
    exact
}

/// The lhs copied so that its input features (Rows) or batch elements (Cols) are
/// contiguous, with `p` changed to match; `None` when it already is.
fn relayout<T: Copy + Default + Send + Sync>(
    l: &[T],
    p: &ConvPlan,
    f: Form,
    par: Parallel<'_>,
) -> Option<(Vec<T>, ConvPlan)> {
    let oc = out_roles(p).2;
    let fgc = oc / p.oc_per_fgroup.max(1);
    let bgc = oc / p.oc_per_bgroup.max(1);
    let (nb, nf) = (p.batch_per_group * bgc, p.kic * fgc);
    let (first, last) = match f {
        Form::Rows => ((nb, p.lhs_batch_stride), (nf, p.lhs_feature_stride)),
        Form::Cols => ((nf, p.lhs_feature_stride), (nb, p.lhs_batch_stride)),
    };
    if last.1 == 1 || last.0 <= 1 {
        return None;
    }
    let order: Vec<(usize, usize)> = std::iter::once(first)
        .chain(p.lhs_spatial.iter().copied())
        .chain(std::iter::once(last))
        .collect();
    let dims: Vec<usize> = order.iter().map(|d| d.0).collect();
    let src: Vec<isize> = order.iter().map(|d| d.1 as isize).collect();
    // The copy is scratch: when the memory budget has no room for it, convolve from the
    // operand's own layout instead.
    let bytes = crate::limits::scratch::bytes_of::<T>(crate::index::count(&dims));
    if !crate::limits::scratch::fits("convolution (input relayout)", bytes) {
        return None;
    }
    let copy = super::strided::copy_typed(l, 0, &dims, &src, par)?;
    let st = crate::index::strides(&dims);
    let mut q = p.clone();
    let (fs, ls) = (st.first().copied().unwrap_or(1), 1);
    match f {
        Form::Rows => (q.lhs_batch_stride, q.lhs_feature_stride) = (fs, ls),
        Form::Cols => (q.lhs_feature_stride, q.lhs_batch_stride) = (fs, ls),
    }
    for (s, x) in q.lhs_spatial.iter_mut().enumerate() {
        x.1 = st[s + 1];
    }
    Some((copy, q))
}

/// Whether every product of the plan has at most [`SMALL_N`] features (the direct kernels
/// of `conv_small` then run, the Cols form's from 4 batch elements).
#[cfg(test)]
pub(crate) fn small(p: &ConvPlan) -> bool {
    geo(p).is_some_and(|g| small_geo(&g))
}

fn small_geo(g: &Geo) -> bool {
    g.probs.iter().all(|pr| pr.o1 - pr.o0 <= SMALL_N)
}

/// The convolution in form `f` (see the module docs); `None` when it has no spatial dims or
/// no work. With a non-finite weight, the elements whose windows read fill are redone as the
/// reference does them.
pub(crate) fn conv_rows<T: FaerElem>(
    l: &[T],
    r: &[T],
    p: &ConvPlan,
    f: Form,
    par: Parallel<'_>,
) -> Option<Vec<T>> {
    geo(p)?;
    let moved = relayout(l, p, f, par);
    let (l, p) = match &moved {
        Some((copy, q)) => (&copy[..], q),
        None => (l, p),
    };
    let g = geo(p)?;
    let mut out = vec![T::default(); count(&p.out_dims)];
    let small = small_geo(&g);
    match f {
        Form::Rows if small => {
            rows_small(l, r, p, &g, OutPtr(out.as_mut_ptr(), out.len()), par);
            if !skipping_ok(p, r) {
                redo_filled(l, r, p, &mut out);
            }
        }
        Form::Cols if small && g.batch >= 4 => {
            cols_small(l, r, p, &g, &mut out, par);
            if !skipping_ok(p, r) {
                redo_filled(l, r, p, &mut out);
            }
        }
        Form::Rows => {
            let ptr = OutPtr(out.as_mut_ptr(), out.len());
            run_rows(l, r, p, &g, ptr, par);
            if !weights_ok(p, r, &out) {
                redo_filled(l, r, p, &mut out);
            }
        }
        Form::Cols => {
            if !run_cols(l, r, p, &g, &mut out, par) {
                redo_filled(l, r, p, &mut out);
            }
        }
    }
    Some(out)
}
