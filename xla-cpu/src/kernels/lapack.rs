//! The LAPACK custom calls JAX's CPU lowering emits for `jnp.linalg` (and
//! `jax.scipy.linalg`), for f32, f64, c64 and c128 (`lapack_{s,d,c,z}<name>_ffi`), run as
//! built-ins so a module lowered by `jax.jit(...).lower(...)` runs without registering
//! anything: `potrf` (Cholesky), `getrf` (LU with partial pivoting) and `trsm` (triangular
//! solve) here; `geqrf`, `orgqr`/`ungqr`, `gehrd`, `sytrd`/`hetrd` in
//! [`super::lapack_householder`]; `syevd`/`heevd`, `gesdd`/`gesvd`, `geev` in
//! [`super::lapack_eigen`]; `gees` in [`super::lapack_schur`]; `ormqr`/`unmqr`, `gtsv` in
//! [`super::lapack_apply`].
//! Their attributes arrive as the FFI dictionary XLA prints in `backend_config`
//! (`{uplo = 76 : ui8, ...}`, the values LAPACK's character codes).

use super::lapack_getrf_nan as getrf_nan;
use super::lapack_potrf_nan as potrf_nan;
use super::lapack_scalar::{BatchPoll, Scalar};
use super::linalg::{cholesky_k, triangular_solve};
use crate::error::{
    attribute, internal, operand_count, operand_kind, result_shape, CpuError, Result,
};
use crate::index::{array, dims_of, make};
use crate::invariant;
use crate::limits::stop::Poll;
use crate::parallel::Parallel;
use num_traits::Zero;
use xla_core::attrs::{Transpose, TriangularSolveOptions};
use xla_core::literal::ArrayData;
use xla_core::{Literal, Shape};

/// The result of built-in target `target` on `args`, or `None` when `target` is not one.
pub(crate) fn call(
    target: &str,
    args: &[&Literal],
    config: &str,
    out: &Shape,
    par: Parallel<'_>,
) -> Option<Result<Literal>> {
    let kind = target.strip_prefix("lapack_")?.strip_suffix("_ffi")?;
    let (ty, name) = (kind.get(..1)?, kind.get(1..)?);
    if !matches!(ty, "s" | "d" | "c" | "z") {
        return None;
    }
    use super::{lapack_eigen as eig, lapack_householder as hh};
    let _ieee = crate::denormals::Flush::off();
    Some(match name {
        "potrf" => potrf(args, config, out),
        "getrf" => getrf(args, out),
        "trsm" => trsm(args, config, out, par),
        "geqrf" => hh::geqrf(args, out),
        "orgqr" | "ungqr" => hh::orgqr(args, out),
        "gehrd" => hh::gehrd(args, config, out),
        "sytrd" | "hetrd" => hh::sytrd(args, config, out),
        "syevd" | "heevd" => eig::syevd(args, config, out),
        "gesdd" | "gesvd" => eig::gesdd(args, config, out),
        "geev" => eig::geev(args, config, out),
        "gees" => super::lapack_schur::gees(args, config, out),
        "ormqr" | "unmqr" => super::lapack_apply::ormqr(args, config, out),
        "gtsv" => super::lapack_apply::gtsv(args, out),
        _ => return None,
    })
}

/// Attribute `key` of an FFI dictionary (`{key = 76 : ui8, ...}`) as a character.
pub(crate) fn attr(config: &str, key: &str) -> Option<char> {
    let body = config.trim().trim_start_matches('{').trim_end_matches('}');
    body.split(',').find_map(|kv| {
        let (k, v) = kv.split_once('=')?;
        if k.trim() != key {
            return None;
        }
        let n: u8 = v.split(':').next()?.trim().parse().ok()?;
        Some(char::from(n))
    })
}

fn need(config: &str, key: &str, target: &str) -> Result<char> {
    attr(config, key).ok_or_else(|| {
        attribute(
            format!("custom-call {target}"),
            "backend_config",
            format!("{config:?}"),
            format!("has no `{key}`"),
        )
    })
}

fn operand<'a>(args: &[&'a Literal], k: usize, target: &str) -> Result<&'a Literal> {
    args.get(k).copied().ok_or_else(|| {
        operand_count(
            format!("custom-call {target}"),
            format!("at least {} operand(s)", k + 1),
            args.len(),
        )
    })
}

fn tuple_shapes<'a>(out: &'a Shape, n: usize, target: &str) -> Result<&'a [Shape]> {
    match out {
        Shape::Tuple(t) if t.len() == n => Ok(t),
        _ => Err(result_shape(
            format!("custom-call {target}"),
            format!("a {n}-tuple"),
            out,
        )),
    }
}

/// `potrf` of a batch of `n`×`n` matrices `x`: the Cholesky factor in the `lower` (or
/// upper) triangle, the other triangle as given (LAPACK does not touch it), and per matrix
/// `info`, the order of the first leading minor that is not positive definite (0 if none).
/// A matrix with a NaN or infinity in its read triangle runs OpenBLAS's steps
/// ([`super::lapack_potrf_nan`]), which JAX's results follow.
pub(crate) fn potrf_slices<T: Scalar>(x: &[T], n: usize, lower: bool) -> (Vec<T>, Vec<i32>) {
    let mut v = cholesky_k(x, n, lower, Parallel::SEQ);
    let mut info = Vec::new();
    let size = (n * n).max(1);
    let mut poll = BatchPoll::new(x.len() / size, n, n);
    for (m, orig) in v.chunks_mut(size).zip(x.chunks(size)) {
        if poll.next().is_err() {
            // Stopped: the rest is left unfinished (`limits/stop.rs`).
            break;
        }
        if potrf_nan::has_nonfinite(orig, n, lower) {
            let (f, i) = potrf_nan::potf2(orig, n, lower);
            for (d, s) in m.iter_mut().zip(f) {
                *d = s;
            }
            info.push(i);
            continue;
        }
        let bad = (0..n).find(|&i| !m.get(i * n + i).is_some_and(|d| T::finite(*d)));
        info.push(bad.map_or(0, |i| i32::try_from(i + 1).unwrap_or(i32::MAX)));
        for i in 0..n {
            for j in 0..n {
                let other = if lower { j > i } else { j < i };
                if let (true, Some(d), Some(&o)) =
                    (other, m.get_mut(i * n + j), orig.get(i * n + j))
                {
                    *d = o;
                }
            }
        }
    }
    (v, info)
}

/// `(factor, info)` of [`potrf_slices`].
fn potrf(args: &[&Literal], config: &str, out: &Shape) -> Result<Literal> {
    let t = "lapack potrf";
    let x = operand(args, 0, t)?;
    let [fs, is] = tuple_shapes(out, 2, t)? else {
        return Err(internal("tuple_shapes(out, 2) gives two shapes"));
    };
    let lower = need(config, "uplo", t)? == 'L';
    let (xd, dims) = array(x)?;
    let n = dims.last().copied().unwrap_or(0);
    if dims.len() < 2 || dims.get(dims.len() - 2) != Some(&n) {
        return Err(operand_kind(
            "custom-call potrf",
            "a batch of square matrices",
            x.shape(),
        ));
    }
    let (data, info) = match xd {
        ArrayData::F32(v) => {
            let (f, i) = potrf_slices(v, n, lower);
            (ArrayData::F32(f), i)
        }
        ArrayData::F64(v) => {
            let (f, i) = potrf_slices(v, n, lower);
            (ArrayData::F64(f), i)
        }
        ArrayData::C64(v) => {
            let (f, i) = potrf_slices(v, n, lower);
            (ArrayData::C64(f), i)
        }
        ArrayData::C128(v) => {
            let (f, i) = potrf_slices(v, n, lower);
            (ArrayData::C128(f), i)
        }
        _ => {
            return Err(CpuError::UnsupportedType {
                op: "custom-call potrf",
                ty: x.shape().element_type(),
            })
        }
    };
    Ok(Literal::tuple(vec![
        make(fs, data)?,
        make(is, ArrayData::S32(info))?,
    ]))
}

/// LU with partial pivoting of one row-major `m`×`n` matrix in place, as LAPACK's getrf
/// defines it: the pivot of each column is the first entry of largest magnitude; returns
/// the 1-based pivot rows and `info` (the 1-based index of the first zero pivot, or 0).
/// Unblocked (right-looking): the matrices JAX programs factor on a CPU are small, and the
/// result only differs from a blocked factorisation by rounding.
fn lu_in_place<T: Scalar>(a: &mut [T], m: usize, n: usize) -> (Vec<i32>, i32) {
    let k = m.min(n);
    let mut piv = Vec::with_capacity(k);
    let mut info = 0i32;
    // The run's stop, polled per column (column j costs (m-j)(n-j) steps); a stopped
    // factorisation is left unfinished (`limits/stop.rs`).
    let mut poll = Poll::new(m.saturating_mul(n).saturating_mul(k));
    for j in 0..k {
        if poll.tick((m - j) * (n - j)).is_err() {
            break;
        }
        let mut p = j;
        let mut best = T::R::zero();
        for i in j..m {
            let v = a[i * n + j].abs1();
            if v > best || (i == j && num_traits::Float::is_nan(v)) {
                best = v;
                p = i;
            }
        }
        piv.push(i32::try_from(p + 1).unwrap_or(i32::MAX));
        if p != j {
            for c in 0..n {
                a.swap(j * n + c, p * n + c);
            }
        }
        let d = a[j * n + j];
        if d == T::zero() {
            if info == 0 {
                info = i32::try_from(j + 1).unwrap_or(i32::MAX);
            }
            continue;
        }
        for i in j + 1..m {
            let f = a[i * n + j] / d;
            a[i * n + j] = f;
            for c in j + 1..n {
                let u = a[j * n + c];
                a[i * n + c] -= f * u;
            }
        }
    }
    (piv, info)
}

/// [`getrf_slices`] after admitting its scratch to the memory budget: the blocked LU's
/// workspace and row permutations (matrices are factored one at a time).
///
/// # Errors
/// [`crate::error::CpuError::ScratchOverBudget`] or [`crate::error::CpuError::Allocation`]
/// when they do not fit.
fn getrf_checked<T: Scalar>(x: &[T], m: usize, n: usize) -> Result<(Vec<T>, Vec<i32>, Vec<i32>)> {
    use crate::limits::scratch;
    if !T::COMPLEX && m.min(n) >= BLOCKED_FROM {
        use faer::linalg::lu::partial_pivoting::factor::lu_in_place_scratch;
        let ws = lu_in_place_scratch::<usize, T>(m, n, faer::Par::Seq, Default::default());
        let perms = scratch::bytes_of::<usize>(m.saturating_mul(2));
        let bytes = perms.saturating_add(ws.size_bytes() as u64);
        scratch::admit("getrf (LAPACK workspace, row permutations)", bytes)?;
    }
    Ok(getrf_slices(x, m, n))
}

/// `getrf` of a batch of `m`×`n` matrices: `(lu, pivots, info)`, per matrix
/// `min(m, n)` pivots. A matrix with a NaN or infinity runs OpenBLAS's steps
/// ([`super::lapack_getrf_nan`]), whose pivots JAX's results follow.
pub(crate) fn getrf_slices<T: Scalar>(x: &[T], m: usize, n: usize) -> (Vec<T>, Vec<i32>, Vec<i32>) {
    let mut v = x.to_vec();
    let (mut piv, mut info) = (Vec::new(), Vec::new());
    let mut poll = BatchPoll::new(x.len() / (m * n).max(1), m, n);
    for (b, a) in v.chunks_mut((m * n).max(1)).enumerate() {
        if poll.next().is_err() {
            // Stopped: the rest is left unfinished (`limits/stop.rs`).
            break;
        }
        let (p, i) = if getrf_nan::has_nonfinite(a) {
            getrf_nan::getrf_openblas(a, m, n, b)
        } else if !T::COMPLEX && m.min(n) >= BLOCKED_FROM {
            lu_blocked(a, m, n)
        } else {
            lu_in_place(a, m, n)
        };
        piv.extend(p);
        info.push(i);
    }
    (v, piv, info)
}

/// Size from which LU runs on faer's blocked, recursive factorisation: the unblocked loop
/// is O(n³) scalar work (a 1000×1000 solve took ~0.3 s).
const BLOCKED_FROM: usize = 64;

/// LU of one row-major `m`×`n` matrix by faer, with its row permutation turned into
/// LAPACK's sequential swaps (`ipiv`, 1-based) and `info` from the first zero pivot.
fn lu_blocked<T: Scalar>(a: &mut [T], m: usize, n: usize) -> (Vec<i32>, i32) {
    use faer::dyn_stack::{MemBuffer, MemStack};
    use faer::linalg::lu::partial_pivoting::factor::{lu_in_place as faer_lu, lu_in_place_scratch};
    let (mut perm, mut inv) = (vec![0usize; m], vec![0usize; m]);
    let mut mem = MemBuffer::new(lu_in_place_scratch::<usize, T>(
        m,
        n,
        faer::Par::Seq,
        Default::default(),
    ));
    let mat = faer::MatMut::from_row_major_slice_mut(a, m, n);
    faer_lu(
        mat,
        &mut perm,
        &mut inv,
        faer::Par::Seq,
        MemStack::new(&mut mem),
        Default::default(),
    );
    // Row j of P·A is row perm[j] of A: replay that as swaps of the working order.
    let (mut order, mut at): (Vec<usize>, Vec<usize>) = ((0..m).collect(), (0..m).collect());
    let k = m.min(n);
    let mut piv = Vec::with_capacity(k);
    for j in 0..k {
        let want = invariant::at(&perm, j, "getrf: faer's row permutation has m rows");
        let q = invariant::at(&at, want, "getrf: a row of the working order");
        piv.push(i32::try_from(q + 1).unwrap_or(i32::MAX));
        if q != j {
            order.swap(j, q);
            if let (Some(&oj), Some(&oq)) = (order.get(j), order.get(q)) {
                at[oj] = j;
                at[oq] = q;
            }
        }
    }
    let info = (0..k)
        .find(|&j| a.get(j * n + j).is_some_and(|d| *d == T::zero()))
        .map_or(0, |j| i32::try_from(j + 1).unwrap_or(i32::MAX));
    (piv, info)
}

/// `(lu, pivots, info)` of [`getrf_slices`].
fn getrf(args: &[&Literal], out: &Shape) -> Result<Literal> {
    let t = "lapack getrf";
    let x = operand(args, 0, t)?;
    let [ls, ps, is] = tuple_shapes(out, 3, t)? else {
        return Err(internal("tuple_shapes(out, 3) gives three shapes"));
    };
    let dims = dims_of(x.shape())?;
    let (m, n) = match dims.as_slice() {
        [.., m, n] => (*m, *n),
        _ => {
            return Err(operand_kind(
                "custom-call getrf",
                "a batch of matrices",
                x.shape(),
            ))
        }
    };
    let (xd, _) = array(x)?;
    let (data, piv, info) = match xd {
        ArrayData::F32(v) => {
            let (l, p, i) = getrf_checked(v, m, n)?;
            (ArrayData::F32(l), p, i)
        }
        ArrayData::F64(v) => {
            let (l, p, i) = getrf_checked(v, m, n)?;
            (ArrayData::F64(l), p, i)
        }
        ArrayData::C64(v) => {
            let (l, p, i) = getrf_checked(v, m, n)?;
            (ArrayData::C64(l), p, i)
        }
        ArrayData::C128(v) => {
            let (l, p, i) = getrf_checked(v, m, n)?;
            (ArrayData::C128(l), p, i)
        }
        _ => {
            return Err(CpuError::UnsupportedType {
                op: "custom-call getrf",
                ty: x.shape().element_type(),
            })
        }
    };
    Ok(Literal::tuple(vec![
        make(ls, data)?,
        make(ps, ArrayData::S32(piv))?,
        make(is, ArrayData::S32(info))?,
    ]))
}

/// LAPACK's trsm flags (`side`, `uplo`, `diag`, `trans_x` of the FFI dictionary) as
/// `triangular-solve` options.
pub(crate) fn trsm_options(config: &str) -> Result<TriangularSolveOptions> {
    let t = "lapack trsm";
    Ok(TriangularSolveOptions {
        left_side: need(config, "side", t)? == 'L',
        lower: need(config, "uplo", t)? == 'L',
        unit_diagonal: need(config, "diag", t)? == 'U',
        transpose_a: match need(config, "trans_x", t)? {
            'T' => Transpose::Transpose,
            'C' => Transpose::Adjoint,
            _ => Transpose::NoTranspose,
        },
    })
}

/// `op(a) x = b` or `x op(a) = b`: the `triangular-solve` op with LAPACK's flags.
fn trsm(args: &[&Literal], config: &str, out: &Shape, par: Parallel<'_>) -> Result<Literal> {
    let t = "lapack trsm";
    let (a, b) = (operand(args, 0, t)?, operand(args, 1, t)?);
    triangular_solve(a, b, &trsm_options(config)?, out, par)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ffi_attributes_parse() {
        let c = "{diag = 85 : ui8, side = 76 : ui8, trans_x = 78 : ui8, uplo = 76 : ui8}";
        assert_eq!(attr(c, "diag"), Some('U'));
        assert_eq!(attr(c, "trans_x"), Some('N'));
        assert_eq!(attr(c, "uplo"), Some('L'));
        assert_eq!(attr(c, "mode"), None);
    }

    #[test]
    fn lu_pivots_on_the_first_largest_entry() {
        // Column 0 has |4| twice: row 1 (the first) is the pivot.
        let orig = [1.0f64, 2.0, -4.0, 1.0, 4.0, 3.0];
        let mut a = orig.to_vec();
        let (piv, info) = lu_in_place(&mut a, 3, 2);
        assert_eq!((piv.clone(), info), (vec![2, 3], 0));
        // The pivots applied to the rows of the original give L·U.
        let mut p = orig.to_vec();
        for (j, &r) in piv.iter().enumerate() {
            for c in 0..2 {
                p.swap(j * 2 + c, (r as usize - 1) * 2 + c);
            }
        }
        for i in 0..3 {
            for j in 0..2 {
                let lu: f64 = (0..=i.min(j))
                    .map(|k| {
                        let l = if k == i { 1.0 } else { a[i * 2 + k] };
                        l * a[k * 2 + j]
                    })
                    .sum();
                assert!(
                    (lu - p[i * 2 + j]).abs() < 1e-12,
                    "({i},{j}): {lu} vs {}",
                    p[i * 2 + j]
                );
            }
        }
    }

    #[test]
    fn blocked_lu_gives_lapack_pivots() {
        // P·A = L·U with P replayed from the 1-based sequential swaps.
        let (m, n) = (70, 66);
        let orig: Vec<f64> = (0..m * n)
            .map(|i| ((i * 7919 % 1009) as f64 - 500.0) / 97.0)
            .collect();
        let mut a = orig.clone();
        let (piv, info) = lu_blocked(&mut a, m, n);
        assert_eq!((piv.len(), info), (n, 0));
        let mut p = orig.clone();
        for (j, &r) in piv.iter().enumerate() {
            for c in 0..n {
                p.swap(j * n + c, (r as usize - 1) * n + c);
            }
        }
        for i in 0..m {
            for j in 0..n {
                let lu: f64 = (0..=i.min(j))
                    .map(|k| if k == i { 1.0 } else { a[i * n + k] } * a[k * n + j])
                    .sum();
                assert!((lu - p[i * n + j]).abs() < 1e-9, "({i},{j})");
            }
        }
    }

    #[test]
    fn singular_matrix_reports_info() {
        let mut a = vec![1.0f32, 2.0, 2.0, 4.0];
        let (_, info) = lu_in_place(&mut a, 2, 2);
        assert_eq!(info, 2);
    }
}
