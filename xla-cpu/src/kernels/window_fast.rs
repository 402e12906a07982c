//! Direct single-pass loops for the common windows: f32 `reduce-window` with a recognised
//! combiner and f32 `select-and-scatter` with a `>=`/`>` selector and an add scatter, when
//! the window moves over the last two dimensions only (pooling in NCHW). Each plane (one
//! element of the leading dims) is independent and runs in parallel; inside a plane the
//! elements are visited in the reference order, so the results are bit-identical to the
//! generic kernels in `window.rs` for any thread count.

use crate::kernels::combiner::Combiner;
use crate::math::{flush_all, vmax_raw, vmin_raw};
use crate::parallel::Parallel;
use rayon::prelude::*;
use xla_core::attrs::{BinaryOp, ComparisonDirection, ComparisonType, Window, WindowDim};
use xla_core::literal::ArrayData;

/// One axis of a 2-D window: input length, output length, size, stride, low padding.
#[derive(Clone, Copy, Debug)]
struct Axis {
    n: usize,
    out: usize,
    size: usize,
    stride: usize,
    pad: usize,
}

impl Axis {
    /// The clipped input range of output position `o` (padding is skipped).
    #[inline(always)]
    fn range(&self, o: usize) -> (usize, usize) {
        let lo = (o * self.stride) as i64 - self.pad as i64;
        let hi = (lo + self.size as i64).clamp(0, self.n as i64) as usize;
        (lo.clamp(0, self.n as i64) as usize, hi)
    }
}

fn identity_dim(d: &WindowDim) -> bool {
    d.size == 1 && d.stride == 1 && d.padding_low == 0 && d.padding_high == 0
}

/// The plane count and the two window axes, when the window fits the fast path.
fn plan(w: &Window, dims: &[usize], out_dims: &[usize]) -> Option<(usize, [Axis; 2])> {
    let r = dims.len();
    if r < 2 || w.dims.len() != r || out_dims.len() != r {
        return None;
    }
    let plain = |d: &WindowDim| {
        d.window_dilation == 1
            && d.base_dilation == 1
            && !d.window_reversal
            && d.padding_low >= 0
            && d.padding_high >= 0
            && d.size >= 1
            && d.stride >= 1
    };
    if !w.dims.iter().all(plain) || !w.dims[..r - 2].iter().all(identity_dim) {
        return None;
    }
    if dims[..r - 2] != out_dims[..r - 2] {
        return None;
    }
    let axis = |k: usize| {
        let d = &w.dims[k];
        let padded = dims[k] as i64 + d.padding_low + d.padding_high;
        let expect = if padded < d.size {
            0
        } else {
            (padded - d.size) / d.stride + 1
        };
        (expect == out_dims[k] as i64).then_some(Axis {
            n: dims[k],
            out: out_dims[k],
            size: d.size as usize,
            stride: d.stride as usize,
            pad: d.padding_low as usize,
        })
    };
    let planes = dims[..r - 2].iter().product();
    Some((planes, [axis(r - 2)?, axis(r - 1)?]))
}

/// The 2x2 stride-2 unpadded window (the common max-pool), as straight-line code. For an
/// order-free combiner (`order_free`) the two rows are
/// combined elementwise first (a vector loop), then neighbouring pairs; otherwise each
/// window folds in row-major order.
fn pool_plane_2x2<F: Fn(f32, f32) -> f32 + Copy>(
    x: &[f32],
    out: &mut [f32],
    a: &[Axis; 2],
    init: f32,
    f: F,
    order_free: bool,
) {
    let [ah, aw] = a;
    let mut m = vec![0.0f32; if order_free { 2 * aw.out } else { 0 }];
    for (oh, orow) in out.chunks_exact_mut(aw.out).enumerate().take(ah.out) {
        let r0 = &x[2 * oh * aw.n..][..2 * aw.out];
        let r1 = &x[(2 * oh + 1) * aw.n..][..2 * aw.out];
        if order_free {
            for ((d, &p), &q) in m.iter_mut().zip(r0).zip(r1) {
                *d = f(p, q);
            }
            for (o, pair) in orow.iter_mut().zip(m.chunks_exact(2)) {
                *o = f(init, f(pair[0], pair[1]));
            }
            continue;
        }
        for ((o, p), q) in orow
            .iter_mut()
            .zip(r0.chunks_exact(2))
            .zip(r1.chunks_exact(2))
        {
            *o = f(f(f(f(init, p[0]), p[1]), q[0]), q[1]);
        }
    }
}

fn pool_plane<F: Fn(f32, f32) -> f32 + Copy>(
    x: &[f32],
    out: &mut [f32],
    a: &[Axis; 2],
    init: f32,
    f: F,
    order_free: bool,
) {
    let [ah, aw] = a;
    let is_2x2 = |x: &Axis| x.size == 2 && x.stride == 2 && x.pad == 0 && 2 * x.out <= x.n;
    if is_2x2(ah) && is_2x2(aw) {
        return pool_plane_2x2(x, out, a, init, f, order_free);
    }
    for oh in 0..ah.out {
        let (h0, h1) = ah.range(oh);
        for ow in 0..aw.out {
            let (w0, w1) = aw.range(ow);
            let mut acc = init;
            for h in h0..h1 {
                for &v in &x[h * aw.n + w0..h * aw.n + w1] {
                    acc = f(acc, v);
                }
            }
            out[oh * aw.out + ow] = acc;
        }
    }
}

/// `reduce-window` on the fast path, or `None` when it does not apply.
pub(crate) fn reduce_window(
    x: &ArrayData,
    init: &ArrayData,
    dims: &[usize],
    out_dims: &[usize],
    w: &Window,
    comb: Option<Combiner>,
    par: Parallel,
) -> Option<ArrayData> {
    par.run_sized(x.len(), |min| {
        let min = if min == usize::MAX { min } else { min_len(par) };
        reduce_window_in(x, init, dims, out_dims, w, comb, min)
    })
}

/// 8 planes per task, or everything on one thread.
fn min_len(par: Parallel) -> usize {
    if par.threads() <= 1 {
        usize::MAX
    } else {
        8
    }
}

fn reduce_window_in(
    x: &ArrayData,
    init: &ArrayData,
    dims: &[usize],
    out_dims: &[usize],
    w: &Window,
    comb: Option<Combiner>,
    min: usize,
) -> Option<ArrayData> {
    let (ArrayData::F32(x), ArrayData::F32(init)) = (x, init) else {
        return None;
    };
    let init = *init.first()?;
    let Some(Combiner::Binary(op)) = comb else {
        return None;
    };
    let (planes, axes) = plan(w, dims, out_dims)?;
    let (ip, op_len) = (axes[0].n * axes[1].n, axes[0].out * axes[1].out);
    if x.len() != planes * ip {
        return None;
    }
    if op_len == 0 || ip == 0 {
        return Some(ArrayData::F32(vec![init; planes * op_len]));
    }
    let p = Pool {
        x,
        axes: &axes,
        init,
        planes,
        ip,
        op_len,
        min,
    };
    // Max and min give the same result in any order (NaN wins, +0 beats -0), so their 2x2
    // windows may be folded in the order that vectorises; their subnormal results are
    // flushed once per plane (`vmax_raw`).
    let out = match op {
        BinaryOp::Max => p.run((vmax_raw, flush_all), true),
        BinaryOp::Min => p.run((vmin_raw, flush_all), true),
        BinaryOp::Add => p.run((|a, b| a + b, |_| {}), false),
        BinaryOp::Mul => p.run((|a, b| a * b, |_| {}), false),
        _ => return None,
    };
    Some(ArrayData::F32(out))
}

/// A pooling job: planes of `ip` input and `op_len` output elements.
struct Pool<'a> {
    x: &'a [f32],
    axes: &'a [Axis; 2],
    init: f32,
    planes: usize,
    ip: usize,
    op_len: usize,
    min: usize,
}

impl Pool<'_> {
    /// Pools every plane with `f` (generic, so the combiner is inlined into the loops).
    /// `fin` runs once on each finished plane.
    fn run<F: Fn(f32, f32) -> f32 + Copy + Send + Sync>(
        &self,
        (f, fin): (F, fn(&mut [f32])),
        order_free: bool,
    ) -> Vec<f32> {
        let plane = |_: &mut (), p: usize, o: &mut [f32]| {
            if let Some(xp) = self.x.get(p * self.ip..(p + 1) * self.ip) {
                pool_plane(xp, o, self.axes, self.init, f, order_free);
                fin(o);
            }
        };
        let n = self.planes * self.op_len;
        crate::buffer::filled_in_chunks(n, self.op_len, self.min, || (), plane)
    }
}

fn scatter_plane(x: &[f32], src: &[f32], out: &mut [f32], a: &[Axis; 2], gt: bool) {
    let [ah, aw] = a;
    for oh in 0..ah.out {
        let (h0, h1) = ah.range(oh);
        for ow in 0..aw.out {
            let (w0, w1) = aw.range(ow);
            let mut cur: Option<(usize, f32)> = None;
            for h in h0..h1 {
                for wi in w0..w1 {
                    let i = h * aw.n + wi;
                    let e = x[i];
                    cur = match cur {
                        None => Some((i, e)),
                        // Keep the current element when `select(cur, e)` holds.
                        Some((ci, c)) if (gt && c > e) || (!gt && c >= e) => Some((ci, c)),
                        Some(_) => Some((i, e)),
                    };
                }
            }
            if let Some((i, _)) = cur {
                out[i] += src[oh * aw.out + ow];
            }
        }
    }
}

/// `select-and-scatter` on the fast path, or `None` when it does not apply.
pub(crate) fn select_and_scatter(
    [x, src, init]: [&ArrayData; 3],
    dims: &[usize],
    sdims: &[usize],
    w: &Window,
    combs: [Option<Combiner>; 2],
    par: Parallel,
) -> Option<ArrayData> {
    par.run_sized(x.len(), |min| {
        let min = if min == usize::MAX { min } else { min_len(par) };
        select_and_scatter_in([x, src, init], dims, sdims, w, combs, min)
    })
}

fn select_and_scatter_in(
    [x, src, init]: [&ArrayData; 3],
    dims: &[usize],
    sdims: &[usize],
    w: &Window,
    [sel, scat]: [Option<Combiner>; 2],
    min: usize,
) -> Option<ArrayData> {
    let (ArrayData::F32(x), ArrayData::F32(src), ArrayData::F32(init)) = (x, src, init) else {
        return None;
    };
    let init = *init.first()?;
    let gt = match sel {
        Some(Combiner::Compare(ComparisonDirection::Ge, None | Some(ComparisonType::Float))) => {
            false
        }
        Some(Combiner::Compare(ComparisonDirection::Gt, None | Some(ComparisonType::Float))) => {
            true
        }
        _ => return None,
    };
    if scat != Some(Combiner::Binary(BinaryOp::Add)) {
        return None;
    }
    let (planes, axes) = plan(w, dims, sdims)?;
    let (ip, sp) = (axes[0].n * axes[1].n, axes[0].out * axes[1].out);
    if x.len() != planes * ip || src.len() != planes * sp {
        return None;
    }
    let mut out = vec![init; planes * ip];
    if ip == 0 || sp == 0 {
        return Some(ArrayData::F32(out));
    }
    out.par_chunks_mut(ip)
        .zip(x.par_chunks(ip))
        .zip(src.par_chunks(sp))
        .with_min_len(min)
        .for_each(|((o, xp), sp)| scatter_plane(xp, sp, o, &axes, gt));
    Some(ArrayData::F32(out))
}
