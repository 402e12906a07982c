//! Matrix-vector products (one side of the product a single row or column), the shape of
//! a decoding step, a batch-1 layer and an optimiser's line search. faer's general kernel
//! pays its packing and dispatch on every call (a 500×10 by 10 product took 0.6 µs, 8
//! GFLOP/s, in a BFGS loop); these loops read the matrix once, in storage order:
//!
//! - the matrix stored along the output (column-major for a column result): one
//!   multiply-add sweep per step of the sum, every output a sum in `k` order;
//! - stored along the sum, for sums of at most 64 terms: one dot product per output, in
//!   eight interleaved partial sums (`i mod 8`) added pairwise, then the tail in order
//!   (longer ones go to faer).
//!
//! The order of every sum is fixed by the shapes alone (not the instruction set or the
//! thread count), and the interpreter and native loops both come here through `gemm`, so
//! their results stay the same bits. On x86-64 with AVX2 the loops run eight lanes wide.

use super::matmul::FaerElem;
use faer::reborrow::ReborrowMut;
use faer::{ColRef, MatMut, MatRef};

/// Partial sums of a dot product.
const LANES: usize = 8;

/// Largest matrix done here: from about 64 KiB faer's register-blocked kernel is faster
/// (a 256×256 decoding step ran 12% slower here); below, its per-call set-up dominates.
const MAX_ELEMS: usize = 1 << 14;

/// Longest dot product done here: faer's kernel, with several accumulators per lane, is
/// faster on longer ones (a conjugate-gradient step's 256-long rows ran 1.4x slower here).
const MAX_DOT: usize = 64;

/// `dst = lhs * rhs` when `dst` is a single column or row and the matrix side is stored
/// contiguously along one of its dimensions; false (nothing written) otherwise.
pub(crate) fn matvec<T: FaerElem>(
    dst: MatMut<'_, T>,
    lhs: MatRef<'_, T>,
    rhs: MatRef<'_, T>,
) -> bool {
    if dst.ncols() == 1 && rhs.ncols() == 1 {
        column(dst, lhs, rhs.col(0))
    } else if dst.nrows() == 1 && lhs.nrows() == 1 {
        // A row result is the column result of the transposed product.
        column(dst.transpose_mut(), rhs.transpose(), lhs.row(0).transpose())
    } else {
        false
    }
}

/// `dst (m x 1) = a (m x k) * x (k)`.
fn column<T: FaerElem>(mut dst: MatMut<'_, T>, a: MatRef<'_, T>, x: ColRef<'_, T>) -> bool {
    let (m, k) = (a.nrows(), a.ncols());
    if x.nrows() != k || dst.nrows() != m || m.saturating_mul(k) > MAX_ELEMS {
        return false;
    }
    let (cm, rm) = (a.try_as_col_major(), a.try_as_row_major());
    if cm.is_none() && (rm.is_none() || k > MAX_DOT) {
        return false;
    }
    let owned: Vec<T>;
    let xs: &[T] = match x.try_as_col_major() {
        Some(c) => c.as_slice(),
        None => {
            owned = (0..k).map(|p| x[p]).collect();
            &owned
        }
    };
    let fill = |out: &mut [T]| {
        if let Some(a) = cm {
            out.fill(T::default());
            sweep(out, |p| a.col(p).as_slice(), xs);
        } else if let Some(a) = rm {
            for (i, o) in out.iter_mut().enumerate() {
                *o = dot(a.row(i).as_slice(), xs);
            }
        }
    };
    let mut col = dst.rb_mut().col_mut(0);
    if let Some(c) = col.rb_mut().try_as_col_major_mut() {
        fill(c.as_slice_mut());
    } else {
        let mut buf = vec![T::default(); m];
        fill(&mut buf);
        for (i, v) in buf.into_iter().enumerate() {
            col[i] = v;
        }
    }
    true
}

/// `out[i] += col(p)[i] * xs[p]` for each step `p` in turn, four steps per pass over `out`
/// (each output still summed in step order, read and written once per four steps).
fn sweep<'c, T: FaerElem + 'c>(out: &mut [T], col: impl Fn(usize) -> &'c [T], xs: &[T]) {
    let k = xs.len();
    let mut p = 0;
    while p + 4 <= k {
        axpy4(
            out,
            [col(p), col(p + 1), col(p + 2), col(p + 3)],
            [xs[p], xs[p + 1], xs[p + 2], xs[p + 3]],
        );
        p += 4;
    }
    for (q, &s) in xs.iter().enumerate().skip(p) {
        axpy(out, col(q), s);
    }
}

/// Four [`axpy`] steps in one pass.
#[inline]
fn axpy4<T: FaerElem>(out: &mut [T], cols: [&[T]; 4], s: [T; 4]) {
    #[cfg(target_arch = "x86_64")]
    if avx2() {
        // SAFETY: the CPU has AVX2 (checked just above).
        return unsafe { axpy4_avx2(out, cols, s) };
    }
    axpy4_any(out, cols, s);
}

#[inline(always)]
fn axpy4_any<T: FaerElem>(out: &mut [T], [c0, c1, c2, c3]: [&[T]; 4], [s0, s1, s2, s3]: [T; 4]) {
    let n = out
        .len()
        .min(c0.len())
        .min(c1.len())
        .min(c2.len())
        .min(c3.len());
    let (out, c0, c1, c2, c3) = (&mut out[..n], &c0[..n], &c1[..n], &c2[..n], &c3[..n]);
    for i in 0..n {
        out[i] = out[i] + c0[i] * s0 + c1[i] * s1 + c2[i] * s2 + c3[i] * s3;
    }
}

/// # Safety
/// The CPU must have AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn axpy4_avx2<T: FaerElem>(out: &mut [T], cols: [&[T]; 4], s: [T; 4]) {
    axpy4_any(out, cols, s);
}

/// `out[i] = out[i] + col[i] * s`.
#[inline]
fn axpy<T: FaerElem>(out: &mut [T], col: &[T], s: T) {
    #[cfg(target_arch = "x86_64")]
    if avx2() {
        // SAFETY: the CPU has AVX2 (checked just above).
        return unsafe { axpy_avx2(out, col, s) };
    }
    axpy_any(out, col, s);
}

#[inline(always)]
fn axpy_any<T: FaerElem>(out: &mut [T], col: &[T], s: T) {
    for (o, &c) in out.iter_mut().zip(col) {
        *o = *o + c * s;
    }
}

/// # Safety
/// The CPU must have AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn axpy_avx2<T: FaerElem>(out: &mut [T], col: &[T], s: T) {
    axpy_any(out, col, s);
}

/// `Σ a[i] * b[i]` in [`LANES`] interleaved partial sums added pairwise, then the tail in
/// order.
fn dot<T: FaerElem>(a: &[T], b: &[T]) -> T {
    #[cfg(target_arch = "x86_64")]
    if avx2() {
        // SAFETY: the CPU has AVX2 (checked just above).
        return unsafe { dot_avx2(a, b) };
    }
    dot_any(a, b)
}

#[inline(always)]
fn dot_any<T: FaerElem>(a: &[T], b: &[T]) -> T {
    let mut lanes = [T::default(); LANES];
    let (ca, cb) = (a.chunks_exact(LANES), b.chunks_exact(LANES));
    let (ta, tb) = (ca.remainder(), cb.remainder());
    for (x, y) in ca.zip(cb) {
        for j in 0..LANES {
            lanes[j] = lanes[j] + x[j] * y[j];
        }
    }
    let mut w = LANES;
    while w > 1 {
        w /= 2;
        for j in 0..w {
            lanes[j] = lanes[j] + lanes[j + w];
        }
    }
    let mut s = lanes[0];
    for (&x, &y) in ta.iter().zip(tb) {
        s = s + x * y;
    }
    s
}

/// # Safety
/// The CPU must have AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn dot_avx2<T: FaerElem>(a: &[T], b: &[T]) -> T {
    dot_any(a, b)
}

#[cfg(target_arch = "x86_64")]
fn avx2() -> bool {
    std::arch::is_x86_feature_detected!("avx2")
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]
    use super::*;

    /// Seeded values with NaN, ±inf and ±0 mixed in.
    fn values(n: usize, seed: u64, specials: bool) -> Vec<f32> {
        let mut s = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
        (0..n)
            .map(|i| {
                s ^= s << 13;
                s ^= s >> 7;
                s ^= s << 17;
                let u = (s >> 40) as f32 / (1u64 << 24) as f32 - 0.5;
                match (specials, i % 11) {
                    (true, 3) => f32::NAN,
                    (true, 5) => f32::INFINITY,
                    (true, 7) => -0.0,
                    _ => u * 4.0,
                }
            })
            .collect()
    }

    fn same(a: f32, b: f32) -> bool {
        a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan())
    }

    /// A column-major matrix times a vector: every output the plain sum in `k` order, the
    /// same bits, NaN and infinities included.
    #[test]
    fn sweeps_sum_in_k_order() {
        for (m, k, specials) in [(7, 9, false), (33, 13, true), (100, 64, true), (5, 1, true)] {
            let a = values(m * k, 1, specials);
            let x = values(k, 2, specials);
            let mut out = vec![0.0f32; m];
            let ok = matvec(
                MatMut::from_row_major_slice_mut(&mut out, m, 1),
                MatRef::from_column_major_slice(&a, m, k),
                MatRef::from_row_major_slice(&x, k, 1),
            );
            assert!(ok);
            for i in 0..m {
                let mut want = 0.0f32;
                for p in 0..k {
                    want = want + a[p * m + i] * x[p];
                }
                assert!(
                    same(out[i], want),
                    "({m},{k}) row {i}: {} vs {want}",
                    out[i]
                );
            }
        }
    }

    /// Row results (a vector times a matrix) and row-major dot products: within rounding
    /// of the f64 sum, NaN where the plain sum is NaN.
    #[test]
    fn rows_and_dots_agree_with_the_plain_sum() {
        for (m, k, n) in [(1, 37, 21), (19, 40, 1), (1, 8, 300), (64, 64, 1)] {
            let a = values(m * k, 3, false);
            let b = values(k * n, 4, false);
            let mut out = vec![0.0f32; m * n];
            let ok = matvec(
                MatMut::from_row_major_slice_mut(&mut out, m, n),
                MatRef::from_row_major_slice(&a, m, k),
                MatRef::from_row_major_slice(&b, k, n),
            );
            assert!(ok, "({m},{k},{n})");
            for i in 0..m {
                for j in 0..n {
                    let want: f64 = (0..k)
                        .map(|p| f64::from(a[i * k + p]) * f64::from(b[p * n + j]))
                        .sum();
                    let got = f64::from(out[i * n + j]);
                    assert!(
                        (got - want).abs() <= 1e-5 * (1.0 + want.abs()),
                        "{got} vs {want}"
                    );
                }
            }
        }
        let nan = values(40, 5, true);
        let v = values(40, 6, false);
        let mut out = [0.0f32; 1];
        matvec(
            MatMut::from_row_major_slice_mut(&mut out, 1, 1),
            MatRef::from_row_major_slice(&nan, 1, 40),
            MatRef::from_row_major_slice(&v, 40, 1),
        );
        assert!(out[0].is_nan());
    }

    /// Products it does not cover are left to faer: nothing written.
    #[test]
    fn large_or_strided_products_are_declined() {
        let a = vec![1.0f32; 300 * 300];
        let x = vec![1.0f32; 300];
        let mut out = vec![7.0f32; 300];
        let ok = matvec(
            MatMut::from_row_major_slice_mut(&mut out, 300, 1),
            MatRef::from_row_major_slice(&a, 300, 300),
            MatRef::from_row_major_slice(&x, 300, 1),
        );
        assert!(!ok);
        assert!(out.iter().all(|&v| v == 7.0));
    }
}
