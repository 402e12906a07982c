//! The reference cholesky and triangular-solve: textbook loops in c128 on the relevant
//! triangle, kept to check the faer kernels.

use crate::error::{internal, operand_kind, operand_shapes, CpuError, Result};
use crate::kernels::linalg::TRIANGULAR_SOLVE_RULE;
use crate::index::{array, count, make};
use num_complex::Complex64 as C;
use xla_core::attrs::{Transpose, TriangularSolveOptions};
use xla_core::literal::ArrayData;
use xla_core::{Literal, PrimitiveType, Shape};

use super::super::elementwise::convert;

/// A batch of square-ish matrices as c128: (values, batch, rows, cols, element type).
fn c128s(l: &Literal, op: &'static str) -> Result<(Vec<C>, usize, usize, usize, PrimitiveType)> {
    let (d, dims) = array(l)?;
    let ty = d.element_type();
    if !ty.is_float_or_complex() || dims.len() < 2 {
        return Err(if dims.len() < 2 {
            operand_kind(op, "an operand of rank >= 2", l.shape())
        } else {
            CpuError::UnsupportedType { op, ty }
        });
    }
    let (r, c) = (dims[dims.len() - 2], dims[dims.len() - 1]);
    match convert(d, PrimitiveType::C128)? {
        ArrayData::C128(v) => Ok((v, count(&dims[..dims.len() - 2]), r, c, ty)),
        _ => Err(internal("conversion to c128 gives c128 data")),
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
pub(crate) fn cholesky(x: &Literal, lower: bool, out: &Shape) -> Result<Literal> {
    let (v, batch, n, m, ty) = c128s(x, "cholesky")?;
    if n != m {
        return Err(operand_kind(
            "cholesky",
            "a batch of square matrices",
            x.shape(),
        ));
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
pub(crate) fn triangular_solve(
    a: &Literal,
    b: &Literal,
    o: &TriangularSolveOptions,
    out: &Shape,
) -> Result<Literal> {
    let (av, batch, m, m2, ty) = c128s(a, "triangular-solve")?;
    let (mut bv, bbatch, r, c, _) = c128s(b, "triangular-solve")?;
    let fits = if o.left_side { r == m } else { c == m };
    if m != m2 || batch != bbatch || !fits {
        return Err(operand_shapes(
            "triangular-solve",
            [a.shape(), b.shape()],
            TRIANGULAR_SOLVE_RULE,
        ));
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
