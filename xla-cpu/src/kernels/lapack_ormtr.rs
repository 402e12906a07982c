//! `xORMTR`/`xUNMTR` (`side = L`, `uplo = L`, no transpose) as `syevd`/`heevd` call it
//! after `xSTEDC`: `Z := Q Z` for the `Q` of the tridiagonal reduction's reflectors. Only
//! the non-finite path of `eigh` uses it, so it follows LAPACK's arithmetic where a NaN's
//! reach depends on it: `xLARF` skips a `tau = 0` reflector and trims trailing zero rows
//! of `v` and trailing zero columns of `Z` (`ILADLR`/`ILADLC`); from n = 64 (real types)
//! `xORMQR` works in blocks (`xLARFT`'s triangular `T`, `xLARFB`), whose products spread a
//! NaN further. The block size is what `syevd`'s minimal workspace (`1 + 6n + 2n²`, of
//! which `1 + 4n + n²` reaches `xORMQR`) allows: `min(32, (1 + 4n + n² - 4160) / n)`.
//! `heevd` leaves `xUNMQR` only `n` elements: always unblocked.

use super::lapack_scalar::{Dense, Scalar};

/// `xORMQR`'s largest block and its `T` workspace (`LDT · NBMAX = 65 · 64`).
const NB: usize = 32;
const TSIZE: usize = 4160;

/// `Z := Q Z`, `Q = H(0) … H(n-2)`, `H(i) = I - tau[i] v vᴴ`, `v = [1, a(i+2.., i)]` on
/// rows `i+1..n` of `z` (`n`×`n`).
pub(crate) fn ormtr_lower<T: Scalar>(a: &Dense<T>, tau: &[T], z: &mut Dense<T>) {
    let n = a.rows;
    let k = n.saturating_sub(1);
    let lwork = 1 + 4 * n + n * n;
    let nb = if T::COMPLEX || k <= NB {
        0
    } else if lwork < n * NB + TSIZE {
        lwork.saturating_sub(TSIZE) / n
    } else {
        NB
    };
    if nb < 2 || nb >= k {
        for i in (0..k).rev() {
            let mut v = vec![T::one()];
            v.extend(a.col(i, i + 2, n));
            let t = crate::invariant::at_or(tau, i, "ormtr: one tau per reflector", T::zero());
            larf_left(z, &v, t, i + 1);
        }
        return;
    }
    let mut i = ((k - 1) / nb) * nb;
    loop {
        let ib = nb.min(k - i);
        let v = Dense {
            rows: n - 1 - i,
            cols: ib,
            d: (0..(n - 1 - i) * ib)
                .map(|x| reflector(a, i, x / ib, x % ib))
                .collect(),
        };
        let t = larft(
            &v,
            crate::invariant::span(tau, i..i + ib, "ormtr: one tau per reflector"),
        );
        larfb(&v, &t, z, i + 1);
        if i == 0 {
            break;
        }
        i -= nb;
    }
}

/// Element `(r, j)` of the block of reflectors `i..`: unit diagonal, zero above.
fn reflector<T: Scalar>(a: &Dense<T>, i: usize, r: usize, j: usize) -> T {
    match r.cmp(&j) {
        std::cmp::Ordering::Less => T::zero(),
        std::cmp::Ordering::Equal => T::one(),
        std::cmp::Ordering::Greater => a.at(i + r + 1, i + j),
    }
}

/// `xLARF` (left): `Z(r0.., :) -= tau v (vᴴ Z)`, skipped for `tau = 0`, over the rows up
/// to `v`'s last nonzero and the columns up to the last one nonzero in those rows.
fn larf_left<T: Scalar>(z: &mut Dense<T>, v: &[T], tau: T, r0: usize) {
    if tau == T::zero() {
        return;
    }
    let lastv = v.iter().rposition(|&x| x != T::zero()).map_or(0, |p| p + 1);
    let lastc = (0..z.cols)
        .rev()
        .find(|&c| (0..lastv).any(|r| z.at(r0 + r, c) != T::zero()))
        .map_or(0, |c| c + 1);
    for c in 0..lastc {
        let w = (0..lastv).fold(T::zero(), |s, r| s + v[r].cj() * z.at(r0 + r, c));
        for (r, &vr) in v.iter().enumerate().take(lastv) {
            z.set(r0 + r, c, z.at(r0 + r, c) - tau * vr * w);
        }
    }
}

/// `xLARFT` (forward, columnwise): the upper triangular `T` with
/// `H(0) … H(k-1) = I - V T Vᴴ`.
fn larft<T: Scalar>(v: &Dense<T>, tau: &[T]) -> Dense<T> {
    let (m, k) = (v.rows, v.cols);
    let mut t = Dense {
        rows: k,
        cols: k,
        d: vec![T::zero(); k * k],
    };
    let mut prev = m.saturating_sub(1);
    for (i, &ti) in tau.iter().enumerate().take(k) {
        prev = prev.max(i);
        if ti == T::zero() {
            continue;
        }
        let mut lastv = m - 1;
        while lastv > i && v.at(lastv, i) == T::zero() {
            lastv -= 1;
        }
        let end = lastv.min(prev);
        for j in 0..i {
            let mut s = -(ti * v.at(i, j).cj());
            if end > i {
                let g = (i + 1..=end).fold(T::zero(), |s, r| s + v.at(r, j).cj() * v.at(r, i));
                s += -ti * g;
            }
            t.set(j, i, s);
        }
        let x: Vec<T> = (0..i).map(|j| t.at(j, i)).collect();
        for r in 0..i {
            let y = (r..i).fold(T::zero(), |s, c| s + t.at(r, c) * x[c]);
            t.set(r, i, y);
        }
        t.set(i, i, ti);
        prev = if i > 0 { prev.max(lastv) } else { lastv };
    }
    t
}

/// `xLARFB` (left, no transpose, forward, columnwise) on rows `r0..` of `z`:
/// `Z := Z - V T (Vᴴ Z)` in LAPACK's order of products (`V₁` unit lower triangular).
fn larfb<T: Scalar>(v: &Dense<T>, t: &Dense<T>, z: &mut Dense<T>, r0: usize) {
    let (m, k, nc) = (v.rows, v.cols, z.cols);
    let mut w = Dense {
        rows: nc,
        cols: k,
        d: vec![T::zero(); nc * k],
    };
    for c in 0..nc {
        for i in 0..k {
            let mut s = z.at(r0 + i, c).cj();
            s += (i + 1..k).fold(T::zero(), |s, j| s + z.at(r0 + j, c).cj() * v.at(j, i));
            s += (k..m).fold(T::zero(), |s, r| s + z.at(r0 + r, c).cj() * v.at(r, i));
            w.set(c, i, s);
        }
        let row: Vec<T> = (0..k).map(|j| w.at(c, j)).collect();
        for i in 0..k {
            w.set(
                c,
                i,
                (i..k).fold(T::zero(), |s, j| s + row[j] * t.at(i, j).cj()),
            );
        }
    }
    for r in k..m {
        for c in 0..nc {
            let s = (0..k).fold(T::zero(), |s, i| s + v.at(r, i) * w.at(c, i).cj());
            z.set(r0 + r, c, z.at(r0 + r, c) - s);
        }
    }
    for c in 0..nc {
        let row: Vec<T> = (0..k).map(|j| w.at(c, j)).collect();
        for i in 0..k {
            let s = row[i] + (0..i).fold(T::zero(), |s, j| s + row[j] * v.at(i, j).cj());
            z.set(r0 + i, c, z.at(r0 + i, c) - s.cj());
        }
    }
}
