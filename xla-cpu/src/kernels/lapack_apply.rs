//! Two LAPACK targets that apply a factorisation: `ormqr`/`unmqr` (`lax.linalg.ormqr`:
//! `Q c`, `Qᴴ c`, `c Q` or `c Qᴴ` with `Q` the product of `geqrf`'s reflectors, attributes
//! `left` and `transpose`) and `gtsv` (`lax.linalg.tridiagonal_solve`: LAPACK's
//! tridiagonal Gaussian elimination with partial pivoting, `dl[0]` and `du[n-1]` unused,
//! results `(dl, d, du, x, info)` with the factors LAPACK leaves in `dl`, `d`, `du`).

use super::lapack_householder::first;
use super::lapack_scalar::{batch_dims, by_type, pack, tuple_of, BatchPoll, Dense, Scalar};
use crate::error::{element_types, operand_count, operand_shapes, Result};
use crate::index::{array, make};
use crate::invariant;
use xla_core::literal::ArrayData;
use xla_core::{Literal, Shape};

/// Boolean attribute `key` of an FFI dictionary (`{left = true, ...}`).
fn bool_attr(config: &str, key: &str) -> Option<bool> {
    let body = config.trim().trim_start_matches('{').trim_end_matches('}');
    body.split(',').find_map(|kv| {
        let (k, v) = kv.split_once('=')?;
        (k.trim() == key).then(|| v.split(':').next()?.trim().parse().ok())?
    })
}

fn operand<'a>(args: &[&'a Literal], k: usize, what: &str) -> Result<&'a Literal> {
    args.get(k).copied().ok_or_else(|| {
        operand_count(
            format!("custom-call {what}"),
            format!("at least {} operand(s)", k + 1),
            args.len(),
        )
    })
}

/// The operand `k` of `args` as elements of type `T`.
fn same_type<'a, T: Scalar>(args: &[&'a Literal], k: usize, what: &str) -> Result<&'a [T]> {
    let l = operand(args, k, what)?;
    let (d, _) = array(l)?;
    T::slice(d).ok_or_else(|| {
        element_types(
            format!("custom-call {what}"),
            T::wrap(Vec::new()).element_type(),
            d.element_type(),
        )
    })
}

fn ormqr_k<T: Scalar>(
    a: &[T],
    dims: &[usize],
    args: &[&Literal],
    flags: (bool, bool),
    out: &Shape,
) -> Result<Literal> {
    let (b, ma, k) = batch_dims(dims, "ormqr")?;
    let tau = same_type::<T>(args, 1, "ormqr")?;
    let c_lit = operand(args, 2, "ormqr")?;
    let (_, m, n) = batch_dims(&crate::index::dims_of(c_lit.shape())?, "ormqr")?;
    let c = same_type::<T>(args, 2, "ormqr")?;
    let (left, adjoint) = flags;
    if ma != if left { m } else { n } || tau.len() != b * k || c.len() != b * m * n || k > ma {
        return Err(operand_shapes(
            "custom-call ormqr",
            args.iter().take(3).map(|l| l.shape()),
            "(reflectors, tau, c) do not fit: tau needs k <= rows of the reflectors per \
             matrix and c the reflectors' rows on the side applied",
        ));
    }
    let mut res = Vec::with_capacity(c.len());
    let mut poll = BatchPoll::new(b, m, n);
    for i in 0..b {
        poll.next()?;
        let refl = Dense::from(a.get(i * ma * k..).unwrap_or(&[]), ma, k)?;
        let mut cm = Dense::from(c.get(i * m * n..).unwrap_or(&[]), m, n)?;
        // Q = H₀ H₁ … H_{k-1}: Q c applies the last first, Qᴴ c the first first, and on
        // the right the other way round.
        let forward = left == adjoint;
        for s in 0..k {
            let j = if forward { s } else { k - 1 - s };
            let t = invariant::at(tau, i * k + j, "ormqr: k taus per matrix");
            let t = if adjoint { t.cj() } else { t };
            let mut v = vec![T::one()];
            v.extend(refl.col(j, j + 1, ma));
            if left {
                cm.reflect_left(&v, t, j, 0, n);
            } else {
                cm.reflect_right(&v, t, 0, m, j);
            }
        }
        res.extend(cm.d);
    }
    make(out, T::wrap(res))
}

/// `ormqr` / `unmqr`: `op(Q) c` (`left`) or `c op(Q)`, `op` the adjoint when `transpose`.
pub(crate) fn ormqr(args: &[&Literal], config: &str, out: &Shape) -> Result<Literal> {
    let (x, dims) = array(first(args, "ormqr")?)?;
    let flags = (
        bool_attr(config, "left").unwrap_or(true),
        bool_attr(config, "transpose").unwrap_or(false),
    );
    by_type!(x, "ormqr", ormqr_k(&dims, args, flags, out))
}

/// LAPACK's `xGTSV` on one system (`dl[0]`, `du[n-1]` unused), `b` `n`×`r` row-major;
/// returns `info` (the 1-based index of a zero pivot, or 0).
fn gtsv_one<T: Scalar>(dl: &mut [T], d: &mut [T], du: &mut [T], b: &mut [T], r: usize) -> i32 {
    let n = d.len();
    let row = |b: &[T], i: usize| {
        b.get(i * r..(i + 1) * r)
            .map(<[T]>::to_vec)
            .unwrap_or_default()
    };
    for i in 0..n.saturating_sub(1) {
        let (low, di) = (dl[i + 1], d[i]);
        if di.abs1() >= low.abs1() {
            if di == T::zero() {
                return i32::try_from(i + 1).unwrap_or(i32::MAX);
            }
            let f = low / di;
            d[i + 1] -= f * du[i];
            let bi = row(b, i);
            for (c, x) in bi.iter().enumerate() {
                b[(i + 1) * r + c] -= f * *x;
            }
            if i + 2 < n {
                dl[i + 1] = T::zero();
            }
        } else {
            let f = di / low;
            d[i] = low;
            let temp = d[i + 1];
            d[i + 1] = du[i] - f * temp;
            if i + 2 < n {
                dl[i + 1] = du[i + 1];
                du[i + 1] = -(f * dl[i + 1]);
            }
            du[i] = temp;
            let (bi, bn) = (row(b, i), row(b, i + 1));
            for c in 0..r {
                b[i * r + c] = bn[c];
                b[(i + 1) * r + c] = bi[c] - f * bn[c];
            }
        }
    }
    if n == 0 {
        return 0;
    }
    if d[n - 1] == T::zero() {
        return i32::try_from(n).unwrap_or(i32::MAX);
    }
    for i in (0..n).rev() {
        for c in 0..r {
            let mut x = b[i * r + c];
            if i + 1 < n {
                x -= du[i] * b[(i + 1) * r + c];
            }
            if i + 2 < n {
                x -= dl[i + 1] * b[(i + 2) * r + c];
            }
            b[i * r + c] = x / d[i];
        }
    }
    0
}

fn gtsv_k<T: Scalar>(dl: &[T], dims: &[usize], args: &[&Literal], out: &Shape) -> Result<Literal> {
    let n = dims.last().copied().unwrap_or(0);
    let batch = dl.len() / n.max(1);
    let (d, du, b) = (
        same_type::<T>(args, 1, "gtsv")?,
        same_type::<T>(args, 2, "gtsv")?,
        same_type::<T>(args, 3, "gtsv")?,
    );
    let r = b.len() / (batch * n).max(1);
    if d.len() != dl.len() || du.len() != dl.len() || b.len() != batch * n * r {
        return Err(operand_shapes(
            "custom-call gtsv",
            args.iter().take(4).map(|l| l.shape()),
            "(dl, d, du, b) do not fit: the three diagonals need one shape and b the same \
             batch and rows",
        ));
    }
    let (mut dl, mut d, mut du, mut b) = (dl.to_vec(), d.to_vec(), du.to_vec(), b.to_vec());
    let mut info = Vec::with_capacity(batch);
    let mut poll = BatchPoll::new(batch, n, 1);
    for i in 0..batch {
        poll.next()?;
        let s = i * n..(i + 1) * n;
        info.push(gtsv_one(
            &mut dl[s.clone()],
            &mut d[s.clone()],
            &mut du[s],
            &mut b[i * n * r..(i + 1) * n * r],
            r,
        ));
    }
    let data = vec![
        T::wrap(dl),
        T::wrap(d),
        T::wrap(du),
        T::wrap(b),
        ArrayData::S32(info),
    ];
    pack(tuple_of(out, 5, "gtsv")?, data)
}

/// `gtsv`: `(dl, d, du, x, info)` of the tridiagonal systems `(dl, d, du) x = b`.
pub(crate) fn gtsv(args: &[&Literal], out: &Shape) -> Result<Literal> {
    let (x, dims) = array(first(args, "gtsv")?)?;
    by_type!(x, "gtsv", gtsv_k(&dims, args, out))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gtsv_solves_with_row_interchanges() {
        // [[1, 2, 0], [3, 1, 1], [0, 4, 2]] x = [5, 6, 10] (x = [1, 2, 1]): |3| > |1|, so
        // the first step interchanges rows 0 and 1.
        let (mut dl, mut d, mut du) = (
            vec![0.0f64, 3.0, 4.0],
            vec![1.0, 1.0, 2.0],
            vec![2.0, 1.0, 0.0],
        );
        let mut b = vec![5.0, 6.0, 10.0];
        assert_eq!(gtsv_one(&mut dl, &mut d, &mut du, &mut b, 1), 0);
        assert_eq!(d[0], 3.0);
        for (got, x) in b.iter().zip([1.0, 2.0, 1.0]) {
            assert!((got - x).abs() < 1e-12, "{b:?}");
        }
    }

    #[test]
    fn bool_attributes_parse() {
        let c = "{left = false, transpose = true}";
        assert_eq!(bool_attr(c, "left"), Some(false));
        assert_eq!(bool_attr(c, "transpose"), Some(true));
    }
}
