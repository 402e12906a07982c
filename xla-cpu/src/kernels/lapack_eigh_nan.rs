//! `syevd`/`heevd` of a matrix holding a NaN or an infinity, as LAPACK computes it (through
//! JAX), step by step, since where a NaN ends up depends on each step: `xSYEVD`'s scaling
//! (an infinity makes the factor 0: infinities become NaN, finite entries zero, and the
//! eigenvalues are multiplied by `inf` at the end), the tridiagonal reduction (`xSYTD2` up
//! to n = 32, whose reflectors skip columns that are already reduced, so a NaN stays where
//! no reflector reaches it; blocked `xSYTRD` from n = 33, whose panel products spread it:
//! `lapack_sytrd_blocked`), the split of the tridiagonal into blocks (`xSTEQR` up to
//! n = 25 never splits at a NaN, `xSTEDC`'s divide and conquer from n = 26 always does, so
//! a NaN there is its own 1×1 block and the solve succeeds), each block solved on its own
//! (a non-finite 1×1 block is its own eigenvalue, a non-finite larger block makes
//! `xSTEQR` fail: `None`, which JAX's wrapper turns into NaN), the eigenvalues put in
//! ascending order by the selection sort (a NaN compares false, so it stays where it is)
//! and the eigenvectors brought back through the reflectors (`xORMTR`: `lapack_ormtr`).
//! So `eigh` of a diagonal matrix with a NaN gives that NaN as one eigenvalue and the
//! others exact up to n = 32, and 39 NaN eigenvalues at n = 40, as LAPACK does. Checked
//! against JAX at n = 8, 26, 33, 40, 64 and 100 (`testdata/lapack/eigh_nan_n*`).

use super::lapack_ormtr::ormtr_lower;
use super::lapack_scalar::{Dense, Scalar};
use super::lapack_sytrd_blocked::sytrd_lower;
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

/// Whether the tridiagonal is split between `i` and `i + 1`: `xSTEQR` (n ≤ 25, what
/// `xSTEDC` hands small matrices to) splits at a zero or negligible `e[i]` and never at a
/// NaN; `xSTEDC` splits unless `|e[i]|` exceeds the threshold, so a NaN always splits.
fn splits<R: Float>(d: &[R], e: &[R], i: usize) -> bool {
    let at = |v: &[R], k: usize| {
        crate::invariant::at_or(v, k, "stedc: d and e of the matrix", R::zero())
    };
    let eps = R::epsilon() / (R::one() + R::one());
    let (x, tiny) = (
        at(e, i).abs(),
        at(d, i).abs().sqrt() * at(d, i + 1).abs().sqrt() * eps,
    );
    if d.len() <= SMLSIZ {
        x == R::zero() || x <= tiny
    } else {
        // A NaN compares as neither: a split.
        x.partial_cmp(&tiny) != Some(std::cmp::Ordering::Greater)
    }
}

/// `xSTEQR`'s crossover in `xSTEDC` (LAPACK's `SMLSIZ`).
const SMLSIZ: usize = 25;

/// The eigenvalues (sorted as LAPACK sorts them) and eigenvectors (`n`×`n` row-major,
/// columns) of the tridiagonal `d`, `e`, block by block, or `None` where LAPACK fails.
fn tridiagonal<R: Float + Scalar<R = R>>(d: &[R], e: &[R]) -> Option<(Vec<R>, Vec<R>)> {
    let n = d.len();
    let mut w = vec![R::zero(); n];
    let mut vt = vec![R::zero(); n * n];
    let mut lo = 0;
    while lo < n {
        let mut hi = lo + 1;
        while hi < n && !splits(d, e, hi - 1) {
            hi += 1;
        }
        let (vals, vecs) = block(d, e, lo, hi)?;
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
    Some((w, vt))
}

/// `xSYEVD`'s scaling of a matrix whose largest entry exceeds `sqrt(bignum)`: for an
/// infinite one (and no NaN) the factor is 0, so the infinities become NaN and every
/// finite entry zero; the eigenvalues are scaled back by `1/0 = inf` at the end. Returns
/// whether it scaled (only the lower triangle is read and written).
fn scale_infinite<T: Scalar>(a: &mut Dense<T>) -> bool {
    let n = a.rows;
    let tri = |a: &Dense<T>| -> Vec<T> {
        (0..n)
            .flat_map(|i| (0..=i).map(move |j| (i, j)))
            .map(|(i, j)| a.at(i, j))
            .collect()
    };
    let vals = tri(a);
    let nan = vals.iter().any(|x| x.re().is_nan() || x.im().is_nan());
    let inf = vals
        .iter()
        .any(|x| x.re().is_infinite() || x.im().is_infinite());
    if nan || !inf {
        return false;
    }
    for i in 0..n {
        for j in 0..=i {
            a.set(i, j, a.at(i, j).scale(T::R::zero()));
        }
    }
    true
}

/// Eigenvalues (as LAPACK leaves them) and eigenvectors (`n`×`n` row-major, columns) of
/// the `lower` (or upper) triangle of the non-finite matrix `m`, or `None` where LAPACK
/// fails. LAPACK's upper-triangle reduction mirrors the lower one step for step: it is
/// run as the lower one of the matrix with rows and columns reversed, whose tridiagonal is
/// then reversed back (the split, the solve and the sort see LAPACK's order) and whose
/// reflectors are applied to the reversed eigenvectors.
pub(crate) fn eigh_non_finite<T: Scalar>(
    m: &[T],
    n: usize,
    lower: bool,
) -> Option<(Vec<T::R>, Vec<T>)> {
    let flip = |x: usize| {
        if lower {
            x
        } else {
            (n - 1 - x / n) * n + x % n
        }
    };
    let src: Vec<T> = if lower {
        m.to_vec()
    } else {
        (0..n * n)
            .map(|x| m.get((n - 1 - x / n) * n + (n - 1 - x % n)).copied())
            .collect::<Option<_>>()?
    };
    let mut a = Dense::from(&src, n, n).ok()?;
    let scaled = scale_infinite(&mut a);
    let (mut d, mut e, tau) = sytrd_lower(&mut a);
    if !lower {
        d.reverse();
        e.reverse();
    }
    let (mut w, vt) = tridiagonal(&d, &e)?;
    let mut v = Dense {
        rows: n,
        cols: n,
        d: (0..n * n)
            .map(|x| vt.get(flip(x)).map(|&r| T::parts(r, T::R::zero())))
            .collect::<Option<_>>()?,
    };
    ormtr_lower(&a, &tau, &mut v);
    if scaled {
        for x in w.iter_mut() {
            *x *= T::R::infinity();
        }
    }
    let v = (0..n * n).map(|x| v.d.get(flip(x)).copied());
    Some((w, v.collect::<Option<_>>()?))
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

    #[test]
    fn the_blocked_reduction_spreads_a_diagonal_nan_from_n_33() {
        // diag(1..n) with a NaN in the middle: LAPACK (through JAX) gives one NaN
        // eigenvalue up to n = 32 and n - 1 from n = 33, the first eigenvalue 1.
        for (n, nans) in [(32usize, 1usize), (40, 39)] {
            let mut m = vec![0.0f64; n * n];
            for i in 0..n {
                m[i * n + i] = (i + 1) as f64;
            }
            m[(n / 2) * n + n / 2] = f64::NAN;
            let (w, _) = eigh_non_finite(&m, n, true).unwrap();
            assert_eq!(w.iter().filter(|x| x.is_nan()).count(), nans, "n = {n}");
            assert_eq!(w[0], 1.0);
        }
    }
}
