//! Depthwise convolutions in the channels-last layouts (TensorFlow's and Flax's NHWC with a
//! `[.., 1, C]` kernel and `feature_group_count = C`): every output channel reads only its
//! own input channel, so the products and column gathers of `conv.rs` degenerate into
//! one-column matrices. Here each output pixel sums its window's taps over a contiguous
//! run of channels, `acc[c] += x[tap + c] * w[tap + c]`, which vectorises over the channels.
//!
//! Each output element sums its taps in window order from zero, skipping taps outside the
//! input, exactly as the reference loop does, so the results are the reference's bits. XLA
//! multiplies the padding by the weights for these convolutions (see
//! [`ConvPlan::zeros_multiplied`]); with a NaN or infinite weight, the elements whose
//! windows read padding are redone as the reference does them.
//!
//! Measured on a bf16 MobileNet's `[1,150,150,32]` 3×3 depthwise layer: 16-19 ms in the
//! generic small-feature kernel, against about 1 ms here.

use super::contraction::{redo_filled, ConvPlan};
use super::conv::{out_roles, tap};
use super::conv_rows::skipping_ok;
use super::matmul::FaerElem;
use crate::index::for_each_index;
use crate::limits::stop::Stop;
use crate::parallel::Parallel;
use rayon::prelude::*;

/// At least this many channels, so the channel loop is worth vectorising.
const MIN_CHANNELS: usize = 8;

/// The geometry of a depthwise convolution this kernel runs.
struct Depthwise {
    batch: usize,
    channels: usize,
    /// Output spatial sizes, in the output's (row-major) order.
    osizes: Vec<usize>,
    /// Per spatial dim and output coordinate, per window position: the lhs offset of the
    /// tap (without batch), or -1 outside the input.
    taps: Vec<Vec<Vec<isize>>>,
    /// Per spatial dim, per window position: the kernel offset (reversal applied).
    wtaps: Vec<Vec<usize>>,
}

/// The geometry when `p` is a depthwise convolution with channels innermost in the lhs, the
/// kernel (output features) and the output, the output laid out batch, spatial dims in
/// order, channels (`b01f`), multiplier 1, no batch groups and no lhs dilation.
fn geometry(p: &ConvPlan) -> Option<Depthwise> {
    let (batch, obs, channels, ofs, osizes, ostrides) = out_roles(p);
    let ns = osizes.len();
    let row_major = {
        let mut want = channels;
        let mut ok = ofs == 1;
        for s in (0..ns).rev() {
            ok &= ostrides.get(s) == Some(&want);
            want *= osizes.get(s).copied().unwrap_or(0);
        }
        ok && (obs == want || batch <= 1)
    };
    let depthwise = p.kic == 1
        && p.oc_per_fgroup == 1
        && p.oc_per_bgroup == channels
        && p.lhs_feature_stride == 1
        && p.rhs_out_stride == 1
        && p.win.iter().all(|w| w.base_dilation == 1);
    if !row_major || !depthwise || ns == 0 || channels < MIN_CHANNELS {
        return None;
    }
    let taps = (0..ns)
        .map(|s| {
            let ksize = p.rhs_spatial.get(s).map_or(0, |r| r.0);
            (0..osizes[s])
                .map(|o| (0..ksize).map(|k| tap(p, s, o, k)).collect())
                .collect()
        })
        .collect();
    let wtaps = p
        .rhs_spatial
        .iter()
        .zip(&p.win)
        .map(|(&(size, stride), w)| {
            (0..size)
                .map(|k| stride * if w.window_reversal { size - 1 - k } else { k })
                .collect()
        })
        .collect();
    Some(Depthwise {
        batch,
        channels,
        osizes,
        taps,
        wtaps,
    })
}

/// The convolution, or `None` when it is not a depthwise one this kernel runs.
pub(crate) fn conv_depthwise<T: FaerElem>(
    l: &[T],
    r: &[T],
    p: &ConvPlan,
    par: Parallel<'_>,
) -> Option<Vec<T>> {
    let g = geometry(p)?;
    let c = g.channels;
    let inner: usize = g.osizes.iter().skip(1).product::<usize>() * c;
    let rows = g.batch * g.osizes.first().copied().unwrap_or(0);
    let mut out = vec![T::default(); rows * inner];
    if out.is_empty() {
        return Some(out);
    }
    let ksizes: Vec<usize> = g.wtaps.iter().map(Vec::len).collect();
    let stop = Stop::current();
    let row = |(i, dst): (usize, &mut [T])| {
        if stop.stopped() {
            return;
        }
        let (b, o0) = (i / g.osizes[0], i % g.osizes[0]);
        let mut acc = vec![T::default(); c];
        let rest: Vec<usize> = g.osizes.iter().skip(1).copied().collect();
        let mut pix = 0;
        for_each_index(&rest, |o| {
            acc.iter_mut().for_each(|a| *a = T::default());
            for_each_index(&ksizes, |k| {
                let mut lo = (b * p.lhs_batch_stride) as isize;
                let mut wo = 0;
                for (s, &ks) in k.iter().enumerate() {
                    let os = if s == 0 { o0 } else { o[s - 1] };
                    let t = g.taps[s][os][ks];
                    if t < 0 {
                        return;
                    }
                    lo += t;
                    wo += g.wtaps[s][ks];
                }
                let lo = lo as usize;
                let (Some(x), Some(w)) = (l.get(lo..lo + c), r.get(wo..wo + c)) else {
                    return;
                };
                for ((a, &x), &w) in acc.iter_mut().zip(x).zip(w) {
                    *a = *a + x * w;
                }
            });
            if let Some(d) = dst.get_mut(pix..pix + c) {
                d.copy_from_slice(&acc);
            }
            pix += c;
        });
    };
    let work = out.len() * ksizes.iter().product::<usize>();
    par.run_when(work >= 1 << 18, |min| {
        if min == usize::MAX {
            out.chunks_mut(inner).enumerate().for_each(row);
        } else {
            out.par_chunks_mut(inner).enumerate().for_each(row);
        }
    });
    if !skipping_ok(p, r) {
        redo_filled(l, r, p, &mut out);
    }
    Some(out)
}
