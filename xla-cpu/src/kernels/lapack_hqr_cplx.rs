//! LAPACK's complex Schur iteration `xLAHQR` (`zlahqr`, `wantt` and `wantz`): single-shift
//! QR with Wilkinson's shift on an upper Hessenberg matrix whose subdiagonal is kept real,
//! the deflation test and exceptional shifts of the real iteration (`lapack_hqr`).

use super::lapack_hqr::{clear_trash, small_subdiag};
use super::lapack_scalar::{cdiv, div_re, larfg, Dense, Scalar};
use num_complex::Complex;
use num_traits::{Float, One, Zero};

const KEXSH: usize = 10;

/// `|x|` of a complex value.
fn modulus<T: Scalar>(x: T) -> T::R {
    x.cplx().norm()
}

/// `x · s` for complex `s` on entries `at` of `a`.
fn scale_at<T: Scalar>(a: &mut Dense<T>, at: impl Iterator<Item = (usize, usize)>, s: T) {
    for (r, c) in at {
        let x = a.at(r, c) * s;
        a.set(r, c, x);
    }
}

/// Makes the subdiagonal of the active block real (`zlahqr`'s first loop).
fn real_subdiagonal<T: Scalar>(h: &mut Dense<T>, z: &mut Dense<T>, ilo: usize, ihi: usize) {
    let n = h.rows;
    for i in ilo + 1..=ihi {
        let x = h.at(i, i - 1);
        if x.im() != T::R::zero() {
            let sc = div_re(x, x.abs1());
            let sc = div_re(sc.cj(), modulus(sc));
            h.set(i, i - 1, T::parts(modulus(x), T::R::zero()));
            scale_at(h, (i..n).map(|j| (i, j)), sc);
            scale_at(h, (0..=(i + 1).min(n - 1)).map(|r| (r, i)), sc.cj());
            scale_at(z, (ilo..=ihi).map(|r| (r, i)), sc.cj());
        }
    }
}

/// Complex Schur iteration on rows and columns `ilo..=ihi` of the Hessenberg `h`,
/// accumulating into `z` (rows `ilo..=ihi`): eigenvalues into `w[ilo..=ihi]`, returns
/// `info` (0, or 1 + the row that did not converge).
pub(crate) fn lahqr_cplx<T: Scalar>(
    h: &mut Dense<T>,
    z: &mut Dense<T>,
    ilo: usize,
    ihi: usize,
    w: &mut [Complex<T::R>],
) -> usize {
    let n = h.rows;
    if n == 0 || ihi >= n || ilo > ihi {
        return 0;
    }
    if ilo == ihi {
        if let Some(x) = w.get_mut(ilo) {
            *x = h.at(ilo, ilo).cplx();
        }
        return 0;
    }
    clear_trash(h, ilo, ihi);
    real_subdiagonal(h, z, ilo, ihi);
    let itmax = 30 * (ihi + 1 - ilo).max(10);
    let mut kdefl = 0;
    let mut i = ihi;
    loop {
        let mut l = ilo;
        let mut split = false;
        for _ in 0..=itmax {
            l = small_subdiag(h, l, i, ihi, ilo);
            if l > ilo {
                h.set(l, l - 1, T::zero());
            }
            if l >= i {
                split = true;
                break;
            }
            kdefl += 1;
            let t = shift(h, l, i, kdefl);
            let (m, v) = start(h, l, i, t, ihi + 1 - ilo);
            sweep(h, z, (m, l, i), v, (ilo, ihi));
            real_last(h, z, i, (ilo, ihi));
        }
        if !split {
            return i + 1;
        }
        if let Some(x) = w.get_mut(i) {
            *x = h.at(i, i).cplx();
        }
        kdefl = 0;
        if l <= ilo {
            return 0;
        }
        i = l - 1;
    }
}

fn csqrt<T: Scalar>(x: T) -> T {
    let c = x.cplx().sqrt();
    T::parts(c.re, c.im)
}

/// Wilkinson's shift, or LAPACK's exceptional shifts.
fn shift<T: Scalar>(h: &Dense<T>, l: usize, i: usize, kdefl: usize) -> T {
    let dat1 = <T::R as num_traits::NumCast>::from(0.75).unwrap_or_else(T::R::one);
    let re = |x: T::R| T::parts(x, T::R::zero());
    if kdefl % (2 * KEXSH) == 0 {
        return re(dat1 * h.at(i, i - 1).re().abs()) + h.at(i, i);
    }
    if kdefl % KEXSH == 0 {
        return re(dat1 * h.at(l + 1, l).re().abs()) + h.at(l, l);
    }
    let mut t = h.at(i, i);
    let u = csqrt(h.at(i - 1, i)) * csqrt(h.at(i, i - 1));
    let s = u.abs1();
    if s != T::R::zero() {
        let x = (h.at(i - 1, i - 1) - t).scale(T::half());
        let sx = x.abs1();
        let s = s.max(sx);
        let (xs, us) = (div_re(x, s), div_re(u, s));
        let mut y = csqrt(xs * xs + us * us).scale(s);
        if sx > T::R::zero() {
            let d = div_re(x, sx);
            if d.re() * y.re() + d.im() * y.im() < T::R::zero() {
                y = -y;
            }
        }
        t = t - u * cdiv(u, x + y);
    }
    t
}

/// The row `m` where the single-shift step starts and its first reflector's vector.
fn start<T: Scalar>(h: &Dense<T>, l: usize, i: usize, t: T, nh: usize) -> (usize, [T; 2]) {
    let ulp = T::R::epsilon();
    let _ = nh;
    let first = |m: usize| {
        let h11s = h.at(m, m) - t;
        let h21 = h.at(m + 1, m).re();
        let s = h11s.abs1() + h21.abs();
        (div_re(h11s, s), h21 / s)
    };
    for m in (l + 1..i).rev() {
        let (h11s, h21) = first(m);
        let h10 = h.at(m, m - 1).re();
        let bound = ulp * (h11s.abs1() * (h.at(m, m).abs1() + h.at(m + 1, m + 1).abs1()));
        if h10.abs() * h21.abs() <= bound {
            return (m, [h11s, T::parts(h21, T::R::zero())]);
        }
    }
    let (h11s, h21) = first(l);
    (l, [h11s, T::parts(h21, T::R::zero())])
}

/// One single-shift QR sweep from row `m` to `i` (`zlahqr`'s loop 120).
fn sweep<T: Scalar>(
    h: &mut Dense<T>,
    z: &mut Dense<T>,
    (m, l, i): (usize, usize, usize),
    mut v: [T; 2],
    (iloz, ihiz): (usize, usize),
) {
    let n = h.rows;
    for k in m..i {
        if k > m {
            v = [h.at(k, k - 1), h.at(k + 1, k - 1)];
        }
        let mut tail = [v[1]];
        let (beta, t1) = larfg(v[0], &mut tail);
        v = [beta, tail[0]];
        if k > m {
            h.set(k, k - 1, beta);
            h.set(k + 1, k - 1, T::zero());
        }
        let v2 = v[1];
        let t2 = T::parts((t1 * v2).re(), T::R::zero());
        for j in k..n {
            let sum = t1.cj() * h.at(k, j) + t2 * h.at(k + 1, j);
            h.set(k, j, h.at(k, j) - sum);
            h.set(k + 1, j, h.at(k + 1, j) - sum * v2);
        }
        for j in 0..=(k + 2).min(i) {
            let sum = t1 * h.at(j, k) + t2 * h.at(j, k + 1);
            h.set(j, k, h.at(j, k) - sum);
            h.set(j, k + 1, h.at(j, k + 1) - sum * v2.cj());
        }
        for j in iloz..=ihiz {
            let sum = t1 * z.at(j, k) + t2 * z.at(j, k + 1);
            z.set(j, k, z.at(j, k) - sum);
            z.set(j, k + 1, z.at(j, k + 1) - sum * v2.cj());
        }
        if k == m && m > l {
            keep_real(h, z, (m, i), t1, (iloz, ihiz));
        }
    }
}

/// After a step started at `m > l`: rescales so `h(m, m-1)` stays real.
fn keep_real<T: Scalar>(
    h: &mut Dense<T>,
    z: &mut Dense<T>,
    (m, i): (usize, usize),
    t1: T,
    (iloz, ihiz): (usize, usize),
) {
    let n = h.rows;
    let temp = T::one() - t1;
    let temp = div_re(temp, modulus(temp));
    h.set(m + 1, m, h.at(m + 1, m) * temp.cj());
    if m + 2 <= i {
        h.set(m + 2, m + 1, h.at(m + 2, m + 1) * temp);
    }
    for j in m..=i {
        if j != m + 1 {
            scale_at(h, (j + 1..n).map(|c| (j, c)), temp);
            scale_at(h, (0..j).map(|r| (r, j)), temp.cj());
            scale_at(z, (iloz..=ihiz).map(|r| (r, j)), temp.cj());
        }
    }
}

/// Makes `h(i, i-1)` real after a sweep.
fn real_last<T: Scalar>(
    h: &mut Dense<T>,
    z: &mut Dense<T>,
    i: usize,
    (iloz, ihiz): (usize, usize),
) {
    let n = h.rows;
    let temp = h.at(i, i - 1);
    if temp.im() != T::R::zero() {
        let r = modulus(temp);
        h.set(i, i - 1, T::parts(r, T::R::zero()));
        let temp = div_re(temp, r);
        scale_at(h, (i + 1..n).map(|c| (i, c)), temp.cj());
        scale_at(h, (0..i).map(|r| (r, i)), temp);
        scale_at(z, (iloz..=ihiz).map(|r| (r, i)), temp);
    }
}
