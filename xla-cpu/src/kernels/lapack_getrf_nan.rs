//! `getrf` of a real matrix holding a NaN or an infinity, as JAX's LAPACK (scipy's
//! OpenBLAS 0.3.30, core `Haswell`) computes it, so the pivots and the NaN pattern are
//! JAX's. With finite entries every LU with partial pivoting picks the same pivots; with a
//! NaN they depend on OpenBLAS's own steps, taken here:
//!
//! - `getrf_single` (`lapack/getrf/getrf_single.c`): panels of `blocking` columns
//!   (`mn / 2` rounded up to `GEMM_UNROLL_N`, 8 for f64, 4 for f32), factored recursively
//!   down to the unblocked `getf2` (up to n = 33 for f64, 17 for f32, the whole matrix);
//!   row swaps on the trailing columns, a unit lower triangular solve, a GEMM update, and
//!   the remaining swaps on the left columns at the end;
//! - `getf2` (`lapack/getf2/getf2_k.c`): left-looking; the pivot from OpenBLAS's
//!   `i?amax` ([`super::lapack_iamax`], whose answer with a NaN depends on the entry's
//!   address: XLA's buffers are 64-byte aligned and JAX factors matrix `b` of a batch at
//!   element offset `b·m·n`, column-major); a pivot whose magnitude is not `>=` the
//!   smallest normal (a NaN, or a subnormal) is recorded but neither swapped nor divided;
//!   a pivot `1 / inf = 0` zeroes its column (`xSCAL` with 0 writes zeros);
//! - f32's triangular solve runs OpenBLAS's Haswell `strsm` kernel, which in 4-column
//!   chunks solves rows in pairs and multiplies the first row of a pair by `0` once more
//!   (`x - 0·x`): an infinity there becomes NaN.
//!
//! Checked in Python against JAX 0.10.2 (`jax.lax.linalg.lu`) on 648 matrices (f32 and
//! f64, n = 3 to 65, a NaN, an infinity, in the middle, corners, a diagonal, a triangle,
//! two at once): pivots and NaN positions identical in all; fixtures
//! `testdata/lapack/lu_nan_*`. Complex matrices take the same blocking with OpenBLAS's
//! complex kernels ([`super::lapack_getrf_cplx`]).

use super::lapack_iamax::iamax;
use super::lapack_scalar::Scalar;
use num_traits::{Float, ToPrimitive};

/// One matrix being factored: row-major `m`×`n` (JAX's logical matrix; LAPACK sees the
/// same matrix column-major), its place in the batch, and the pivots so far.
pub(super) struct Lu<'a, T> {
    a: &'a mut [T],
    pub(super) m: usize,
    n: usize,
    /// Element offset of entry (0, 0) from a 64-byte aligned address.
    base: usize,
    pub(super) ipiv: Vec<i32>,
}

/// `(pivots, info)` of one row-major `m`×`n` matrix factored in place as OpenBLAS does
/// (module doc); `batch` is its index in the batch.
pub(crate) fn getrf_openblas<T: Scalar>(
    a: &mut [T],
    m: usize,
    n: usize,
    batch: usize,
) -> (Vec<i32>, i32) {
    let mut lu = Lu {
        a,
        m,
        n,
        base: batch.saturating_mul(m * n),
        ipiv: vec![0; m.min(n)],
    };
    let info = lu.single(0, n);
    (lu.ipiv, info)
}

/// Whether a matrix holds a NaN or an infinity (in either part).
pub(crate) fn has_nonfinite<T: Scalar>(a: &[T]) -> bool {
    a.iter().any(|x| !x.re().is_finite() || !x.im().is_finite())
}

impl<T: Scalar> Lu<'_, T> {
    pub(super) fn at(&self, i: usize, j: usize) -> T {
        self.a.get(i * self.n + j).copied().unwrap_or_else(T::zero)
    }

    pub(super) fn set(&mut self, i: usize, j: usize, v: T) {
        if let Some(x) = self.a.get_mut(i * self.n + j) {
            *x = v;
        }
    }

    pub(super) fn swap(&mut self, i: usize, k: usize, j: usize) {
        let (x, y) = (self.at(i, j), self.at(k, j));
        self.set(i, j, y);
        self.set(k, j, x);
    }

    fn f32(&self) -> bool {
        std::mem::size_of::<T>() == 4
    }

    /// `GEMM_UNROLL_N` of the Haswell kernels.
    fn unroll(&self) -> usize {
        if T::COMPLEX {
            2
        } else if self.f32() {
            4
        } else {
            8
        }
    }

    /// `getrf_single` on columns `c0..c1` and rows `c0..m` (the recursive panel calls
    /// give `range_n`; the top call is `0..n`). Returns `info` relative to `c0`.
    fn single(&mut self, c0: usize, c1: usize) -> i32 {
        let (m, n) = (self.m.saturating_sub(c0), c1.saturating_sub(c0));
        if m == 0 || n == 0 {
            return 0;
        }
        let mn = m.min(n);
        let u = self.unroll();
        let blocking = (mn / 2).div_ceil(u).saturating_mul(u).min(256);
        if blocking <= 2 * u {
            return if T::COMPLEX {
                self.getf2_cplx(c0, c1)
            } else {
                self.getf2(c0, c1)
            };
        }
        let mut info = 0;
        for j in (0..mn).step_by(blocking) {
            let jb = blocking.min(mn - j);
            let iinfo = self.single(c0 + j, c0 + j + jb);
            if iinfo != 0 && info == 0 {
                info = iinfo + i32::try_from(j).unwrap_or(i32::MAX);
            }
            if j + jb < n {
                let (r, cols) = (c0 + j, c0 + j + jb..c0 + n);
                self.laswp(cols.clone(), r, r + jb);
                if T::COMPLEX {
                    self.trsm_cplx(r, jb, cols.clone());
                    self.gemm_cplx(r, jb, cols);
                } else {
                    self.trsm(r, jb, cols.clone());
                    self.gemm(r, jb, cols);
                }
            }
        }
        for j in (0..mn).step_by(blocking) {
            let jb = blocking.min(mn - j);
            self.laswp(c0 + j..c0 + j + jb, c0 + j + jb, c0 + mn);
        }
        info
    }

    /// Row swaps of pivots `k0..k1` (0-based, global rows) on columns `cols`.
    fn laswp(&mut self, cols: std::ops::Range<usize>, k0: usize, k1: usize) {
        for k in k0..k1 {
            let p = self.pivot_row(k);
            if p != k {
                for j in cols.clone() {
                    self.swap(k, p, j);
                }
            }
        }
    }

    pub(super) fn pivot_row(&self, k: usize) -> usize {
        let p = crate::invariant::at(&self.ipiv, k, "getf2: one pivot per column");
        usize::try_from(p).map_or(k, |p| p.saturating_sub(1))
    }

    /// The unit lower triangular solve of rows `r..r+jb` (L from columns `r..r+jb`) on
    /// `cols`, in OpenBLAS's 4-column chunks, 8/4/2/1-row blocks.
    fn trsm(&mut self, r: usize, jb: usize, cols: std::ops::Range<usize>) {
        let (start, end) = (cols.start, cols.end);
        for q in (start..end).step_by(4) {
            let w = 4.min(end - q);
            let pairs = self.f32() && w == 4;
            let mut s = 0;
            let mut blocks = vec![8; jb / 8];
            blocks.extend([4, 2, 1].into_iter().filter(|b| jb % 8 & b != 0));
            for size in blocks {
                for c in q..q + w {
                    self.trsm_block(r, s, size, c, pairs);
                }
                s += size;
            }
        }
    }

    /// Rows `r+s..r+s+size` of column `c`: the update from the rows solved before, then
    /// the solve inside the block.
    fn trsm_block(&mut self, r: usize, s: usize, size: usize, c: usize, pairs: bool) {
        for i in s..s + size {
            let sum = (0..s).fold(T::zero(), |acc, k| {
                acc + self.at(r + i, r + k) * self.at(r + k, c)
            });
            self.set(r + i, c, self.at(r + i, c) - sum);
        }
        for i in s..s + size {
            let v = self.at(r + i, c);
            for k in i + 1..s + size {
                let l = self.at(r + k, r + i);
                self.set(r + k, c, self.at(r + k, c) - l * v);
            }
            if pairs && size >= 2 && (i - s) % 2 == 0 {
                self.set(r + i, c, v - T::zero() * v);
            }
        }
    }

    /// Rows below the panel: `A[r+jb.., cols] -= A[r+jb.., r..r+jb] · A[r..r+jb, cols]`.
    fn gemm(&mut self, r: usize, jb: usize, cols: std::ops::Range<usize>) {
        for i in r + jb..self.m {
            for c in cols.clone() {
                let sum = (r..r + jb).fold(T::zero(), |acc, k| acc + self.at(i, k) * self.at(k, c));
                self.set(i, c, self.at(i, c) - sum);
            }
        }
    }

    /// OpenBLAS's unblocked, left-looking `getf2` on columns `c0..c1`, rows `c0..m`.
    fn getf2(&mut self, c0: usize, c1: usize) -> i32 {
        let ml = self.m.saturating_sub(c0);
        let mut info = 0;
        for j in 0..c1 - c0 {
            let c = c0 + j;
            for i in 0..j.min(ml) {
                let p = self.pivot_row(c0 + i);
                if p != c0 + i {
                    self.swap(c0 + i, p, c);
                }
            }
            for i in 1..j.min(ml) {
                let dot = (0..i).fold(T::zero(), |s, k| {
                    s + self.at(c0 + i, c0 + k) * self.at(c0 + k, c)
                });
                self.set(c0 + i, c, self.at(c0 + i, c) - dot);
            }
            if j < ml && self.getf2_pivot(c0, j, ml) && info == 0 {
                info = i32::try_from(j + 1).unwrap_or(i32::MAX);
            }
        }
        info
    }

    /// Column `c0 + j` of `getf2`: the update below the diagonal, the pivot, the swap and
    /// the scaling. Returns whether the pivot is zero.
    fn getf2_pivot(&mut self, c0: usize, j: usize, ml: usize) -> bool {
        let (c, d) = (c0 + j, c0 + j);
        for i in d..self.m {
            let dot = (0..j).fold(T::zero(), |s, k| {
                s + self.at(i, c0 + k) * self.at(c0 + k, c)
            });
            self.set(i, c, self.at(i, c) - dot);
        }
        let mags: Vec<f64> = (d..self.m)
            .map(|i| self.at(i, c).re().abs().to_f64().unwrap_or(f64::NAN))
            .collect();
        let size = std::mem::size_of::<T>();
        let addr = (self.base + d + c * self.m).wrapping_mul(size) % 64;
        let jp = (j + iamax(&mags, addr, self.f32())).min(ml).max(1);
        if let Some(p) = self.ipiv.get_mut(c) {
            *p = i32::try_from(jp + c0).unwrap_or(i32::MAX);
        }
        let prow = c0 + jp - 1;
        let t = self.at(prow, c);
        if t == T::zero() {
            return true;
        }
        if t.re().abs() >= T::R::min_positive_value() {
            let inv = T::one() / t;
            if prow != d {
                for col in c0..=c {
                    self.swap(d, prow, col);
                }
            }
            for i in d + 1..self.m {
                let v = if inv == T::zero() {
                    T::zero()
                } else {
                    self.at(i, c) * inv
                };
                self.set(i, c, v);
            }
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finite_matrices_factor_as_partial_pivoting() {
        let mut a = vec![1.0f64, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 10.0];
        let (piv, info) = getrf_openblas(&mut a, 3, 3, 0);
        assert_eq!((piv, info), (vec![3, 3, 3], 0));
        assert!((a[0] - 7.0).abs() < 1e-12 && (a[3] - 1.0 / 7.0).abs() < 1e-12);
    }

    #[test]
    fn a_nan_pivot_is_recorded_but_not_swapped() {
        // Column 0 is [NaN, 1, 2]: idamax (NaN first, n = 3) returns 1, the NaN; its
        // magnitude is not >= the smallest normal, so nothing is swapped or divided.
        let mut a = vec![f64::NAN, 0.0, 0.0, 1.0, 1.0, 0.0, 2.0, 0.0, 1.0];
        let (piv, _) = getrf_openblas(&mut a, 3, 3, 0);
        assert_eq!(piv[0], 1);
        assert_eq!((a[3], a[6]), (1.0, 2.0));
    }
}
