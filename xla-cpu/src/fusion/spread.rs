//! Fused loads of a broadcast onto two runs of dimensions, such as a per-lane bias
//! `f32[4,512] -> f32[4,256,512]` with `dimensions={0,2}` (what `vmap` makes of a bias added
//! to a batched product): element `i` of the result reads operand element
//! `((i / (len * gap)) % outer) * len + i % len`, where `len` is the size of the trailing
//! run (the output's last dimensions), `gap` the size of the dimensions between the runs
//! and `outer` the size of the leading run. A kernel reads such an operand in place,
//! instead of the broadcast being materialised and streamed back.
//!
//! The same description serves the generated code's cyclic streams (`jit.rs`): a call
//! covering `total` elements from `start` reads the operand contiguously from
//! [`Spread::base`] as long as it stays inside one run of `len` ([`Spread::fits`]). A
//! broadcast along the leading dimensions (`Load::Bcast` with `inner = 1`) is the case
//! `gap = outer = 1`.

use super::lane::Lane;
use super::run::In;

/// A broadcast read as `((i / (len * gap)) % outer) * len + i % len`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Spread {
    /// The kernel input holding the operand.
    pub input: usize,
    /// Elements of the trailing run (the output's last dimensions).
    pub len: usize,
    /// Elements of the output dimensions between the two runs.
    pub gap: usize,
    /// Elements of the leading run.
    pub outer: usize,
}

impl Spread {
    /// A stream repeating the first `len` elements of `input` (a broadcast along the
    /// leading dimensions).
    pub(crate) fn cyclic(input: usize, len: usize) -> Spread {
        Spread {
            input,
            len,
            gap: 1,
            outer: 1,
        }
    }

    /// `(len, gap, outer)` of `broadcast(operand), dimensions=dims` into `out`, when the
    /// dimensions are increasing and form two runs with a gap between them, the second
    /// ending at the output's last dimension; `None` otherwise (and for empty values).
    pub(crate) fn pattern(
        operand: &[i64],
        out: &[i64],
        dims: &[i64],
    ) -> Option<(usize, usize, usize)> {
        if dims.len() != operand.len() || dims.len() < 2 {
            return None;
        }
        let at: Vec<usize> = dims
            .iter()
            .map(|&d| usize::try_from(d).ok())
            .collect::<Option<_>>()?;
        for (k, (&d, &size)) in at.iter().zip(operand).enumerate() {
            let increasing = k == 0 || at.get(k - 1).is_some_and(|&p| p < d);
            if !increasing || out.get(d) != Some(&size) {
                return None;
            }
        }
        // The trailing run: the longest suffix of `at` that is contiguous and ends last.
        let mut split = at.len();
        while split > 0 && at.get(split - 1) == Some(&(out.len() - (at.len() - split) - 1)) {
            split -= 1;
        }
        let (first, second) = (at.get(..split)?, at.get(split..)?);
        let (&lo, &hi, &start2) = (first.first()?, first.last()?, second.first()?);
        if second.is_empty() || hi + 1 - lo != first.len() || start2 <= hi + 1 {
            return None;
        }
        let prod = |r: &[i64]| -> Option<usize> {
            r.iter()
                .try_fold(1usize, |n, &d| n.checked_mul(usize::try_from(d).ok()?))
        };
        let len = prod(out.get(start2..)?)?;
        let gap = prod(out.get(hi + 1..start2)?)?;
        let outer = prod(out.get(lo..=hi)?)?;
        (len > 0 && gap > 0 && outer > 0).then_some((len, gap, outer))
    }

    /// The operand element read at element `i`.
    #[inline(always)]
    pub(crate) fn index(&self, i: usize) -> usize {
        ((i / (self.len * self.gap)) % self.outer) * self.len + i % self.len
    }

    /// The operand elements the load reads (all of them but for a tiny domain).
    pub(crate) fn need(&self) -> usize {
        self.outer.saturating_mul(self.len)
    }

    /// Where a contiguous read for elements from `start` begins in the operand.
    #[inline(always)]
    pub(crate) fn base(&self, start: usize) -> usize {
        self.index(start)
    }

    /// The operand element starting each of `count` runs of `len` from run `first`
    /// (run `r` reads from `((r / gap) % outer) * len`), walked without divisions.
    #[inline(always)]
    pub(crate) fn row_bases(&self, first: usize, count: usize) -> impl Iterator<Item = usize> + '_ {
        let (gap, outer) = (self.gap.max(1), self.outer.max(1));
        let (mut g, mut o) = (first % gap, (first / gap) % outer);
        (0..count).map(move |_| {
            let b = o * self.len;
            g += 1;
            if g == gap {
                g = 0;
                o += 1;
                if o == outer {
                    o = 0;
                }
            }
            b
        })
    }

    /// True when elements `start..start + total` read the operand contiguously (they stay
    /// inside one run of `len`).
    #[inline(always)]
    pub(crate) fn fits(&self, start: usize, total: usize) -> bool {
        self.len > 0 && start % self.len + total <= self.len
    }

    /// Reads elements `start..start + dst.len()` into `dst`, one contiguous piece of the
    /// operand per run of `len`. The input holds [`Spread::need`] elements ([`check_over`]
    /// verified it before any block runs), and `len`, `gap`, `outer` are non-zero.
    ///
    /// [`check_over`]: super::run::check_over
    #[inline(always)]
    pub(crate) fn load<L: Lane>(&self, ins: &[In<L>], start: usize, dst: &mut [L]) {
        let end = start + dst.len();
        let src = ins[self.input];
        let mut i = start;
        while i < end {
            let o = i - start;
            if let In::Val(v) = src {
                // Within one block of `len * gap` elements the same operand run repeats.
                let block = self.len * self.gap;
                let upto = end.min((i / block + 1) * block);
                let row = (i / block) % self.outer * self.len;
                fill_cyclic(
                    &mut dst[o..o + (upto - i)],
                    &v[row..row + self.len],
                    i % self.len,
                );
                i = upto;
                continue;
            }
            let idx = self.index(i);
            let run = (end - i).min(self.len - i % self.len);
            if let In::Pred(p) = src {
                for (d, &b) in dst[o..o + run].iter_mut().zip(&p[idx..idx + run]) {
                    *d = L::mask(b);
                }
            }
            i += run;
        }
    }
}

/// `dst[t] = row[(phase + t) % row.len()]`: the partial first run, one whole run, then
/// doubling copies of what is written (a run of 4 repeated 256 times is 8 copies, not 256
/// small ones). `row` is not empty and `phase < row.len()`.
#[inline(always)]
pub(crate) fn fill_cyclic<L: Copy>(dst: &mut [L], row: &[L], phase: usize) {
    let head = dst.len().min(row.len() - phase);
    dst[..head].copy_from_slice(&row[phase..phase + head]);
    let rest = &mut dst[head..];
    let first = rest.len().min(row.len());
    rest[..first].copy_from_slice(&row[..first]);
    let mut done = first;
    while done < rest.len() {
        let n = done.min(rest.len() - done);
        rest.copy_within(..n, done);
        done += n;
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::Spread;

    /// The element read at each output position, worked out from the broadcast's
    /// definition: output index `(a, b, c)` reads operand `(a, c)`.
    #[test]
    fn a_lane_bias_reads_the_lane_row() {
        let (len, gap, outer) = Spread::pattern(&[4, 5], &[4, 3, 5], &[0, 2]).unwrap();
        assert_eq!((len, gap, outer), (5, 3, 4));
        let s = Spread {
            input: 0,
            len,
            gap,
            outer,
        };
        for a in 0..4 {
            for b in 0..3 {
                for c in 0..5 {
                    assert_eq!(s.index((a * 3 + b) * 5 + c), a * 5 + c);
                }
            }
        }
    }

    /// Leading dimensions outside both runs repeat the whole pattern; runs of several
    /// dimensions multiply.
    #[test]
    fn leading_and_multi_dimension_runs() {
        // out [2, 3, 4, 5, 6], operand dims {1, 3, 4} of sizes [3, 5, 6]
        let (len, gap, outer) = Spread::pattern(&[3, 5, 6], &[2, 3, 4, 5, 6], &[1, 3, 4]).unwrap();
        assert_eq!((len, gap, outer), (30, 4, 3));
        let s = Spread {
            input: 0,
            len,
            gap,
            outer,
        };
        let mut i = 0;
        for _p in 0..2 {
            for a in 0..3 {
                for _g in 0..4 {
                    for c in 0..30 {
                        assert_eq!(s.index(i), a * 30 + c);
                        i += 1;
                    }
                }
            }
        }
    }

    /// Not two runs ending last: contiguous dims, a gap inside a run, a run not ending at the
    /// last dimension, decreasing dims, sizes that do not match, empty values.
    #[test]
    fn other_broadcasts_are_not_spread() {
        assert_eq!(Spread::pattern(&[3, 4], &[2, 3, 4], &[1, 2]), None);
        assert_eq!(Spread::pattern(&[2, 4], &[2, 3, 4, 5], &[0, 2]), None);
        assert_eq!(Spread::pattern(&[4, 2], &[2, 3, 4], &[2, 0]), None);
        assert_eq!(Spread::pattern(&[2, 5], &[2, 3, 4], &[0, 2]), None);
        assert_eq!(Spread::pattern(&[2, 0], &[2, 3, 0], &[0, 2]), None);
        assert_eq!(Spread::pattern(&[2], &[2, 3], &[0]), None);
        assert_eq!(
            Spread::pattern(&[2, 3, 5], &[2, 9, 3, 4, 5], &[0, 2, 4]),
            None
        );
    }

    /// A plain cyclic stream is the case `gap = outer = 1`: `start % len`.
    #[test]
    fn cyclic_base_is_start_mod_len() {
        let s = Spread::cyclic(0, 512);
        assert_eq!(s.base(1000), 1000 % 512);
        assert!(s.fits(512 + 384, 128));
        assert!(!s.fits(512 + 385, 128));
    }
}
