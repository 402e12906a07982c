//! Fused loads of a `slice` or a `pad` read in place: the kernel's consumer of an
//! associative scan's `x[1::2]` or of an interleaving `pad(x, 0), padding=1_0_1` reads
//! the operand row by row instead of the sliced or padded value being materialised and
//! streamed back (each took as long as the add reading it, N5's scans are made of them).
//!
//! The output is viewed as rows of `len` contiguous elements; row `r` lies in outer block
//! `r / rows` at position `ri = r % rows` of the one dimension the op changes, and reads
//! operand row `start + stride * k` where `ri = lo + every * k` (`0 <= k < count`), or the
//! padding value when `ri` falls on padding. A slice is the case `lo = 0, every = 1`; a
//! pad the case `start = 0, stride = 1`. A slice of the last dimension alone with stride
//! 1 is one row per outer block at column offset `col`.

use super::lane::Lane;
use super::run::In;

/// The shortest row worth reading in place (shorter rows cost more per row than a copy).
pub(crate) const MIN_ROW: usize = 16;

/// The value a padded row holds.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum PadValue {
    /// A constant.
    Const(f64),
    /// Element 0 of kernel input `k`.
    Input(usize),
}

/// A slice or pad read as rows of its operand (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Remap {
    /// The kernel input holding the operand.
    pub input: usize,
    /// The padding value (`None` for a slice, which never reads padding).
    pub pad: Option<PadValue>,
    /// Elements per row.
    pub len: usize,
    /// Rows per outer block.
    pub rows: usize,
    /// Operand elements per outer block.
    pub outer_step: usize,
    /// Operand elements per operand row.
    pub row_step: usize,
    /// Operand offset of every row's first element inside its operand row.
    pub col: usize,
    /// Output rows before the first operand row (negative: operand rows cut off).
    pub lo: i64,
    /// Output rows per operand row read (interior padding + 1).
    pub every: usize,
    /// The first operand row read.
    pub start: usize,
    /// Operand rows between two rows read.
    pub stride: usize,
    /// Operand rows read per outer block.
    pub count: usize,
    /// Operand elements (every read is below it).
    pub need: usize,
}

fn prod(d: &[i64]) -> Option<usize> {
    d.iter()
        .try_fold(1usize, |n, &x| n.checked_mul(usize::try_from(x).ok()?))
}

impl Remap {
    /// `slice(operand), slice={[start:limit:stride], ...}` over an operand of `dims`, when
    /// at most one dimension is cut and the rows are at least [`MIN_ROW`] long.
    pub(crate) fn slice(
        input: usize,
        dims: &[i64],
        start: &[i64],
        limit: &[i64],
        stride: &[i64],
    ) -> Option<Remap> {
        let rank = dims.len();
        if start.len() != rank || limit.len() != rank || stride.len() != rank {
            return None;
        }
        let mut out = Vec::with_capacity(rank);
        for d in 0..rank {
            let (s, l, st) = (start[d], limit[d], stride[d]);
            if s < 0 || l < s || l > dims[d] || st < 1 {
                return None;
            }
            out.push((l - s + st - 1) / st);
        }
        let cut: Vec<usize> = (0..rank)
            .filter(|&d| !(start[d] == 0 && stride[d] == 1 && limit[d] == dims[d]))
            .collect();
        let j = match cut.as_slice() {
            [] => 0,
            [j] => *j,
            _ => return None,
        };
        let u = |x: i64| usize::try_from(x).ok();
        let m = if j + 1 == rank && stride[j] == 1 {
            // The last dimension cut with stride 1: one row per outer block.
            Remap {
                input,
                pad: None,
                len: u(out[j])?,
                rows: 1,
                outer_step: u(dims[j])?,
                row_step: 0,
                col: u(start[j])?,
                lo: 0,
                every: 1,
                start: 0,
                stride: 0,
                count: 1,
                need: prod(dims)?,
            }
        } else {
            let len = prod(dims.get(j + 1..)?)?;
            Remap {
                input,
                pad: None,
                len,
                rows: u(out[j])?,
                outer_step: u(dims[j])?.checked_mul(len)?,
                row_step: len,
                col: 0,
                lo: 0,
                every: 1,
                start: u(start[j])?,
                stride: u(stride[j])?,
                count: u(out[j])?,
                need: prod(dims)?,
            }
        };
        m.checked(prod(&out)?)
    }

    /// `pad(operand, value), padding=...` over an operand of `dims`, when at most one
    /// dimension other than the last is padded and the rows are at least [`MIN_ROW`] long.
    pub(crate) fn pad(
        input: usize,
        value: PadValue,
        dims: &[i64],
        padding: &[xla_core::attrs::PadDim],
    ) -> Option<Remap> {
        let rank = dims.len();
        if padding.len() != rank {
            return None;
        }
        let padded: Vec<usize> = (0..rank)
            .filter(|&d| {
                let p = &padding[d];
                (p.low, p.high, p.interior) != (0, 0, 0)
            })
            .collect();
        let j = match padded.as_slice() {
            [] => 0,
            [j] if j + 1 < rank => *j,
            [j] => return Remap::pad_last(input, value, dims, &padding[*j]),
            _ => return None,
        };
        let p = &padding[j];
        let n = dims[j];
        if p.interior < 0 || n < 0 {
            return None;
        }
        let spread = if n == 0 { 0 } else { n + (n - 1) * p.interior };
        let out_j = p.low.checked_add(p.high)?.checked_add(spread)?;
        let len = prod(dims.get(j + 1..)?)?;
        let u = |x: i64| usize::try_from(x).ok();
        let m = Remap {
            input,
            pad: Some(value),
            len,
            rows: u(out_j)?,
            outer_step: u(n)?.checked_mul(len)?,
            row_step: len,
            col: 0,
            lo: p.low,
            every: u(p.interior)?.checked_add(1)?,
            start: 0,
            stride: 1,
            count: u(n)?,
            need: prod(dims)?,
        };
        m.checked(
            prod(dims.get(..j)?)?
                .checked_mul(m.rows)?
                .checked_mul(len)?,
        )
    }

    /// A pad of the last dimension alone, without interior padding: each output row is
    /// `low` padding values, the operand row, `high` padding values (negative ones cut the
    /// row), read as rows of `g` elements, `g` the greatest common divisor of the three
    /// (at least [`MIN_ROW`]), each of them padding or a piece of an operand row. The
    /// gradient of splitting the last dim (`concatenate` spelled `pad(a) + pad(b)`) is
    /// such a pad.
    fn pad_last(
        input: usize,
        value: PadValue,
        dims: &[i64],
        p: &xla_core::attrs::PadDim,
    ) -> Option<Remap> {
        let (&n, outer) = dims.split_last()?;
        let out_n = p.low.checked_add(p.high)?.checked_add(n)?;
        if p.interior != 0 || n < 0 || out_n <= 0 {
            return None;
        }
        let abs = |x: i64| usize::try_from(x.unsigned_abs()).ok();
        let g = super::rows::gcd(super::rows::gcd(abs(p.low)?, abs(n)?), abs(p.high)?);
        let g = i64::try_from(g).ok()?;
        if g == 0 {
            return None;
        }
        let u = |x: i64| usize::try_from(x).ok();
        let m = Remap {
            input,
            pad: Some(value),
            len: u(g)?,
            rows: u(out_n / g)?,
            outer_step: u(n)?,
            row_step: u(g)?,
            col: 0,
            lo: p.low / g,
            every: 1,
            start: 0,
            stride: 1,
            count: u(n / g)?,
            need: prod(dims)?,
        };
        m.checked(prod(outer)?.checked_mul(u(out_n)?)?)
    }

    /// `self` when its rows are long enough, it covers an output of `n` elements and
    /// every read stays below `need` (checked once here, relied on by every read).
    fn checked(self, n: usize) -> Option<Remap> {
        if self.len < MIN_ROW || self.rows == 0 || self.every == 0 {
            return None;
        }
        let outer = n / (self.rows * self.len);
        if outer.checked_mul(self.rows * self.len)? != n || outer == 0 {
            return None;
        }
        if self.count > 0 {
            let last_row = self
                .stride
                .checked_mul(self.count - 1)?
                .checked_add(self.start)?;
            let end = (outer - 1)
                .checked_mul(self.outer_step)?
                .checked_add(last_row.checked_mul(self.row_step)?)?
                .checked_add(self.col)?
                .checked_add(self.len)?;
            if end > self.need {
                return None;
            }
        }
        Some(self)
    }

    /// This pad read through the slice it pads (`slice` read as this pad's operand), as
    /// one remap of the slice's operand: both must change the same dimension, with rows of
    /// the same length and the same outer blocks (`n_pad`, `n_slice`: their element counts).
    pub(crate) fn through(&self, slice: &Remap, n_pad: usize, n_slice: usize) -> Option<Remap> {
        let pure_pad = self.start == 0 && self.stride == 1;
        let pure_slice = slice.pad.is_none() && slice.lo == 0 && slice.every == 1;
        let outer = |m: &Remap, n: usize| n / (m.rows * m.len);
        let same = self.len == slice.len
            && self.count == slice.count
            && slice.rows == slice.count
            && outer(self, n_pad) == outer(slice, n_slice);
        (pure_pad && pure_slice && same).then_some(Remap {
            input: slice.input,
            outer_step: slice.outer_step,
            row_step: slice.row_step,
            col: slice.col,
            start: slice.start,
            stride: slice.stride,
            need: slice.need,
            ..*self
        })
    }

    /// The operand element holding row `r`'s first element, or `None` for a padded row.
    #[inline(always)]
    pub(crate) fn row_base(&self, r: usize) -> Option<usize> {
        self.block_row_base(r / self.rows, r % self.rows)
    }

    /// [`Remap::row_base`] of row `ri` of outer block `ro`.
    #[inline(always)]
    fn block_row_base(&self, ro: usize, ri: usize) -> Option<usize> {
        let q = ri as i64 - self.lo;
        if q < 0 {
            return None;
        }
        let k = match self.every {
            1 => q as usize,
            e if q as usize % e != 0 => return None,
            e => q as usize / e,
        };
        (k < self.count).then(|| {
            ro * self.outer_step + (self.start + self.stride * k) * self.row_step + self.col
        })
    }

    /// [`Remap::row_base`] of `count` rows from row `first`, walked in order without a
    /// division per row: the operand row `k` and the place `ph` among the `every` output
    /// rows per operand row advance by counting.
    #[inline(always)]
    pub(crate) fn row_bases(
        &self,
        first: usize,
        count: usize,
    ) -> impl Iterator<Item = Option<usize>> + '_ {
        let (rows, every) = (self.rows.max(1), self.every.max(1) as i64);
        // Output row `ri` of a block is operand row `(ri - lo) / every` when the
        // division is exact (before row `lo`, `k` is negative: padding).
        let place = move |ri: usize| {
            let q = ri as i64 - self.lo;
            (q.div_euclid(every), q.rem_euclid(every))
        };
        let mut ri = first % rows;
        let mut block = first / rows * self.outer_step;
        let (mut k, mut ph) = place(ri);
        let (step, at) = (
            self.stride * self.row_step,
            self.start * self.row_step + self.col,
        );
        let top = place(0);
        (0..count).map(move |_| {
            let b = (ph == 0 && (0..self.count as i64).contains(&k))
                .then(|| block + at + k as usize * step);
            ri += 1;
            ph += 1;
            if ph == every {
                (k, ph) = (k + 1, 0);
            }
            if ri == rows {
                ri = 0;
                block += self.outer_step;
                (k, ph) = top;
            }
            b
        })
    }

    /// Where a contiguous read for elements from `start` begins in the operand (`None`:
    /// the elements are padding).
    #[inline(always)]
    pub(crate) fn base(&self, start: usize) -> Option<usize> {
        self.row_base(start / self.len)
            .map(|b| b + start % self.len)
    }

    /// True when elements `start..start + total` lie in one row.
    #[inline(always)]
    pub(crate) fn fits(&self, start: usize, total: usize) -> bool {
        self.len > 0 && start % self.len + total <= self.len
    }

    /// The padding value as read by a kernel over `ins`.
    #[inline(always)]
    pub(crate) fn pad_value<L: Lane>(&self, ins: &[In<L>]) -> L {
        match self.pad {
            Some(PadValue::Const(c)) => L::of(c),
            Some(PadValue::Input(k)) => ins[k].get(0),
            None => L::zero(),
        }
    }

    /// Reads elements `start..start + dst.len()` into `dst`, a copy per row (the input
    /// holds `need` elements and a pad input one: `check_over` verified both). The rows are
    /// walked in order (one division for the first), since a staged call of a few short
    /// rows spent more on locating each row than on copying it.
    #[inline(always)]
    pub(crate) fn load<L: Lane>(&self, ins: &[In<L>], start: usize, dst: &mut [L]) {
        let src = ins[self.input];
        let mut off = start % self.len;
        let rows = (off + dst.len()).div_ceil(self.len);
        let mut o = 0;
        for b in self.row_bases(start / self.len, rows) {
            let run = (dst.len() - o).min(self.len - off);
            let d = &mut dst[o..o + run];
            match (b.map(|b| b + off), src) {
                (Some(b), In::Val(v)) => d.copy_from_slice(&v[b..b + run]),
                (Some(b), In::Pred(p)) => {
                    for (x, &m) in d.iter_mut().zip(&p[b..b + run]) {
                        *x = L::mask(m);
                    }
                }
                (Some(b), s @ (In::Rows(_) | In::Other)) => {
                    for (t, x) in d.iter_mut().enumerate() {
                        *x = s.get(b + t);
                    }
                }
                (None, _) => d.fill(self.pad_value(ins)),
            }
            o += run;
            off = 0;
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::{PadValue, Remap};
    use xla_core::attrs::PadDim;

    /// Row-major strides of `dims`.
    fn strides(dims: &[i64]) -> Vec<usize> {
        let mut s = vec![1usize; dims.len()];
        for d in (0..dims.len().saturating_sub(1)).rev() {
            s[d] = s[d + 1] * dims[d + 1] as usize;
        }
        s
    }

    /// The operand element each output element reads (`None`: padding), walking the
    /// output's indices; `at(d, i)` is the operand index along dim `d` of output index `i`.
    fn reference(
        dims: &[i64],
        out: &[i64],
        at: impl Fn(usize, i64) -> Option<i64>,
    ) -> Vec<Option<usize>> {
        let (si, n) = (strides(dims), out.iter().product::<i64>() as usize);
        (0..n)
            .map(|mut flat| {
                let mut e = 0;
                for d in (0..out.len()).rev() {
                    let i = flat as i64 % out[d];
                    flat /= out[d] as usize;
                    e += at(d, i)? as usize * si[d];
                }
                Some(e)
            })
            .collect()
    }

    /// From the definition: `out[i] = x[start + i * stride]`.
    fn slice_reference(
        dims: &[i64],
        start: &[i64],
        limit: &[i64],
        stride: &[i64],
    ) -> Vec<Option<usize>> {
        let out: Vec<i64> = (0..dims.len())
            .map(|d| (limit[d] - start[d] + stride[d] - 1) / stride[d])
            .collect();
        reference(dims, &out, |d, i| Some(start[d] + i * stride[d]))
    }

    /// From the definition: output position `p` along a dim holds operand `k` when
    /// `p = low + k * (interior + 1)`, padding otherwise.
    fn pad_reference(dims: &[i64], padding: &[PadDim]) -> Vec<Option<usize>> {
        let out: Vec<i64> = dims
            .iter()
            .zip(padding)
            .map(|(&n, p)| p.low + p.high + n + (n - 1).max(0) * p.interior)
            .collect();
        reference(dims, &out, |d, i| {
            let (q, e) = (i - padding[d].low, padding[d].interior + 1);
            (q >= 0 && q % e == 0 && q / e < dims[d]).then_some(q / e)
        })
    }

    fn pd(low: i64, high: i64, interior: i64) -> PadDim {
        PadDim {
            low,
            high,
            interior,
        }
    }

    fn reads(m: &Remap, n: usize) -> Vec<Option<usize>> {
        (0..n).map(|i| m.base(i)).collect()
    }

    #[test]
    fn strided_row_slices_read_every_other_row() {
        let cases: [(&[i64], &[i64], &[i64], &[i64]); 6] = [
            (&[64, 16], &[1, 0], &[64, 16], &[2, 1]),
            (&[64, 16], &[2, 0], &[63, 16], &[3, 1]),
            (&[3, 10, 32], &[0, 1, 0], &[3, 9, 32], &[1, 2, 1]),
            (&[4, 40], &[0, 7], &[4, 30], &[1, 1]),
            (&[40], &[3], &[40], &[1]),
            (&[8, 32], &[0, 0], &[8, 32], &[1, 1]),
        ];
        for (dims, s, l, st) in cases {
            let m = Remap::slice(0, dims, s, l, st).unwrap();
            let want = slice_reference(dims, s, l, st);
            let got = reads(&m, want.len());
            assert_eq!(got, want, "{dims:?}");
        }
    }

    #[test]
    fn pads_interleave_and_shift_rows() {
        let none = pd(0, 0, 0);
        let cases: Vec<(Vec<i64>, Vec<PadDim>)> = vec![
            (vec![8, 16], vec![pd(0, 1, 1), none]),
            (vec![8, 16], vec![pd(1, 0, 1), none]),
            (vec![8, 16], vec![pd(2, 1, 1), none]),
            (vec![8, 16], vec![pd(0, -1, 0), none]),
            (vec![8, 16], vec![pd(-3, 2, 2), none]),
            (vec![2, 5, 4, 8], vec![none, pd(1, -2, 1), none, none]),
            (vec![0, 16], vec![pd(2, 1, 3), none]),
            (vec![8, 32], vec![none, pd(32, 0, 0)]),
            (vec![8, 32], vec![none, pd(0, 32, 0)]),
            (vec![2, 3, 48], vec![none, none, pd(16, -32, 0)]),
            (vec![2, 3, 64], vec![none, none, pd(-32, 32, 0)]),
            (vec![5, 32], vec![none, pd(64, 96, 0)]),
            (vec![48], vec![pd(-16, 16, 0)]),
        ];
        for (dims, padding) in cases {
            let m = Remap::pad(0, PadValue::Const(0.0), &dims, &padding).unwrap();
            let want = pad_reference(&dims, &padding);
            assert_eq!(reads(&m, want.len()), want, "{dims:?} {padding:?}");
        }
    }

    /// `load` walks the rows in order from any start: it reads what `base` says element by
    /// element (the operand, or the padding value), across row and outer-block edges.
    #[test]
    fn loads_from_any_start_read_what_base_says() {
        use crate::fusion::run::In;
        let none = pd(0, 0, 0);
        let cases: Vec<(Vec<i64>, Vec<PadDim>)> = vec![
            (vec![3, 8, 16], vec![none, pd(2, -1, 1), none]),
            (vec![4, 32], vec![none, pd(32, 0, 0)]),
            (vec![2, 3, 64], vec![none, none, pd(-32, 16, 0)]),
            (vec![5, 16], vec![pd(1, 2, 2), none]),
        ];
        for (dims, padding) in cases {
            let m = Remap::pad(0, PadValue::Const(-7.0), &dims, &padding).unwrap();
            let n = pad_reference(&dims, &padding).len();
            let x: Vec<f32> = (0..m.need).map(|i| i as f32).collect();
            let ins = [In::Val(&x[..])];
            for start in (0..n).step_by(5) {
                for len in [1, 7, 16, 40, 133] {
                    let len = len.min(n - start);
                    let mut got = vec![0f32; len];
                    m.load(&ins, start, &mut got);
                    let want: Vec<f32> = (start..start + len)
                        .map(|i| m.base(i).map_or(-7.0, |b| x[b]))
                        .collect();
                    assert_eq!(got, want, "{dims:?} {padding:?} at {start}+{len}");
                }
            }
        }
    }

    #[test]
    fn short_rows_two_cut_dims_and_uneven_last_dim_pads_are_not_remapped() {
        assert_eq!(Remap::slice(0, &[64, 8], &[0, 0], &[64, 8], &[2, 1]), None);
        assert_eq!(
            Remap::slice(0, &[64, 32], &[1, 1], &[64, 32], &[2, 1]),
            None
        );
        assert_eq!(Remap::slice(0, &[4, 64], &[0, 0], &[4, 64], &[1, 2]), None);
        let last = |dims: &[i64], p: PadDim| {
            let mut padding = vec![pd(0, 0, 0); dims.len()];
            padding[dims.len() - 1] = p;
            Remap::pad(0, PadValue::Const(0.0), dims, &padding)
        };
        // Pieces of the row shorter than 16, interior padding, nothing left of the row.
        assert_eq!(last(&[4, 64], pd(1, 1, 0)), None);
        assert_eq!(last(&[4, 64], pd(8, 8, 0)), None);
        assert_eq!(last(&[4, 64], pd(32, 0, 1)), None);
        assert_eq!(last(&[4, 64], pd(-32, -32, 0)), None);
        assert_eq!(last(&[4, 64], pd(0, -96, 0)), None);
        // Two padded dims.
        assert_eq!(
            Remap::pad(
                0,
                PadValue::Const(0.0),
                &[4, 64],
                &[pd(1, 0, 0), pd(32, 0, 0)]
            ),
            None
        );
    }
}
