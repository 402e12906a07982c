//! Linear algebra and normalisation: batch-norm training / inference / grad (the spec's
//! formulas, biased variance), cholesky and triangular-solve (batched, reading only the
//! relevant triangle). Arithmetic runs in f64 (complex: c128) and is rounded once.

use crate::error::{invalid, CpuError, Result};
use crate::index::{array, count, make};
use num_complex::Complex64 as C;
use xla_core::attrs::{Transpose, TriangularSolveOptions};
use xla_core::literal::ArrayData;
use xla_core::{Literal, PrimitiveType, Shape};

use super::elementwise::convert;

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
        _ => Err(invalid("conversion to f64 failed")),
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
        .ok_or_else(|| invalid(format!("batch-norm: feature_index {fi} out of range")))?;
    let c = dims[f];
    let inner = count(&dims[f + 1..]);
    Ok((c, inner, count(dims) / c.max(1)))
}

fn feature_of(e: usize, c: usize, inner: usize) -> usize {
    (e / inner.max(1)) % c.max(1)
}

/// The operands `a[1..n]` as f64 (per-feature vectors, and batch-norm-grad's `grad_output`),
/// checking there are `n` operands in all and that the first `per_feature` have `c` values.
fn params(a: &[&Literal], n: usize, c: usize, per_feature: usize) -> Result<Vec<Vec<f64>>> {
    if a.len() != n {
        return Err(invalid(format!(
            "batch-norm: expected {n} operands, found {}",
            a.len()
        )));
    }
    let mut out = Vec::new();
    for l in &a[1..] {
        let (v, _, _) = f64s(l, "batch-norm")?;
        out.push(v);
    }
    if out.iter().take(per_feature).any(|v| v.len() != c) {
        return Err(invalid(format!(
            "batch-norm: per-feature operands must have {c} values"
        )));
    }
    Ok(out)
}

fn mean_var(x: &[f64], c: usize, inner: usize, per: usize) -> (Vec<f64>, Vec<f64>) {
    let mut mean = vec![0.0; c];
    for (e, &v) in x.iter().enumerate() {
        mean[feature_of(e, c, inner)] += v;
    }
    mean.iter_mut().for_each(|m| *m /= per as f64);
    let mut var = vec![0.0; c];
    for (e, &v) in x.iter().enumerate() {
        let f = feature_of(e, c, inner);
        var[f] += (v - mean[f]) * (v - mean[f]);
    }
    var.iter_mut().for_each(|s| *s /= per as f64);
    (mean, var)
}

fn tuple_shapes(out: &Shape, n: usize) -> Result<&[Shape]> {
    out.tuple_elements()
        .filter(|t| t.len() == n)
        .ok_or_else(|| invalid(format!("expected a {n}-tuple result, found {out}")))
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
        a.first().ok_or_else(|| invalid("batch-norm: no operand"))?,
        "batch-norm-training",
    )?;
    let (c, inner, per) = feature_layout(&dims, fi)?;
    let p = params(a, 3, c, 2)?;
    let (mean, var) = mean_var(&x, c, inner, per);
    let y = x
        .iter()
        .enumerate()
        .map(|(e, &v)| {
            let f = feature_of(e, c, inner);
            (v - mean[f]) / (var[f] + f64::from(eps)).sqrt() * at(&p[0], f) + at(&p[1], f)
        })
        .collect();
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
        a.first().ok_or_else(|| invalid("batch-norm: no operand"))?,
        "batch-norm-inference",
    )?;
    let (c, inner, _) = feature_layout(&dims, fi)?;
    let p = params(a, 5, c, 4)?;
    let y = x
        .iter()
        .enumerate()
        .map(|(e, &v)| {
            let f = feature_of(e, c, inner);
            (v - at(&p[2], f)) / (at(&p[3], f) + f64::from(eps)).sqrt() * at(&p[0], f)
                + at(&p[1], f)
        })
        .collect();
    back(y, ty, out)
}

/// `batch-norm-grad(x, scale, mean, variance, grad_y)` → `(grad_x, grad_scale, grad_offset)`.
///
/// # Errors
/// If the operands do not fit or are not floats.
pub fn batch_norm_grad(a: &[&Literal], eps: f32, fi: i64, out: &Shape) -> Result<Literal> {
    let (x, dims, ty) = f64s(
        a.first().ok_or_else(|| invalid("batch-norm: no operand"))?,
        "batch-norm-grad",
    )?;
    let (c, inner, per) = feature_layout(&dims, fi)?;
    let p = params(a, 5, c, 3)?;
    let (scale, mean, var, dy) = (&p[0], &p[1], &p[2], &p[3]);
    let mut sum_dy = vec![0.0; c];
    let mut sum_dyx = vec![0.0; c];
    for (e, &v) in x.iter().enumerate() {
        let f = feature_of(e, c, inner);
        sum_dy[f] += at(dy, e);
        sum_dyx[f] += at(dy, e) * (v - at(mean, f));
    }
    let rs: Vec<f64> = (0..c)
        .map(|f| 1.0 / (at(var, f) + f64::from(eps)).sqrt())
        .collect();
    let n = per as f64;
    let gx = x
        .iter()
        .enumerate()
        .map(|(e, &v)| {
            let f = feature_of(e, c, inner);
            let xc = v - at(mean, f);
            at(scale, f) * rs[f] * (at(dy, e) - sum_dy[f] / n - xc * rs[f] * rs[f] * sum_dyx[f] / n)
        })
        .collect();
    let gscale = (0..c).map(|f| sum_dyx[f] * rs[f]).collect();
    let s = tuple_shapes(out, 3)?;
    Ok(Literal::tuple(vec![
        back(gx, ty, &s[0])?,
        back(gscale, ty, &s[1])?,
        back(sum_dy, ty, &s[2])?,
    ]))
}

/// A batch of square-ish matrices as c128: (values, batch, rows, cols, element type).
fn c128s(l: &Literal, op: &'static str) -> Result<(Vec<C>, usize, usize, usize, PrimitiveType)> {
    let (d, dims) = array(l)?;
    let ty = d.element_type();
    if !ty.is_float_or_complex() || dims.len() < 2 {
        return Err(if dims.len() < 2 {
            invalid(format!("{op}: operand {} must have rank >= 2", l.shape()))
        } else {
            CpuError::UnsupportedType { op, ty }
        });
    }
    let (r, c) = (dims[dims.len() - 2], dims[dims.len() - 1]);
    match convert(d, PrimitiveType::C128)? {
        ArrayData::C128(v) => Ok((v, count(&dims[..dims.len() - 2]), r, c, ty)),
        _ => Err(invalid("conversion to c128 failed")),
    }
}

fn from_c128(v: Vec<C>, ty: PrimitiveType, out: &Shape) -> Result<Literal> {
    make(out, convert(&ArrayData::C128(v), ty)?)
}

/// Lower Cholesky factor of an `n x n` matrix given by `get(i, j)` for `i >= j`; `None` if
/// the matrix is not positive definite.
fn cholesky_lower(n: usize, get: impl Fn(usize, usize) -> C) -> Option<Vec<C>> {
    let mut l = vec![C::new(0.0, 0.0); n * n];
    for j in 0..n {
        let mut d = get(j, j).re;
        for k in 0..j {
            d -= l[j * n + k].norm_sqr();
        }
        if d.is_nan() || d <= 0.0 {
            return None;
        }
        let djj = d.sqrt();
        l[j * n + j] = C::new(djj, 0.0);
        for i in j + 1..n {
            let mut s = get(i, j);
            for k in 0..j {
                s -= l[i * n + k] * l[j * n + k].conj();
            }
            l[i * n + j] = s / djj;
        }
    }
    Some(l)
}

/// `cholesky`: `L` (lower) or `U` (upper) with the other triangle zero; a matrix that is not
/// positive definite gives all NaN.
///
/// # Errors
/// If the operand is not a batch of square float or complex matrices.
pub fn cholesky(x: &Literal, lower: bool, out: &Shape) -> Result<Literal> {
    let (v, batch, n, m, ty) = c128s(x, "cholesky")?;
    if n != m {
        return Err(invalid(format!(
            "cholesky: {} is not a batch of square matrices",
            x.shape()
        )));
    }
    let mut res = vec![C::new(0.0, 0.0); v.len()];
    for b in 0..batch {
        let a = &v[b * n * n..(b + 1) * n * n];
        let l = if lower {
            cholesky_lower(n, |i, j| a[i * n + j])
        } else {
            cholesky_lower(n, |i, j| a[j * n + i].conj())
        };
        let dst = &mut res[b * n * n..(b + 1) * n * n];
        match l {
            None => dst.iter_mut().for_each(|d| *d = C::new(f64::NAN, f64::NAN)),
            Some(l) if lower => dst.copy_from_slice(&l),
            Some(l) => {
                for i in 0..n {
                    for j in i..n {
                        dst[i * n + j] = l[j * n + i].conj();
                    }
                }
            }
        }
    }
    from_c128(res, ty, out)
}

/// `op(a)` restricted to the triangle `a` is read from, as a dense `m x m` matrix.
fn effective(a: &[C], m: usize, o: &TriangularSolveOptions) -> Vec<C> {
    let mut t = vec![C::new(0.0, 0.0); m * m];
    for i in 0..m {
        for j in 0..m {
            let inside = if o.lower { i >= j } else { i <= j };
            if !inside {
                continue;
            }
            let v = if i == j && o.unit_diagonal {
                C::new(1.0, 0.0)
            } else {
                a[i * m + j]
            };
            match o.transpose_a {
                Transpose::NoTranspose => t[i * m + j] = v,
                Transpose::Transpose => t[j * m + i] = v,
                Transpose::Adjoint => t[j * m + i] = v.conj(),
            }
        }
    }
    t
}

/// Solves `t x = b` in place for a triangular `t` (`m x m`) and `b` (`m x n`).
fn solve_left(t: &[C], lower: bool, m: usize, n: usize, b: &mut [C]) {
    let rows: Vec<usize> = if lower {
        (0..m).collect()
    } else {
        (0..m).rev().collect()
    };
    for col in 0..n {
        for &i in &rows {
            let mut s = b[i * n + col];
            let ks: Box<dyn Iterator<Item = usize>> = if lower {
                Box::new(0..i)
            } else {
                Box::new(i + 1..m)
            };
            for k in ks {
                s -= t[i * m + k] * b[k * n + col];
            }
            b[i * n + col] = s / t[i * m + i];
        }
    }
}

/// `triangular-solve(a, b)`: `op(a) x = b` (left side) or `x op(a) = b`, batched.
///
/// # Errors
/// If the operands are not batches of matching matrices.
pub fn triangular_solve(
    a: &Literal,
    b: &Literal,
    o: &TriangularSolveOptions,
    out: &Shape,
) -> Result<Literal> {
    let (av, batch, m, m2, ty) = c128s(a, "triangular-solve")?;
    let (mut bv, bbatch, r, c, _) = c128s(b, "triangular-solve")?;
    let fits = if o.left_side { r == m } else { c == m };
    if m != m2 || batch != bbatch || !fits {
        return Err(invalid(format!(
            "triangular-solve: {} and {} do not fit",
            a.shape(),
            b.shape()
        )));
    }
    let eff_lower = o.lower == (o.transpose_a == Transpose::NoTranspose);
    for bi in 0..batch {
        let t = effective(&av[bi * m * m..(bi + 1) * m * m], m, o);
        let bm = &mut bv[bi * r * c..(bi + 1) * r * c];
        if o.left_side {
            solve_left(&t, eff_lower, m, c, bm);
        } else {
            // x t = b  <=>  tᵀ xᵀ = bᵀ.
            let tt: Vec<C> = (0..m * m).map(|k| t[(k % m) * m + k / m]).collect();
            let mut bt: Vec<C> = (0..r * c).map(|k| bm[(k % r) * c + k / r]).collect();
            solve_left(&tt, !eff_lower, m, r, &mut bt);
            for i in 0..r {
                for j in 0..c {
                    bm[i * c + j] = bt[j * r + i];
                }
            }
        }
    }
    from_c128(bv, ty, out)
}
