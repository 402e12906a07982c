//! Matrix-vector products (one side of the product a single row or column), the shape of
//! a decoding step, a batch-1 layer and an optimiser's line search. faer's general kernel
//! pays its packing and dispatch on every call (a 500×10 by 10 product took 0.6 µs, 8
//! GFLOP/s, in a BFGS loop); these loops read the matrix once, in storage order:
//!
//! - the matrix stored along the output (column-major for a column result): blocks of
//!   outputs held in registers over every step of the sum, each column read once, every
//!   output a sum in `k` order;
//! - stored along the sum, for sums of at most 64 terms: one dot product per output, in
//!   eight interleaved partial sums (`i mod 8`) added pairwise, then the tail in order,
//!   eight rows at a time (longer ones go to faer).
//!
//! The order of every sum is fixed by the shapes alone (not the instruction set or the
//! thread count), and the interpreter and native loops both come here through `gemm`, so
//! their results stay the same bits. On x86-64 the loops are compiled for AVX-512 and
//! AVX2 as well, one dispatch per product (`crate::isa`).

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
            sweep(out, |p| a.col(p).as_slice(), xs);
        } else if let Some(a) = rm {
            dots(out, |i| a.row(i).as_slice(), xs);
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

/// `fn $name(args)` running `$body` (an `#[inline(always)]` function, so all of it)
/// compiled for the widest vector instructions `crate::isa::level` allows: one dispatch
/// per product, not per row.
macro_rules! widest {
    ($(fn $name:ident<$($g:tt),*>($($a:ident: $t:ty),*) = $body:ident where [$($w:tt)*];)*) => {$(
        fn $name<$($g),*>($($a: $t),*) where $($w)* {
            #[cfg(target_arch = "x86_64")]
            {
                #[target_feature(enable = "avx512f,avx512bw,avx512dq,avx512vl,avx2,fma")]
                fn avx512<$($g),*>($($a: $t),*) where $($w)* {
                    $body($($a),*)
                }
                #[target_feature(enable = "avx2,fma")]
                fn avx2<$($g),*>($($a: $t),*) where $($w)* {
                    $body($($a),*)
                }
                match crate::isa::level() {
                    // SAFETY: the CPU supports AVX-512F/BW/DQ/VL (checked at run time).
                    2 => return unsafe { avx512($($a),*) },
                    // SAFETY: the CPU supports AVX2 and FMA (checked at run time).
                    1 => return unsafe { avx2($($a),*) },
                    _ => {}
                }
            }
            $body($($a),*)
        }
    )*};
}

widest! {
    fn sweep<'c, T, F>(out: &mut [T], col: F, xs: &[T]) = sweep_any
        where [T: FaerElem + 'c, F: Fn(usize) -> &'c [T]];
    fn dots<'c, T, F>(out: &mut [T], row: F, xs: &[T]) = dots_any
        where [T: FaerElem + 'c, F: Fn(usize) -> &'c [T]];
}

/// `out[i] = dot(row(i), xs)` for each output, [`ROWS`] rows at a time (their sums
/// interleaved, so the tails' chains of adds overlap; the last group is the one ending at
/// `out.len()`, its overlap with the one before computed twice, to the same values).
#[inline(always)]
fn dots_any<'c, T: FaerElem + 'c>(out: &mut [T], row: impl Fn(usize) -> &'c [T], xs: &[T]) {
    let m = out.len();
    if m < ROWS {
        for (i, o) in out.iter_mut().enumerate() {
            *o = dot(row(i), xs);
        }
        return;
    }
    let mut i = 0;
    while i < m {
        let i0 = i.min(m - ROWS);
        let r = |j: usize| row(i0 + j);
        let sums = T::dot_rows([r(0), r(1), r(2), r(3), r(4), r(5), r(6), r(7)], xs);
        if let Some(o) = out.get_mut(i0..i0 + ROWS) {
            o.copy_from_slice(&sums);
        }
        i = i0 + ROWS;
    }
}

/// Rows per group of [`dots_any`].
const ROWS: usize = 8;

/// `out[i] = Σ_p col(p)[i] * xs[p]`, each output summed from +0 in step order (a multiply
/// then an add, never fused, so every instruction set gives the same bits). The outputs
/// are taken [`WIDE`] (or fewer) at a time and kept in registers over all the steps, so
/// each column is read once and `out` written once; when the block does not divide the
/// length, the last block is the one ending at `out.len()` (its overlap with the one
/// before is computed twice, to the same values).
#[inline(always)]
fn sweep_any<'c, T: FaerElem + 'c>(out: &mut [T], col: impl Fn(usize) -> &'c [T], xs: &[T]) {
    let m = out.len();
    if m >= WIDE {
        blocks::<T, WIDE>(out, &col, xs);
    } else if m >= 16 {
        blocks::<T, 16>(out, &col, xs);
    } else if m >= 8 {
        blocks::<T, 8>(out, &col, xs);
    } else if m >= 4 {
        blocks::<T, 4>(out, &col, xs);
    } else {
        blocks::<T, 1>(out, &col, xs);
    }
}

/// Outputs per register-held block of [`sweep_any`]: four AVX-512 registers of f32, enough
/// independent sums to hide the add's latency.
const WIDE: usize = 64;

/// [`sweep_any`] over blocks of `N` outputs (`out.len() >= N`), two blocks per pass over
/// the columns (twice the independent sums).
#[inline(always)]
fn blocks<'c, T: FaerElem + 'c, const N: usize>(
    out: &mut [T],
    col: &impl Fn(usize) -> &'c [T],
    xs: &[T],
) {
    let m = out.len();
    let start = |b: usize| (b * N).min(m - N);
    let count = m.div_ceil(N);
    let mut b = 0;
    while b + 2 <= count {
        let (i0, i1) = (start(b), start(b + 1));
        let mut acc = [[T::default(); N]; 2];
        for (p, &s) in xs.iter().enumerate() {
            let c = col(p);
            let (Some(c0), Some(c1)) = (c.get(i0..i0 + N), c.get(i1..i1 + N)) else {
                return;
            };
            for (a, &c) in acc[0].iter_mut().zip(c0) {
                *a = *a + c * s;
            }
            for (a, &c) in acc[1].iter_mut().zip(c1) {
                *a = *a + c * s;
            }
        }
        for (i, acc) in [i0, i1].into_iter().zip(&acc) {
            if let Some(o) = out.get_mut(i..i + N) {
                o.copy_from_slice(acc);
            }
        }
        b += 2;
    }
    if b < count {
        let i0 = start(b);
        let mut acc = [T::default(); N];
        for (p, &s) in xs.iter().enumerate() {
            let Some(c) = col(p).get(i0..i0 + N) else {
                return;
            };
            for (a, &c) in acc.iter_mut().zip(c) {
                *a = *a + c * s;
            }
        }
        if let Some(o) = out.get_mut(i0..i0 + N) {
            o.copy_from_slice(&acc);
        }
    }
}

/// `Σ a[i] * b[i]` in [`LANES`] interleaved partial sums added pairwise, then the tail in
/// order.
#[inline(always)]
fn dot<T: FaerElem>(a: &[T], b: &[T]) -> T {
    let n = a.len().min(b.len());
    let (ca, cb) = (a[..n].chunks_exact(LANES), b[..n].chunks_exact(LANES));
    let (ta, tb) = (ca.remainder(), cb.remainder());
    let mut l = [T::default(); LANES];
    for (x, y) in ca.zip(cb) {
        for j in 0..LANES {
            l[j] = l[j] + x[j] * y[j];
        }
    }
    // Halving steps written out (a loop over the width compiled to scalar code).
    let h = [l[0] + l[4], l[1] + l[5], l[2] + l[6], l[3] + l[7]];
    let mut s = (h[0] + h[2]) + (h[1] + h[3]);
    for (&x, &y) in ta.iter().zip(tb) {
        s = s + x * y;
    }
    s
}

/// [`dot`] of each of eight rows with `xs` (the same order of operations per row).
#[inline(always)]
pub(super) fn dot_rows<T: FaerElem>(rows: [&[T]; ROWS], xs: &[T]) -> [T; ROWS] {
    rows.map(|r| dot(r, xs))
}

/// [`dot_rows`] for f32: with AVX2, the eight rows' lanes summed in registers and their
/// halving steps done for all eight at once by shuffles (the compiler's own vector code
/// for this spilled the lanes to the stack and read the tails with gathers; the eight
/// rows' tails stay scalar, one row after the other, so their chains overlap).
#[inline(always)]
pub(super) fn dot_rows_f32(rows: [&[f32]; ROWS], xs: &[f32]) -> [f32; ROWS] {
    #[cfg(target_arch = "x86_64")]
    if crate::isa::level() >= 1 {
        let n = rows.iter().fold(xs.len(), |n, r| n.min(r.len()));
        // SAFETY: the CPU has AVX2 (checked just above); every row and `xs` hold at
        // least `n` elements.
        return unsafe { dot_rows_f32_avx2(rows, xs, n) };
    }
    dot_rows(rows, xs)
}

/// # Safety
/// The CPU must have AVX2; `xs` and every row must hold at least `n` elements.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn dot_rows_f32_avx2(rows: [&[f32]; ROWS], xs: &[f32], n: usize) -> [f32; ROWS] {
    use std::arch::x86_64::*;
    let full = n - n % LANES;
    let mut v = [_mm256_setzero_ps(); ROWS];
    let mut c = 0;
    while c < full {
        // SAFETY: `c + LANES <= full <= n`, inside `xs` and every row.
        let x = unsafe { _mm256_loadu_ps(xs.as_ptr().add(c)) };
        for (v, row) in v.iter_mut().zip(&rows) {
            // SAFETY: as above.
            let a = unsafe { _mm256_loadu_ps(row.as_ptr().add(c)) };
            *v = _mm256_add_ps(*v, _mm256_mul_ps(a, x));
        }
        c += LANES;
    }
    // h = lanes 0..4 + lanes 4..8, two rows per register: [h(r), h(r + 1)].
    let h = |a: __m256, b: __m256| {
        _mm256_add_ps(
            _mm256_permute2f128_ps::<0x20>(a, b),
            _mm256_permute2f128_ps::<0x31>(a, b),
        )
    };
    let (h01, h23, h45, h67) = (h(v[0], v[1]), h(v[2], v[3]), h(v[4], v[5]), h(v[6], v[7]));
    // q = (h0 + h2, h1 + h3); per 128-bit half [q(r), q(r + 2)].
    let q = |a: __m256, b: __m256| {
        _mm256_add_ps(
            _mm256_shuffle_ps::<0b01_00_01_00>(a, b),
            _mm256_shuffle_ps::<0b11_10_11_10>(a, b),
        )
    };
    let (q0123, q4567) = (q(h01, h23), q(h45, h67));
    // s = q0 + q1: low half rows 0, 2, 4, 6, high half rows 1, 3, 5, 7.
    let s = _mm256_add_ps(
        _mm256_shuffle_ps::<0b10_00_10_00>(q0123, q4567),
        _mm256_shuffle_ps::<0b11_01_11_01>(q0123, q4567),
    );
    let mut t = [0.0f32; ROWS];
    // SAFETY: `t` holds eight f32.
    unsafe { _mm256_storeu_ps(t.as_mut_ptr(), s) };
    let mut out = [t[0], t[4], t[1], t[5], t[2], t[6], t[3], t[7]];
    for (o, row) in out.iter_mut().zip(&rows) {
        for (&a, &x) in row[full..n].iter().zip(&xs[full..n]) {
            *o = *o + a * x;
        }
    }
    out
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
        for (m, k, specials) in [
            (7, 9, false),
            (33, 13, true),
            (100, 64, true),
            (5, 1, true),
            (20, 20, true),
            (16, 3, true),
            (130, 7, true),
            (64, 0, false),
        ] {
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

    /// The order `dot` promises, written out independently: eight lanes `i mod 8` summed
    /// from +0 over the full chunks, halved pairwise (4, 2, 1), then the tail in order.
    fn lanes_then_tail<T: FaerElem>(a: &[T], b: &[T]) -> T {
        let full = a.len() / 8 * 8;
        let mut l = [T::default(); 8];
        for i in 0..full {
            l[i % 8] = l[i % 8] + a[i] * b[i];
        }
        for w in [4, 2, 1] {
            for j in 0..w {
                l[j] = l[j] + l[j + w];
            }
        }
        (full..a.len()).fold(l[0], |s, i| s + a[i] * b[i])
    }

    /// Row-major products (dot products, eight rows at a time and the rest alone): every
    /// output exactly the documented order's bits, for f32 (vector code) and f64 (the
    /// generic path), NaN, infinities and signed zeros included.
    #[test]
    fn dots_keep_their_order_bit_for_bit() {
        for (m, k) in [
            (1, 20),
            (7, 9),
            (8, 8),
            (9, 1),
            (20, 20),
            (64, 64),
            (13, 37),
        ] {
            let a = values(m * k, 7, true);
            let x = values(k, 8, true);
            let mut out = vec![0.0f32; m];
            let ok = matvec(
                MatMut::from_row_major_slice_mut(&mut out, m, 1),
                MatRef::from_row_major_slice(&a, m, k),
                MatRef::from_row_major_slice(&x, k, 1),
            );
            assert!(ok, "({m},{k})");
            let (a64, x64): (Vec<f64>, Vec<f64>) = (
                a.iter().map(|&v| f64::from(v) * 1.25).collect(),
                x.iter().map(|&v| f64::from(v) * 0.75).collect(),
            );
            let mut out64 = vec![0.0f64; m];
            assert!(matvec(
                MatMut::from_row_major_slice_mut(&mut out64, m, 1),
                MatRef::from_row_major_slice(&a64, m, k),
                MatRef::from_row_major_slice(&x64, k, 1),
            ));
            for i in 0..m {
                let want = lanes_then_tail(&a[i * k..(i + 1) * k], &x);
                assert!(
                    same(out[i], want),
                    "({m},{k}) row {i}: {} vs {want}",
                    out[i]
                );
                let want = lanes_then_tail(&a64[i * k..(i + 1) * k], &x64);
                let got = out64[i];
                assert!(
                    got.to_bits() == want.to_bits() || (got.is_nan() && want.is_nan()),
                    "f64 ({m},{k}) row {i}: {got} vs {want}"
                );
            }
        }
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
