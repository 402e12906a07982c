//! The Householder-based LAPACK targets JAX's CPU lowering emits, with LAPACK's own
//! reflectors (`xLARFG`) so their packed outputs match LAPACK's: `geqrf` (QR: R in the
//! upper triangle, reflectors below, `tau`), `orgqr`/`ungqr` (the Q of those reflectors),
//! `gehrd` (Hessenberg reduction, reflectors below the subdiagonal) and `sytrd`/`hetrd`
//! (tridiagonal reduction of the `uplo` triangle: `d`, `e`, `tau`; the other triangle is
//! left as given). Unblocked (LAPACK's `xGEQR2`, `xORG2R`, `xGEHD2`, `xSYTD2`): the blocked
//! routines give the same values up to rounding.

use super::lapack_scalar::{
    batch_dims, by_type, larfg, not_matrices, pack, tuple_of, BatchPoll, Dense, Scalar,
};
use crate::error::{attribute, element_types, operand_count, operand_shapes, Result};
use crate::index::{array, make};
use crate::invariant;
use num_traits::Zero;
use xla_core::literal::ArrayData;
use xla_core::{Literal, Shape};

/// `xGEQR2` on one matrix: R and reflectors in `a`, returns `tau` (`min(m, n)`).
pub(crate) fn geqr2<T: Scalar>(a: &mut Dense<T>) -> Vec<T> {
    let (m, n) = (a.rows, a.cols);
    let mut taus = Vec::with_capacity(m.min(n));
    for i in 0..m.min(n) {
        let mut x = a.col(i, i + 1, m);
        let (beta, tau) = larfg(a.at(i, i), &mut x);
        a.set_col(i, i + 1, &x);
        a.set(i, i, beta);
        let mut v = vec![T::one()];
        v.extend(x);
        a.reflect_left(&v, tau.cj(), i, i + 1, n);
        taus.push(tau);
    }
    taus
}

/// `xORG2R`: overwrites the reflectors in `a` (`m`×`n`, the first `tau.len()` columns)
/// with the first `n` columns of `Q = H₁ H₂ … H_k`.
pub(crate) fn org2r<T: Scalar>(a: &mut Dense<T>, tau: &[T]) {
    let (m, n) = (a.rows, a.cols);
    let k = tau.len().min(n);
    for j in k..n {
        for l in 0..m {
            a.set(l, j, if l == j { T::one() } else { T::zero() });
        }
    }
    for i in (0..k).rev() {
        let t = invariant::at(tau, i, "householder: one tau per reflector");
        let mut v = vec![T::one()];
        v.extend(a.col(i, i + 1, m));
        if i + 1 < n {
            a.reflect_left(&v, t, i, i + 1, n);
        }
        let tail: Vec<T> = v.iter().skip(1).map(|&x| -(t * x)).collect();
        a.set_col(i, i + 1, &tail);
        a.set(i, i, T::one() - t);
        for l in 0..i {
            a.set(l, i, T::zero());
        }
    }
}

/// `xGEHD2` with 1-based `ilo..=ihi`: the Hessenberg form and reflectors in `a`, returns
/// `tau` (`n - 1`, zero outside `ilo..ihi`).
pub(crate) fn gehd2<T: Scalar>(a: &mut Dense<T>, ilo: usize, ihi: usize) -> Vec<T> {
    let n = a.rows;
    let mut taus = vec![T::zero(); n.saturating_sub(1)];
    for i in ilo.saturating_sub(1)..ihi.saturating_sub(1) {
        let mut x = a.col(i, i + 2, ihi);
        let (beta, tau) = larfg(a.at(i + 1, i), &mut x);
        a.set_col(i, i + 2, &x);
        let mut v = vec![T::one()];
        v.extend(x);
        a.reflect_right(&v, tau, 0, ihi, i + 1);
        a.reflect_left(&v, tau.cj(), i + 1, i + 1, n);
        a.set(i + 1, i, beta);
        if let Some(t) = taus.get_mut(i) {
            *t = tau;
        }
    }
    taus
}

/// Element `(i, j)` of the Hermitian matrix stored in the `lower` (or upper) triangle.
pub(crate) fn herm<T: Scalar>(a: &Dense<T>, i: usize, j: usize, lower: bool) -> T {
    if i == j {
        T::parts(a.at(i, i).re(), T::R::zero())
    } else if (i > j) == lower {
        a.at(i, j)
    } else {
        a.at(j, i).cj()
    }
}

/// The rank-2 step of `xSYTD2` on the trailing block `r0..r0+len(v)` (stored triangle
/// only): `w = tau·A·v`, `w -= ½·tau·(wᴴv)·v`, `A -= v wᴴ + w vᴴ`.
fn her2_step<T: Scalar>(a: &mut Dense<T>, v: &[T], tau: T, r0: usize, lower: bool) {
    let k = v.len();
    let mut w: Vec<T> = (0..k)
        .map(|i| {
            let s = (0..k).fold(T::zero(), |s, j| s + herm(a, r0 + i, r0 + j, lower) * v[j]);
            tau * s
        })
        .collect();
    let dot = w
        .iter()
        .zip(v)
        .fold(T::zero(), |s, (&x, &y)| s + x.cj() * y);
    let alpha = -(tau * dot).scale(T::half());
    for (x, &y) in w.iter_mut().zip(v) {
        *x += alpha * y;
    }
    for i in 0..k {
        for j in 0..k {
            if (i >= j) == lower || i == j {
                let x = a.at(r0 + i, r0 + j) - v[i] * w[j].cj() - w[i] * v[j].cj();
                a.set(r0 + i, r0 + j, x);
            }
        }
    }
}

/// `xSYTD2`/`xHETD2` on one matrix: returns `(d, e, tau)`; the reflectors replace the
/// reduced part of the `lower` (or upper) triangle.
pub(crate) fn sytd2<T: Scalar>(a: &mut Dense<T>, lower: bool) -> (Vec<T::R>, Vec<T::R>, Vec<T>) {
    let n = a.rows;
    let m1 = n.saturating_sub(1);
    let (mut d, mut e, mut taus) = (
        vec![T::R::zero(); n],
        vec![T::R::zero(); m1],
        vec![T::zero(); m1],
    );
    let real = |a: &mut Dense<T>, i: usize| a.set(i, i, T::parts(a.at(i, i).re(), T::R::zero()));
    for s in 0..m1 {
        // Lower: column s below the diagonal; upper: column s+1 above it, from the end.
        let (c, r, head) = if lower {
            (s, s + 1, s + 1)
        } else {
            (m1 - s, 0, m1 - s - 1)
        };
        let (mut x, alpha) = if lower {
            (a.col(c, head + 1, n), a.at(head, c))
        } else {
            (a.col(c, 0, head), a.at(head, c))
        };
        let (beta, tau) = larfg(alpha, &mut x);
        let t = if lower { s } else { head };
        if let Some(slot) = e.get_mut(t) {
            *slot = beta.re();
        }
        if lower {
            a.set_col(c, head + 1, &x);
        } else {
            a.set_col(c, 0, &x);
        }
        if tau != T::zero() {
            let v: Vec<T> = if lower {
                std::iter::once(T::one()).chain(x).collect()
            } else {
                x.into_iter().chain(std::iter::once(T::one())).collect()
            };
            her2_step(a, &v, tau, r, lower);
        } else {
            real(a, head);
        }
        a.set(head, c, beta);
        if let Some(slot) = taus.get_mut(t) {
            *slot = tau;
        }
    }
    for (i, x) in d.iter_mut().enumerate() {
        *x = a.at(i, i).re();
        real(a, i);
    }
    (d, e, taus)
}

fn geqrf_k<T: Scalar>(x: &[T], dims: &[usize], out: &Shape) -> Result<Literal> {
    let (b, m, n) = batch_dims(dims, "geqrf")?;
    super::lapack_scratch::householder::<T>("geqrf (working copy, tau)", m, n)?;
    let (mut a, mut tau) = (Vec::new(), Vec::new());
    let mut poll = BatchPoll::new(b, m, n);
    for k in 0..b {
        poll.next()?;
        let mut d = Dense::from(x.get(k * m * n..).unwrap_or(&[]), m, n)?;
        tau.extend(geqr2(&mut d));
        a.extend(d.d);
    }
    pack(tuple_of(out, 2, "geqrf")?, vec![T::wrap(a), T::wrap(tau)])
}

fn orgqr_k<T: Scalar>(x: &[T], dims: &[usize], tau: &Literal, out: &Shape) -> Result<Literal> {
    let (b, m, n) = batch_dims(dims, "orgqr")?;
    super::lapack_scratch::householder::<T>("orgqr (working copy)", m, n)?;
    let (td, tdims) = array(tau)?;
    let k = tdims.last().copied().unwrap_or(0);
    let taus = T::slice(td).ok_or_else(|| {
        element_types(
            "custom-call orgqr",
            T::wrap(Vec::new()).element_type(),
            td.element_type(),
        )
    })?;
    if k > n || taus.len() != b * k {
        return Err(operand_shapes(
            "custom-call orgqr",
            [tau.shape()],
            format!("(tau) does not fit {b} matrices of {m}x{n}: it needs {b} rows of k <= {n}"),
        ));
    }
    let mut q = Vec::new();
    let mut poll = BatchPoll::new(b, m, n);
    for i in 0..b {
        poll.next()?;
        let mut d = Dense::from(x.get(i * m * n..).unwrap_or(&[]), m, n)?;
        org2r(
            &mut d,
            invariant::span(taus, i * k..(i + 1) * k, "orgqr: k taus per matrix"),
        );
        q.extend(d.d);
    }
    make(out, T::wrap(q))
}

fn gehrd_k<T: Scalar>(
    x: &[T],
    dims: &[usize],
    lo_hi: (usize, usize),
    out: &Shape,
) -> Result<Literal> {
    let (b, m, n) = batch_dims(dims, "gehrd")?;
    if m != n || lo_hi.0 < 1 || lo_hi.1 > n.max(1) || lo_hi.0 > lo_hi.1.max(1) {
        if m != n {
            return Err(not_matrices("gehrd", dims, "a batch of square matrices"));
        }
        return Err(attribute(
            "custom-call gehrd",
            "low, high",
            format!("{}, {}", lo_hi.0, lo_hi.1),
            format!("are out of range for {n}x{n} matrices (1 <= low <= high <= {n})"),
        ));
    }
    super::lapack_scratch::householder::<T>("gehrd (working copy, tau)", n, n)?;
    let (mut a, mut tau) = (Vec::new(), Vec::new());
    let mut poll = BatchPoll::new(b, n, n);
    for k in 0..b {
        poll.next()?;
        let mut d = Dense::from(x.get(k * n * n..).unwrap_or(&[]), n, n)?;
        tau.extend(gehd2(&mut d, lo_hi.0, lo_hi.1));
        a.extend(d.d);
    }
    pack(
        tuple_of(out, 3, "gehrd")?,
        vec![T::wrap(a), T::wrap(tau), ArrayData::S32(vec![0; b])],
    )
}

fn sytrd_k<T: Scalar>(x: &[T], dims: &[usize], lower: bool, out: &Shape) -> Result<Literal> {
    let (b, m, n) = batch_dims(dims, "sytrd")?;
    if m != n {
        return Err(not_matrices("sytrd", dims, "a batch of square matrices"));
    }
    super::lapack_scratch::householder::<T>("sytrd (working copy, tau)", n, n)?;
    let (mut a, mut d, mut e, mut tau) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let mut poll = BatchPoll::new(b, n, n);
    for k in 0..b {
        poll.next()?;
        let mut mat = Dense::from(x.get(k * n * n..).unwrap_or(&[]), n, n)?;
        let (dk, ek, tk) = sytd2(&mut mat, lower);
        a.extend(mat.d);
        d.extend(dk);
        e.extend(ek);
        tau.extend(tk);
    }
    let data = vec![
        T::wrap(a),
        T::R::wrap(d),
        T::R::wrap(e),
        T::wrap(tau),
        ArrayData::S32(vec![0; b]),
    ];
    pack(tuple_of(out, 5, "sytrd")?, data)
}

/// `geqrf`: `(a, tau)`.
pub(crate) fn geqrf(args: &[&Literal], out: &Shape) -> Result<Literal> {
    let (x, dims) = array(first(args, "geqrf")?)?;
    by_type!(x, "geqrf", geqrf_k(&dims, out))
}

/// `orgqr` / `ungqr`: `q` from `(a, tau)`.
pub(crate) fn orgqr(args: &[&Literal], out: &Shape) -> Result<Literal> {
    let (x, dims) = array(first(args, "orgqr")?)?;
    let tau = args
        .get(1)
        .copied()
        .ok_or_else(|| operand_count("custom-call orgqr", "2 operands (a, tau)", args.len()))?;
    by_type!(x, "orgqr", orgqr_k(&dims, tau, out))
}

/// `gehrd`: `(a, tau, info)`, rows/columns `low..=high` (1-based) reduced.
pub(crate) fn gehrd(args: &[&Literal], config: &str, out: &Shape) -> Result<Literal> {
    let (x, dims) = array(first(args, "gehrd")?)?;
    let n = dims.last().copied().unwrap_or(0);
    let lo = int_attr(config, "low").unwrap_or(1);
    let hi = int_attr(config, "high").unwrap_or(n);
    by_type!(x, "gehrd", gehrd_k(&dims, (lo, hi), out))
}

/// `sytrd` / `hetrd`: `(a, d, e, tau, info)`.
pub(crate) fn sytrd(args: &[&Literal], config: &str, out: &Shape) -> Result<Literal> {
    let (x, dims) = array(first(args, "sytrd")?)?;
    let lower = super::lapack::attr(config, "uplo").unwrap_or('L') == 'L';
    by_type!(x, "sytrd", sytrd_k(&dims, lower, out))
}

pub(crate) fn first<'a>(args: &[&'a Literal], what: &str) -> Result<&'a Literal> {
    args.first()
        .copied()
        .ok_or_else(|| operand_count(format!("custom-call {what}"), "an operand", 0))
}

/// Integer attribute `key` of an FFI dictionary (`{high = 4 : i32, ...}`).
pub(crate) fn int_attr(config: &str, key: &str) -> Option<usize> {
    let body = config.trim().trim_start_matches('{').trim_end_matches('}');
    body.split(',').find_map(|kv| {
        let (k, v) = kv.split_once('=')?;
        (k.trim() == key).then(|| v.split(':').next()?.trim().parse().ok())?
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn qr_reflectors_rebuild_the_matrix() {
        let orig = [
            2.0f64, -1.0, 0.5, 3.0, 1.0, -2.0, 4.0, 0.0, 1.0, -1.0, 2.0, 2.0,
        ];
        let mut a = Dense::from(&orig, 4, 3).unwrap();
        let tau = geqr2(&mut a);
        let mut q = a.clone();
        org2r(&mut q, &tau);
        for i in 0..4 {
            for j in 0..3 {
                let qr: f64 = (0..=j).map(|k| q.at(i, k) * a.at(k, j)).sum();
                assert!((qr - orig[i * 3 + j]).abs() < 1e-12, "({i},{j})");
            }
        }
    }

    #[test]
    fn int_attributes_parse() {
        assert_eq!(int_attr("{high = 4 : i32, low = 1 : i32}", "high"), Some(4));
        assert_eq!(int_attr("{high = 4 : i32, low = 1 : i32}", "low"), Some(1));
        assert_eq!(int_attr("{}", "low"), None);
    }
}
