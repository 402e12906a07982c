//! The complex steps of [`super::lapack_getrf_nan`]: `getrf` of a c64/c128 matrix holding
//! a NaN or an infinity as JAX's LAPACK (scipy's OpenBLAS 0.3.30, core `Haswell`) computes
//! it. The blocking is `getrf_single`'s (shared with the real types, `GEMM_UNROLL_N` = 2);
//! what differs is where OpenBLAS's complex kernels make NaN of an infinity:
//!
//! - `zgetf2_k.c`: the column update is `ztrsv_NLU` (column by column, `y -= x·L`) then
//!   `zgemv_n`, which sums the products and adds them times `alpha = (-1, 0)` as a complex
//!   product, so a sum with an infinite part gets NaN from `0·inf`; the pivot from
//!   `izamax` ([`super::lapack_iamax::izamax`], on `|re| + |im|`); a pivot is used when
//!   either part is `>= DBL_MIN` (a NaN part with a finite other part passes), its
//!   reciprocal by the ratio formula, the column scaled by `zscal`, whose zero-real or
//!   zero-imaginary `alpha` paths multiply by one part only and whose `alpha = 0` writes
//!   zeros;
//! - the generic `trsm_kernel_LT` (blocks of `GEMM_UNROLL_M` rows, 4 for c128 and 8 for
//!   c64, then halves): each solved entry is multiplied by the packed unit diagonal
//!   `(1, 0)` as a complex product, and the rows solved in earlier blocks come in through
//!   the GEMM kernel with `alpha = (-1, 0)`; the trailing update is that GEMM too.
//!
//! Checked in Python (the same steps) against JAX 0.10.2 (`jax.lax.linalg.lu`) on 1,728
//! c64 and c128 matrices, n = 3 to 64, a NaN or ±inf in the real or the imaginary part:
//! pivots and NaN positions identical in all; fixtures `testdata/lapack/lu_nan_*_c*`.

use super::lapack_getrf_nan::Lu;
use super::lapack_iamax::izamax;
use super::lapack_scalar::Scalar;
use num_traits::{Float, One, ToPrimitive, Zero};

/// `x + (-1, 0)·s`, the complex `alpha` of OpenBLAS's GEMV and GEMM kernels.
fn minus_alpha<T: Scalar>(x: T, s: T) -> T {
    let (m1, z) = (-T::R::one(), T::R::zero());
    T::parts(
        x.re() + (m1 * s.re() - z * s.im()),
        x.im() + (m1 * s.im() + z * s.re()),
    )
}

/// `a·b` as the kernels multiply: `(ar·br − ai·bi, ar·bi + ai·br)`.
fn mul<T: Scalar>(a: T, b: T) -> T {
    T::parts(
        a.re() * b.re() - a.im() * b.im(),
        a.re() * b.im() + a.im() * b.re(),
    )
}

/// `zscal` by `(ar, ai)`: zeros for `0`, one part only when the other is zero.
fn zscal<T: Scalar>(x: T, ar: T::R, ai: T::R) -> T {
    let z = T::R::zero();
    match (ar == z, ai == z) {
        (true, true) => T::zero(),
        (true, false) => T::parts(-ai * x.im(), ai * x.re()),
        (false, true) => T::parts(ar * x.re(), ar * x.im()),
        (false, false) => T::parts(ar * x.re() - ai * x.im(), ar * x.im() + ai * x.re()),
    }
}

/// `zgetf2`'s reciprocal of the pivot `t1 + i·t2`: `(temp3, temp4)`.
fn reciprocal<R: Float>(t1: R, t2: R) -> (R, R) {
    let one = R::one();
    if t1.abs() >= t2.abs() {
        let ratio = t2 / t1;
        let den = one / (t1 * (one + ratio * ratio));
        (den, -ratio * den)
    } else {
        let ratio = t1 / t2;
        let den = one / (t2 * (one + ratio * ratio));
        (ratio * den, -den)
    }
}

impl<T: Scalar> Lu<'_, T> {
    /// `Σ_k A[i, k0+k]·A[r0+k, c]` for `k < len`, as the GEMV/GEMM kernels accumulate.
    fn dot_cplx(&self, i: usize, k0: usize, r0: usize, c: usize, len: usize) -> T {
        (0..len).fold(T::zero(), |s, k| {
            s + mul(self.at(i, k0 + k), self.at(r0 + k, c))
        })
    }

    /// `zgetf2` on columns `c0..c1`, rows `c0..m` (left-looking, as the real `getf2`).
    pub(super) fn getf2_cplx(&mut self, c0: usize, c1: usize) -> i32 {
        let ml = self.m.saturating_sub(c0);
        let mut info = 0;
        for j in 0..c1 - c0 {
            let c = c0 + j;
            let len = j.min(ml);
            for i in 0..len {
                let p = self.pivot_row(c0 + i);
                if p != c0 + i {
                    self.swap(c0 + i, p, c);
                }
            }
            // ztrsv_NLU: forward substitution by columns.
            for i in 0..len {
                let b = self.at(c0 + i, c);
                for k in i + 1..len {
                    let v = self.at(c0 + k, c) - mul(self.at(c0 + k, c0 + i), b);
                    self.set(c0 + k, c, v);
                }
            }
            if j < ml && self.getf2_pivot_cplx(c0, j, ml) && info == 0 {
                info = i32::try_from(j + 1).unwrap_or(i32::MAX);
            }
        }
        info
    }

    /// Column `c0 + j`: `zgemv_n` below the diagonal, `izamax`, the swap and `zscal`.
    /// Returns whether the pivot was rejected (`info`).
    fn getf2_pivot_cplx(&mut self, c0: usize, j: usize, ml: usize) -> bool {
        let (c, d) = (c0 + j, c0 + j);
        for i in d..self.m {
            let s = self.dot_cplx(i, c0, c0, c, j);
            self.set(i, c, minus_alpha(self.at(i, c), s));
        }
        let mags: Vec<f64> = (d..self.m)
            .map(|i| self.at(i, c).abs1().to_f64().unwrap_or(f64::NAN))
            .collect();
        let f32 = std::mem::size_of::<T::R>() == 4;
        let jp = (j + izamax(&mags, f32)).min(ml).max(1);
        if let Some(p) = self.ipiv.get_mut(c) {
            *p = i32::try_from(jp + c0).unwrap_or(i32::MAX);
        }
        let prow = c0 + jp - 1;
        let t = self.at(prow, c);
        let dbl_min = |x: T::R| x.abs().to_f64().is_some_and(|v| v >= f64::MIN_POSITIVE);
        if !(dbl_min(t.re()) || dbl_min(t.im())) {
            return true;
        }
        if prow != d {
            for col in c0..=c {
                self.swap(d, prow, col);
            }
        }
        let (ar, ai) = reciprocal(t.re(), t.im());
        for i in d + 1..self.m {
            self.set(i, c, zscal(self.at(i, c), ar, ai));
        }
        false
    }

    /// The generic `trsm_kernel_LT` on rows `r..r+jb` (unit L from columns `r..r+jb`),
    /// columns `cols`: row blocks of `GEMM_UNROLL_M`, then halves.
    pub(super) fn trsm_cplx(&mut self, r: usize, jb: usize, cols: std::ops::Range<usize>) {
        let um = if std::mem::size_of::<T::R>() == 4 {
            8
        } else {
            4
        };
        let mut blocks = vec![um; jb / um];
        blocks.extend(
            (0..um.trailing_zeros())
                .rev()
                .map(|s| 1 << s)
                .filter(|b| jb & b != 0),
        );
        for c in cols {
            let mut kk = 0;
            for &size in &blocks {
                if kk > 0 {
                    for i in kk..kk + size {
                        let s = self.dot_cplx(r + i, r, r, c, kk);
                        self.set(r + i, c, minus_alpha(self.at(r + i, c), s));
                    }
                }
                for i in kk..kk + size {
                    let b = mul(T::one(), self.at(r + i, c));
                    self.set(r + i, c, b);
                    for k in i + 1..kk + size {
                        let v = self.at(r + k, c) - mul(b, self.at(r + k, r + i));
                        self.set(r + k, c, v);
                    }
                }
                kk += size;
            }
        }
    }

    /// The trailing update `A[r+jb.., cols] += (-1, 0)·A[r+jb.., r..r+jb]·A[r..r+jb, cols]`.
    pub(super) fn gemm_cplx(&mut self, r: usize, jb: usize, cols: std::ops::Range<usize>) {
        for i in r + jb..self.m {
            for c in cols.clone() {
                let s = self.dot_cplx(i, r, r, c, jb);
                self.set(i, c, minus_alpha(self.at(i, c), s));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::lapack_getrf_nan::getrf_openblas;
    use num_complex::Complex64 as C;

    #[test]
    fn an_infinite_part_becomes_nan_through_the_gemv_alpha() {
        // Column 0 = [1, 2, 4] (pivot row 3), column 1 has an infinity in the pivot row:
        // the update of rows 2 and 3 of column 1 multiplies l·(inf + 0i) = (inf, 0·inf),
        // and the product with alpha (-1, 0) makes both parts NaN. JAX's lu of this matrix:
        // pivots [2, 1] (0-based), the same NaN.
        let mut a = vec![
            C::new(1.0, 0.0),
            C::new(1.0, 0.0),
            C::new(2.0, 0.0),
            C::new(2.0, 1.0),
            C::new(4.0, 0.0),
            C::new(f64::INFINITY, 0.0),
        ];
        let (piv, _) = getrf_openblas(&mut a, 3, 2, 0);
        assert_eq!(piv, vec![3, 2]);
        assert_eq!(
            (a[0], a[2], a[4]),
            (C::new(4.0, 0.0), C::new(0.5, 0.0), C::new(0.25, 0.0))
        );
        assert_eq!(a[1], C::new(f64::INFINITY, 0.0));
        assert!(a[3].re.is_nan() && a[3].im.is_nan() && a[5].re.is_nan() && a[5].im.is_nan());
    }

    #[test]
    fn zscal_paths_and_the_reciprocal() {
        assert_eq!(reciprocal(2.0f64, 0.0), (0.5, -0.0));
        let x = C::new(f64::INFINITY, 1.0);
        // A real alpha scales the parts one by one: no inf·0.
        assert_eq!(zscal(x, 0.5, 0.0), C::new(f64::INFINITY, 0.5));
        assert_eq!(zscal(x, 0.0, 0.0), C::new(0.0, 0.0));
        let inf = f64::INFINITY;
        assert_eq!(zscal(x, 0.5, 0.5), C::new(inf, inf));
    }
}
