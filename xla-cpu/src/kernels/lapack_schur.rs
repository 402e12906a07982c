//! `gees` (`jax.scipy.linalg.schur`): the Schur form `T` and Schur vectors `Z` with
//! `A = Z T Zᴴ`. Built from faer's eigendecomposition: the eigenvectors, in faer's
//! eigenvalue order (a real matrix's conjugate pairs as the real basis `re, im` of their
//! invariant plane), are orthonormalised by LAPACK's Householder QR, so each leading set of
//! columns of `Z` spans an invariant subspace and `T = Zᴴ A Z` is upper triangular (real:
//! quasi-triangular, each 2×2 block rotated to LAPACK's standard form with equal diagonal
//! entries). Schur forms are unique only up to the order of the eigenvalues and the signs
//! (phases) of `Z`'s columns; a defective matrix (no basis of eigenvectors) is out of reach
//! of this construction and gives a nonzero `info`.

use super::lapack_eigen::Eig;
use super::lapack_householder::{first, geqr2, org2r};
use super::lapack_scalar::{batch_dims, by_type, pack, tuple_of, Dense, Scalar};
use crate::error::{invalid, Result};
use crate::index::array;
use crate::invariant;
use faer::MatRef;
use num_complex::Complex;
use num_traits::{Float, Zero};
use xla_core::literal::ArrayData;
use xla_core::{Literal, Shape};

/// `op(x) · y`, `op` the conjugate transpose when `adjoint`.
fn mul<T: Scalar>(x: &Dense<T>, y: &Dense<T>, adjoint: bool) -> Dense<T> {
    let (r, inner) = if adjoint {
        (x.cols, x.rows)
    } else {
        (x.rows, x.cols)
    };
    let mut out = Dense {
        rows: r,
        cols: y.cols,
        d: vec![T::zero(); r * y.cols],
    };
    for i in 0..r {
        for j in 0..y.cols {
            let s = (0..inner).fold(T::zero(), |s, k| {
                let xv = if adjoint { x.at(k, i).cj() } else { x.at(i, k) };
                s + xv * y.at(k, j)
            });
            out.set(i, j, s);
        }
    }
    out
}

/// `Qᴴ A Q`.
fn similar<T: Scalar>(q: &Dense<T>, a: &Dense<T>) -> Dense<T> {
    mul(q, &mul(a, q, false), true)
}

/// The basis the eigenvectors give: complex columns as they are, a real matrix's pair
/// `v, v̄` as `re v, im v`.
fn basis<T: Scalar>(w: &[Complex<T::R>], vr: &[Complex<T::R>], n: usize) -> Dense<T> {
    let mut b = Dense {
        rows: n,
        cols: n,
        d: vec![T::zero(); n * n],
    };
    let mut j = 0;
    while j < n {
        let pair = !T::COMPLEX && w.get(j).is_some_and(|c| c.im != T::R::zero()) && j + 1 < n;
        for i in 0..n {
            let v = vr
                .get(i * n + j)
                .copied()
                .unwrap_or(Complex::new(T::R::zero(), T::R::zero()));
            b.set(i, j, T::parts(v.re, v.im));
            if pair {
                b.set(i, j + 1, T::parts(v.im, T::R::zero()));
            }
        }
        j += if pair { 2 } else { 1 };
    }
    b
}

/// Rotates columns `j, j+1` of `q` so the 2×2 block of `Qᵀ A Q` there has equal diagonal
/// entries (LAPACK's standard form of a complex-conjugate pair).
fn standardise<T: Scalar>(q: &mut Dense<T>, a: &Dense<T>, j: usize) {
    let t = similar(q, a);
    let (p, s) = (
        t.at(j, j) - t.at(j + 1, j + 1),
        t.at(j, j + 1) + t.at(j + 1, j),
    );
    let theta = (-p.re()).atan2(s.re()) * T::half();
    let (c, sn) = (theta.cos(), theta.sin());
    for i in 0..q.rows {
        let (x, y) = (q.at(i, j), q.at(i, j + 1));
        q.set(i, j, x.scale(c) + y.scale(sn));
        q.set(i, j + 1, y.scale(c) - x.scale(sn));
    }
}

/// `(T, Z, w)` of one matrix.
type SchurOut<T> = (Dense<T>, Dense<T>, Vec<Complex<<T as Scalar>::R>>);

/// One matrix: `(T, Z, w)` or `None` when faer does not converge.
fn schur_one<T: Eig>(m: &[T], n: usize) -> Option<SchurOut<T>> {
    if !m.iter().all(|&v| T::finite(v)) {
        return None;
    }
    let (w, _, vr) = T::eig(MatRef::from_row_major_slice(m, n, n), false, true)?;
    let a = Dense::from(m, n, n).ok()?;
    let mut q = basis::<T>(&w, &vr, n);
    let tau = geqr2(&mut q);
    org2r(&mut q, &tau);
    let pairs: Vec<usize> = (0..n.saturating_sub(1))
        .filter(|&j| !T::COMPLEX && w.get(j).is_some_and(|c| c.im > T::R::zero()))
        .collect();
    for &j in &pairs {
        standardise(&mut q, &a, j);
    }
    let mut t = similar(&q, &a);
    for i in 0..n {
        for j in 0..i {
            if !(i == j + 1 && pairs.contains(&j)) {
                t.set(i, j, T::zero());
            }
        }
    }
    let mut w_out = Vec::with_capacity(n);
    for j in 0..n {
        let d = t.at(j, j).cplx();
        let im = if pairs.contains(&j) {
            (t.at(j, j + 1).re().abs().sqrt()) * (t.at(j + 1, j).re().abs().sqrt())
        } else if j > 0 && pairs.contains(&(j - 1)) {
            -((t.at(j - 1, j).re().abs().sqrt()) * (t.at(j, j - 1).re().abs().sqrt()))
        } else {
            d.im
        };
        w_out.push(Complex::new(d.re, im));
    }
    Some((t, q, w_out))
}

fn gees_k<T: Eig>(x: &[T], dims: &[usize], vectors: bool, out: &Shape) -> Result<Literal> {
    let (b, m, n) = batch_dims(dims, "gees")?;
    if m != n {
        return Err(invalid(format!(
            "custom-call gees: {m}x{n} matrices are not square"
        )));
    }
    let shapes = tuple_of(out, if T::COMPLEX { 5 } else { 6 }, "gees")?;
    let (mut t, mut z, mut w, mut info) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for k in 0..b {
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
        return Err(invalid(format!(
            "custom-call gees: sort = {sort:?} (eigenvalue selection) is not supported"
        )));
    }
    by_type!(x, "gees", gees_k(&dims, vectors, out))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn real_schur_form_rebuilds_the_matrix() {
        let a = [1.0f64, -2.0, 0.5, 2.0, 1.0, 0.0, 0.3, 0.7, 3.0];
        let (t, z, w) = schur_one(&a, 3).unwrap();
        let d = Dense::from(&a, 3, 3).unwrap();
        // Zᵀ A Z = T (the entries set to zero are zero to rounding), Zᵀ Z = I.
        let back = similar(&z, &d);
        for k in 0..9 {
            assert!((back.d[k] - t.d[k]).abs() < 1e-12, "{k}");
        }
        let eye = similar(
            &z,
            &Dense::from(&[1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0], 3, 3).unwrap(),
        );
        let zz = similar(
            &Dense::from(&[1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0], 3, 3).unwrap(),
            &eye,
        );
        for k in 0..9 {
            let want = if k % 4 == 0 { 1.0 } else { 0.0 };
            assert!((zz.d[k] - want).abs() < 1e-12, "{k}");
        }
        // One conjugate pair in a standardised block (equal diagonal), one real value.
        let pair: Vec<usize> = (0..3).filter(|&j| w[j].im > 0.0).collect();
        assert_eq!(pair.len(), 1);
        let j = pair[0];
        assert!((t.at(j, j) - t.at(j + 1, j + 1)).abs() < 1e-12);
        assert!(
            (w[j].im + w[j + 1].im).abs() < 1e-12 && w.iter().filter(|c| c.im == 0.0).count() == 1
        );
    }
}
