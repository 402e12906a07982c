//! LAPACK's blocked tridiagonal reduction (`xSYTRD`/`xHETRD` with `uplo = L`, `xLATRD`
//! panels of 32 columns and an `xSYR2K` update of the trailing block, `xSYTD2` on the
//! last 32 columns), as `syevd`/`heevd` run it from n = 33 on. Only the non-finite path
//! of `eigh` uses it: its arithmetic is every product LAPACK's BLAS calls make (no zero is
//! skipped), so a NaN reaches exactly the entries it reaches in LAPACK (through JAX, a
//! diagonal NaN of an otherwise diagonal matrix spreads to the whole trailing block from
//! n = 33, where the unblocked `xSYTD2`, which skips `tau = 0` reflectors, keeps it to
//! itself).

use super::lapack_householder::{herm, sytd2};
use super::lapack_scalar::{larfg, Dense, Scalar};
use num_traits::Zero;

/// LAPACK's `ILAENV` block size and crossover point for `xSYTRD`.
const NB: usize = 32;

/// `(d, e, tau)` and the reflectors below the subdiagonal of `a` (lower triangle), as
/// `xSYTRD` computes them.
pub(crate) fn sytrd_lower<T: Scalar>(a: &mut Dense<T>) -> (Vec<T::R>, Vec<T::R>, Vec<T>) {
    let n = a.rows;
    if n <= NB {
        return sytd2(a, true);
    }
    let m1 = n - 1;
    let (mut d, mut e, mut tau) = (
        vec![T::R::zero(); n],
        vec![T::R::zero(); m1],
        vec![T::zero(); m1],
    );
    let mut i = 0;
    while i < n - NB {
        let w = latrd_lower(a, i, &mut e, &mut tau);
        her2k_trailing(a, &w, i);
        for j in i..i + NB {
            a.set(
                j + 1,
                j,
                T::parts(
                    crate::invariant::at_or(&e, j, "sytd2: e[j], j < n - 1", T::R::zero()),
                    T::R::zero(),
                ),
            );
            if let Some(x) = d.get_mut(j) {
                *x = a.at(j, j).re();
            }
        }
        i += NB;
    }
    let k = n - i;
    let mut tail = Dense {
        rows: k,
        cols: k,
        d: (0..k * k).map(|x| a.at(i + x / k, i + x % k)).collect(),
    };
    let (d2, e2, t2) = sytd2(&mut tail, true);
    for x in 0..k * k {
        a.set(
            i + x / k,
            i + x % k,
            crate::invariant::at_or(&tail.d, x, "latrd: the trailing block", T::zero()),
        );
    }
    d.truncate(i);
    d.extend(d2);
    e.truncate(i);
    e.extend(e2);
    tau.truncate(i);
    tau.extend(t2);
    (d, e, tau)
}

/// `xLATRD` (lower) on the panel of columns `off..off+NB`: reduces them, returns `W`
/// (rows `off..n`, `NB` columns, row-major) for the trailing update.
fn latrd_lower<T: Scalar>(a: &mut Dense<T>, off: usize, e: &mut [T::R], tau: &mut [T]) -> Dense<T> {
    let n = a.rows;
    let mut w = Dense {
        rows: n - off,
        cols: NB,
        d: vec![T::zero(); (n - off) * NB],
    };
    for i in 0..NB {
        let p = off + i;
        update_column(a, &w, off, i);
        if p + 1 >= n {
            continue;
        }
        let mut x = a.col(p, p + 2, n);
        let (beta, t) = larfg(a.at(p + 1, p), &mut x);
        a.set_col(p, p + 2, &x);
        if let Some(s) = e.get_mut(p) {
            *s = beta.re();
        }
        if let Some(s) = tau.get_mut(p) {
            *s = t;
        }
        a.set(p + 1, p, T::one());
        let col = panel_w(a, &w, off, i, t);
        w.set_col(i, p + 1 - off, &col);
    }
    w
}

/// `A(p:n, p) -= A(p:n, off:p) W(p, :i)ᴴ + W(p:n, :i) A(p, off:p)ᴴ` (two `xGEMV`s), the
/// diagonal kept real.
fn update_column<T: Scalar>(a: &mut Dense<T>, w: &Dense<T>, off: usize, i: usize) {
    let (n, p) = (a.rows, off + i);
    let real = |x: T| T::parts(x.re(), T::R::zero());
    a.set(p, p, real(a.at(p, p)));
    if i > 0 {
        for r in p..n {
            let s1 = (0..i).fold(T::zero(), |s, j| {
                s + a.at(r, off + j) * w.at(p - off, j).cj()
            });
            let s2 = (0..i).fold(T::zero(), |s, j| {
                s + w.at(r - off, j) * a.at(p, off + j).cj()
            });
            a.set(r, p, a.at(r, p) - s1 - s2);
        }
    }
    a.set(p, p, real(a.at(p, p)));
}

/// Column `i` of `W` (rows `p+1..n`): `tau (A v - V (Wᴴ v) - W (Vᴴ v))`, then
/// `w -= ½ tau (wᴴ v) v`, with `v` the reflector in column `p = off + i` of `a`.
fn panel_w<T: Scalar>(a: &Dense<T>, w: &Dense<T>, off: usize, i: usize, tau: T) -> Vec<T> {
    let (n, p) = (a.rows, off + i);
    let v = a.col(p, p + 1, n);
    let k = v.len();
    let mut y: Vec<T> = (0..k)
        .map(|r| {
            (0..k).fold(T::zero(), |s, c| {
                s + herm(a, p + 1 + r, p + 1 + c, true) * v[c]
            })
        })
        .collect();
    if i > 0 {
        let wv: Vec<T> = (0..i)
            .map(|j| (0..k).fold(T::zero(), |s, r| s + w.at(p + 1 + r - off, j).cj() * v[r]))
            .collect();
        let av: Vec<T> = (0..i)
            .map(|j| (0..k).fold(T::zero(), |s, r| s + a.at(p + 1 + r, off + j).cj() * v[r]))
            .collect();
        for (r, yr) in y.iter_mut().enumerate() {
            let s1 = (0..i).fold(T::zero(), |s, j| s + a.at(p + 1 + r, off + j) * wv[j]);
            let s2 = (0..i).fold(T::zero(), |s, j| s + w.at(p + 1 + r - off, j) * av[j]);
            *yr = *yr - s1 - s2;
        }
    }
    for yr in y.iter_mut() {
        *yr = tau * *yr;
    }
    let dot = y
        .iter()
        .zip(&v)
        .fold(T::zero(), |s, (&x, &u)| s + x.cj() * u);
    let alpha = -(tau * dot).scale(T::half());
    for (yr, &u) in y.iter_mut().zip(&v) {
        *yr += alpha * u;
    }
    y
}

/// `xSYR2K`/`xHER2K`: `A(q:n, q:n) -= V Wᴴ + W Vᴴ` on the lower triangle, `q = off + NB`,
/// `V` the panel's reflectors (columns `off..q` of `a`).
fn her2k_trailing<T: Scalar>(a: &mut Dense<T>, w: &Dense<T>, off: usize) {
    let (n, q) = (a.rows, off + NB);
    for r in q..n {
        for c in q..=r {
            let s = (0..NB).fold(T::zero(), |s, j| {
                s + a.at(r, off + j) * w.at(c - off, j).cj()
                    + w.at(r - off, j) * a.at(c, off + j).cj()
            });
            let x = a.at(r, c) - s;
            a.set(
                r,
                c,
                if r == c {
                    T::parts(x.re(), T::R::zero())
                } else {
                    x
                },
            );
        }
    }
}
