//! `gees` (`jax.scipy.linalg.schur`): the Schur form `T` and Schur vectors `Z` with
//! `A = Z T Zᴴ`, computed as LAPACK's `xGEES` computes them: `xGEBAL` permutations isolate
//! the eigenvalues that need no iteration (a triangular or diagonal matrix is left as it
//! is), `xGEHD2` reduces the rest to Hessenberg form, `xORGHR` forms `Z`, the Schur
//! iteration of `xLAHQR` (`lapack_hqr`, `lapack_hqr_cplx`) converges it (real: 2×2 blocks
//! of conjugate pairs in LAPACK's standard form) and `xGEBAK` undoes the permutations on
//! `Z`. Defective matrices are ordinary input; a NaN makes the iteration fail (`info > 0`,
//! NaN results) unless balancing isolated it, as in LAPACK (a diagonal matrix with a NaN
//! gives `T = A`, `Z = I`). Matrices with extreme norms are scaled first and `T` scaled
//! back after (`lapack_scale`), so an infinity gives a NaN Hessenberg part and a finite `Z`. Schur forms are unique only up to the order of the eigenvalues
//! and the signs (phases) of `Z`'s columns.

use super::lapack_householder::{first, gehd2};
use super::lapack_hqr::lahqr_real;
use super::lapack_hqr_cplx::lahqr_cplx;
use super::lapack_scalar::{
    batch_dims, by_type, not_matrices, pack, tuple_of, BatchPoll, Dense, Scalar,
};
use super::lapack_scale::{gees_scale, lascl};
use crate::error::{CpuError, Result};
use crate::index::array;
use crate::invariant;
use num_complex::Complex;
use num_traits::{Float, Zero};
use xla_core::literal::ArrayData;
use xla_core::{Literal, Shape};

/// Swaps columns `j, m` (rows `0..=l`) and rows `j, m` (columns `k..`), `xGEBAL`'s exchange.
fn exchange<T: Scalar>(a: &mut Dense<T>, j: usize, m: usize, k: usize, l: usize) {
    for r in 0..=l {
        let (x, y) = (a.at(r, j), a.at(r, m));
        a.set(r, j, y);
        a.set(r, m, x);
    }
    for c in k..a.cols {
        let (x, y) = (a.at(j, c), a.at(m, c));
        a.set(j, c, y);
        a.set(m, c, x);
    }
}

/// `xGEBAL` with `job = 'P'` (permutations only): rows with no off-diagonal nonzero in
/// the leading block are moved to its end, then columns likewise to its start (a NaN counts
/// as nonzero). Returns 0-based `(ilo, ihi)` and the permutation record `scale`.
fn gebal_p<T: Scalar>(a: &mut Dense<T>) -> (usize, usize, Vec<usize>) {
    let n = a.rows;
    let mut scale: Vec<usize> = (0..n).collect();
    if n == 0 {
        return (0, 0, scale);
    }
    let (mut k, mut l) = (0usize, n - 1);
    'rows: loop {
        for j in (0..=l).rev() {
            if (0..=l).all(|i| i == j || a.at(j, i) == T::zero()) {
                scale[l] = j;
                if j != l {
                    exchange(a, j, l, k, l);
                }
                if l == 0 {
                    return (0, 0, scale);
                }
                l -= 1;
                continue 'rows;
            }
        }
        break;
    }
    'cols: loop {
        for j in k..=l {
            if (k..=l).all(|i| i == j || a.at(i, j) == T::zero()) {
                scale[k] = j;
                if j != k {
                    exchange(a, j, k, k, l);
                }
                if k == l {
                    break 'cols;
                }
                k += 1;
                continue 'cols;
            }
        }
        break;
    }
    (k, l, scale)
}

/// `xGEBAK('P', 'R')`: undoes `gebal_p`'s permutations on the rows of `z`.
fn gebak<T: Scalar>(z: &mut Dense<T>, ilo: usize, ihi: usize, scale: &[usize]) {
    let n = z.rows;
    for ii in 0..n {
        if (ilo..=ihi).contains(&ii) {
            continue;
        }
        let i = if ii < ilo { ilo - 1 - ii } else { ii };
        let k = crate::invariant::at_or(scale, i, "gebal: one permutation entry per row", i);
        if k != i {
            for c in 0..z.cols {
                let (x, y) = (z.at(i, c), z.at(k, c));
                z.set(i, c, y);
                z.set(k, c, x);
            }
        }
    }
}

/// `xORGHR`: `Q = H(ilo) … H(ihi-1)` from the reflectors `gehd2` left below the
/// subdiagonal of `a`.
fn orghr<T: Scalar>(a: &Dense<T>, tau: &[T], ilo: usize, ihi: usize) -> Dense<T> {
    let n = a.rows;
    let mut q = Dense {
        rows: n,
        cols: n,
        d: vec![T::zero(); n * n],
    };
    for i in 0..n {
        q.set(i, i, T::one());
    }
    for i in (ilo..ihi).rev() {
        let mut v = vec![T::one()];
        v.extend(a.col(i, i + 2, ihi + 1));
        let t = crate::invariant::at_or(&tau, i, "gehrd: one tau per reflector", T::zero());
        q.reflect_left(&v, t, i + 1, 0, n);
    }
    q
}

/// The Schur iteration on the active block, real or complex: `info`.
fn hqr<T: Scalar>(
    h: &mut Dense<T>,
    z: &mut Dense<T>,
    ilo: usize,
    ihi: usize,
    w: &mut [Complex<T::R>],
) -> usize {
    if T::COMPLEX {
        return lahqr_cplx(h, z, ilo, ihi, w);
    }
    let real = |a: &Dense<T>| Dense {
        rows: a.rows,
        cols: a.cols,
        d: a.d.iter().map(|x| x.re()).collect::<Vec<T::R>>(),
    };
    let (mut hr, mut zr) = (real(h), real(z));
    let info = lahqr_real(&mut hr, &mut zr, ilo, ihi, w);
    let back = |d: &Dense<T::R>| d.d.iter().map(|&x| T::parts(x, T::R::zero())).collect();
    h.d = back(&hr);
    z.d = back(&zr);
    info
}

/// `(T, Z, w)` of one matrix.
type SchurOut<T> = (Dense<T>, Dense<T>, Vec<Complex<<T as Scalar>::R>>);

/// One matrix: `(T, Z, w)`, or `None` when the iteration does not converge.
fn schur_one<T: Scalar>(m: &[T], n: usize) -> Option<SchurOut<T>> {
    let mut h = Dense::from(m, n, n).ok()?;
    let scaled = gees_scale(&mut h);
    let (ilo, ihi, scale) = gebal_p(&mut h);
    let tau = gehd2(&mut h, ilo + 1, ihi + 1);
    let mut z = orghr(&h, &tau, ilo, ihi);
    for i in 0..n {
        for j in 0..(i.saturating_sub(1)) {
            h.set(i, j, T::zero());
        }
    }
    let mut w: Vec<Complex<T::R>> = (0..n).map(|i| h.at(i, i).cplx()).collect();
    if n > 0 && hqr(&mut h, &mut z, ilo, ihi, &mut w) != 0 {
        return None;
    }
    gebak(&mut z, ilo, ihi, &scale);
    if let Some((anrm, cscale)) = scaled {
        // Back on T's upper Hessenberg part (complex: triangle), eigenvalues from it.
        let sub = usize::from(!T::COMPLEX);
        lascl(&mut h, cscale, anrm, |i, j| i <= j + sub);
        let wi: Vec<T::R> = w.iter().map(|c| c.im).collect();
        let mut wd = Dense {
            rows: n,
            cols: 1,
            d: wi.into_iter().map(|x| T::parts(x, T::R::zero())).collect(),
        };
        lascl(&mut wd, cscale, anrm, |_, _| true);
        for (i, c) in w.iter_mut().enumerate() {
            let d = h.at(i, i);
            *c = if T::COMPLEX {
                d.cplx()
            } else {
                Complex::new(d.re(), wd.at(i, 0).re())
            };
        }
    }
    Some((h, z, w))
}

fn gees_k<T: Scalar>(x: &[T], dims: &[usize], vectors: bool, out: &Shape) -> Result<Literal> {
    let (b, m, n) = batch_dims(dims, "gees")?;
    if m != n {
        return Err(not_matrices("gees", dims, "a batch of square matrices"));
    }
    super::lapack_scratch::gees::<T>(n)?;
    let shapes = tuple_of(out, if T::COMPLEX { 5 } else { 6 }, "gees")?;
    let (mut t, mut z, mut w, mut info) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let mut poll = BatchPoll::new(b, n, n);
    for k in 0..b {
        poll.next()?;
        let mat = invariant::span(x, k * n * n..(k + 1) * n * n, "schur: b n*n matrices");
        match schur_one(mat, n) {
            Some((tk, zk, wk)) => {
                t.extend(tk.d);
                if vectors {
                    z.extend(zk.d);
                } else {
                    z.extend(std::iter::repeat_n(T::zero(), n * n));
                }
                w.extend(wk);
                info.push(0);
            }
            None => {
                t.extend(std::iter::repeat_n(T::NAN, n * n));
                z.extend(std::iter::repeat_n(T::NAN, n * n));
                w.extend(std::iter::repeat_n(
                    Complex::new(T::R::nan(), T::R::nan()),
                    n,
                ));
                info.push(1);
            }
        }
    }
    let mut data = vec![T::wrap(t), T::wrap(z)];
    if T::COMPLEX {
        data.push(T::wrap_cplx(w));
    } else {
        data.push(T::R::wrap(w.iter().map(|c| c.re).collect()));
        data.push(T::R::wrap(w.iter().map(|c| c.im).collect()));
    }
    data.extend([ArrayData::S32(vec![0; b]), ArrayData::S32(info)]);
    pack(shapes, data)
}

/// `gees`: real `(t, vs, wr, wi, sdim, info)`, complex `(t, vs, w, sdim, info)`; `mode`
/// `V` computes the Schur vectors, `sort` must be `N` (JAX's CPU lowering never sorts).
pub(crate) fn gees(args: &[&Literal], config: &str, out: &Shape) -> Result<Literal> {
    let (x, dims) = array(first(args, "gees")?)?;
    let vectors = super::lapack::attr(config, "mode").unwrap_or('V') == 'V';
    let sort = super::lapack::attr(config, "sort").unwrap_or('N');
    if sort != 'N' {
        return Err(CpuError::Unsupported(format!(
            "custom-call gees with sort = {sort:?} (eigenvalue selection)"
        )));
    }
    by_type!(x, "gees", gees_k(&dims, vectors, out))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn f64_of<R: num_traits::ToPrimitive>(x: R) -> f64 {
        x.to_f64().unwrap()
    }

    /// Checks `Zᴴ A Z = T`, `Zᴴ Z = I` and the zeros below the (quasi-)triangle.
    fn check<T: Scalar>(a: &[T], n: usize, tol: f64) -> Dense<T> {
        let (t, z, _) = schur_one(a, n).unwrap();
        let at = |m: &[T], i: usize, j: usize| m[i * n + j];
        for i in 0..n {
            for j in 0..n {
                let (mut back, mut eye) = (T::zero(), T::zero());
                for k in 0..n {
                    for l in 0..n {
                        back += at(&z.d, k, i).cj() * at(a, k, l) * at(&z.d, l, j);
                    }
                    eye += at(&z.d, k, i).cj() * at(&z.d, k, j);
                }
                let d = f64_of((back - t.at(i, j)).cplx().norm());
                assert!(d < tol, "({i},{j}) {d}");
                let want = if i == j { 1.0 } else { 0.0 };
                let e = (f64_of(eye.re()) - want).abs() + f64_of(eye.im()).abs();
                assert!(e < tol, "Z not unitary at ({i},{j})");
                if i > j + 1 || (T::COMPLEX && i > j) {
                    assert!(t.at(i, j) == T::zero(), "T({i},{j}) not zero");
                }
            }
        }
        t
    }

    #[test]
    fn real_schur_form_rebuilds_the_matrix() {
        let a = [1.0f64, -2.0, 0.5, 2.0, 1.0, 0.0, 0.3, 0.7, 3.0];
        let t = check(&a, 3, 1e-12);
        // One standardised 2x2 block (equal diagonal entries).
        let j = (0..2).find(|&j| t.at(j + 1, j) != 0.0).unwrap();
        assert!((t.at(j, j) - t.at(j + 1, j + 1)).abs() < 1e-12);
    }

    #[test]
    fn defective_matrices_have_a_schur_form() {
        // A Jordan block (eigenvalue 2, one eigenvector), a nilpotent matrix and a
        // companion matrix of (x - 1)^3.
        let jordan = [2.0f64, 1.0, 0.0, 0.0, 2.0, 1.0, 0.0, 0.0, 2.0];
        check(&jordan, 3, 1e-12);
        let nil = [0.0f64, 1.0, 2.0, 0.0, 0.0, 3.0, 0.0, 0.0, 0.0];
        check(&nil, 3, 1e-12);
        let comp = [3.0f64, -3.0, 1.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0];
        let t = check(&comp, 3, 1e-10);
        for i in 0..3 {
            assert!((t.at(i, i) - 1.0).abs() < 1e-4, "{}", t.at(i, i));
        }
        let c = [
            Complex::new(1.0f64, 1.0),
            Complex::new(1.0, 0.0),
            Complex::new(0.0, 0.0),
            Complex::new(1.0, 1.0),
        ];
        check(&c, 2, 1e-12);
    }

    #[test]
    fn a_nan_is_isolated_by_balancing_or_fails() {
        // Diagonal with a NaN: T = A, Z = I (LAPACK's balancing isolates every entry).
        let mut d = [0.0f64; 9];
        d[0] = 1.0;
        d[4] = f64::NAN;
        d[8] = 3.0;
        let (t, z, w) = schur_one(&d, 3).unwrap();
        assert!(t.at(1, 1).is_nan() && t.at(0, 0) == 1.0 && t.at(2, 2) == 3.0);
        assert_eq!(z.d, vec![1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0]);
        assert!(w[1].re.is_nan() && w[2].re == 3.0);
        // A dense matrix with a NaN: the iteration fails.
        let mut a = [1.0f64, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 10.0];
        a[1] = f64::NAN;
        assert!(schur_one(&a, 3).is_none());
    }
}
