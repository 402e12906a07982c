//! `reduce-window` whose window runs along the last dimension only: size 1 with no stride,
//! padding or dilation on every other dimension, stride 1 and no dilation along the last.
//! `jnp.cumsum`/`lax.cummax` lower to this (a window as long as the row, padded by the
//! row's length - 1 on one side), and so do 1-D moving sums and pools.
//!
//! Each output folds the init value, then its window's in-range elements in window order,
//! as the reference does (padding skipped), and the result is the reference's bit for bit:
//! - **prefix windows** (every window starts at the row's first element, as in a forward
//!   cumulative sum): output `i` continues output `i - 1`'s fold with the elements its
//!   window adds, which is the same fold of the same elements in the same order: one pass
//!   over the row instead of a window per output (O(n) instead of O(n²));
//! - **other windows** (a reverse cumulative sum, a moving window): the window's taps
//!   outermost and the outputs innermost (`acc[i] = f(acc[i], x[i - low + k])` for tap `k`
//!   over the outputs whose tap `k` is in range), so each output still folds its elements
//!   in window order while the inner loop runs over contiguous memory and vectorises.
//!
//! Measured on `jnp.cumsum` of f32[256,1024] and its gradient (a ranking loss): 66 ms per
//! reduce-window on the generic window loop, one output at a time.

use crate::parallel::Parallel;
use rayon::prelude::*;
use xla_core::attrs::Window;

/// A window along the last dimension, over rows of `n` elements into rows of `m`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Scan {
    /// Elements per operand row.
    n: usize,
    /// Elements per output row.
    m: usize,
    /// Rows.
    rows: usize,
    /// Window size.
    size: usize,
    /// Padding before the row.
    low: usize,
}

impl Scan {
    /// The scan for `w` over `dims` into `out_dims`, when the window has this form.
    pub(crate) fn new(w: &Window, dims: &[usize], out_dims: &[usize]) -> Option<Scan> {
        let (last, lead) = w.dims.split_last()?;
        let plain = |d: &xla_core::attrs::WindowDim| {
            d.stride == 1 && d.window_dilation == 1 && d.base_dilation == 1 && !d.window_reversal
        };
        let untouched = lead
            .iter()
            .all(|d| plain(d) && d.size == 1 && d.padding_low == 0 && d.padding_high == 0);
        if !untouched || !plain(last) || dims.len() != w.dims.len() || dims.len() != out_dims.len()
        {
            return None;
        }
        let (&n, &m) = (dims.last()?, out_dims.last()?);
        let (low, high) = (
            usize::try_from(last.padding_low).ok()?,
            usize::try_from(last.padding_high).ok()?,
        );
        let size = usize::try_from(last.size).ok()?;
        let lead_dims = dims.get(..dims.len() - 1)?;
        let same_lead = lead_dims == out_dims.get(..out_dims.len() - 1)?;
        let fits = (n + low + high).checked_sub(size).map(|s| s + 1) == Some(m);
        let rows = lead_dims.iter().product();
        (same_lead && fits && size > 0 && n > 0 && m > 0).then_some(Scan {
            n,
            m,
            rows,
            size,
            low,
        })
    }

    /// The reduce-window of `x` from `init` with combiner `f`, `fin` applied to each
    /// finished output row (the float max/min flush); `None` when `x` is not the operand.
    pub(crate) fn run<T, F>(
        &self,
        x: &[T],
        init: T,
        (f, fin): (F, fn(&mut [T])),
        par: Parallel<'_>,
    ) -> Option<Vec<T>>
    where
        T: Copy + Send + Sync,
        F: Fn(T, T) -> T + Copy + Send + Sync,
    {
        if x.len() != self.rows.checked_mul(self.n)? {
            return None;
        }
        let mut out =
            crate::limits::alloc::try_filled(self.rows * self.m, init, "reduce-window").ok()?;
        let row = |(o, xr): (&mut [T], &[T])| {
            if self.m <= self.low + 1 {
                self.prefix(xr, o, f);
            } else {
                self.taps(xr, o, f);
            }
            fin(o);
        };
        let work = self.rows * self.m * self.size.min(self.n);
        par.run_sized(work, |min| {
            if min == usize::MAX {
                out.chunks_mut(self.m).zip(x.chunks(self.n)).for_each(row);
            } else {
                let rows_per = ((1 << 14) / (self.m * self.size.min(self.n)).max(1)).max(1);
                out.par_chunks_mut(self.m)
                    .zip(x.par_chunks(self.n))
                    .with_min_len(rows_per.max(min))
                    .for_each(row);
            }
        });
        Some(out)
    }

    /// Output `i`'s window covers `i - low .. i - low + size`, clamped to the row; every
    /// window starts at 0 here (`i <= low`), so each output extends the previous fold.
    fn prefix<T: Copy, F: Fn(T, T) -> T>(&self, x: &[T], out: &mut [T], f: F) {
        let mut acc = match out.first() {
            Some(&a) => a,
            None => return,
        };
        let mut next = 0;
        for (i, o) in out.iter_mut().enumerate() {
            let end = (i + self.size).saturating_sub(self.low).min(self.n);
            for &v in x.get(next..end).unwrap_or(&[]) {
                acc = f(acc, v);
            }
            next = next.max(end);
            *o = acc;
        }
    }

    /// Tap `k` of output `i` reads `x[i + k - low]`: for each tap, the outputs whose tap is
    /// inside the row, in one contiguous pass. (Blocks of 32 outputs kept in registers over
    /// all taps measured slower: 20 ms against 12 ms for the reverse cumulative sum.)
    fn taps<T: Copy, F: Fn(T, T) -> T>(&self, x: &[T], out: &mut [T], f: F) {
        for k in 0..self.size {
            // Outputs i with 0 <= i + k - low < n.
            let lo = self.low.saturating_sub(k);
            let hi = (self.n + self.low).saturating_sub(k).min(self.m);
            if lo >= hi {
                continue;
            }
            let src = lo + k - self.low;
            let (Some(o), Some(s)) = (out.get_mut(lo..hi), x.get(src..src + (hi - lo))) else {
                continue;
            };
            for (a, &v) in o.iter_mut().zip(s) {
                *a = f(*a, v);
            }
        }
    }
}
