//! Shape rules: linear algebra, normalisation and transforms — batch-norm training /
//! inference / grad, cholesky, triangular-solve and fft.

use super::validators::*;
use super::{LinalgRule, ShapeError, ShapeRule};
use crate::attrs::{FftType, TriangularSolveOptions};
use crate::shape::{ArrayShape, Shape};
use crate::types::PrimitiveType;

/// Checks the operand of a batch-norm op (floating point, rank >= 1, `feature_index` in
/// range) and every per-feature input (`(operand index, name, shape)`: rank 1 of the feature
/// count, the operand's type). Returns the operand and the feature count.
fn batch_norm_checks<'a>(
    name: &str,
    operand: &'a Shape,
    feature_index: i64,
    features: &[(usize, &str, &Shape)],
) -> Result<(&'a ArrayShape, i64), ShapeError> {
    let x = expect_array(name, 0, "operand", operand)?;
    expect_type(name, 0, "operand", x, is_float, "a floating-point")?;
    if x.dims.is_empty() {
        return Err(min_rank(name, Some(0), "operand", 1, x));
    }
    let f = dim_index(name, "feature_index", feature_index, x)?;
    let count = dim_size(name, "feature_index", feature_index, x)?;
    for &(index, what, shape) in features {
        let s = expect_array(name, index, what, shape)?;
        expect_same_type(name, what, s, "operand", x)?;
        if s.dims.as_slice() != [count] {
            let rule = LinalgRule::FeatureVector {
                what: what.to_string(),
                shape: s.clone(),
                count,
                operand: x.clone(),
                feature_index: f,
            };
            return Err(ShapeError::rule_at(name, index, ShapeRule::Linalg(rule)));
        }
    }
    Ok((x, count))
}

/// The shape of `batch-norm-training(operand, scale, offset)`: `(operand, mean, variance)`.
///
/// # Errors
/// When the operand is not floating point, `feature_index` is out of range, or scale/offset
/// are not rank 1 of the feature count and operand type.
pub fn batch_norm_training(
    operand: &Shape,
    scale: &Shape,
    offset: &Shape,
    feature_index: i64,
) -> Result<Shape, ShapeError> {
    let (x, count) = batch_norm_checks(
        "batch-norm-training",
        operand,
        feature_index,
        &[(1, "scale", scale), (2, "offset", offset)],
    )?;
    let feature = Shape::array(x.ty, vec![count]);
    Ok(Shape::tuple(vec![plain(x), feature.clone(), feature]))
}

/// The shape of `batch-norm-inference(operand, scale, offset, mean, variance)`: the operand's.
///
/// # Errors
/// As [`batch_norm_training`], for all four per-feature inputs.
pub fn batch_norm_inference(
    operand: &Shape,
    scale: &Shape,
    offset: &Shape,
    mean: &Shape,
    variance: &Shape,
    feature_index: i64,
) -> Result<Shape, ShapeError> {
    let features = [
        (1, "scale", scale),
        (2, "offset", offset),
        (3, "mean", mean),
        (4, "variance", variance),
    ];
    let (x, _) = batch_norm_checks("batch-norm-inference", operand, feature_index, &features)?;
    Ok(plain(x))
}

/// The shape of `batch-norm-grad(operand, scale, mean, variance, grad_output)`:
/// `(grad_operand, grad_scale, grad_offset)`; `grad_output` has the operand's shape.
///
/// # Errors
/// As [`batch_norm_training`], and when `grad_output` differs from the operand.
pub fn batch_norm_grad(
    operand: &Shape,
    scale: &Shape,
    mean: &Shape,
    variance: &Shape,
    grad_output: &Shape,
    feature_index: i64,
) -> Result<Shape, ShapeError> {
    let name = "batch-norm-grad";
    let features = [
        (1, "scale", scale),
        (2, "mean", mean),
        (3, "variance", variance),
    ];
    let (x, count) = batch_norm_checks(name, operand, feature_index, &features)?;
    let g = expect_array(name, 4, "grad_output", grad_output)?;
    expect_same_type(name, "grad_output", g, "operand", x)?;
    expect_same_dims(name, "grad_output", g, "operand", x)?;
    let feature = Shape::array(x.ty, vec![count]);
    Ok(Shape::tuple(vec![plain(x), feature.clone(), feature]))
}

/// Checks a batch of square matrices `[..., M, M]` of floating-point or complex type.
fn square_matrices<'a>(
    name: &str,
    index: usize,
    what: &str,
    shape: &'a Shape,
) -> Result<(&'a ArrayShape, i64), ShapeError> {
    let a = expect_array(name, index, what, shape)?;
    expect_type(
        name,
        index,
        what,
        a,
        is_float_or_complex,
        "a floating-point or complex",
    )?;
    match a.dims.as_slice() {
        [.., m, n] if m == n => Ok((a, *m)),
        [.., _, _] => {
            let (what, shape) = (what.to_string(), a.clone());
            let rule = ShapeRule::Linalg(LinalgRule::Square { what, shape });
            Err(ShapeError::rule_at(name, index, rule))
        }
        _ => Err(min_rank(name, Some(index), what, 2, a)),
    }
}

/// The shape of `cholesky(a)`: the operand's; `a` is a batch of square floating-point or
/// complex matrices.
///
/// # Errors
/// When `a` has rank < 2, non-square trailing dims or another element type.
pub fn cholesky(a: &Shape) -> Result<Shape, ShapeError> {
    let (x, _) = square_matrices("cholesky", 0, "a", a)?;
    Ok(plain(x))
}

/// The shape of `triangular-solve(a, b)`: b's. `a` is `[..., M, M]`, `b` of the same type and
/// rank with equal batch dims, and `b`'s dim `rank-2` (left side) or `rank-1` (right side)
/// equals `M`.
///
/// # Errors
/// When any of these rules is broken.
pub fn triangular_solve(
    a: &Shape,
    b: &Shape,
    options: &TriangularSolveOptions,
) -> Result<Shape, ShapeError> {
    let name = "triangular-solve";
    let (x, m) = square_matrices(name, 0, "a", a)?;
    let y = expect_array(name, 1, "b", b)?;
    expect_same_type(name, "a", x, "b", y)?;
    expect_rank(name, 1, "b", y, x.dims.len())?;
    let rank = y.dims.len();
    let batch = rank.saturating_sub(2);
    if x.dims.get(..batch) != y.dims.get(..batch) {
        let (a, b) = (x.clone(), y.clone());
        return Err(ShapeError::rule(
            name,
            ShapeRule::Linalg(LinalgRule::SolveBatch { a, b }),
        ));
    }
    let k = rank.saturating_sub(if options.left_side { 2 } else { 1 });
    let shared = y.dims.get(k).copied().unwrap_or(-1);
    if shared != m {
        let rule = LinalgRule::SolveSize {
            a: x.clone(),
            b: y.clone(),
            dim: k,
            size: shared,
            m,
            left_side: options.left_side,
        };
        return Err(ShapeError::rule(name, ShapeRule::Linalg(rule)));
    }
    Ok(plain(y))
}

/// The shape of `fft`: FFT/IFFT keep the complex shape; RFFT takes F32/F64 whose trailing
/// dims equal `fft_length` and gives C64/C128 with the last dim `fft_length[-1]/2 + 1`;
/// IRFFT takes complex whose trailing dims equal `fft_length` except the last, which is
/// `fft_length[-1]/2 + 1`, and gives the real type with the last dim `fft_length[-1]`.
/// `fft_length` has 1 to 3 entries and the operand at least that rank.
///
/// # Errors
/// When any of these rules is broken.
pub fn fft(operand: &Shape, fft_type: FftType, fft_length: &[i64]) -> Result<Shape, ShapeError> {
    let name = "fft";
    let a = expect_array(name, 0, "operand", operand)?;
    let n = fft_length.len();
    if !(1..=3).contains(&n) {
        let fft_length = fft_length.to_vec();
        return Err(ShapeError::rule(
            name,
            ShapeRule::Linalg(LinalgRule::FftLength { fft_length }),
        ));
    }
    expect_nonnegative_dims(name, "fft_length", fft_length)?;
    if a.dims.len() < n {
        let (operand, fft_length) = (a.clone(), fft_length.to_vec());
        let rule = ShapeRule::Linalg(LinalgRule::FftRank {
            operand,
            fft_length,
        });
        return Err(ShapeError::rule_at(name, 0, rule));
    }
    let trailing = a.dims.get(a.dims.len() - n..).unwrap_or(&[]);
    let last = fft_length.last().copied().unwrap_or(0);
    match fft_type {
        FftType::Fft | FftType::Ifft => {
            expect_type(
                name,
                0,
                "operand",
                a,
                PrimitiveType::is_complex,
                &format!("a complex ({fft_type})"),
            )?;
            Ok(plain(a))
        }
        FftType::Rfft => {
            expect_type(
                name,
                0,
                "operand",
                a,
                |t| matches!(t, PrimitiveType::F32 | PrimitiveType::F64),
                "an F32 or F64 (RFFT)",
            )?;
            if trailing != fft_length {
                let (operand, fft_length) = (a.clone(), fft_length.to_vec());
                let rule = ShapeRule::Linalg(LinalgRule::RfftTrailing {
                    operand,
                    fft_length,
                });
                return Err(ShapeError::rule(name, rule));
            }
            let mut dims = a.dims.clone();
            set_last(&mut dims, if last == 0 { 0 } else { last / 2 + 1 });
            Ok(Shape::array(a.ty.complex_type().unwrap_or(a.ty), dims))
        }
        FftType::Irfft => {
            expect_type(
                name,
                0,
                "operand",
                a,
                PrimitiveType::is_complex,
                "a complex (IRFFT)",
            )?;
            let expected_last = if last == 0 { 0 } else { last / 2 + 1 };
            let leading_ok = trailing.get(..n - 1) == fft_length.get(..n - 1);
            if !leading_ok || trailing.last().copied() != Some(expected_last) {
                let rule = LinalgRule::IrfftTrailing {
                    operand: a.clone(),
                    fft_length: fft_length.to_vec(),
                    expected_last,
                };
                return Err(ShapeError::rule(name, ShapeRule::Linalg(rule)));
            }
            let mut dims = a.dims.clone();
            set_last(&mut dims, last);
            Ok(Shape::array(a.ty.component_type(), dims))
        }
    }
}

fn set_last(dims: &mut [i64], value: i64) {
    if let Some(slot) = dims.last_mut() {
        *slot = value;
    }
}
