//! `potrf` of a matrix whose read triangle holds a NaN or an infinity, as JAX's LAPACK
//! (OpenBLAS, through scipy) computes it. OpenBLAS's `xPOTF2` stops only at a pivot
//! `<= 0`, a test a NaN never passes, so a NaN or infinity flows through the arithmetic:
//! `info` stays 0 and the factor is NaN exactly where the NaN reaches (JAX returns it as
//! it is; it turns the whole matrix to NaN only when `info > 0`). Which entries it reaches
//! is fixed by the dependencies `L[i][j] <- A[i][j], L[i][..j], L[j][..j]`, the same for
//! the unblocked and the recursive (blocked) factorisation, so the unblocked loop here
//! gives JAX's NaN pattern at every size (checked at n = 8 to 100,
//! `testdata/lapack/cholesky_nan_n*`). faer's factorisation, which the finite case runs,
//! stops at the first non-finite pivot instead.
//!
//! One detail of OpenBLAS differs by size: an infinite pivot scales its column by
//! `1 / inf = 0` with `xSCAL`, which writes exact zeros (a NaN below it too) inside an
//! unblocked panel, where the recursive factorisation's `xTRSM` (n > 32) multiplies (a NaN
//! stays NaN). We follow `xSCAL` for n ≤ 32 and multiply above.

use super::lapack_scalar::Scalar;
use num_traits::{Float, One, Zero};

/// Size up to which OpenBLAS's `potrf` is one unblocked `xPOTF2` (`DTB_ENTRIES / 2` on
/// x86-64).
const UNBLOCKED_UP_TO: usize = 32;

/// Whether the triangle `potrf` reads (`lower` or upper) of the row-major `n`×`n` matrix
/// `a` holds a NaN or an infinity (in either component).
pub(crate) fn has_nonfinite<T: Scalar>(a: &[T], n: usize, lower: bool) -> bool {
    (0..n).any(|i| {
        let (c0, c1) = if lower { (0, i + 1) } else { (i, n) };
        a.get(i * n + c0..i * n + c1).is_some_and(|row| {
            row.iter()
                .any(|x| !x.re().is_finite() || !x.im().is_finite())
        })
    })
}

/// The Cholesky factor of one row-major `n`×`n` matrix `a` in its `lower` (or upper)
/// triangle, the other triangle as given, and `info` (1-based index of the first pivot
/// `<= 0`, after which the matrix is left as OpenBLAS leaves it: the pivot written, later
/// columns untouched), with OpenBLAS's handling of NaN and infinity (module doc).
pub(crate) fn potf2<T: Scalar>(a: &[T], n: usize, lower: bool) -> (Vec<T>, i32) {
    // Entry (i, j), i >= j, of the Hermitian matrix the routine reads.
    let read = |i: usize, j: usize| {
        let k = if lower { i * n + j } else { j * n + i };
        let v = a.get(k).copied().unwrap_or_else(T::zero);
        if lower {
            v
        } else {
            v.cj()
        }
    };
    let mut l = vec![T::zero(); n * n];
    let mut info = 0;
    let mut done = n;
    for j in 0..n {
        let row_j = crate::invariant::span(&l, j * n..j * n + j, "potf2: n * n elements");
        let dot = row_j.iter().fold(T::R::zero(), |s, x| s + x.abs2());
        let ajj = read(j, j).re() - dot;
        if ajj.partial_cmp(&T::R::zero()).is_some_and(|o| o.is_le()) {
            if let Some(d) = l.get_mut(j * n + j) {
                *d = T::parts(ajj, T::R::zero());
            }
            info = i32::try_from(j + 1).unwrap_or(i32::MAX);
            done = j + 1;
            break;
        }
        let d = ajj.sqrt();
        if let Some(x) = l.get_mut(j * n + j) {
            *x = T::parts(d, T::R::zero());
        }
        let r = T::R::one() / d;
        for i in j + 1..n {
            let s = (0..j).fold(read(i, j), |s, k| {
                let (lik, ljk) = (at(&l, i * n + k), at(&l, j * n + k));
                s - lik * ljk.cj()
            });
            let v = if r.is_zero() && n <= UNBLOCKED_UP_TO {
                T::zero()
            } else {
                s.scale(r)
            };
            if let Some(x) = l.get_mut(i * n + j) {
                *x = v;
            }
        }
    }
    let mut out = a.to_vec();
    for j in 0..done {
        for i in j..n {
            let v = at(&l, i * n + j);
            let (k, v) = if lower {
                (i * n + j, v)
            } else {
                (j * n + i, v.cj())
            };
            if let Some(o) = out.get_mut(k) {
                *o = v;
            }
        }
    }
    (out, info)
}

fn at<T: Scalar>(v: &[T], k: usize) -> T {
    v.get(k).copied().unwrap_or_else(T::zero)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_nan_flows_where_it_reaches_with_info_zero() {
        // SPD 3x3 with a NaN at (2, 1): L[2][1] and L[2][2] are NaN, column 0 is finite.
        let a = [4.0f64, 2.0, 2.0, 2.0, 5.0, 1.0, 2.0, f64::NAN, 6.0];
        let (f, info) = potf2(&a, 3, true);
        assert_eq!(info, 0);
        assert_eq!((f[0], f[3], f[6]), (2.0, 1.0, 1.0));
        assert_eq!(f[4], 2.0);
        assert!(f[7].is_nan() && f[8].is_nan());
        assert_eq!(
            (f[1], f[2], f[5]),
            (2.0, 2.0, 1.0),
            "upper triangle as given"
        );
    }

    #[test]
    fn a_pivot_at_or_below_zero_stops_with_info() {
        // A -inf on the diagonal is a negative pivot: info 2, column 0 computed.
        let a = [4.0f64, 0.0, 2.0, f64::NEG_INFINITY];
        let (f, info) = potf2(&a, 2, true);
        assert_eq!(info, 2);
        assert_eq!((f[0], f[2]), (2.0, 1.0));
        assert_eq!(f[3], f64::NEG_INFINITY);
    }

    #[test]
    fn an_infinite_pivot_zeroes_its_column_as_xscal_does() {
        let a = [f64::INFINITY, 0.0, f64::NAN, 1.0];
        let (f, info) = potf2(&a, 2, true);
        assert_eq!(info, 0);
        assert_eq!((f[0], f[2]), (f64::INFINITY, 0.0));
        assert_eq!(f[3], 1.0);
        let b = [1.0f64, 0.0, f64::NAN, 1.0];
        assert!(has_nonfinite(&b, 2, true) && !has_nonfinite(&b, 2, false));
    }
}
