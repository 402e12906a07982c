//! A window laid out for direct loops, any rank and layout: for every window dimension and
//! output position, the input positions the window reads, in window order, with padding
//! and base-dilation holes left out exactly as the reference (`window.rs`) skips them.
//!
//! The reference visits, for each output element, the window elements in row-major window
//! order and drops any element that falls in padding or a hole of any dimension. That set
//! is the cartesian product of the per-dimension valid positions, and row-major order over
//! the window is the nested loop over those lists, outermost dimension first, so
//! [`WindowPlan::rows`] reproduces the reference order element for element.
//!
//! The innermost dimensions the window leaves alone (size 1, stride 1, no padding or
//! dilation: the channels of NHWC) are merged into one contiguous run of `inner` elements
//! that every loop handles as a vector row.

use crate::invariant;
use xla_core::attrs::Window;

/// Largest per-dimension position table built (out positions x window size).
const MAX_TAPS: usize = 1 << 24;

/// One dimension outside the inner run.
#[derive(Debug)]
struct Outer {
    /// Input positions.
    n: usize,
    /// Output positions.
    out: usize,
    /// Input element stride.
    stride: usize,
    /// Valid input positions of output position `o`: `idx[starts[o]..starts[o + 1]]`.
    starts: Vec<usize>,
    idx: Vec<usize>,
}

impl Outer {
    /// The input positions the window at output position `o` reads, in window order.
    fn taps(&self, o: usize) -> &[usize] {
        let what = "reduce-window taps";
        let (a, b) = (
            invariant::at(&self.starts, o, what),
            invariant::at(&self.starts, o + 1, what),
        );
        invariant::span(&self.idx, a..b, what)
    }

    /// True when output position `o` reads input position `o` alone, for every `o`.
    fn is_identity(&self) -> bool {
        self.out == self.n && (0..self.out).all(|o| self.taps(o) == [o])
    }
}

/// A window over `dims` with output `out_dims`, split into outer dimensions and an inner
/// contiguous run.
#[derive(Debug)]
pub(crate) struct WindowPlan {
    outer: Vec<Outer>,
    /// Elements in the inner run (contiguous in both input and output).
    pub inner: usize,
    /// Output rows: the product of the outer output dims.
    pub rows: usize,
    /// Input elements.
    pub in_len: usize,
    /// For each position of the last outer dim, how many consecutive output rows from it
    /// read input rows shifted by one position each (a stride-1 stretch away from the
    /// padding): their rows form one contiguous segment in the output and, for every tap,
    /// in the input.
    runs: Vec<usize>,
}

/// The valid input positions of every output position along one dimension, as the
/// reference's `window_source` decides them. `None` for a window it would reject.
fn dim_taps(
    d: &xla_core::attrs::WindowDim,
    n: usize,
    out: usize,
) -> Option<(Vec<usize>, Vec<usize>)> {
    if d.stride < 1 || d.window_dilation < 1 || d.base_dilation < 1 || d.size < 0 {
        return None;
    }
    if d.window_reversal || out.checked_mul(d.size as usize)? > MAX_TAPS {
        return None;
    }
    let dilated = if n == 0 {
        0
    } else {
        (n as i64 - 1).checked_mul(d.base_dilation)? + 1
    };
    let mut starts = Vec::with_capacity(out + 1);
    let mut idx = Vec::new();
    starts.push(0);
    for o in 0..out as i64 {
        for k in 0..d.size {
            let p = o
                .checked_mul(d.stride)?
                .checked_add(k.checked_mul(d.window_dilation)?)?
                .checked_sub(d.padding_low)?;
            if p >= 0 && p < dilated && p % d.base_dilation == 0 {
                idx.push((p / d.base_dilation) as usize);
            }
        }
        starts.push(idx.len());
    }
    Some((starts, idx))
}

/// [`WindowPlan::runs`] of one dimension.
fn shifted_runs(o: &Outer) -> Vec<usize> {
    let mut runs = vec![1usize; o.out];
    for i in (0..o.out.saturating_sub(1)).rev() {
        let (a, b) = (o.taps(i), o.taps(i + 1));
        if a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x + 1 == *y) {
            runs[i] = runs[i + 1] + 1;
        }
    }
    runs
}

impl WindowPlan {
    /// The plan, or `None` when the window does not fit the dims (the reference reports
    /// that), is reversed, or is too large to tabulate.
    pub(crate) fn new(w: &Window, dims: &[usize], out_dims: &[usize]) -> Option<WindowPlan> {
        let r = dims.len();
        if w.dims.len() != r || out_dims.len() != r {
            return None;
        }
        // Taps of one window are numbered in 32 bits (`select-and-scatter`'s picks).
        let taps = w
            .dims
            .iter()
            .try_fold(1u64, |a, d| a.checked_mul(u64::try_from(d.size).ok()?));
        if taps.is_none_or(|t| t > u64::from(u32::MAX)) {
            return None;
        }
        let mut stride = 1usize;
        let mut all = Vec::with_capacity(r);
        for d in (0..r).rev() {
            let (starts, idx) = dim_taps(w.dims.get(d)?, *dims.get(d)?, *out_dims.get(d)?)?;
            all.push(Outer {
                n: *dims.get(d)?,
                out: *out_dims.get(d)?,
                stride,
                starts,
                idx,
            });
            stride = stride.checked_mul(*dims.get(d)?)?;
        }
        // `all` is innermost first: peel the identity dims off the inner end.
        let mut inner = 1usize;
        let mut peeled = 0;
        for o in &all {
            if !o.is_identity() {
                break;
            }
            inner *= o.out;
            peeled += 1;
        }
        let mut outer: Vec<Outer> = all.into_iter().skip(peeled).collect();
        outer.reverse();
        let rows = outer.iter().try_fold(1usize, |a, o| a.checked_mul(o.out))?;
        let runs = outer.last().map(shifted_runs).unwrap_or_default();
        Some(WindowPlan {
            outer,
            inner,
            rows,
            in_len: stride,
            runs,
        })
    }

    /// Output elements.
    pub(crate) fn out_len(&self) -> usize {
        self.rows * self.inner
    }

    /// The outer output index of output row `row`.
    pub(crate) fn index_of(&self, mut row: usize, idx: &mut Vec<usize>) {
        idx.clear();
        idx.resize(self.outer.len(), 0);
        for (i, o) in idx.iter_mut().zip(&self.outer).rev() {
            if o.out > 0 {
                *i = row % o.out;
                row /= o.out;
            }
        }
    }

    /// Steps the outer index `idx` to the next output row (row-major).
    pub(crate) fn advance(&self, idx: &mut [usize]) {
        for (i, o) in idx.iter_mut().zip(&self.outer).rev() {
            *i += 1;
            if *i < o.out {
                return;
            }
            *i = 0;
        }
    }

    /// How many output rows from outer index `idx` on (at most `max`, at least 1) form one
    /// segment: same taps, each shifted by one position of the last outer dim.
    pub(crate) fn run_at(&self, idx: &[usize], max: usize) -> usize {
        let r = idx.last().and_then(|&o| self.runs.get(o)).copied();
        r.unwrap_or(1).clamp(1, max.max(1))
    }

    /// Steps `idx` forward by `m` rows (`m` from [`WindowPlan::run_at`], so only the last
    /// dim moves before the final carry).
    pub(crate) fn advance_by(&self, idx: &mut [usize], m: usize) {
        if let Some(last) = idx.last_mut() {
            *last += m.saturating_sub(1);
        }
        self.advance(idx);
    }

    /// The input offsets of the rows the window of outer index `idx` reads, in window
    /// order, into `offs` (`tmp` is scratch).
    pub(crate) fn rows_of(&self, idx: &[usize], offs: &mut Vec<usize>, tmp: &mut Vec<usize>) {
        offs.clear();
        offs.push(0);
        for (&i, o) in idx.iter().zip(&self.outer) {
            match o.taps(i) {
                [t] => {
                    let add = t * o.stride;
                    offs.iter_mut().for_each(|x| *x += add);
                }
                taps => {
                    std::mem::swap(offs, tmp);
                    offs.clear();
                    for &base in tmp.iter() {
                        offs.extend(taps.iter().map(|t| base + t * o.stride));
                    }
                }
            }
        }
    }

    /// The number of leading outer dims' output positions whose windows read disjoint
    /// input slabs (identity dims, e.g. the batch), and the input elements of one slab:
    /// work split over them never writes one input element from two slabs.
    pub(crate) fn planes(&self) -> (usize, usize) {
        let mut planes = 1usize;
        let mut slab = self.in_len;
        for o in &self.outer {
            if !o.is_identity() {
                break;
            }
            planes *= o.out;
            slab = o.stride;
        }
        (planes, slab)
    }
}
