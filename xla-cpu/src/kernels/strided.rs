//! Strided copies: the one loop behind transpose, broadcast, slice, reverse and
//! dynamic-slice. Output element `o` (row-major over `dims`) is source element
//! `base + Σ o[i]·strides[i]`; a stride may be 0 (broadcast) or negative (reverse).
//!
//! Dims of size 1 are dropped and neighbours that are contiguous in the source merged, so a
//! copy becomes whole-row `copy_from_slice`s, fills, or (for transposes, where the source's
//! unit-stride dim is not the innermost output dim) 2-D tiles that keep both reads and writes
//! in cache. Large copies split the outermost dim over threads (each output element is
//! written once, so the thread count cannot change a result).

use super::transpose8::block8;
use crate::buffer::{written_by_two, written_in_chunks, Sink};
use crate::parallel::Parallel;
use std::mem::MaybeUninit;
use std::ops::Range;
use xla_core::literal::{ArrayData, NativeData};
use xla_core::with_array_data;

/// Elements below which a copy stays on one thread.
const PAR_MIN: usize = 1 << 16;
/// Side of the square tiles of a transposing copy.
const TILE: usize = 32;

/// The strided copy of `d` described in the module docs, or `None` when an element would
/// fall outside `d` (the caller reports the error).
pub(crate) fn copy(
    d: &ArrayData,
    base: isize,
    dims: &[usize],
    strides: &[isize],
    par: Parallel<'_>,
) -> Option<ArrayData> {
    with_array_data!(d, v => copy_typed(v, base, dims, strides, par).map(NativeData::wrap))
}

pub(crate) fn copy_typed<T: Copy + Default + Send + Sync>(
    src: &[T],
    base: isize,
    dims: &[usize],
    strides: &[isize],
    par: Parallel<'_>,
) -> Option<Vec<T>> {
    if dims.len() != strides.len() {
        return None;
    }
    let n = dims.iter().try_fold(1usize, |a, &d| a.checked_mul(d))?;
    if n == 0 {
        return Some(Vec::new());
    }
    let (dims, strides) = simplify(dims, strides);
    let (mut lo, mut hi) = (base, base);
    for (&d, &s) in dims.iter().zip(&strides) {
        let span = (d as isize - 1).checked_mul(s)?;
        if span < 0 {
            lo = lo.checked_add(span)?;
        } else {
            hi = hi.checked_add(span)?;
        }
    }
    if lo < 0 || hi >= src.len() as isize {
        return None;
    }
    // One contiguous run (a slice along the outermost dims, a reshape's copy): one memcpy,
    // without first zeroing the output.
    if let ([_], [1]) = (dims.as_slice(), strides.as_slice()) {
        let at = usize::try_from(base).ok()?;
        return src.get(at..at.checked_add(n)?).map(<[T]>::to_vec);
    }
    let job = Job {
        src,
        dims: &dims,
        strides: &strides,
    };
    let rows = dims.first().copied().unwrap_or(1);
    let row_len = n / rows;
    let whole = n < PAR_MIN || par.threads() <= 1 || rows < 2;
    let per = match whole {
        true => rows,
        false => rows.div_ceil(par.threads() * 4).max(1),
    };
    // Written without zeroing the output first (the zeroing was a fifth of a Fourier
    // layer's transposes).
    let work = |_: &mut (), c: usize, mut sink: Sink<T>| {
        let first = base + (c * per) as isize * strides[0];
        let write = |o: &mut [MaybeUninit<T>]| {
            job.run(o, first, o.len() / row_len);
            true
        };
        // SAFETY: `Job::run` writes every element of the rows it is given, and a chunk
        // holds whole rows (chunks of `per` rows of `row_len`; `n` is `rows * row_len`).
        unsafe { sink.fill_with(sink.len(), write) };
    };
    let chunk = per * row_len;
    let seq = || written_in_chunks(n, chunk, usize::MAX, || (), work);
    Some(match (whole, par.pair()) {
        (true, _) => seq(),
        // A chunk that panicked on the partner's side: the whole copy on this thread.
        (false, Some(p)) => written_by_two(n, chunk, p, || (), work).unwrap_or_else(seq),
        (false, None) => par.install(|| written_in_chunks(n, chunk, 1, || (), work)),
    })
}

/// Drops size-1 dims and merges neighbours where the outer one steps exactly over the
/// inner one in the source.
fn simplify(dims: &[usize], strides: &[isize]) -> (Vec<usize>, Vec<isize>) {
    let mut d: Vec<usize> = Vec::with_capacity(dims.len());
    let mut s: Vec<isize> = Vec::with_capacity(dims.len());
    for (&n, &st) in dims.iter().zip(strides) {
        if n == 1 {
            continue;
        }
        match (d.last_mut(), s.last_mut()) {
            (Some(ld), Some(ls)) if *ls == st * n as isize => {
                *ld *= n;
                *ls = st;
            }
            _ => {
                d.push(n);
                s.push(st);
            }
        }
    }
    if d.is_empty() {
        d.push(1);
        s.push(0);
    }
    (d, s)
}

/// A simplified copy: source, dims and strides (bounds already checked).
struct Job<'a, T> {
    src: &'a [T],
    dims: &'a [usize],
    strides: &'a [isize],
}

impl<T: Copy> Job<'_, T> {
    /// Fills `out` (exactly `rows` output rows of dim 0) with those rows, the first at
    /// source offset `base`. Every element of `out` is written: `rows` covers each output
    /// row whole, `tiled` each 2-D block whole (tiles, then their edges).
    fn run(&self, out: &mut [MaybeUninit<T>], base: isize, rows: usize) {
        let mut dims = self.dims.to_vec();
        dims[0] = rows;
        let last = dims.len() - 1;
        let unit = (0..last).find(|&k| self.strides[k] == 1);
        match unit {
            Some(k) if !matches!(self.strides[last], 0 | 1) => self.tiled(out, base, &dims, k),
            _ => self.rows(out, base, &dims),
        }
    }

    /// Row by row along the innermost dim, the outer dims by an odometer.
    fn rows(&self, out: &mut [MaybeUninit<T>], base: isize, dims: &[usize]) {
        let last = dims.len() - 1;
        let (n, s) = (dims[last], self.strides[last]);
        let mut idx = vec![0usize; last];
        let mut off = base;
        for row in out.chunks_exact_mut(n) {
            let o = off as usize;
            match s {
                1 => {
                    row.write_copy_of_slice(&self.src[o..o + n]);
                }
                0 => row.fill(MaybeUninit::new(self.src[o])),
                _ => {
                    for (j, x) in row.iter_mut().enumerate() {
                        x.write(self.src[(off + j as isize * s) as usize]);
                    }
                }
            }
            off = self.advance(&mut idx, dims, off);
        }
    }

    /// Steps the odometer `idx` over `dims[..idx.len()]`, returning the new source offset.
    fn advance(&self, idx: &mut [usize], dims: &[usize], mut off: isize) -> isize {
        for i in (0..idx.len()).rev() {
            idx[i] += 1;
            off += self.strides[i];
            if idx[i] < dims[i] {
                break;
            }
            off -= self.strides[i] * dims[i] as isize;
            idx[i] = 0;
        }
        off
    }

    /// A transposing copy: output dims `k` (unit source stride) and the last one are copied
    /// in square tiles; the other dims by an odometer.
    fn tiled(&self, out: &mut [MaybeUninit<T>], base: isize, dims: &[usize], k: usize) {
        let last = dims.len() - 1;
        let (nk, nl, sl) = (dims[k], dims[last], self.strides[last]);
        // Output stride of dim k, and the size of one output block of dims k..=last.
        let ok: usize = dims[k + 1..].iter().product();
        let block = nk * ok;
        let outer_dims: Vec<usize> = dims[..k].to_vec();
        let mid_dims: Vec<usize> = dims[k + 1..last].to_vec();
        let mid_strides: Vec<isize> = self.strides[k + 1..last].to_vec();
        let mid = Job {
            src: self.src,
            dims: &mid_dims,
            strides: &mid_strides,
        };
        let mut idx = vec![0usize; k];
        let mut off = base;
        for blk in out.chunks_exact_mut(block) {
            // Each combination of the dims between k and last is one 2-D (nk × nl) copy.
            let mut midx = vec![0usize; mid_dims.len()];
            let mut moff = off;
            for m in 0..ok / nl {
                // Element (i, j) of the 2-D copy: source `moff + i + j·sl`, output `i·ok + m·nl + j`.
                let one = |blk: &mut [MaybeUninit<T>], is: Range<usize>, js: Range<usize>| {
                    for i in is {
                        let (row, s0) = (i * ok + m * nl, moff + i as isize);
                        for j in js.clone() {
                            blk[row + j].write(self.src[(s0 + j as isize * sl) as usize]);
                        }
                    }
                };
                // Whole 8×8 blocks of 4-byte elements go through registers (`transpose8.rs`).
                let simd = sl > 0 && moff >= 0 && std::mem::size_of::<T>() == 4;
                for kb in (0..nk).step_by(TILE) {
                    let kend = (kb + TILE).min(nk);
                    for lb in (0..nl).step_by(TILE) {
                        let lend = (lb + TILE).min(nl);
                        if !simd {
                            one(blk, kb..kend, lb..lend);
                            continue;
                        }
                        let (k8, l8) = (kb + (kend - kb) / 8 * 8, lb + (lend - lb) / 8 * 8);
                        for ib in (kb..k8).step_by(8) {
                            for jb in (lb..l8).step_by(8) {
                                let at = (moff + ib as isize + jb as isize * sl) as usize;
                                let to = (ib * ok + m * nl + jb, ok);
                                if !block8(self.src, (at, sl as usize), blk, to) {
                                    one(blk, ib..ib + 8, jb..jb + 8);
                                }
                            }
                        }
                        one(blk, kb..k8, l8..lend);
                        one(blk, k8..kend, lb..lend);
                    }
                }
                moff = mid.advance(&mut midx, &mid_dims, moff);
            }
            off = self.advance(&mut idx, &outer_dims, off);
        }
    }
}

/// `d` (of `dims`, row-major) with its dims reordered: result dim i is dim `order[i]`.
/// `None` if `order` does not fit `dims`.
pub(crate) fn permute(
    d: &ArrayData,
    dims: &[usize],
    order: &[usize],
    par: Parallel<'_>,
) -> Option<ArrayData> {
    let st = crate::index::strides(dims);
    let odims: Vec<usize> = order
        .iter()
        .map(|&o| dims.get(o).copied())
        .collect::<Option<_>>()?;
    let ost: Vec<isize> = order.iter().map(|&o| st[o] as isize).collect();
    copy(d, 0, &odims, &ost, par)
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::panic)]
mod tests {
    use super::*;
    use crate::parallel::Threads;

    /// The copy by its definition, one element at a time.
    fn reference(src: &[i64], base: isize, dims: &[usize], st: &[isize]) -> Vec<i64> {
        let n: usize = dims.iter().product();
        let mut idx = vec![0usize; dims.len()];
        let mut out = Vec::with_capacity(n);
        for _ in 0..n {
            let off: isize = base
                + idx
                    .iter()
                    .zip(st)
                    .map(|(&i, &s)| i as isize * s)
                    .sum::<isize>();
            out.push(src[off as usize]);
            crate::index::advance(&mut idx, dims);
        }
        out
    }

    fn row_major(dims: &[usize]) -> Vec<isize> {
        let mut st = vec![1isize; dims.len()];
        for i in (0..dims.len().saturating_sub(1)).rev() {
            st[i] = st[i + 1] * dims[i + 1] as isize;
        }
        st
    }

    /// (source length, base, dims, strides): transposes (2-D, 3-D, 4-D with dims between
    /// the tiled pair), broadcasts, reversed and strided slices, size-0 and size-1 dims.
    fn cases() -> Vec<(usize, isize, Vec<usize>, Vec<isize>)> {
        let t = |dims: &[usize], perm: &[usize]| {
            let st = row_major(dims);
            let od: Vec<usize> = perm.iter().map(|&p| dims[p]).collect();
            let os: Vec<isize> = perm.iter().map(|&p| st[p]).collect();
            (dims.iter().product(), 0, od, os)
        };
        vec![
            t(&[512, 300], &[1, 0]),
            t(&[33, 65], &[1, 0]),
            t(&[7, 40, 50], &[2, 0, 1]),
            t(&[6, 5, 40, 37], &[0, 3, 2, 1]),
            t(&[64, 32, 9, 1], &[1, 0, 3, 2]),
            t(&[3, 4, 5], &[0, 1, 2]),
            (70, 0, vec![300, 70], vec![0, 1]),
            (300, 0, vec![300, 70], vec![1, 0]),
            (5, 0, vec![4, 5, 6, 3], vec![0, 1, 0, 0]),
            (1, 0, vec![1000], vec![0]),
            (1000, 999, vec![10, 100], vec![-100, -1]),
            (1000, 900, vec![10, 50], vec![-100, 2]),
            (10_000, 205, vec![20, 7, 30], vec![400, 1, 13]),
            (10, 0, vec![3, 0, 2], vec![1, 1, 1]),
            (1, 0, vec![], vec![]),
        ]
    }

    #[test]
    fn copies_match_the_definition_on_any_thread_count() {
        let two = Threads::new(2);
        for (len, base, dims, st) in cases() {
            let src: Vec<i64> = (0..len as i64).map(|i| i * 7 - 3).collect();
            let want = reference(&src, base, &dims, &st);
            for par in [Parallel::SEQ, two.parallel()] {
                let got = copy(&ArrayData::S64(src.clone()), base, &dims, &st, par).unwrap();
                let ArrayData::S64(got) = got else { panic!() };
                assert_eq!(got, want, "{dims:?} {st:?}");
                // 4-byte elements take the 8×8 register transposes (`transpose8.rs`); f32
                // bit patterns incl. NaN payloads come through unchanged.
                let bits: Vec<f32> = src
                    .iter()
                    .map(|&x| f32::from_bits(x as u32 ^ 0x7f80_0000))
                    .collect();
                let got = copy(&ArrayData::F32(bits.clone()), base, &dims, &st, par).unwrap();
                let ArrayData::F32(got) = got else { panic!() };
                let got: Vec<u32> = got.iter().map(|x| x.to_bits()).collect();
                let want: Vec<u32> = reference(&src, base, &dims, &st)
                    .iter()
                    .map(|&x| x as u32 ^ 0x7f80_0000)
                    .collect();
                assert_eq!(got, want, "f32 {dims:?} {st:?}");
            }
        }
    }

    #[test]
    fn reads_outside_the_source_are_refused() {
        let src = ArrayData::F32(vec![0.0; 10]);
        assert!(copy(&src, 0, &[11], &[1], Parallel::SEQ).is_none());
        assert!(copy(&src, 0, &[2], &[-1], Parallel::SEQ).is_none());
        assert!(copy(&src, 5, &[2, 3], &[5, 1], Parallel::SEQ).is_none());
        assert!(copy(&src, 0, &[2], &[1, 1], Parallel::SEQ).is_none());
        assert!(copy(&src, 0, &[usize::MAX, 3], &[0, 0], Parallel::SEQ).is_none());
    }
}
