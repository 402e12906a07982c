//! Linear algebra, normalisation and transform rules: batch norm, cholesky,
//! triangular-solve, fft.

use crate::util::*;
use xla_core::attrs::{FftType, Transpose, TriangularSolveOptions};
use xla_core::ir::Op;

fn bnt(f: i64) -> Op {
    Op::BatchNormTraining {
        epsilon: 0.001,
        feature_index: f,
    }
}
fn bni(f: i64) -> Op {
    Op::BatchNormInference {
        epsilon: 0.001,
        feature_index: f,
    }
}
fn bng(f: i64) -> Op {
    Op::BatchNormGrad {
        epsilon: 0.001,
        feature_index: f,
    }
}
fn ts(left_side: bool) -> Op {
    Op::TriangularSolve(TriangularSolveOptions {
        left_side,
        lower: true,
        unit_diagonal: false,
        transpose_a: Transpose::NoTranspose,
    })
}
fn fft(t: FftType, len: &[i64]) -> Op {
    Op::Fft {
        fft_type: t,
        fft_length: len.to_vec(),
    }
}

#[test]
fn batch_norm_rules() {
    let x = "f32[2,3,4,5]";
    run(vec![
        ok(
            "training gives (y, mean, var)",
            bnt(1),
            &[x, "f32[3]", "f32[3]"],
            "(f32[2,3,4,5], f32[3], f32[3])",
        ),
        ok(
            "training, channels last",
            bnt(3),
            &[x, "f32[5]", "f32[5]"],
            "(f32[2,3,4,5], f32[5], f32[5])",
        ),
        ok(
            "inference keeps the operand shape",
            bni(1),
            &[x, "f32[3]", "f32[3]", "f32[3]", "f32[3]"],
            x,
        ),
        ok(
            "grad gives (dx, dscale, doffset)",
            bng(1),
            &[x, "f32[3]", "f32[3]", "f32[3]", x],
            "(f32[2,3,4,5], f32[3], f32[3])",
        ),
        err(
            "feature_index out of range",
            bnt(4),
            &[x, "f32[3]", "f32[3]"],
            "feature_index 4 is out of range",
        ),
        err(
            "feature_index negative",
            bni(-1),
            &[x, "f32[3]", "f32[3]", "f32[3]", "f32[3]"],
            "feature_index -1 is out of range",
        ),
        err(
            "scale size",
            bnt(1),
            &[x, "f32[4]", "f32[3]"],
            "scale f32[4] must be rank 1 of the feature count 3",
        ),
        err(
            "offset rank",
            bnt(1),
            &[x, "f32[3]", "f32[1,3]"],
            "offset f32[1,3] must be rank 1",
        ),
        err(
            "variance size",
            bni(1),
            &[x, "f32[3]", "f32[3]", "f32[3]", "f32[2]"],
            "variance f32[2] must be rank 1",
        ),
        err(
            "integer operand",
            bnt(1),
            &["s32[2,3]", "s32[3]", "s32[3]"],
            "floating-point",
        ),
        err(
            "scale type",
            bnt(1),
            &[x, "f64[3]", "f32[3]"],
            "same element type",
        ),
        err(
            "grad_output shape",
            bng(1),
            &[x, "f32[3]", "f32[3]", "f32[3]", "f32[2,3,4,4]"],
            "same dimensions",
        ),
        err(
            "training operand count",
            bnt(1),
            &[x, "f32[3]"],
            "expects 3 operands, got 2",
        ),
        err(
            "scalar operand",
            bnt(0),
            &["f32[]", "f32[1]", "f32[1]"],
            "rank at least 1",
        ),
    ]);
}

#[test]
fn cholesky_and_triangular_solve() {
    let chol = Op::Cholesky { lower: true };
    run(vec![
        ok(
            "cholesky of a matrix",
            chol.clone(),
            &["f32[4,4]"],
            "f32[4,4]",
        ),
        ok(
            "batched cholesky",
            chol.clone(),
            &["c64[2,3,3]"],
            "c64[2,3,3]",
        ),
        err(
            "cholesky non-square",
            chol.clone(),
            &["f32[4,3]"],
            "square trailing dimensions",
        ),
        err(
            "cholesky of a vector",
            chol.clone(),
            &["f32[4]"],
            "rank at least 2",
        ),
        err(
            "cholesky of integers",
            chol,
            &["s32[4,4]"],
            "floating-point or complex",
        ),
        ok(
            "left-side solve",
            ts(true),
            &["f32[4,4]", "f32[4,2]"],
            "f32[4,2]",
        ),
        ok(
            "right-side solve",
            ts(false),
            &["f32[4,4]", "f32[2,4]"],
            "f32[2,4]",
        ),
        ok(
            "batched solve",
            ts(true),
            &["f64[5,3,3]", "f64[5,3,7]"],
            "f64[5,3,7]",
        ),
        err(
            "left-side shared dim",
            ts(true),
            &["f32[4,4]", "f32[2,4]"],
            "b f32[2,4] dim 0 is 2 but must equal a's size 4",
        ),
        err(
            "right-side shared dim",
            ts(false),
            &["f32[4,4]", "f32[4,2]"],
            "dim 1 is 2 but must equal a's size 4",
        ),
        err(
            "a not square",
            ts(true),
            &["f32[4,3]", "f32[4,2]"],
            "square trailing dimensions",
        ),
        err(
            "batch dims differ",
            ts(true),
            &["f32[5,3,3]", "f32[6,3,2]"],
            "same batch dimensions",
        ),
        err(
            "ranks differ",
            ts(true),
            &["f32[3,3]", "f32[1,3,2]"],
            "b must have rank 2",
        ),
        err(
            "types differ",
            ts(true),
            &["f32[3,3]", "f64[3,2]"],
            "same element type",
        ),
    ]);
}

#[test]
fn fft_rules() {
    run(vec![
        ok(
            "FFT keeps the shape",
            fft(FftType::Fft, &[8]),
            &["c64[4,8]"],
            "c64[4,8]",
        ),
        ok(
            "IFFT over two dims",
            fft(FftType::Ifft, &[4, 8]),
            &["c128[4,8]"],
            "c128[4,8]",
        ),
        ok(
            "RFFT halves the last dim",
            fft(FftType::Rfft, &[8]),
            &["f32[3,8]"],
            "c64[3,5]",
        ),
        ok(
            "RFFT odd length",
            fft(FftType::Rfft, &[17]),
            &["f64[17]"],
            "c128[9]",
        ),
        ok(
            "2-D RFFT",
            fft(FftType::Rfft, &[4, 6]),
            &["f32[2,4,6]"],
            "c64[2,4,4]",
        ),
        ok(
            "IRFFT restores the length",
            fft(FftType::Irfft, &[8]),
            &["c64[3,5]"],
            "f32[3,8]",
        ),
        ok(
            "IRFFT odd length",
            fft(FftType::Irfft, &[9]),
            &["c128[5]"],
            "f64[9]",
        ),
        err(
            "FFT of reals",
            fft(FftType::Fft, &[8]),
            &["f32[8]"],
            "a complex (FFT)",
        ),
        err(
            "RFFT of complex",
            fft(FftType::Rfft, &[8]),
            &["c64[8]"],
            "F32 or F64",
        ),
        err(
            "RFFT length mismatch",
            fft(FftType::Rfft, &[8]),
            &["f32[6]"],
            "trailing dims of f32[6] to equal fft_length {8}",
        ),
        err(
            "IRFFT last dim mismatch",
            fft(FftType::Irfft, &[8]),
            &["c64[4]"],
            "must be 5",
        ),
        err(
            "IRFFT of reals",
            fft(FftType::Irfft, &[8]),
            &["f32[5]"],
            "complex (IRFFT)",
        ),
        err(
            "fft_length of four dims",
            fft(FftType::Fft, &[1, 1, 1, 1]),
            &["c64[1,1,1,1]"],
            "1 to 3 entries",
        ),
        err(
            "fft_length longer than the rank",
            fft(FftType::Fft, &[2, 2]),
            &["c64[2]"],
            "rank at least 2",
        ),
    ]);
}

#[test]
fn more_linalg_rules() {
    run(vec![
        err(
            "triangular-solve a of rank 1",
            ts(true),
            &["f32[3]", "f32[3]"],
            "a must have rank at least 2",
        ),
        err(
            "triangular-solve of integers",
            ts(true),
            &["s32[3,3]", "s32[3,2]"],
            "floating-point or complex",
        ),
        err(
            "negative fft_length",
            fft(FftType::Irfft, &[-4]),
            &["c64[3]"],
            "negative size -4",
        ),
        err(
            "empty fft_length",
            fft(FftType::Fft, &[]),
            &["c64[3]"],
            "1 to 3 entries",
        ),
        err(
            "grad_output type",
            bng(1),
            &["f32[2,3]", "f32[3]", "f32[3]", "f32[3]", "f64[2,3]"],
            "same element type",
        ),
        err(
            "inference mean type",
            bni(0),
            &["f32[2,3]", "f32[2]", "f32[2]", "f16[2]", "f32[2]"],
            "same element type",
        ),
    ]);
}
