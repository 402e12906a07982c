//! Linear algebra and normalisation: batch-norm training / inference / grad (the spec's
//! formulas, biased variance; f64 arithmetic rounded once), cholesky and triangular-solve
//! through faer (batched, reading only the relevant triangle; f16/bf16 run in f32).

use crate::error::{internal, operand_count, operand_kind, operand_shapes, CpuError, Result};

/// The rule `triangular-solve`'s operands `a` and `b` break when they do not fit.
pub(crate) const TRIANGULAR_SOLVE_RULE: &str = "do not fit: a must be a batch of square m×m \
     matrices and b the same batch with m rows (left_side=true) or m columns (left_side=false)";
use crate::index::{array, count, make};
use crate::limits::stop::Stop;
use crate::parallel::Parallel;
use faer::dyn_stack::{MemBuffer, MemStack};
use faer::linalg::cholesky::llt::factor::{cholesky_in_place, cholesky_in_place_scratch};
use faer::linalg::triangular_solve as ts;
use faer::{Mat, MatMut, MatRef, Par};
use rayon::prelude::*;
use xla_core::attrs::{Transpose, TriangularSolveOptions};
use xla_core::literal::ArrayData;
use xla_core::{Literal, PrimitiveType, Shape};

use super::contraction::{as_type, finish};
use super::elementwise::convert;
use super::matmul::FaerElem;

#[cfg(test)]
#[path = "linalg_reference.rs"]
pub(crate) mod reference;

fn f64s(l: &Literal, op: &'static str) -> Result<(Vec<f64>, Vec<usize>, PrimitiveType)> {
    let (d, dims) = array(l)?;
    if !d.element_type().is_float() {
        return Err(CpuError::UnsupportedType {
            op,
            ty: d.element_type(),
        });
    }
    match convert(d, PrimitiveType::F64)? {
        ArrayData::F64(v) => Ok((v, dims, d.element_type())),
        _ => Err(internal("conversion to f64 gives f64 data")),
    }
}

fn back(v: Vec<f64>, ty: PrimitiveType, shape: &Shape) -> Result<Literal> {
    make(shape, convert(&ArrayData::F64(v), ty)?)
}

/// Per-feature layout of a batch-norm operand: (features, inner size, elements per feature).
fn feature_layout(dims: &[usize], fi: i64) -> Result<(usize, usize, usize)> {
    let f = usize::try_from(fi)
        .ok()
        .filter(|&f| f < dims.len())
        .ok_or_else(|| crate::error::out_of_range("batch-norm", "feature_index", fi, dims.len()))?;
    let c = dims[f];
    let inner = count(&dims[f + 1..]);
    Ok((c, inner, count(dims) / c.max(1)))
}

/// Calls `f(feature, start..end)` for each contiguous run of one feature's elements, in
/// element order (a batch-norm operand is `[outer, c, inner]` around its feature dim).
fn for_feature_runs(
    len: usize,
    c: usize,
    inner: usize,
    mut f: impl FnMut(usize, std::ops::Range<usize>),
) {
    let inner = inner.max(1);
    let mut start = 0;
    while start < len {
        let feature = (start / inner) % c.max(1);
        let end = (start + inner).min(len);
        f(feature, start..end);
        start = end;
    }
}

/// The operands `a[1..n]` as f64 (per-feature vectors, and batch-norm-grad's `grad_output`),
/// checking there are `n` operands in all and that the first `per_feature` have `c` values.
fn params(a: &[&Literal], n: usize, c: usize, per_feature: usize) -> Result<Vec<Vec<f64>>> {
    if a.len() != n {
        let takes = if n == 3 { "3 operands" } else { "5 operands" };
        return Err(operand_count("batch-norm", takes, a.len()));
    }
    let mut out = Vec::new();
    for l in &a[1..] {
        let (v, _, _) = f64s(l, "batch-norm")?;
        out.push(v);
    }
    if out.iter().take(per_feature).any(|v| v.len() != c) {
        let shapes = a.iter().skip(1).take(per_feature).map(|l| l.shape());
        return Err(operand_shapes(
            "batch-norm",
            shapes,
            format!("must each have {c} values, one per feature"),
        ));
    }
    Ok(out)
}

fn mean_var(x: &[f64], c: usize, inner: usize, per: usize) -> (Vec<f64>, Vec<f64>) {
    let mut mean = vec![0.0; c];
    for_feature_runs(x.len(), c, inner, |f, r| {
        if let (Some(m), Some(xs)) = (mean.get_mut(f), x.get(r)) {
            for &v in xs {
                *m += v;
            }
        }
    });
    mean.iter_mut().for_each(|m| *m /= per as f64);
    let mut var = vec![0.0; c];
    for_feature_runs(x.len(), c, inner, |f, r| {
        if let (Some(s), Some(xs)) = (var.get_mut(f), x.get(r)) {
            let m = at(&mean, f);
            for &v in xs {
                *s += (v - m) * (v - m);
            }
        }
    });
    var.iter_mut().for_each(|s| *s /= per as f64);
    (mean, var)
}

/// `out[e] = g(feature of e, x[e], e)` for every element, run by run.
fn map_features(
    x: &[f64],
    c: usize,
    inner: usize,
    g: impl Fn(usize, f64, usize) -> f64,
) -> Vec<f64> {
    let mut out = Vec::with_capacity(x.len());
    for_feature_runs(x.len(), c, inner, |f, r| {
        let start = r.start;
        if let Some(xs) = x.get(r) {
            out.extend(xs.iter().enumerate().map(|(k, &v)| g(f, v, start + k)));
        }
    });
    out
}

fn tuple_shapes(out: &Shape, n: usize) -> Result<&[Shape]> {
    out.tuple_elements()
        .filter(|t| t.len() == n)
        .ok_or_else(|| crate::error::result_shape("batch-norm", format!("a {n}-tuple"), out))
}

fn at(v: &[f64], i: usize) -> f64 {
    v.get(i).copied().unwrap_or(f64::NAN)
}

/// `batch-norm-training(x, scale, offset)` → `(y, mean, variance)`.
///
/// # Errors
/// If the operands do not fit or are not floats.
pub fn batch_norm_training(a: &[&Literal], eps: f32, fi: i64, out: &Shape) -> Result<Literal> {
    let (x, dims, ty) = f64s(
        a.first()
            .ok_or_else(|| operand_count("batch-norm", "3 or 5 operands", 0))?,
        "batch-norm-training",
    )?;
    let (c, inner, per) = feature_layout(&dims, fi)?;
    let p = params(a, 3, c, 2)?;
    let (mean, var) = mean_var(&x, c, inner, per);
    let sd: Vec<f64> = var.iter().map(|v| (v + f64::from(eps)).sqrt()).collect();
    let y = map_features(&x, c, inner, |f, v, _| {
        (v - at(&mean, f)) / at(&sd, f) * at(&p[0], f) + at(&p[1], f)
    });
    let s = tuple_shapes(out, 3)?;
    Ok(Literal::tuple(vec![
        back(y, ty, &s[0])?,
        back(mean, ty, &s[1])?,
        back(var, ty, &s[2])?,
    ]))
}

/// `batch-norm-inference(x, scale, offset, mean, variance)`.
///
/// # Errors
/// If the operands do not fit or are not floats.
pub fn batch_norm_inference(a: &[&Literal], eps: f32, fi: i64, out: &Shape) -> Result<Literal> {
    let (x, dims, ty) = f64s(
        a.first()
            .ok_or_else(|| operand_count("batch-norm", "3 or 5 operands", 0))?,
        "batch-norm-inference",
    )?;
    let (c, inner, _) = feature_layout(&dims, fi)?;
    let p = params(a, 5, c, 4)?;
    let sd: Vec<f64> = (0..c)
        .map(|f| (at(&p[3], f) + f64::from(eps)).sqrt())
        .collect();
    let y = map_features(&x, c, inner, |f, v, _| {
        (v - at(&p[2], f)) / at(&sd, f) * at(&p[0], f) + at(&p[1], f)
    });
    back(y, ty, out)
}

/// `batch-norm-grad(x, scale, mean, variance, grad_y)` → `(grad_x, grad_scale, grad_offset)`.
///
/// # Errors
/// If the operands do not fit or are not floats.
pub fn batch_norm_grad(a: &[&Literal], eps: f32, fi: i64, out: &Shape) -> Result<Literal> {
    let (x, dims, ty) = f64s(
        a.first()
            .ok_or_else(|| operand_count("batch-norm", "3 or 5 operands", 0))?,
        "batch-norm-grad",
    )?;
    let (c, inner, per) = feature_layout(&dims, fi)?;
    let p = params(a, 5, c, 3)?;
    let (scale, mean, var, dy) = (&p[0], &p[1], &p[2], &p[3]);
    let mut sum_dy = vec![0.0; c];
    let mut sum_dyx = vec![0.0; c];
    for_feature_runs(x.len(), c, inner, |f, r| {
        let m = at(mean, f);
        if let (Some(sa), Some(sb)) = (sum_dy.get_mut(f), sum_dyx.get_mut(f)) {
            for e in r {
                let d = at(dy, e);
                *sa += d;
                *sb += d * (at(&x, e) - m);
            }
        }
    });
    let rs: Vec<f64> = (0..c)
        .map(|f| 1.0 / (at(var, f) + f64::from(eps)).sqrt())
        .collect();
    let n = per as f64;
    let gx = map_features(&x, c, inner, |f, v, e| {
        let xc = v - at(mean, f);
        let r = at(&rs, f);
        at(scale, f) * r * (at(dy, e) - at(&sum_dy, f) / n - xc * r * r * at(&sum_dyx, f) / n)
    });
    let gscale = (0..c).map(|f| sum_dyx[f] * rs[f]).collect();
    let s = tuple_shapes(out, 3)?;
    Ok(Literal::tuple(vec![
        back(gx, ty, &s[0])?,
        back(gscale, ty, &s[1])?,
        back(sum_dy, ty, &s[2])?,
    ]))
}

/// Factorisations and solves of fewer operations than this stay on one thread (faer's
/// parallel Cholesky is slower than its sequential one at 1024x1024 on two cores).
const MIN_PAR_FLOPS: usize = 1 << 32;

/// A batch of `rows x cols` matrices in a float or complex type faer handles.
struct Batch<'a> {
    data: std::borrow::Cow<'a, ArrayData>,
    batch: usize,
    rows: usize,
    cols: usize,
}

/// The operand as a [`Batch`] (f16/bf16 converted to f32).
fn batch_of<'a>(l: &'a Literal, op: &'static str) -> Result<Batch<'a>> {
    let (d, dims) = array(l)?;
    let ty = d.element_type();
    if !ty.is_float_or_complex() {
        return Err(CpuError::UnsupportedType { op, ty });
    }
    let [.., rows, cols] = dims[..] else {
        return Err(operand_kind(op, "an operand of rank >= 2", l.shape()));
    };
    let data = match d {
        ArrayData::F16(_) | ArrayData::Bf16(_) => as_type(d, PrimitiveType::F32)?,
        other => std::borrow::Cow::Borrowed(other),
    };
    Ok(Batch {
        data,
        batch: count(&dims[..dims.len() - 2]),
        rows,
        cols,
    })
}

/// Runs `f` on each `size`-element matrix of `v`, in parallel over the batch when there is
/// more than one matrix, else with faer's parallelism for about `flops` operations. A run's
/// stop is polled before each matrix of a batch; after a stop the rest are left unfinished
/// (`limits/stop.rs`). A single matrix is one faer call, not interrupted.
fn per_matrix<T: Send>(
    v: &mut [T],
    size: usize,
    flops: usize,
    par: Parallel<'_>,
    f: impl Fn(usize, &mut [T], Par) + Send + Sync,
) {
    if size == 0 {
        return;
    }
    let stop = match v.len() > size {
        true => Stop::current(),
        false => Stop::default(),
    };
    let f = |b: usize, m: &mut [T], p: Par| {
        if !stop.stopped() {
            f(b, m, p);
        }
    };
    if v.len() > size
        && par.threads() > 1
        && flops * (v.len() / size) >= super::matmul::MIN_PAR_FLOPS
    {
        par.install(|| {
            v.par_chunks_mut(size)
                .enumerate()
                .for_each(|(b, m)| f(b, m, Par::Seq))
        });
    } else {
        let p = par.par_for(flops, MIN_PAR_FLOPS);
        par.install(|| v.chunks_mut(size).enumerate().for_each(|(b, m)| f(b, m, p)));
    }
}

/// Factors one `n x n` matrix `a` (row-major) into `dst`: the triangle `lower` asks for,
/// zero elsewhere; all NaN when `a` is not positive definite.
fn cholesky_one<T: FaerElem>(a: &[T], dst: &mut [T], n: usize, lower: bool, par: Par) {
    // The relevant triangle as a lower matrix: A's lower triangle, or that of Aᴴ (whose
    // column-major view of A's row-major buffer is a plain conjugated copy).
    let mut l = Mat::<T>::zeros(n, n);
    if lower {
        l.copy_from_triangular_lower(MatRef::from_row_major_slice(a, n, n));
    } else {
        l.copy_from_triangular_lower(MatRef::from_column_major_slice(a, n, n).conjugate());
    }
    let mut mem = MemBuffer::new(cholesky_in_place_scratch::<T>(n, par, Default::default()));
    let ok = cholesky_in_place(
        l.as_mut(),
        Default::default(),
        par,
        MemStack::new(&mut mem),
        Default::default(),
    )
    .is_ok();
    // `dst` starts zeroed; write L (lower) or Lᴴ (upper) into its triangle.
    let mut d = MatMut::from_row_major_slice_mut(dst, n, n);
    match (ok, lower) {
        (false, _) => d.fill(T::NAN),
        (true, true) => d.copy_from_triangular_lower(l.as_ref()),
        (true, false) => d.copy_from_triangular_upper(l.as_ref().adjoint()),
    }
}

pub(crate) fn cholesky_k<T: FaerElem>(a: &[T], n: usize, lower: bool, par: Parallel<'_>) -> Vec<T> {
    let mut out = vec![T::default(); a.len()];
    per_matrix(&mut out, n * n, n * n * n / 3, par, |b, dst, p| {
        cholesky_one(&a[b * n * n..(b + 1) * n * n], dst, n, lower, p);
    });
    out
}

/// [`cholesky_k`] after admitting its scratch to the memory budget: per matrix factored
/// at once (one per thread at most), the copy of its triangle and faer's workspace.
///
/// # Errors
/// [`CpuError::ScratchOverBudget`] or [`CpuError::Allocation`] when they do not fit.
fn cholesky_checked<T: FaerElem>(
    a: &[T],
    n: usize,
    lower: bool,
    par: Parallel<'_>,
) -> Result<Vec<T>> {
    use crate::limits::scratch;
    let threads = par.threads().max(1);
    let workspace = cholesky_in_place_scratch::<T>(n, Par::rayon(threads), Default::default());
    let per =
        scratch::bytes_of::<T>(n.saturating_mul(n)).saturating_add(workspace.size_bytes() as u64);
    let tasks = (a.len() / n.saturating_mul(n).max(1)).clamp(1, threads) as u64;
    scratch::admit(
        "cholesky (factor copy, LAPACK workspace)",
        per.saturating_mul(tasks),
    )?;
    Ok(cholesky_k(a, n, lower, par))
}

/// `cholesky`: `L` (lower) or `U` (upper) with the other triangle zero, reading only the
/// relevant triangle; a matrix that is not positive definite gives all NaN.
///
/// # Errors
/// If the operand is not a batch of square float or complex matrices.
pub fn cholesky(x: &Literal, lower: bool, out: &Shape, par: Parallel<'_>) -> Result<Literal> {
    let b = batch_of(x, "cholesky")?;
    let n = b.rows;
    if n != b.cols {
        return Err(operand_kind(
            "cholesky",
            "a batch of square matrices",
            x.shape(),
        ));
    }
    use ArrayData as D;
    let res = match &*b.data {
        D::F32(v) => D::F32(cholesky_checked(v, n, lower, par)?),
        D::F64(v) => D::F64(cholesky_checked(v, n, lower, par)?),
        D::C64(v) => D::C64(cholesky_checked(v, n, lower, par)?),
        D::C128(v) => D::C128(cholesky_checked(v, n, lower, par)?),
        other => {
            return Err(CpuError::UnsupportedType {
                op: "cholesky",
                ty: other.element_type(),
            })
        }
    };
    finish(out, res)
}

/// Solves `t x = rhs` in place, `t` triangular (`lower` or upper, `unit` diagonal or not).
fn solve<T: FaerElem, L: faer::traits::Conjugate<Canonical = T>>(
    t: MatRef<'_, L>,
    rhs: MatMut<'_, T>,
    (lower, unit): (bool, bool),
    par: Par,
) {
    match (lower, unit) {
        (true, false) => ts::solve_lower_triangular_in_place(t, rhs, par),
        (true, true) => ts::solve_unit_lower_triangular_in_place(t, rhs, par),
        (false, false) => ts::solve_upper_triangular_in_place(t, rhs, par),
        (false, true) => ts::solve_unit_upper_triangular_in_place(t, rhs, par),
    }
}

/// One system: `a` is `m x m`, `x` holds `b` (`r x c`, row-major) and receives the solution.
fn trsm_one<T: FaerElem>(
    a: &[T],
    x: &mut [T],
    (m, r, c): (usize, usize, usize),
    o: &TriangularSolveOptions,
    par: Par,
) {
    let a = MatRef::from_row_major_slice(a, m, m);
    let x = MatMut::from_row_major_slice_mut(x, r, c);
    let unit = o.unit_diagonal;
    // op(a) is lower when a is lower and not transposed, or upper and transposed.
    let lower = o.lower == (o.transpose_a == Transpose::NoTranspose);
    // Left: op(a) x = b. Right: x op(a) = b, i.e. op(a)^T x^T = b^T.
    let (x, lower) = if o.left_side {
        (x, lower)
    } else {
        (x.transpose_mut(), !lower)
    };
    match (o.transpose_a, o.left_side) {
        (Transpose::NoTranspose, true) | (Transpose::Transpose, false) => {
            solve(a, x, (lower, unit), par)
        }
        (Transpose::Transpose, true) | (Transpose::NoTranspose, false) => {
            solve(a.transpose(), x, (lower, unit), par)
        }
        (Transpose::Adjoint, true) => solve(a.adjoint(), x, (lower, unit), par),
        (Transpose::Adjoint, false) => solve(a.conjugate(), x, (lower, unit), par),
    }
}

pub(crate) fn trsm_k<T: FaerElem>(
    a: &[T],
    b: &[T],
    mrc: (usize, usize, usize),
    o: &TriangularSolveOptions,
    par: Parallel<'_>,
) -> Vec<T> {
    let (m, r, c) = mrc;
    let mut x = b.to_vec();
    per_matrix(&mut x, r * c, m * r * c, par, |bi, xm, p| {
        trsm_one(&a[bi * m * m..(bi + 1) * m * m], xm, mrc, o, p);
    });
    x
}

/// `triangular-solve(a, b)`: `op(a) x = b` (left side) or `x op(a) = b`, batched, reading
/// only the relevant triangle of `a` (and not its diagonal when it is a unit diagonal).
///
/// # Errors
/// If the operands are not batches of matching float or complex matrices.
pub fn triangular_solve(
    a: &Literal,
    b: &Literal,
    o: &TriangularSolveOptions,
    out: &Shape,
    par: Parallel<'_>,
) -> Result<Literal> {
    let av = batch_of(a, "triangular-solve")?;
    let bv = batch_of(b, "triangular-solve")?;
    let m = av.rows;
    let fits = if o.left_side {
        bv.rows == m
    } else {
        bv.cols == m
    };
    if m != av.cols || av.batch != bv.batch || !fits {
        return Err(operand_shapes(
            "triangular-solve",
            [a.shape(), b.shape()],
            TRIANGULAR_SOLVE_RULE,
        ));
    }
    let mrc = (m, bv.rows, bv.cols);
    use ArrayData as D;
    let res = match (&*av.data, &*bv.data) {
        (D::F32(x), D::F32(y)) => D::F32(trsm_k(x, y, mrc, o, par)),
        (D::F64(x), D::F64(y)) => D::F64(trsm_k(x, y, mrc, o, par)),
        (D::C64(x), D::C64(y)) => D::C64(trsm_k(x, y, mrc, o, par)),
        (D::C128(x), D::C128(y)) => D::C128(trsm_k(x, y, mrc, o, par)),
        (x, _) => {
            return Err(CpuError::UnsupportedType {
                op: "triangular-solve",
                ty: x.element_type(),
            })
        }
    };
    finish(out, res)
}
