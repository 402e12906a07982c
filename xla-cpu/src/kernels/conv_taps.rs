//! Channels-last convolutions along one line (1-D convolutions such as WaveNet's dilated
//! causal layers, and pointwise 1×1 convolutions of any rank) as one product per window
//! tap over a shifted view of the input, with no gather: with the input features innermost
//! and the positions one stride apart, the inputs tap `k` reads for output positions
//! `t0..t1` are themselves a matrix `[t1 - t0, features]` (row stride `stride × position
//! stride`), so `out[b, t0..t1, :] += x_view · W_k`.
//!
//! The gathered product (`conv_rows.rs`) copies every row of `[positions, window ×
//! features]` first (a memset, a copy and an index walk per block); measured on a
//! `f32[8,1024,32]` 1×1 layer: 0.45 ms there, 0.19 ms in XLA.
//!
//! Output rows are cut into blocks of [`ROWS`] (fixed, so results never depend on the
//! thread count); within a block every output row sums its taps in window order. Taps
//! outside the input are skipped; where XLA multiplies the padding by the weights and a
//! weight is not finite, the elements whose windows read padding are redone as the
//! reference does them (`redo_filled`).

use super::contraction::{redo_filled, ConvPlan};
use super::conv::out_roles;
use super::conv_rows::skipping_ok;
use super::matmul::{FaerElem, MIN_PAR_FLOPS};
use crate::limits::stop::Stop;
use crate::parallel::Parallel;
use faer::linalg::matmul::matmul;
use faer::{Accum, MatMut, MatRef, Par};
use rayon::prelude::*;

/// Output rows per task.
const ROWS: usize = 256;
/// At least this many input features, so each tap's product has some depth.
const MIN_FEATURES: usize = 8;

/// The line a convolution runs along.
struct Line {
    batch: usize,
    /// Lhs elements between batch elements.
    lbs: usize,
    /// Input positions and the lhs elements between two of them.
    t_in: usize,
    pos_stride: usize,
    /// Output positions.
    t_out: usize,
    /// Window stride, dilation and low padding.
    ws: usize,
    wd: usize,
    pad: i64,
    /// Per tap (in window order): the kernel's offset of its `[in, out]` matrix.
    taps: Vec<usize>,
    cin: usize,
    cout: usize,
}

impl Line {
    /// Output positions `[lo, hi)` whose tap `k` reads inside the input.
    fn valid(&self, k: usize) -> (usize, usize) {
        inside(
            self.ws,
            (k * self.wd) as i64 - self.pad,
            self.t_in,
            self.t_out,
        )
    }
}

/// The indices `i < count` whose position `i * step + shift` lies in `[0, n)`, as a range
/// `(lo, hi)` with `lo <= hi` (empty when none does): the outputs one window tap reaches
/// in `conv_taps`, the window positions one output tap reaches in `conv_tap_grads`.
pub(super) fn inside(step: usize, shift: i64, n: usize, count: usize) -> (usize, usize) {
    let step = step as i64;
    let lo = (-shift).max(0).div_euclid(step) + i64::from((-shift).max(0) % step != 0);
    let last = n as i64 - 1 - shift;
    let hi = if last < 0 { 0 } else { last / step + 1 };
    let count = count as i64;
    let (lo, hi) = (lo.clamp(0, count), hi.clamp(0, count));
    (lo as usize, hi.max(lo) as usize)
}

/// The line when `p` is a one-group convolution with input features innermost (unit
/// stride) in the lhs, output features innermost and then the positions in the output
/// (`b0f`, or `b01f` for a pointwise one), no lhs dilation, and either one spatial dim or
/// every spatial dim a 1×1 window without padding whose positions are row-major in both.
fn line(p: &ConvPlan) -> Option<Line> {
    let (batch, obs, cout, ofs, osizes, ostrides) = out_roles(p);
    let cin = p.kic;
    let one_group =
        p.oc_per_fgroup == cout && p.oc_per_bgroup == cout && p.batch_per_group == batch;
    if !one_group || p.lhs_feature_stride != 1 || ofs != 1 || cin < MIN_FEATURES || cout == 0 {
        return None;
    }
    if p.win
        .iter()
        .any(|w| w.base_dilation != 1 || w.stride < 1 || w.window_dilation < 1)
    {
        return None;
    }
    // Output positions row-major after the features; the lhs positions likewise.
    let t_out: usize = osizes.iter().product();
    let mut want = cout;
    for s in (0..osizes.len()).rev() {
        if osizes[s] > 1 && ostrides.get(s) != Some(&want) {
            return None;
        }
        want *= osizes[s];
    }
    if batch > 1 && obs != t_out * cout {
        return None;
    }
    let (t_in, pos_stride) = match p.lhs_spatial.as_slice() {
        [(size, stride)] => (*size, *stride),
        many if !many.is_empty() => {
            let pointwise = p.win.iter().zip(&p.rhs_spatial).all(|(w, r)| {
                r.0 == 1 && w.stride == 1 && w.padding_low == 0 && w.padding_high == 0
            });
            let mut want = many.last().map_or(0, |l| l.1);
            for &(size, stride) in many.iter().rev() {
                if size > 1 && stride != want {
                    return None;
                }
                want *= size;
            }
            let unit = many.last().map_or(0, |l| l.1);
            (pointwise && unit >= cin).then(|| (many.iter().map(|l| l.0).product(), unit))?
        }
        _ => return None,
    };
    if pos_stride < cin && t_in > 1 {
        return None;
    }
    let w = p.win.first()?;
    let (ksize, kstride) = *p.rhs_spatial.first()?;
    let ksize = if p.lhs_spatial.len() == 1 { ksize } else { 1 };
    let taps = (0..ksize)
        .map(|k| kstride * if w.window_reversal { ksize - 1 - k } else { k })
        .collect();
    let single = p.lhs_spatial.len() == 1;
    Some(Line {
        batch,
        lbs: p.lhs_batch_stride,
        t_in,
        pos_stride,
        t_out,
        ws: if single { w.stride as usize } else { 1 },
        wd: if single {
            w.window_dilation as usize
        } else {
            1
        },
        pad: if single { w.padding_low } else { 0 },
        taps,
        cin,
        cout,
    })
}

/// The convolution, or `None` when it is not one this kernel runs.
pub(crate) fn conv_taps<T: FaerElem>(
    l: &[T],
    r: &[T],
    p: &ConvPlan,
    par: Parallel<'_>,
) -> Option<Vec<T>> {
    let g = line(p)?;
    // Each tap's weights as a row-major `[cin, cout]` matrix.
    let mut ws = Vec::with_capacity(g.taps.len() * g.cin * g.cout);
    for &off in &g.taps {
        for c in 0..g.cin {
            for o in 0..g.cout {
                ws.push(*r.get(off + c * p.rhs_in_stride + o * p.rhs_out_stride)?);
            }
        }
    }
    // Every view below must lie inside the lhs.
    let last_row = (g.batch.checked_sub(1)? * g.lbs) + (g.t_in.checked_sub(1)? * g.pos_stride);
    if last_row + g.cin > l.len() {
        return None;
    }
    let mut out = vec![T::default(); g.batch.checked_mul(g.t_out)?.checked_mul(g.cout)?];
    let blocks = g.t_out.div_ceil(ROWS);
    let stop = Stop::current();
    // `None` when a view would leave the lhs or the chunk (checked above, so never): the
    // caller then falls back to the gathered product.
    let task = |(i, chunk): (usize, &mut [T])| -> Option<()> {
        if stop.stopped() {
            return Some(());
        }
        let (b, t0) = (i / blocks, (i % blocks) * ROWS);
        let t1 = (t0 + ROWS).min(g.t_out);
        for (k, w) in ws.chunks_exact(g.cin * g.cout).enumerate() {
            let (lo, hi) = g.valid(k);
            let (lo, hi) = (lo.max(t0), hi.min(t1));
            if lo >= hi {
                continue;
            }
            let pos = (lo * g.ws + k * g.wd) as i64 - g.pad;
            let start = b * g.lbs + pos as usize * g.pos_stride;
            let step = g.ws * g.pos_stride;
            let len = (hi - lo - 1) * step + g.cin;
            let x = l.get(start..start + len)?;
            let x = MatRef::from_row_major_slice_with_stride(x, hi - lo, g.cin, step);
            let w = MatRef::from_row_major_slice(w, g.cin, g.cout);
            let d = chunk.get_mut((lo - t0) * g.cout..(hi - t0) * g.cout)?;
            let d = MatMut::from_row_major_slice_mut(d, hi - lo, g.cout);
            matmul(d, Accum::Add, x, w, T::ONE, Par::Seq);
        }
        Some(())
    };
    // One chunk per (batch element, block of rows); the last block of a batch element may
    // be short, so chunks are cut per batch element.
    let mut chunks: Vec<(usize, &mut [T])> = Vec::with_capacity(g.batch * blocks);
    for (b, rows) in out.chunks_mut(g.t_out * g.cout).enumerate() {
        for (j, c) in rows.chunks_mut(ROWS * g.cout).enumerate() {
            chunks.push((b * blocks + j, c));
        }
    }
    let flops = g.batch * g.t_out * g.cin * g.cout * g.taps.len();
    if par.threads() > 1 && flops >= MIN_PAR_FLOPS && chunks.len() > 1 {
        par.install(|| chunks.into_par_iter().map(task).collect::<Option<()>>())?;
    } else {
        chunks.into_iter().map(task).collect::<Option<()>>()?;
    }
    if !skipping_ok(p, r) {
        redo_filled(l, r, p, &mut out);
    }
    Some(out)
}
