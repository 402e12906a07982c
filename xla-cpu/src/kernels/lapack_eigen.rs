//! The spectral LAPACK targets JAX's CPU lowering emits, on faer: `syevd`/`heevd`
//! (`jnp.linalg.eigh`: ascending eigenvalues, eigenvectors as columns, reading the `uplo`
//! triangle), `gesdd`/`gesvd` (`jnp.linalg.svd`: descending singular values, `mode` `A`
//! full, `S` thin, `N` values only) and `geev` (`jnp.linalg.eig`: eigenvalues, left and right
//! eigenvectors as columns, each of unit 2-norm with its largest component real, as LAPACK
//! normalises them). For `gesdd`/`geev` a matrix with a NaN or infinity gives NaN results
//! and a nonzero `info` (JAX's wrappers then return NaN, as they do for LAPACK's failures,
//! and as LAPACK's results for such matrices are); `syevd` of such a matrix follows
//! LAPACK's own steps (`lapack_eigh_nan`), which keep a NaN that no reflector reaches to
//! its own eigenvalue. Each matrix of a batch is independent. Eigenvectors and
//! singular vectors are unique only up to a sign (a phase for complex types) and, for
//! `geev`, eigenvalues come in the order faer's QR iteration finds them.

use super::lapack_eigh_nan::eigh_non_finite;
use super::lapack_householder::first;
use super::lapack_scalar::{batch_dims, by_type, not_matrices, pack, tuple_of, BatchPoll, Scalar};
use crate::error::{attribute, Result};
use crate::index::array;
use crate::invariant;
use faer::diag::Diag;
use faer::dyn_stack::{MemBuffer, MemStack};
use faer::linalg::evd::{self, ComputeEigenvectors as Want};
use faer::{Mat, MatRef, Par};
use num_complex::Complex;
use num_traits::{Float, Zero};
use xla_core::literal::ArrayData;
use xla_core::{Literal, Shape};

/// The eigendecomposition of one general matrix: eigenvalues, left and right eigenvectors
/// (columns, `n`×`n` row-major, empty when not asked for).
pub(crate) type EigOut<R> = (Vec<Complex<R>>, Vec<Complex<R>>, Vec<Complex<R>>);

/// Element types faer's general eigensolver runs on (real and complex take different
/// routines: a real matrix has conjugate pairs and real eigenvalues exactly real).
pub(crate) trait Eig: Scalar {
    /// `(w, vl, vr)` of `a` (`n`×`n`), or `None` if faer did not converge.
    fn eig(a: MatRef<'_, Self>, left: bool, right: bool) -> Option<EigOut<Self::R>>;
}

/// Scratch for faer's eigensolver on `n`×`n` matrices of `T`.
fn scratch<T: faer::traits::ComplexField>(n: usize, left: bool, right: bool) -> MemBuffer {
    let want = |b: bool| if b { Want::Yes } else { Want::No };
    MemBuffer::new(evd::evd_scratch::<T>(
        n,
        want(left),
        want(right),
        Par::Seq,
        Default::default(),
    ))
}

fn row_major<T: Copy>(m: MatRef<'_, T>) -> Vec<T> {
    let mut v = Vec::with_capacity(m.nrows() * m.ncols());
    for i in 0..m.nrows() {
        for j in 0..m.ncols() {
            v.push(m[(i, j)]);
        }
    }
    v
}

macro_rules! real_eig {
    ($t:ty) => {
        impl Eig for $t {
            fn eig(a: MatRef<'_, $t>, left: bool, right: bool) -> Option<EigOut<$t>> {
                let n = a.nrows();
                let (mut re, mut im) = (Diag::<$t>::zeros(n), Diag::<$t>::zeros(n));
                let (mut ul, mut ur) = (Mat::<$t>::zeros(n, n), Mat::<$t>::zeros(n, n));
                let mut mem = scratch::<$t>(n, left, right);
                evd::evd_real(
                    a,
                    re.as_mut(),
                    im.as_mut(),
                    left.then(|| ul.as_mut()),
                    right.then(|| ur.as_mut()),
                    Par::Seq,
                    MemStack::new(&mut mem),
                    Default::default(),
                )
                .ok()?;
                let im: Vec<$t> = (0..n).map(|j| im[j]).collect();
                let w = (0..n).map(|j| Complex::new(re[j], im[j])).collect();
                let unpack = |u: &Mat<$t>, on: bool| {
                    if on {
                        unpack_pairs(u.as_ref(), &im)
                    } else {
                        Vec::new()
                    }
                };
                Some((w, unpack(&ul, left), unpack(&ur, right)))
            }
        }
    };
}
real_eig!(f32);
real_eig!(f64);

macro_rules! complex_eig {
    ($t:ty) => {
        impl Eig for Complex<$t> {
            fn eig(a: MatRef<'_, Self>, left: bool, right: bool) -> Option<EigOut<$t>> {
                let n = a.nrows();
                let mut s = Diag::<Self>::zeros(n);
                let (mut ul, mut ur) = (Mat::<Self>::zeros(n, n), Mat::<Self>::zeros(n, n));
                let mut mem = scratch::<Self>(n, left, right);
                evd::evd_cplx(
                    a,
                    s.as_mut(),
                    left.then(|| ul.as_mut()),
                    right.then(|| ur.as_mut()),
                    Par::Seq,
                    MemStack::new(&mut mem),
                    Default::default(),
                )
                .ok()?;
                let w = (0..n).map(|j| s[j]).collect();
                let take = |u: &Mat<Self>, on: bool| {
                    if on {
                        row_major(u.as_ref())
                    } else {
                        Vec::new()
                    }
                };
                Some((w, take(&ul, left), take(&ur, right)))
            }
        }
    };
}
complex_eig!(f32);
complex_eig!(f64);

/// LAPACK's real packing of eigenvectors (a conjugate pair `j, j+1` as columns `re, im`)
/// as complex columns.
fn unpack_pairs<R: Float + Scalar<R = R>>(u: MatRef<'_, R>, im: &[R]) -> Vec<Complex<R>> {
    let n = u.nrows();
    let mut out = vec![Complex::new(R::zero(), R::zero()); n * n];
    let mut j = 0;
    while j < n {
        let pair = im.get(j).is_some_and(|x| *x != R::zero()) && j + 1 < n;
        for i in 0..n {
            if pair {
                let (a, b) = (u[(i, j)], u[(i, j + 1)]);
                out[i * n + j] = Complex::new(a, b);
                out[i * n + j + 1] = Complex::new(a, -b);
            } else {
                out[i * n + j] = Complex::new(u[(i, j)], R::zero());
            }
        }
        j += if pair { 2 } else { 1 };
    }
    out
}

/// Scales each column of `v` (`n`×`n` row-major) to unit 2-norm with its component of
/// largest modulus real (`xGEEV`'s normalisation; positive, except that a real matrix's
/// real eigenvector keeps its sign and a pair's component keeps the sign of its real part).
fn normalise<R: Float + Scalar<R = R>>(v: &mut [Complex<R>], n: usize, real_input: bool) {
    for j in 0..n {
        let col: Vec<Complex<R>> = (0..n).filter_map(|i| v.get(i * n + j).copied()).collect();
        let norm = col.iter().fold(R::zero(), |s, c| s + c.norm_sqr()).sqrt();
        if norm == R::zero() {
            continue;
        }
        let big = col
            .iter()
            .copied()
            .fold(Complex::new(R::zero(), R::zero()), |b, c| {
                if c.norm_sqr() > b.norm_sqr() {
                    c
                } else {
                    b
                }
            });
        let is_real = col.iter().all(|c| c.im == R::zero());
        let mut phase = if big.norm_sqr() == R::zero() || (real_input && is_real) {
            Complex::new(R::one(), R::zero())
        } else {
            big.conj() / big.norm()
        };
        if real_input && !is_real && big.re < R::zero() {
            phase = -phase;
        }
        let k = col.iter().position(|c| *c == big);
        for i in 0..n {
            if let Some(x) = v.get_mut(i * n + j) {
                *x = *x * phase / norm;
                if Some(i) == k {
                    x.im = R::zero();
                }
            }
        }
    }
}

fn finite<T: Scalar>(x: &[T]) -> bool {
    x.iter().all(|&v| T::finite(v))
}

fn square(dims: &[usize], what: &str) -> Result<(usize, usize)> {
    let (b, m, n) = batch_dims(dims, what)?;
    if m != n {
        return Err(not_matrices(what, dims, "a batch of square matrices"));
    }
    Ok((b, n))
}

fn syevd_k<T: Scalar>(
    x: &[T],
    dims: &[usize],
    lower: bool,
    vectors: bool,
    out: &Shape,
) -> Result<Literal> {
    let (b, n) = square(dims, "syevd")?;
    super::lapack_scratch::syevd::<T>(n)?;
    let side = if lower {
        faer::Side::Lower
    } else {
        faer::Side::Upper
    };
    let (mut vecs, mut vals, mut info) = (Vec::new(), Vec::new(), Vec::new());
    let mut poll = BatchPoll::new(b, n, n);
    for k in 0..b {
        poll.next()?;
        let m = invariant::span(x, k * n * n..(k + 1) * n * n, "eigen: b n*n matrices");
        let a = MatRef::from_row_major_slice(m, n, n);
        let res = if finite(m) {
            a.self_adjoint_eigen(side)
                .ok()
                .map(|e| ((0..n).map(|j| e.S()[j].re()).collect(), row_major(e.U())))
        } else {
            eigh_non_finite(m, n, lower)
        };
        match res {
            Some((w, v)) => {
                vals.extend::<Vec<T::R>>(w);
                if vectors {
                    vecs.extend(v);
                } else {
                    vecs.extend_from_slice(m);
                }
                info.push(0);
            }
            None => {
                vals.extend(std::iter::repeat_n(T::R::nan(), n));
                vecs.extend(std::iter::repeat_n(T::NAN, n * n));
                info.push(1);
            }
        }
    }
    pack(
        tuple_of(out, 3, "syevd")?,
        vec![T::wrap(vecs), T::R::wrap(vals), ArrayData::S32(info)],
    )
}

/// `syevd` / `heevd`: `(eigenvectors, eigenvalues, info)`.
pub(crate) fn syevd(args: &[&Literal], config: &str, out: &Shape) -> Result<Literal> {
    let (x, dims) = array(first(args, "syevd")?)?;
    let lower = super::lapack::attr(config, "uplo").unwrap_or('L') == 'L';
    let vectors = super::lapack::attr(config, "mode").unwrap_or('V') == 'V';
    by_type!(x, "syevd", syevd_k(&dims, lower, vectors, out))
}

/// Singular values, `u` and `vᴴ` (row-major) of one matrix.
type SvdOut<T> = (Vec<<T as Scalar>::R>, Vec<T>, Vec<T>);

fn svd_one<T: Scalar>(m: &[T], rows: usize, cols: usize, mode: char) -> Option<SvdOut<T>> {
    if !finite(m) {
        return None;
    }
    let a = MatRef::from_row_major_slice(m, rows, cols);
    let k = rows.min(cols);
    let s = if mode == 'A' {
        a.svd().ok()?
    } else {
        a.thin_svd().ok()?
    };
    let vals = (0..k).map(|j| s.S()[j].re()).collect();
    if mode == 'N' {
        return Some((vals, Vec::new(), Vec::new()));
    }
    let v = s.V();
    let mut vt = Vec::with_capacity(v.nrows() * v.ncols());
    for i in 0..v.ncols() {
        for j in 0..v.nrows() {
            vt.push(v[(j, i)].cj());
        }
    }
    Some((vals, row_major(s.U()), vt))
}

fn gesdd_k<T: Scalar>(x: &[T], dims: &[usize], mode: char, out: &Shape) -> Result<Literal> {
    let (b, m, n) = batch_dims(dims, "gesdd")?;
    super::lapack_scratch::gesdd::<T>(m, n, mode)?;
    let shapes = tuple_of(out, 5, "gesdd")?;
    let per = |s: Option<&Shape>| -> usize {
        s.and_then(|s| s.as_array())
            .map_or(0, |a| a.dims.iter().map(|&d| d.max(0) as usize).product())
            / b.max(1)
    };
    let (u_len, vt_len) = (per(shapes.get(2)), per(shapes.get(3)));
    let k = m.min(n);
    let (mut s, mut u, mut vt, mut info) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let mut poll = BatchPoll::new(b, m, n);
    for i in 0..b {
        poll.next()?;
        let mat = invariant::span(x, i * m * n..(i + 1) * m * n, "svd: b m*n matrices");
        let (si, ui, vi, inf) = match svd_one(mat, m, n, mode) {
            Some((si, ui, vi)) => (si, ui, vi, 0),
            None => (
                vec![T::R::nan(); k],
                vec![T::NAN; u_len],
                vec![T::NAN; vt_len],
                -4,
            ),
        };
        s.extend(si);
        u.extend(
            ui.into_iter()
                .chain(std::iter::repeat(T::zero()))
                .take(u_len),
        );
        vt.extend(
            vi.into_iter()
                .chain(std::iter::repeat(T::zero()))
                .take(vt_len),
        );
        info.push(inf);
    }
    let data = vec![
        T::wrap(x.to_vec()),
        T::R::wrap(s),
        T::wrap(u),
        T::wrap(vt),
        ArrayData::S32(info),
    ];
    pack(shapes, data)
}

/// `gesdd` / `gesvd`: `(a, s, u, vt, info)`; `mode` `A` (full `u`, `vt`), `S` (thin) or
/// `N` (values only; `u` and `vt` zero).
pub(crate) fn gesdd(args: &[&Literal], config: &str, out: &Shape) -> Result<Literal> {
    let (x, dims) = array(first(args, "gesdd")?)?;
    let mode = super::lapack::attr(config, "mode").unwrap_or('A');
    if !matches!(mode, 'A' | 'S' | 'N' | 'O') {
        return Err(attribute(
            "custom-call gesdd",
            "mode",
            format!("{mode:?}"),
            "is not A, S, N or O",
        ));
    }
    by_type!(
        x,
        "gesdd",
        gesdd_k(&dims, if mode == 'O' { 'S' } else { mode }, out)
    )
}

fn geev_k<T: Eig>(x: &[T], dims: &[usize], lr: (bool, bool), out: &Shape) -> Result<Literal> {
    let (b, n) = square(dims, "geev")?;
    super::lapack_scratch::geev::<T>(n, lr.0, lr.1)?;
    let shapes = tuple_of(out, if T::COMPLEX { 4 } else { 5 }, "geev")?;
    let nan = Complex::new(T::R::nan(), T::R::nan());
    let zero = Complex::new(T::R::zero(), T::R::zero());
    let (mut w, mut vl, mut vr, mut info) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let mut poll = BatchPoll::new(b, n, n);
    for k in 0..b {
        poll.next()?;
        let m = invariant::span(x, k * n * n..(k + 1) * n * n, "eigen: b n*n matrices");
        let got = if finite(m) {
            T::eig(MatRef::from_row_major_slice(m, n, n), lr.0, lr.1)
        } else {
            None
        };
        let Some((wk, mut l, mut r)) = got else {
            w.extend(std::iter::repeat_n(nan, n));
            vl.extend(std::iter::repeat_n(nan, n * n));
            vr.extend(std::iter::repeat_n(nan, n * n));
            info.push(1);
            continue;
        };
        normalise(&mut l, n, !T::COMPLEX);
        normalise(&mut r, n, !T::COMPLEX);
        w.extend(wk);
        vl.extend(l.into_iter().chain(std::iter::repeat(zero)).take(n * n));
        vr.extend(r.into_iter().chain(std::iter::repeat(zero)).take(n * n));
        info.push(0);
    }
    let mut data = if T::COMPLEX {
        vec![T::wrap_cplx(w)]
    } else {
        vec![
            T::R::wrap(w.iter().map(|c| c.re).collect()),
            T::R::wrap(w.iter().map(|c| c.im).collect()),
        ]
    };
    data.extend([T::wrap_cplx(vl), T::wrap_cplx(vr), ArrayData::S32(info)]);
    pack(shapes, data)
}

/// `geev`: real `(wr, wi, vl, vr, info)`, complex `(w, vl, vr, info)`; `vl`, `vr`
/// complex, computed when `compute_left` / `compute_right` is `V` (zero otherwise).
pub(crate) fn geev(args: &[&Literal], config: &str, out: &Shape) -> Result<Literal> {
    let (x, dims) = array(first(args, "geev")?)?;
    let left = super::lapack::attr(config, "compute_left").unwrap_or('N') == 'V';
    let right = super::lapack::attr(config, "compute_right").unwrap_or('V') == 'V';
    by_type!(x, "geev", geev_k(&dims, (left, right), out))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn geev_vectors_are_normalised_like_lapack() {
        // A rotation-scaling block: eigenvalues 1 ± 2i.
        let a = [1.0f64, -2.0, 2.0, 1.0];
        let (w, _, mut vr) = f64::eig(MatRef::from_row_major_slice(&a, 2, 2), false, true).unwrap();
        assert!((w[0].re - 1.0).abs() < 1e-12 && (w[0].im.abs() - 2.0).abs() < 1e-12);
        assert_eq!(w[0].conj(), w[1]);
        normalise(&mut vr, 2, true);
        for j in 0..2 {
            let norm: f64 = (0..2).map(|i| vr[i * 2 + j].norm_sqr()).sum();
            assert!((norm - 1.0).abs() < 1e-12);
            // A v = w v.
            for i in 0..2 {
                let av = Complex::new(a[i * 2], 0.0) * vr[j]
                    + Complex::new(a[i * 2 + 1], 0.0) * vr[2 + j];
                assert!((av - w[j] * vr[i * 2 + j]).norm() < 1e-12);
            }
        }
    }
}
