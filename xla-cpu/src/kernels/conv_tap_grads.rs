//! Kernel gradients of 1-D channels-last convolutions (what `jax.grad` makes of the layers
//! `conv_taps.rs` runs: `f0b_i0o->0bf`, the window covering the whole sequence) as one
//! product per (output tap, input feature) over views in place: for output position `j`
//! and lhs feature `i`, the lhs elements the window reads form a matrix `[batch, window]`
//! (batch innermost, window positions `dilation × position stride` apart) and the rhs
//! rows of feature `i` a matrix `[window, features]`, so `out[j] += L(i, j) · R(i)`, with
//! the contraction over the window as the product's depth (1,024 in WaveNet's layers).
//!
//! The Cols product (`conv_rows.rs`) gathers `Aᵀ` in blocks first; measured on WaveNet's
//! `f32[2,32,64]` kernel gradients: 0.95 ms there.
//!
//! Each task owns a fixed block of [`COLS`] output features of one output position (fixed,
//! so results never depend on the thread count) and sums the input features in order.
//! Taps outside the input are skipped; where XLA multiplies padding by the rhs and an rhs
//! value is not finite, the elements whose windows read padding are redone as the
//! reference does them (`redo_filled`).

use super::contraction::{redo_filled, ConvPlan};
use super::conv::out_roles;
use super::conv_rows::skipping_ok;
use super::conv_taps::inside;
use super::matmul::{FaerElem, MIN_PAR_FLOPS};
use crate::limits::stop::Stop;
use crate::parallel::Parallel;
use faer::linalg::matmul::matmul;
use faer::{Accum, MatMut, MatRef, Par};
use rayon::prelude::*;

/// Output features per task.
const COLS: usize = 32;
/// Only windows at least this long (a kernel gradient's window covers the sequence).
const MIN_WINDOW: usize = 64;
/// At least this many batch elements and output features, so each product has some size.
const MIN_SIDE: usize = 8;

/// The geometry of a kernel gradient this kernel runs.
struct Grad {
    /// Output batch (lhs batch, innermost in the lhs) and features (rhs output features).
    batch: usize,
    cout: usize,
    /// Lhs features (contracted with the rhs input features) and their strides.
    kic: usize,
    lfs: usize,
    ris: usize,
    /// Input positions and the lhs elements between two of them.
    t_in: usize,
    lps: usize,
    /// Window length and the rhs elements between two of its positions.
    wsize: usize,
    rps: usize,
    /// Output positions, and the output elements between two of them and two batch rows.
    j_out: usize,
    ops: usize,
    obs: usize,
    /// Window stride, dilation and low padding.
    ws: usize,
    wd: usize,
    pad: i64,
}

impl Grad {
    /// Window positions `[lo, hi)` that read inside the input for output position `j`.
    fn valid(&self, j: usize) -> (usize, usize) {
        inside(
            self.wd,
            (j * self.ws) as i64 - self.pad,
            self.t_in,
            self.wsize,
        )
    }
}

/// The geometry when `p` is a one-group convolution with one spatial dim, the lhs batch
/// innermost (unit stride), the rhs output features and the output features innermost, a
/// long window without reversal and no lhs dilation.
fn grad(p: &ConvPlan) -> Option<Grad> {
    let (batch, obs, cout, ofs, osizes, ostrides) = out_roles(p);
    let one_group =
        p.oc_per_fgroup == cout && p.oc_per_bgroup == cout && p.batch_per_group == batch;
    let ([(t_in, lps)], [(wsize, rps)], [w], [j_out], [ops]) = (
        p.lhs_spatial.as_slice(),
        p.rhs_spatial.as_slice(),
        p.win.as_slice(),
        osizes.as_slice(),
        ostrides.as_slice(),
    ) else {
        return None;
    };
    let fits = one_group
        && p.lhs_batch_stride == 1
        && p.rhs_out_stride == 1
        && ofs == 1
        && obs >= cout
        && *wsize >= MIN_WINDOW
        && batch >= MIN_SIDE
        && cout >= MIN_SIDE
        && *lps >= batch
        && w.base_dilation == 1
        && w.stride >= 1
        && w.window_dilation >= 1
        && !w.window_reversal;
    fits.then(|| Grad {
        batch,
        cout,
        kic: p.kic,
        lfs: p.lhs_feature_stride,
        ris: p.rhs_in_stride,
        t_in: *t_in,
        lps: *lps,
        wsize: *wsize,
        rps: *rps,
        j_out: *j_out,
        ops: *ops,
        obs,
        ws: w.stride as usize,
        wd: w.window_dilation as usize,
        pad: w.padding_low,
    })
}

/// The convolution, or `None` when it is not one this kernel runs.
pub(crate) fn conv_tap_grads<T: FaerElem>(
    l: &[T],
    r: &[T],
    p: &ConvPlan,
    par: Parallel<'_>,
) -> Option<Vec<T>> {
    let g = grad(p)?;
    let blocks = g.cout.div_ceil(COLS);
    let stop = Stop::current();
    // One task: output position `j`, features `o0..o1`, into a `[batch, o1 - o0]` buffer.
    let task = |t: usize| -> Option<Vec<T>> {
        let (j, o0) = (t / blocks, (t % blocks) * COLS);
        let o1 = (o0 + COLS).min(g.cout);
        let mut acc = vec![T::default(); g.batch * (o1 - o0)];
        let (lo, hi) = g.valid(j);
        if stop.stopped() || lo >= hi {
            return Some(acc);
        }
        let nw = hi - lo;
        let pos = (j * g.ws + lo * g.wd) as i64 - g.pad;
        let lstep = g.wd * g.lps;
        for i in 0..g.kic {
            let ls = i * g.lfs + pos as usize * g.lps;
            let x = l.get(ls..ls + (nw - 1) * lstep + g.batch)?;
            let x = MatRef::from_column_major_slice_with_stride(x, g.batch, nw, lstep);
            let rs = i * g.ris + lo * g.rps + o0;
            let y = r.get(rs..rs + (nw - 1) * g.rps + (o1 - o0))?;
            let y = MatRef::from_row_major_slice_with_stride(y, nw, o1 - o0, g.rps);
            let d = MatMut::from_row_major_slice_mut(&mut acc, g.batch, o1 - o0);
            matmul(d, Accum::Add, x, y, T::ONE, Par::Seq);
        }
        Some(acc)
    };
    let tasks = g.j_out * blocks;
    let flops = g.j_out * g.batch * g.cout * g.kic * g.wsize;
    let parts: Vec<Vec<T>> = if par.threads() > 1 && flops >= MIN_PAR_FLOPS && tasks > 1 {
        par.install(|| (0..tasks).into_par_iter().map(task).collect::<Option<_>>())?
    } else {
        (0..tasks).map(task).collect::<Option<_>>()?
    };
    let mut out = vec![T::default(); p.out_dims.iter().product::<usize>()];
    for (t, part) in parts.iter().enumerate() {
        let (j, o0) = (t / blocks, (t % blocks) * COLS);
        let n = (o0 + COLS).min(g.cout) - o0;
        for (b, row) in part.chunks_exact(n).enumerate() {
            let at = j * g.ops + b * g.obs + o0;
            out.get_mut(at..at + n)?.copy_from_slice(row);
        }
    }
    if !skipping_ok(p, r) {
        redo_filled(l, r, p, &mut out);
    }
    Some(out)
}
