//! `reduce-window` with a recognised combiner and `select-and-scatter` with a plain
//! compare selector, for any rank, layout, stride, padding and dilation (see
//! [`WindowPlan`]). The dims the window leaves alone at the inner end (the channels of
//! NHWC) form contiguous rows, and each loop combines whole rows, so the innermost loop
//! runs over contiguous memory and vectorises.
//!
//! Every output element folds the same elements in the same order as the reference in
//! `window.rs`: the init value, then the window elements in row-major window order,
//! padding and base-dilation holes skipped. Work is split only over independent outputs
//! (rows of `reduce-window`, planes of the leading untouched dims for
//! `select-and-scatter`), so results do not depend on the thread count.

use super::window_plan::WindowPlan;
use super::window_scan::Scan;
use crate::kernels::combiner::Combiner;
use crate::parallel::Parallel;
use crate::scalar::Combine;
use rayon::prelude::*;
use xla_core::attrs::{BinaryOp, ComparisonDirection, ComparisonType, Window};
use xla_core::literal::{ArrayData, NativeData};
use xla_core::with_array_data;

/// Output elements per parallel task of `reduce-window`.
const CHUNK: usize = 1 << 14;

/// Reusable per-task index buffers.
#[derive(Default)]
struct Scratch {
    idx: Vec<usize>,
    offs: Vec<usize>,
    tmp: Vec<usize>,
    pick: Vec<u32>,
}

/// `reduce-window` of one operand with the native combiner of `op`, or `None` when the
/// window or the types do not fit (the caller then runs the reference).
pub(crate) fn reduce_window(
    x: &ArrayData,
    init: &ArrayData,
    dims: &[usize],
    out_dims: &[usize],
    w: &Window,
    op: BinaryOp,
    par: Parallel<'_>,
) -> Option<ArrayData> {
    // A scan needs no plan (whose tables grow with outputs x window: a cumulative sum's
    // would cost more than the scan itself).
    let scan = Scan::new(w, dims, out_dims);
    let plan = match scan {
        Some(_) => None,
        None => Some(WindowPlan::new(w, dims, out_dims)?).filter(|p| p.in_len == x.len()),
    };
    if plan.is_none() && scan.is_none() {
        return None;
    }
    let p = (plan.as_ref(), scan);
    // Closures the compiler inlines (and vectorises) for the float cases; the reference's
    // own function pointer otherwise. `smax`/`smin` are `fmax`/`fmin` (what
    // `Combine::native` calls) written with selects, bit for bit.
    match (x, op) {
        (ArrayData::F32(v), BinaryOp::Add) => typed(v, init, p, (|a: f32, b| a + b, keep), par),
        (ArrayData::F32(v), BinaryOp::Mul) => typed(v, init, p, (|a: f32, b| a * b, keep), par),
        (ArrayData::F32(v), BinaryOp::Max) => {
            typed(v, init, p, (fmax_raw::<f32>, crate::math::flush_all), par)
        }
        (ArrayData::F32(v), BinaryOp::Min) => {
            typed(v, init, p, (fmin_raw::<f32>, crate::math::flush_all), par)
        }
        (ArrayData::F64(v), BinaryOp::Add) => typed(v, init, p, (|a: f64, b| a + b, keep), par),
        (ArrayData::F64(v), BinaryOp::Mul) => typed(v, init, p, (|a: f64, b| a * b, keep), par),
        (ArrayData::F64(v), BinaryOp::Max) => {
            typed(v, init, p, (fmax_raw::<f64>, crate::math::flush_all), par)
        }
        (ArrayData::F64(v), BinaryOp::Min) => {
            typed(v, init, p, (fmin_raw::<f64>, crate::math::flush_all), par)
        }
        _ => with_array_data!(x, v => {
            let f = Combine::native(op)?;
            typed(v, init, p, (f, keep), par)
        }),
    }
}

/// A float whose bits can be and-ed and or-ed (to merge equal values' signs).
pub(crate) trait SignBits: Copy + PartialOrd {
    fn and_bits(self, o: Self) -> Self;
    fn or_bits(self, o: Self) -> Self;
}

impl SignBits for f32 {
    #[inline(always)]
    fn and_bits(self, o: Self) -> Self {
        f32::from_bits(self.to_bits() & o.to_bits())
    }
    #[inline(always)]
    fn or_bits(self, o: Self) -> Self {
        f32::from_bits(self.to_bits() | o.to_bits())
    }
}

impl SignBits for f64 {
    #[inline(always)]
    fn and_bits(self, o: Self) -> Self {
        f64::from_bits(self.to_bits() & o.to_bits())
    }
    #[inline(always)]
    fn or_bits(self, o: Self) -> Self {
        f64::from_bits(self.to_bits() | o.to_bits())
    }
}

/// `fmax` with selects only (so it vectorises): `a` if it is NaN or larger, else `b` if it
/// is NaN or larger, else (equal) the and of their bits, which is `+0` for `max(-0, +0)`
/// either way round and the value itself otherwise; NaN payloads pass through unchanged.
/// Subnormal results flushed, as `fmax` flushes them (`math::flushed`).
#[cfg(test)]
#[inline(always)]
pub(crate) fn smax<F: SignBits + crate::scalar::Real>(a: F, b: F) -> F {
    crate::math::flushed(fmax_raw(a, b))
}

/// `fmin` likewise; equal values give the or of their bits (`-0` for `min(-0, +0)`).
#[cfg(test)]
#[inline(always)]
pub(crate) fn smin<F: SignBits + crate::scalar::Real>(a: F, b: F) -> F {
    crate::math::flushed(fmin_raw(a, b))
}

/// [`smax`] before the flush. A window folds with it and flushes once per output: the
/// flush is monotone and keeps signs, so `flush(max(a, b)) = max(flush(a), flush(b))`
/// (also for ±0 and for subnormals a denormals-are-zero compare calls equal, whose
/// and-ed bits flush to the right zero); per tap it cost the max-pool 1.5 -> 2.35 ms.
#[inline(always)]
#[allow(clippy::eq_op)]
fn fmax_raw<F: SignBits + crate::scalar::Real>(a: F, b: F) -> F {
    let eq = a.and_bits(b);
    let r = if b > a || b != b { b } else { eq };
    if a > b || a != a {
        a
    } else {
        r
    }
}

/// [`smin`] before the flush (see [`fmax_raw`]; or-ed bits of equal subnormals keep the
/// sign of the negative one, as the minimum does).
#[inline(always)]
#[allow(clippy::eq_op)]
fn fmin_raw<F: SignBits + crate::scalar::Real>(a: F, b: F) -> F {
    let eq = a.or_bits(b);
    let r = if b < a || b != b { b } else { eq };
    if a < b || a != a {
        a
    } else {
        r
    }
}

/// Leaves a finished window output as it is.
fn keep<T>(_: &mut [T]) {}

/// The window's fold of a native type: `f` per tap, `fin` once on each finished segment.
fn typed<T, F>(
    x: &[T],
    init: &ArrayData,
    (plan, scan): (Option<&WindowPlan>, Option<Scan>),
    f: (F, fn(&mut [T])),
    par: Parallel<'_>,
) -> Option<ArrayData>
where
    T: NativeData,
    F: Fn(T, T) -> T + Copy + Send + Sync,
{
    let init = *T::slice(init)?.first()?;
    if let Some(s) = scan {
        return s.run(x, init, f, par).map(T::wrap);
    }
    let p = plan?;
    let n = p.out_len();
    if n == 0 {
        return Some(T::wrap(Vec::new()));
    }
    let rows_per = (CHUNK / p.inner.max(1)).max(1);
    let out = par.run_sized(n.max(x.len()), |min| {
        crate::buffer::written_in_chunks(
            n,
            rows_per * p.inner,
            min,
            Scratch::default,
            |s, c, sink| {
                pool_rows(x, init, p, f, c * rows_per, sink.into_zeroed(), s);
            },
        )
    });
    Some(T::wrap(out))
}

/// Output rows from `first` on, into `out` (whole rows of `p.inner` elements).
fn pool_rows<T: Copy, F: Fn(T, T) -> T + Copy>(
    x: &[T],
    init: T,
    p: &WindowPlan,
    (f, fin): (F, fn(&mut [T])),
    first: usize,
    out: &mut [T],
    s: &mut Scratch,
) {
    p.index_of(first, &mut s.idx);
    let rows = out.len() / p.inner.max(1);
    let mut r = 0;
    while r < rows {
        // A segment of `m` rows whose taps are contiguous runs of the input.
        let m = p.run_at(&s.idx, rows - r);
        p.rows_of(&s.idx, &mut s.offs, &mut s.tmp);
        let len = m * p.inner;
        if let Some(seg) = out.get_mut(r * p.inner..r * p.inner + len) {
            seg.fill(init);
            for &off in &s.offs {
                if let Some(src) = x.get(off..off + len) {
                    for (a, &v) in seg.iter_mut().zip(src) {
                        *a = f(*a, v);
                    }
                }
            }
            fin(seg);
        }
        p.advance_by(&mut s.idx, m);
        r += m;
    }
}

/// `select-and-scatter` with a `compare` selector (IEEE order) and a native scatter
/// combiner (or "set"), or `None` when it does not apply.
pub(crate) fn select_and_scatter(
    [x, src, init]: [&ArrayData; 3],
    dims: &[usize],
    sdims: &[usize],
    w: &Window,
    [sel, scat]: [Option<Combiner>; 2],
    par: Parallel<'_>,
) -> Option<ArrayData> {
    let Some(Combiner::Compare(dir, None | Some(ComparisonType::Float))) = sel else {
        return None;
    };
    let op = match scat {
        Some(Combiner::Binary(op)) => Some(op),
        Some(Combiner::Second) => None,
        Some(Combiner::Compare(..) | Combiner::KeyCompare(..)) | None => return None,
    };
    let p = WindowPlan::new(w, dims, sdims)?;
    if p.in_len != x.len() || p.out_len() != src.len() {
        return None;
    }
    // f32 and f64 only: other types keep the reference.
    if let (ArrayData::F32(x), ArrayData::F32(s), ArrayData::F32(i)) = (x, src, init) {
        return Some(ArrayData::F32(by_dir(x, s, *i.first()?, &p, dir, op, par)?));
    }
    if let (ArrayData::F64(x), ArrayData::F64(s), ArrayData::F64(i)) = (x, src, init) {
        return Some(ArrayData::F64(by_dir(x, s, *i.first()?, &p, dir, op, par)?));
    }
    None
}

/// Picks the selector closure once (so it is inlined into the row loop).
fn by_dir<T: NativeData + PartialOrd + Combine>(
    x: &[T],
    src: &[T],
    init: T,
    p: &WindowPlan,
    dir: ComparisonDirection,
    op: Option<BinaryOp>,
    par: Parallel<'_>,
) -> Option<Vec<T>> {
    let f: fn(T, T) -> T = match op {
        None => |_, b| b,
        Some(op) => T::native(op)?,
    };
    let job = Scatter { x, src, init, p, f };
    Some(match dir {
        ComparisonDirection::Ge => job.run(|a, b| a >= b, par),
        ComparisonDirection::Gt => job.run(|a, b| a > b, par),
        ComparisonDirection::Le => job.run(|a, b| a <= b, par),
        ComparisonDirection::Lt => job.run(|a, b| a < b, par),
        ComparisonDirection::Eq => job.run(|a, b| a == b, par),
        ComparisonDirection::Ne => job.run(|a, b| a != b, par),
    })
}

/// One `select-and-scatter`: operand, source, init, plan and scatter combiner.
struct Scatter<'a, T> {
    x: &'a [T],
    src: &'a [T],
    init: T,
    p: &'a WindowPlan,
    f: fn(T, T) -> T,
}

impl<T: NativeData> Scatter<'_, T> {
    /// Runs every plane (in parallel when big enough); `keep(cur, e)` is the selector.
    fn run<K: Fn(T, T) -> bool + Copy + Send + Sync>(&self, keep: K, par: Parallel<'_>) -> Vec<T> {
        let mut out = vec![self.init; self.x.len()];
        let (planes, slab) = self.p.planes();
        if out.is_empty() || self.src.is_empty() || planes == 0 || slab == 0 {
            return out;
        }
        let rows = self.p.rows / planes;
        let plane = |s: &mut Scratch, (k, o): (usize, &mut [T])| {
            self.plane(keep, k * slab, k * rows..(k + 1) * rows, o, s);
        };
        par.run_sized(self.x.len(), |min| {
            if min == usize::MAX || planes == 1 {
                let mut s = Scratch::default();
                out.chunks_mut(slab)
                    .enumerate()
                    .for_each(|c| plane(&mut s, c));
            } else {
                out.par_chunks_mut(slab)
                    .enumerate()
                    .with_min_len(min)
                    .for_each_init(Scratch::default, plane);
            }
        });
        out
    }

    /// The windows of source rows `rows`, whose selected elements all lie in the input
    /// slab starting at `base`, scattered into `out` (that slab of the result).
    fn plane<K: Fn(T, T) -> bool + Copy>(
        &self,
        keep: K,
        base: usize,
        rows: std::ops::Range<usize>,
        out: &mut [T],
        s: &mut Scratch,
    ) {
        let inner = self.p.inner;
        self.p.index_of(rows.start, &mut s.idx);
        let mut best: Vec<T> = Vec::new();
        let mut r = rows.start;
        while r < rows.end {
            // A segment of `m` rows whose taps are contiguous runs of the input; selection
            // reads only the input, and the scatter below runs in row-major source order.
            let m = self.p.run_at(&s.idx, rows.end - r);
            self.p.rows_of(&s.idx, &mut s.offs, &mut s.tmp);
            self.p.advance_by(&mut s.idx, m);
            let len = m * inner;
            let seg0 = r * inner;
            r += m;
            let Some((&first, rest)) = s.offs.split_first() else {
                continue;
            };
            let (Some(b0), Some(srow)) = (
                self.x.get(first..first + len),
                self.src.get(seg0..seg0 + len),
            ) else {
                continue;
            };
            best.clear();
            best.extend_from_slice(b0);
            s.pick.clear();
            s.pick.resize(len, 0);
            for (k, &off) in (1u32..).zip(rest) {
                let Some(row) = self.x.get(off..off + len) else {
                    continue;
                };
                for ((b, p), &e) in best.iter_mut().zip(s.pick.iter_mut()).zip(row) {
                    // Keep the current element when `select(cur, e)` holds (selects, not
                    // branches, and a 32-bit tap number: the loop vectorises).
                    let stay = keep(*b, e);
                    *b = if stay { *b } else { e };
                    *p = if stay { *p } else { k };
                }
            }
            for (c, (&pk, &v)) in s.pick.iter().zip(srow).enumerate() {
                let Some(&off) = s.offs.get(pk as usize) else {
                    continue;
                };
                if let Some(o) = (off + c).checked_sub(base).and_then(|t| out.get_mut(t)) {
                    *o = (self.f)(*o, v);
                }
            }
        }
    }
}
