//! LAPACK's small-matrix Schur iteration on an upper Hessenberg matrix, the one `xHSEQR`
//! runs through `xGEES`: `xLAHQR`, the Francis double-shift QR iteration for real matrices
//! (2×2 blocks of conjugate pairs put in standard form by `xLANV2`) and the single-shift QR
//! iteration for complex ones, with LAPACK's deflation test (Ahues & Kressner), exceptional
//! shifts every 10 iterations without deflation and its iteration limit (`30·max(10, nh)`
//! per eigenvalue). Defective matrices need nothing special; a NaN never passes the
//! deflation test, so the iteration runs out and reports failure, as LAPACK's does.
//! `T = Zᴴ A Z` and `Z` are written in place; indices are 0-based and inclusive.

use super::lapack_scalar::{larfg, Dense, Scalar};
use num_complex::Complex;
use num_traits::{Float, Zero};

/// Iterations without a deflation before an exceptional shift.
const KEXSH: usize = 10;

/// `(safmin, ulp, smlnum)` for an active block of order `nh`.
fn limits<R: Float>(nh: usize) -> (R, R, R) {
    let safmin = R::min_positive_value();
    let ulp = R::epsilon();
    let nh = R::from(nh).unwrap_or_else(R::one);
    (safmin, ulp, safmin * (nh / ulp))
}

fn num<R: Float>(x: f64) -> R {
    R::from(x).unwrap_or_else(R::zero)
}

/// Zeros below the first subdiagonal of the active block (`xLAHQR`'s "trash").
pub(crate) fn clear_trash<T: Scalar>(h: &mut Dense<T>, ilo: usize, ihi: usize) {
    for j in ilo..(ihi + 1).saturating_sub(3) {
        h.set(j + 2, j, T::zero());
        h.set(j + 3, j, T::zero());
    }
    if ilo + 2 <= ihi {
        h.set(ihi, ihi - 2, T::zero());
    }
}

/// The deflation test: the largest `k` in `l+1..=i` whose subdiagonal entry is negligible,
/// or `l`. Uses `|·|` as `abs` (real) or LAPACK's `CABS1` (complex).
pub(crate) fn small_subdiag<T: Scalar>(
    h: &Dense<T>,
    l: usize,
    i: usize,
    ihi: usize,
    ilo: usize,
) -> usize {
    let (_, ulp, smlnum) = limits::<T::R>(ihi + 1 - ilo);
    let a = |i: usize, j: usize| h.at(i, j).abs1();
    for k in (l + 1..=i).rev() {
        if a(k, k - 1) <= smlnum {
            return k;
        }
        let mut tst = a(k - 1, k - 1) + a(k, k);
        if tst == T::R::zero() {
            if k >= ilo + 2 {
                tst = tst + h.at(k - 1, k - 2).re().abs();
            }
            if k < ihi {
                tst = tst + h.at(k + 1, k).re().abs();
            }
        }
        if h.at(k, k - 1).re().abs() <= ulp * tst {
            let (hk, hu) = (a(k, k - 1), a(k - 1, k));
            let (ab, ba) = (hk.max(hu), hk.min(hu));
            let diff = (h.at(k - 1, k - 1) - h.at(k, k)).abs1();
            let (aa, bb) = (a(k, k).max(diff), a(k, k).min(diff));
            let s = aa + ab;
            if ba * (ab / s) <= smlnum.max(ulp * (bb * (aa / s))) {
                return k;
            }
        }
    }
    l
}

/// Real Schur iteration (`xLAHQR`, `wantt` and `wantz`) on rows and columns `ilo..=ihi` of
/// the Hessenberg `h`, accumulating into `z` (rows `ilo..=ihi`). Returns the eigenvalues
/// of the block (`w[ilo..=ihi]` set) and `info` (0, or 1 + the row that did not converge).
pub(crate) fn lahqr_real<R: Float + Scalar<R = R>>(
    h: &mut Dense<R>,
    z: &mut Dense<R>,
    ilo: usize,
    ihi: usize,
    w: &mut [Complex<R>],
) -> usize {
    let n = h.rows;
    if n == 0 || ihi >= n || ilo > ihi {
        return 0;
    }
    if ilo == ihi {
        set_w(w, ilo, Complex::new(h.at(ilo, ilo), R::zero()));
        return 0;
    }
    clear_trash(h, ilo, ihi);
    let itmax = 30 * (ihi + 1 - ilo).max(10);
    let mut kdefl = 0;
    let mut i = ihi;
    loop {
        let mut l = ilo;
        let mut split = false;
        for _ in 0..=itmax {
            l = small_subdiag(h, l, i, ihi, ilo);
            if l > ilo {
                h.set(l, l - 1, R::zero());
            }
            if l + 1 >= i {
                split = true;
                break;
            }
            kdefl += 1;
            let shifts = real_shifts(h, l, i, kdefl);
            let (m, v) = real_start(h, l, i, shifts, ihi + 1 - ilo);
            real_sweep(h, z, (m, l, i), v, (ilo, ihi));
        }
        if !split {
            return i + 1;
        }
        if l == i {
            set_w(w, i, Complex::new(h.at(i, i), R::zero()));
        } else {
            standard_block(h, z, i, (ilo, ihi), w);
        }
        kdefl = 0;
        if l <= ilo {
            return 0;
        }
        i = l - 1;
    }
}

fn set_w<R: Float>(w: &mut [Complex<R>], i: usize, v: Complex<R>) {
    if let Some(x) = w.get_mut(i) {
        *x = v;
    }
}

/// The two shifts `(rt1, rt2)` of a double-shift step: the eigenvalues of the trailing
/// 2×2 block (a real pair collapses to the one nearer `h(i,i)`), or LAPACK's exceptional
/// shifts every `KEXSH` iterations without a deflation.
fn real_shifts<R: Float + Scalar<R = R>>(
    h: &Dense<R>,
    l: usize,
    i: usize,
    kdefl: usize,
) -> (Complex<R>, Complex<R>) {
    let (dat1, dat2) = (num::<R>(0.75), num::<R>(-0.4375));
    let (h11, h12, h21, h22) = if kdefl % (2 * KEXSH) == 0 {
        let s = h.at(i, i - 1).abs() + h.at(i - 1, i - 2).abs();
        let h11 = dat1 * s + h.at(i, i);
        (h11, dat2 * s, s, h11)
    } else if kdefl % KEXSH == 0 {
        let s = h.at(l + 1, l).abs() + h.at(l + 2, l + 1).abs();
        let h11 = dat1 * s + h.at(l, l);
        (h11, dat2 * s, s, h11)
    } else {
        (
            h.at(i - 1, i - 1),
            h.at(i - 1, i),
            h.at(i, i - 1),
            h.at(i, i),
        )
    };
    let s = h11.abs() + h12.abs() + h21.abs() + h22.abs();
    if s == R::zero() {
        let z = Complex::new(R::zero(), R::zero());
        return (z, z);
    }
    let (h11, h12, h21, h22) = (h11 / s, h12 / s, h21 / s, h22 / s);
    let tr = (h11 + h22) * R::half();
    let det = (h11 - tr) * (h22 - tr) - h12 * h21;
    let rtdisc = det.abs().sqrt();
    if det >= R::zero() {
        let re = tr * s;
        return (Complex::new(re, rtdisc * s), Complex::new(re, -rtdisc * s));
    }
    let (r1, r2) = (tr + rtdisc, tr - rtdisc);
    let r = if (r1 - h22).abs() <= (r2 - h22).abs() {
        r1 * s
    } else {
        r2 * s
    };
    let c = Complex::new(r, R::zero());
    (c, c)
}

/// Where the double-shift step starts: the row `m` (from `i-2` down to `l`) at which two
/// consecutive subdiagonals are small enough, and the first column of the shift
/// polynomial there (scaled).
fn real_start<R: Float + Scalar<R = R>>(
    h: &Dense<R>,
    l: usize,
    i: usize,
    (rt1, rt2): (Complex<R>, Complex<R>),
    nh: usize,
) -> (usize, [R; 3]) {
    let (_, ulp, _) = limits::<R>(nh);
    let mut m = i - 2;
    loop {
        let s = (h.at(m, m) - rt2.re).abs() + rt2.im.abs() + h.at(m + 1, m).abs();
        let h21s = h.at(m + 1, m) / s;
        let mut v = [
            h21s * h.at(m, m + 1) + (h.at(m, m) - rt1.re) * ((h.at(m, m) - rt2.re) / s)
                - rt1.im * (rt2.im / s),
            h21s * (h.at(m, m) + h.at(m + 1, m + 1) - rt1.re - rt2.re),
            h21s * h.at(m + 2, m + 1),
        ];
        let s = v[0].abs() + v[1].abs() + v[2].abs();
        for x in v.iter_mut() {
            *x = *x / s;
        }
        if m == l {
            return (m, v);
        }
        let h00 = h.at(m, m - 1).abs() * (v[1].abs() + v[2].abs());
        let h01 = ulp
            * v[0].abs()
            * (h.at(m - 1, m - 1).abs() + h.at(m, m).abs() + h.at(m + 1, m + 1).abs());
        if h00 <= h01 {
            return (m, v);
        }
        m -= 1;
    }
}

/// `rows[r] -= sum(v · rows) · t[r]` on the entries `at(r)` of up to three rows (or
/// columns) of `a`: the application of one small reflector.
fn apply3<R: Float + Scalar<R = R>>(a: &mut Dense<R>, at: &[(usize, usize)], v: &[R], t: &[R]) {
    let sum = at
        .iter()
        .zip(v)
        .fold(R::zero(), |s, (&(r, c), &x)| s + x * a.at(r, c));
    for (&(r, c), &tk) in at.iter().zip(t) {
        let x = a.at(r, c) - sum * tk;
        a.set(r, c, x);
    }
}

/// One double-shift QR sweep chasing the bulge from row `m` to `i` (`xLAHQR`'s loop 130).
fn real_sweep<R: Float + Scalar<R = R>>(
    h: &mut Dense<R>,
    z: &mut Dense<R>,
    (m, l, i): (usize, usize, usize),
    mut v: [R; 3],
    (iloz, ihiz): (usize, usize),
) {
    let n = h.rows;
    for k in m..i {
        let nr = 3.min(i + 1 - k);
        if k > m {
            for (r, x) in v.iter_mut().enumerate().take(nr) {
                *x = h.at(k + r, k - 1);
            }
        }
        let (beta, t1) = {
            let (head, tail) = v.split_at_mut(1);
            larfg(head[0], &mut tail[..nr - 1])
        };
        v[0] = beta;
        if k > m {
            h.set(k, k - 1, beta);
            h.set(k + 1, k - 1, R::zero());
            if k + 1 < i {
                h.set(k + 2, k - 1, R::zero());
            }
        } else if m > l {
            let x = h.at(k, k - 1) * (R::one() - t1);
            h.set(k, k - 1, x);
        }
        let vv = [R::one(), v[1], v[2]];
        let t = [t1, t1 * v[1], t1 * v[2]];
        let (vv, t) = (&vv[..nr], &t[..nr]);
        for j in k..n {
            let at: Vec<(usize, usize)> = (0..nr).map(|r| (k + r, j)).collect();
            apply3(h, &at, vv, t);
        }
        let top = if nr == 3 { (k + 3).min(i) } else { i };
        for j in 0..=top {
            let at: Vec<(usize, usize)> = (0..nr).map(|c| (j, k + c)).collect();
            apply3(h, &at, vv, t);
        }
        for j in iloz..=ihiz {
            let at: Vec<(usize, usize)> = (0..nr).map(|c| (j, k + c)).collect();
            apply3(z, &at, vv, t);
        }
    }
}

/// A converged 2×2 block at rows `i-1, i`: put in standard form by `xLANV2`, the rotation
/// applied to the rest of `h` and to `z`, its eigenvalues stored.
fn standard_block<R: Float + Scalar<R = R>>(
    h: &mut Dense<R>,
    z: &mut Dense<R>,
    i: usize,
    (iloz, ihiz): (usize, usize),
    w: &mut [Complex<R>],
) {
    let n = h.rows;
    let (blk, rt1, rt2, cs, sn) = lanv2(
        h.at(i - 1, i - 1),
        h.at(i - 1, i),
        h.at(i, i - 1),
        h.at(i, i),
    );
    h.set(i - 1, i - 1, blk[0]);
    h.set(i - 1, i, blk[1]);
    h.set(i, i - 1, blk[2]);
    h.set(i, i, blk[3]);
    set_w(w, i - 1, rt1);
    set_w(w, i, rt2);
    let rot = |a: &mut Dense<R>, p: (usize, usize), q: (usize, usize)| {
        let (x, y) = (a.at(p.0, p.1), a.at(q.0, q.1));
        a.set(p.0, p.1, cs * x + sn * y);
        a.set(q.0, q.1, cs * y - sn * x);
    };
    for j in i + 1..n {
        rot(h, (i - 1, j), (i, j));
    }
    for r in 0..i.saturating_sub(1) {
        rot(h, (r, i - 1), (r, i));
    }
    for r in iloz..=ihiz {
        rot(z, (r, i - 1), (r, i));
    }
}

/// LAPACK's `xLANV2`: the Schur factorisation of a real 2×2 block `[a b; c d]`, in standard
/// form (`c = 0`, or equal diagonal entries with `b·c < 0`): `(block, rt1, rt2, cs, sn)`.
#[allow(clippy::many_single_char_names)]
fn lanv2<R: Float + Scalar<R = R>>(
    a: R,
    b: R,
    c: R,
    d: R,
) -> ([R; 4], Complex<R>, Complex<R>, R, R) {
    let (zero, one, half) = (R::zero(), R::one(), R::half());
    let eps = R::epsilon();
    let sign = |x: R, y: R| if y >= zero { x.abs() } else { -x.abs() };
    let (mut a, mut b, mut c, mut d) = (a, b, c, d);
    let (mut cs, mut sn) = (one, zero);
    if c == zero {
    } else if b == zero {
        (cs, sn) = (zero, one);
        std::mem::swap(&mut a, &mut d);
        b = -c;
        c = zero;
    } else if a - d == zero && sign(one, b) != sign(one, c) {
    } else {
        let temp = a - d;
        let p = half * temp;
        let bcmax = b.abs().max(c.abs());
        let bcmis = b.abs().min(c.abs()) * sign(one, b) * sign(one, c);
        let scale = p.abs().max(bcmax);
        let zz = (p / scale) * p + (bcmax / scale) * bcmis;
        if zz >= num::<R>(4.0) * eps {
            let zz = p + sign(scale.sqrt() * zz.sqrt(), p);
            a = d + zz;
            d = d - (bcmax / zz) * bcmis;
            let tau = c.hypot(zz);
            (cs, sn) = (zz / tau, c / tau);
            b = b - c;
            c = zero;
        } else {
            (a, b, c, d, cs, sn) = lanv2_equal(a, b, c, d, temp);
        }
    }
    let (r1, r2) = if c == zero {
        (Complex::new(a, zero), Complex::new(d, zero))
    } else {
        let im = b.abs().sqrt() * c.abs().sqrt();
        (Complex::new(a, im), Complex::new(d, -im))
    };
    ([a, b, c, d], r1, r2, cs, sn)
}

/// `xLANV2`'s second case: complex (or nearly equal real) eigenvalues, the diagonal made
/// equal by a rotation; a real pair found then is split into a triangle.
#[allow(clippy::many_single_char_names)]
fn lanv2_equal<R: Float + Scalar<R = R>>(a: R, b: R, c: R, d: R, temp: R) -> (R, R, R, R, R, R) {
    let (zero, one, half) = (R::zero(), R::one(), R::half());
    let sign = |x: R, y: R| if y >= zero { x.abs() } else { -x.abs() };
    let base = num::<R>(2.0);
    let safmn2 = base.powi(
        ((R::min_positive_value() / R::epsilon()).log2() / base)
            .to_i32()
            .unwrap_or(0),
    );
    let safmx2 = one / safmn2;
    let (mut sigma, mut temp) = (b + c, temp);
    for _ in 0..=20 {
        let scale = temp.abs().max(sigma.abs());
        if scale >= safmx2 {
            sigma = sigma * safmn2;
            temp = temp * safmn2;
        } else if scale <= safmn2 {
            sigma = sigma * safmx2;
            temp = temp * safmx2;
        } else {
            break;
        }
    }
    let p = half * temp;
    let tau = sigma.hypot(temp);
    let mut cs = (half * (one + sigma.abs() / tau)).sqrt();
    let mut sn = -(p / (tau * cs)) * sign(one, sigma);
    let (aa, bb) = (a * cs + b * sn, -a * sn + b * cs);
    let (cc, dd) = (c * cs + d * sn, -c * sn + d * cs);
    let (mut b, mut c) = (bb * cs + dd * sn, -aa * sn + cc * cs);
    let a0 = aa * cs + cc * sn;
    let d0 = -bb * sn + dd * cs;
    let t = half * (a0 + d0);
    let (mut a, mut d) = (t, t);
    if c != zero {
        if b != zero {
            if sign(one, b) == sign(one, c) {
                let (sab, sac) = (b.abs().sqrt(), c.abs().sqrt());
                let p = sign(sab * sac, c);
                let tau = one / (b + c).abs().sqrt();
                a = t + p;
                d = t - p;
                b = b - c;
                c = zero;
                let (cs1, sn1) = (sab * tau, sac * tau);
                let t2 = cs * cs1 - sn * sn1;
                sn = cs * sn1 + sn * cs1;
                cs = t2;
            }
        } else {
            b = -c;
            c = zero;
            let t2 = cs;
            cs = -sn;
            sn = t2;
        }
    }
    (a, b, c, d, cs, sn)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn lanv2_standardises_a_rotation_block() {
        // [[1, -2], [2, 1]]: eigenvalues 1 ± 2i, already standard.
        let (blk, r1, r2, _, _) = lanv2(1.0f64, -2.0, 2.0, 1.0);
        assert_eq!(blk[0], blk[3]);
        assert!((r1.im - 2.0).abs() < 1e-15 && (r2.im + 2.0).abs() < 1e-15);
        // A real pair is split into a triangle: [[4, 1], [2, 3]] has eigenvalues 5 and 2.
        let (blk, r1, r2, _, _) = lanv2(4.0f64, 1.0, 2.0, 3.0);
        assert_eq!(blk[2], 0.0);
        assert!((r1.re - 5.0).abs() < 1e-14 && (r2.re - 2.0).abs() < 1e-14);
    }
}
