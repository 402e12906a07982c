//! c64 multiply and divide sixteen elements at a time with AVX-512. Each lane does the
//! IEEE operations of [`xla_complex_mul`] / [`xla_complex_div`] in the same order — for a
//! divide, the ratio's division on the branch Smith's algorithm takes, the same fused
//! multiply-adds, the same two divisions — so the bits are the same; a quotient lane whose
//! two parts both come out NaN (where the scalar function applies its repairs) is redone by
//! the scalar function. A c64[32,32,129] divide (an `irfft` gradient's normalisation) took
//! 0.98 ms one element at a time.

use super::complex_div::xla_complex_div;
use crate::scalar::complex_mul::xla_complex_mul;
use num_complex::Complex32;

/// The two ops.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Op {
    Mul,
    Div,
}

/// `op(a[i], b[i])` for every element, as XLA computes it.
pub(crate) fn zip_c64(a: &[Complex32], b: &[Complex32], op: Op) -> Vec<Complex32> {
    let n = a.len().min(b.len());
    let (a, b) = (&a[..n], &b[..n]);
    #[cfg(target_arch = "x86_64")]
    if is_x86_feature_detected!("avx512f") && is_x86_feature_detected!("fma") {
        let mut out = vec![Complex32::new(0.0, 0.0); n];
        // SAFETY: the CPU has AVX-512F and FMA (checked just above).
        unsafe { zip_avx512(a, b, &mut out, op) };
        return out;
    }
    let op = match op {
        Op::Mul => super::complex_fma::Op::Mul,
        Op::Div => super::complex_fma::Op::Div,
    };
    super::complex_fma::zip(a, b, op)
}

/// Elements per task of [`zip_c64_par`]: 64 KiB of each operand, ~20 µs of divides.
const CHUNK: usize = 1 << 13;

/// [`zip_c64`] split over `par`'s threads in chunks of [`CHUNK`] elements (each element is
/// computed alone, so the bits do not depend on the split). A c64[32,32,129] divide of
/// a Fourier layer's `irfft` gradient took 0.37 ms on one thread.
pub(crate) fn zip_c64_par(
    a: &[Complex32],
    b: &[Complex32],
    op: Op,
    par: crate::parallel::Parallel<'_>,
) -> Vec<Complex32> {
    let n = a.len().min(b.len());
    #[cfg(target_arch = "x86_64")]
    if n >= 2 * CHUNK
        && par.threads() > 1
        && is_x86_feature_detected!("avx512f")
        && is_x86_feature_detected!("fma")
    {
        let mut out = vec![Complex32::new(0.0, 0.0); n];
        let done = par.chunks_mut(&mut out, CHUNK, |c, o| {
            let at = c * CHUNK..c * CHUNK + o.len();
            if let (Some(x), Some(y)) = (a.get(at.clone()), b.get(at)) {
                // SAFETY: the CPU has AVX-512F and FMA (checked above).
                unsafe { zip_avx512(x, y, o, op) };
            }
        });
        if done {
            return out;
        }
    }
    zip_c64(a, b, op)
}

/// The scalar op on one element.
#[inline(always)]
fn one(a: Complex32, b: Complex32, op: Op) -> Complex32 {
    match op {
        Op::Mul => xla_complex_mul(a, b),
        Op::Div => xla_complex_div(a, b),
    }
}

/// The AVX-512 loop: sixteen elements per step (re and im split into two vectors), the
/// tail one at a time.
///
/// # Safety
/// The CPU must have AVX-512F and FMA.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,fma")]
unsafe fn zip_avx512(a: &[Complex32], b: &[Complex32], out: &mut [Complex32], op: Op) {
    use std::arch::x86_64::*;
    let n = out.len().min(a.len()).min(b.len());
    let full = n / 16 * 16;
    let even = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
    let odd = _mm512_setr_epi32(1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31);
    let lo = _mm512_setr_epi32(0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23);
    let hi = _mm512_setr_epi32(8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31);
    let sign = _mm512_set1_ps(-0.0);
    let neg = |x: __m512| _mm512_xor_ps(x, sign);
    let abs = |x: __m512| _mm512_andnot_ps(sign, x);
    let mut i = 0;
    while i < full {
        // SAFETY: `i + 16 <= n`, so the 32 f32 at element `i` of each slice are in
        // bounds (`Complex32` is `repr(C)`: `re`, `im`); unaligned loads and stores.
        let (pa, pb, po) = unsafe {
            (
                a.as_ptr().add(i).cast::<f32>(),
                b.as_ptr().add(i).cast::<f32>(),
                out.as_mut_ptr().add(i).cast::<f32>(),
            )
        };
        let (a0, a1) = unsafe { (_mm512_loadu_ps(pa), _mm512_loadu_ps(pa.add(16))) };
        let (b0, b1) = unsafe { (_mm512_loadu_ps(pb), _mm512_loadu_ps(pb.add(16))) };
        let (ar, ai) = (
            _mm512_permutex2var_ps(a0, even, a1),
            _mm512_permutex2var_ps(a0, odd, a1),
        );
        let (br, bi) = (
            _mm512_permutex2var_ps(b0, even, b1),
            _mm512_permutex2var_ps(b0, odd, b1),
        );
        let (re, im) = match op {
            // re = fma(ar, br, -(ai*bi)), im = fma(ai, br, ar*bi).
            Op::Mul => (
                _mm512_fmadd_ps(ar, br, neg(_mm512_mul_ps(ai, bi))),
                _mm512_fmadd_ps(ai, br, _mm512_mul_ps(ar, bi)),
            ),
            Op::Div => {
                // `m`: |b.re| < |b.im| (ordered: a NaN part takes the other branch).
                let m = _mm512_cmp_ps_mask::<_CMP_LT_OQ>(abs(br), abs(bi));
                // `_mm512_mask_blend_ps(m, x, y)` is `m ? y : x` per lane.
                let num = _mm512_mask_blend_ps(m, bi, br);
                let den0 = _mm512_mask_blend_ps(m, br, bi);
                let r = _mm512_div_ps(num, den0);
                let den = _mm512_fmadd_ps(r, num, den0);
                // re: m ? r*ar + ai : r*ai + ar.
                let x = _mm512_mask_blend_ps(m, ai, ar);
                let y = _mm512_mask_blend_ps(m, ar, ai);
                // im: m ? r*ai - ar : (-r)*ar + ai.
                let p = _mm512_mask_blend_ps(m, neg(r), r);
                let s = _mm512_mask_blend_ps(m, ai, neg(ar));
                (
                    _mm512_div_ps(_mm512_fmadd_ps(r, x, y), den),
                    _mm512_div_ps(_mm512_fmadd_ps(p, y, s), den),
                )
            }
        };
        // SAFETY: as for the loads.
        unsafe {
            _mm512_storeu_ps(po, _mm512_permutex2var_ps(re, lo, im));
            _mm512_storeu_ps(po.add(16), _mm512_permutex2var_ps(re, hi, im));
        }
        let nan =
            _mm512_cmp_ps_mask::<_CMP_UNORD_Q>(re, re) & _mm512_cmp_ps_mask::<_CMP_UNORD_Q>(im, im);
        if op == Op::Div && nan != 0 {
            for j in (0..16).filter(|j| nan & (1 << j) != 0) {
                if let (Some(o), Some(&x), Some(&y)) =
                    (out.get_mut(i + j), a.get(i + j), b.get(i + j))
                {
                    *o = xla_complex_div(x, y);
                }
            }
        }
        i += 16;
    }
    for k in full..n {
        if let (Some(o), Some(&x), Some(&y)) = (out.get_mut(k), a.get(k), b.get(k)) {
            *o = one(x, y, op);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Parts drawn from special values (±0, ±inf, NaN, subnormal, huge, tiny, ties) and
    /// random floats, so both Smith branches, the ordered compare's NaN case and every
    /// repair occur.
    fn part(s: &mut u64) -> f32 {
        *s ^= *s << 13;
        *s ^= *s >> 7;
        *s ^= *s << 17;
        const SPECIAL: [f32; 12] = [
            0.0,
            -0.0,
            f32::INFINITY,
            f32::NEG_INFINITY,
            f32::NAN,
            1e-40,
            -3e-39,
            3e38,
            -1e-30,
            1.0,
            -1.0,
            2.0,
        ];
        match *s % 4 {
            0 => SPECIAL[(*s >> 8) as usize % SPECIAL.len()],
            _ => f32::from_bits((*s >> 16) as u32 & 0x7fff_ffff | ((*s & 1) << 31) as u32)
                .clamp(-1e30, 1e30),
        }
    }

    /// Split over two threads, the same bits as on one (subnormals flushed on both, as
    /// the pool's threads always flush).
    #[test]
    fn two_threads_give_the_bits_of_one() {
        let _flush = crate::denormals::Flush::on();
        let two = crate::parallel::Threads::new(2);
        let mut s = 0x5eed_c64d_0000_0001u64;
        for n in [2 * CHUNK - 1, 2 * CHUNK, 5 * CHUNK + 77] {
            let mut c = || Complex32::new(part(&mut s), part(&mut s));
            let a: Vec<Complex32> = (0..n).map(|_| c()).collect();
            let b: Vec<Complex32> = (0..n).map(|_| c()).collect();
            for op in [Op::Mul, Op::Div] {
                let bits = |v: Vec<Complex32>| -> Vec<(u32, u32)> {
                    v.iter().map(|z| (z.re.to_bits(), z.im.to_bits())).collect()
                };
                let one = bits(zip_c64(&a, &b, op));
                assert_eq!(
                    bits(zip_c64_par(&a, &b, op, two.parallel())),
                    one,
                    "{op:?} {n}"
                );
            }
        }
    }

    #[test]
    fn every_lane_matches_the_scalar_functions() {
        let mut s = 0x9e37_79b9_7f4a_7c15u64;
        for n in (0..70).chain([1000, 4099]) {
            let mut c = || Complex32::new(part(&mut s), part(&mut s));
            let a: Vec<Complex32> = (0..n).map(|_| c()).collect();
            let b: Vec<Complex32> = (0..n).map(|_| c()).collect();
            for op in [Op::Mul, Op::Div] {
                let got = zip_c64(&a, &b, op);
                assert_eq!(got.len(), n);
                for k in 0..n {
                    let want = one(a[k], b[k], op);
                    // The same bits; a NaN's sign and payload are not specified (the
                    // scalar reference's software `fma` propagates them differently).
                    let same =
                        |x: f32, y: f32| x.to_bits() == y.to_bits() || x.is_nan() && y.is_nan();
                    assert!(
                        same(got[k].re, want.re) && same(got[k].im, want.im),
                        "{op:?} {:?}, {:?}: {:?} against {:?}",
                        a[k],
                        b[k],
                        got[k],
                        want
                    );
                }
            }
        }
    }
}
