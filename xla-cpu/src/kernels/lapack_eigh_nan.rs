//! `syevd`/`heevd` of a matrix holding a NaN or an infinity, as LAPACK computes it (through
//! JAX): the tridiagonal reduction (`xSYTD2`, whose reflectors skip columns that are
//! already reduced, so a NaN stays where no reflector reaches it), the tridiagonal split
//! where an off-diagonal entry is exactly zero, each block solved on its own (a non-finite
//! 1×1 block is its own eigenvalue, a non-finite larger block makes `xSTEQR` fail: `None`,
//! which JAX's wrapper turns into NaN), the eigenvalues put in ascending order by
//! `xSTEQR`'s selection sort (a NaN compares false, so it stays where it is) and the
//! eigenvectors brought back through the reflectors (`xORMTR`). So `eigh` of a diagonal
//! matrix with a NaN gives that NaN as one eigenvalue and the others exact, as LAPACK does.

use super::lapack_householder::sytd2;
use super::lapack_scalar::{Dense, Scalar};
use faer::{Mat, Side};
use num_traits::{Float, Zero};

/// The eigenvalues and eigenvectors (columns) of the symmetric tridiagonal block
/// `d[lo..hi]`, `e[lo..hi-1]`, or `None` if it is not finite and larger than 1×1.
fn block<R: Float + Scalar<R = R>>(
    d: &[R],
    e: &[R],
    lo: usize,
    hi: usize,
) -> Option<(Vec<R>, Vec<R>)> {
    let k = hi - lo;
    if k == 1 {
        return Some((vec![d.get(lo).copied()?], vec![R::one()]));
    }
    let dd = d.get(lo..hi)?;
    let ee = e.get(lo..hi - 1)?;
    if !dd.iter().chain(ee).all(|x| x.is_finite()) {
        return None;
    }
    let t = Mat::<R>::from_fn(k, k, |i, j| {
        if i == j {
            dd[i]
        } else if i == j + 1 {
            ee[j]
        } else if j == i + 1 {
            ee[i]
        } else {
            R::zero()
        }
    });
    let eig = t.self_adjoint_eigen(Side::Lower).ok()?;
    let vals = (0..k).map(|j| eig.S()[j]).collect();
    let u = eig.U();
    let vecs = (0..k * k).map(|x| u[(x / k, x % k)]).collect();
    Some((vals, vecs))
}

/// `xSTEQR`'s final selection sort (ascending; a NaN compares false), swapping the
/// columns of `v` (`n`×`n` row-major) along.
fn selection_sort<R: Float>(w: &mut [R], v: &mut [R], n: usize) {
    for i in 0..n.saturating_sub(1) {
        let (mut k, mut p) = (i, w[i]);
        for (j, &x) in w.iter().enumerate().skip(i + 1) {
            if x < p {
                k = j;
                p = x;
            }
        }
        if k != i {
            w[k] = w[i];
            w[i] = p;
            for r in 0..n {
                v.swap(r * n + i, r * n + k);
            }
        }
    }
}

/// `Q · V` for the `Q` of `sytd2`'s reflectors stored in `a` (`xORMTR`).
fn apply_q<T: Scalar>(a: &Dense<T>, tau: &[T], v: &mut Dense<T>, lower: bool) {
    let n = a.rows;
    if lower {
        for i in (0..n.saturating_sub(1)).rev() {
            let mut x = vec![T::one()];
            x.extend(a.col(i, i + 2, n));
            let t = tau.get(i).copied().unwrap_or(T::zero());
            v.reflect_left(&x, t, i + 1, 0, n);
        }
    } else {
        for i in 0..n.saturating_sub(1) {
            let mut x = a.col(i + 1, 0, i);
            x.push(T::one());
            let t = tau.get(i).copied().unwrap_or(T::zero());
            v.reflect_left(&x, t, 0, 0, n);
        }
    }
}

/// Eigenvalues (ascending as LAPACK leaves them) and eigenvectors (`n`×`n` row-major,
/// columns) of the `lower` (or upper) triangle of the non-finite matrix `m`, or `None`
/// where LAPACK fails.
pub(crate) fn eigh_non_finite<T: Scalar>(
    m: &[T],
    n: usize,
    lower: bool,
) -> Option<(Vec<T::R>, Vec<T>)> {
    let mut a = Dense::from(m, n, n).ok()?;
    let (d, e, tau) = sytd2(&mut a, lower);
    let mut w = vec![T::R::zero(); n];
    let mut vt = vec![T::R::zero(); n * n];
    let mut lo = 0;
    while lo < n {
        let mut hi = lo + 1;
        while hi < n && e.get(hi - 1).is_some_and(|x| *x != T::R::zero()) {
            hi += 1;
        }
        let (vals, vecs) = block(&d, &e, lo, hi)?;
        let k = hi - lo;
        for (j, x) in vals.into_iter().enumerate() {
            w[lo + j] = x;
        }
        for (x, val) in vecs.into_iter().enumerate() {
            vt[(lo + x / k) * n + lo + x % k] = val;
        }
        lo = hi;
    }
    selection_sort(&mut w, &mut vt, n);
    let mut v = Dense {
        rows: n,
        cols: n,
        d: vt.into_iter().map(|x| T::parts(x, T::R::zero())).collect(),
    };
    apply_q(&a, &tau, &mut v, lower);
    Some((w, v.d))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn a_nan_on_the_diagonal_stays_one_eigenvalue() {
        // diag(3, NaN, 1, -2): LAPACK (through JAX) gives [-2, NaN, 1, 3] and the matching
        // permutation of the identity.
        let mut m = vec![0.0f64; 16];
        for (i, x) in [3.0, f64::NAN, 1.0, -2.0].into_iter().enumerate() {
            m[i * 5] = x;
        }
        let (w, v) = eigh_non_finite(&m, 4, true).unwrap();
        assert_eq!(w[0], -2.0);
        assert!(w[1].is_nan());
        assert_eq!((w[2], w[3]), (1.0, 3.0));
        let want = [
            0., 0., 0., 1., 0., 1., 0., 0., 0., 0., 1., 0., 1., 0., 0., 0.,
        ];
        assert_eq!(v, want);
        // A NaN that the reduction spreads: LAPACK fails.
        let mut dense = vec![1.0f64; 9];
        dense[4] = f64::NAN;
        assert!(eigh_non_finite(&dense, 3, true).is_none());
    }
}
