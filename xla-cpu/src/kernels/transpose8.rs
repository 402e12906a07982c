//! 8×8 block transposes of 4-byte elements in AVX2 registers, for the transposing strided
//! copy (`strided.rs`). Element by element, that copy's tiles cost about 1 ns an element
//! (an index computation and a bounds check per read, one strided side either way); a
//! Fourier layer's transposes around its FFTs took 12% of its time. Eight rows loaded, eight
//! unpacks, eight shuffles and eight lane permutes, eight rows stored: every element is moved
//! as bits (no arithmetic), so any 4-byte type — f32 NaN payloads included — is copied
//! exactly.

/// Writes the transpose of the 8×8 block whose row `c` is `src[s + c·ss .. s + c·ss + 8]`
/// into rows `dst[d + r·ds .. d + r·ds + 8]`; false (nothing written) when `T` is not 4
/// bytes, the CPU has no AVX2, or a row falls outside `src` or `dst` (the caller copies
/// element by element then).
#[inline]
pub(crate) fn block8<T: Copy>(
    src: &[T],
    (s, ss): (usize, usize),
    dst: &mut [std::mem::MaybeUninit<T>],
    (d, ds): (usize, usize),
) -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        if std::mem::size_of::<T>() != 4 || !is_x86_feature_detected!("avx2") {
            return false;
        }
        let last =
            |base: usize, stride: usize| stride.checked_mul(7)?.checked_add(base)?.checked_add(8);
        let (Some(se), Some(de)) = (last(s, ss), last(d, ds)) else {
            return false;
        };
        if se > src.len() || de > dst.len() {
            return false;
        }
        // SAFETY: the CPU has AVX2 (checked above); `T` is 4 bytes, so the rows are read and
        // written as f32 bit patterns (moves only, no arithmetic); every row read lies in
        // `src[s .. se]` and every row written in `dst[d .. de]`, both checked in bounds just
        // above; `dst` is borrowed mutably, so no other reference sees it being written.
        unsafe {
            avx2::block8(
                src.as_ptr().add(s).cast::<f32>(),
                ss,
                dst.as_mut_ptr().add(d).cast::<f32>(),
                ds,
            );
        }
        true
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = (src, s, ss, dst, d, ds);
        false
    }
}

#[cfg(target_arch = "x86_64")]
mod avx2 {
    use std::arch::x86_64::*;

    /// # Safety
    /// The CPU must have AVX2; rows `src + c·ss` (`c < 8`) must hold 8 readable f32 and rows
    /// `dst + r·ds` 8 writable ones.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn block8(src: *const f32, ss: usize, dst: *mut f32, ds: usize) {
        // SAFETY: the caller's contract covers each row read and written.
        unsafe {
            let r = |c: usize| _mm256_loadu_ps(src.add(c * ss));
            let (r0, r1, r2, r3) = (r(0), r(1), r(2), r(3));
            let (r4, r5, r6, r7) = (r(4), r(5), r(6), r(7));
            let (t0, t1) = (_mm256_unpacklo_ps(r0, r1), _mm256_unpackhi_ps(r0, r1));
            let (t2, t3) = (_mm256_unpacklo_ps(r2, r3), _mm256_unpackhi_ps(r2, r3));
            let (t4, t5) = (_mm256_unpacklo_ps(r4, r5), _mm256_unpackhi_ps(r4, r5));
            let (t6, t7) = (_mm256_unpacklo_ps(r6, r7), _mm256_unpackhi_ps(r6, r7));
            const LO: i32 = 0b01_00_01_00;
            const HI: i32 = 0b11_10_11_10;
            let u0 = _mm256_shuffle_ps::<LO>(t0, t2);
            let u1 = _mm256_shuffle_ps::<HI>(t0, t2);
            let u2 = _mm256_shuffle_ps::<LO>(t1, t3);
            let u3 = _mm256_shuffle_ps::<HI>(t1, t3);
            let u4 = _mm256_shuffle_ps::<LO>(t4, t6);
            let u5 = _mm256_shuffle_ps::<HI>(t4, t6);
            let u6 = _mm256_shuffle_ps::<LO>(t5, t7);
            let u7 = _mm256_shuffle_ps::<HI>(t5, t7);
            let w = |r: usize, v: __m256| _mm256_storeu_ps(dst.add(r * ds), v);
            w(0, _mm256_permute2f128_ps::<0x20>(u0, u4));
            w(1, _mm256_permute2f128_ps::<0x20>(u1, u5));
            w(2, _mm256_permute2f128_ps::<0x20>(u2, u6));
            w(3, _mm256_permute2f128_ps::<0x20>(u3, u7));
            w(4, _mm256_permute2f128_ps::<0x31>(u0, u4));
            w(5, _mm256_permute2f128_ps::<0x31>(u1, u5));
            w(6, _mm256_permute2f128_ps::<0x31>(u2, u6));
            w(7, _mm256_permute2f128_ps::<0x31>(u3, u7));
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::block8;

    /// Row `r` of the result is column `r` of the source block, bit for bit (NaN payloads,
    /// -0 and infinities included), at strides wider than the block.
    #[test]
    fn an_8x8_block_is_transposed_bit_for_bit() {
        let specials = [f32::NAN, -0.0, f32::INFINITY, f32::NEG_INFINITY];
        let src: Vec<u32> = (0..11 * 13)
            .map(|k| match k % 17 {
                3 => f32::from_bits(0x7fc0_1234).to_bits(),
                5 => specials[k % 4].to_bits(),
                _ => (k as u32).wrapping_mul(2_654_435_761),
            })
            .collect();
        let mut dst = vec![std::mem::MaybeUninit::new(0u32); 9 * 12];
        let (s, ss, d, ds) = (2 * 13 + 3, 13, 12 + 2, 12);
        if !block8(&src, (s, ss), &mut dst, (d, ds)) {
            return; // no AVX2 here: nothing to check
        }
        // SAFETY: every element was initialised (to 0, or by the block's rows).
        let dst: Vec<u32> = dst.iter().map(|x| unsafe { x.assume_init() }).collect();
        for r in 0..8 {
            for c in 0..8 {
                assert_eq!(dst[d + r * ds + c], src[s + c * ss + r], "row {r} col {c}");
            }
        }
        // Nothing outside the block was written.
        let inside = |k: usize| k >= d && (k - d) / ds < 8 && (k - d) % ds < 8;
        assert!((0..dst.len()).filter(|&k| !inside(k)).all(|k| dst[k] == 0));
    }

    #[test]
    fn out_of_range_rows_and_other_sizes_are_refused() {
        let src = vec![0f32; 64];
        let mut dst = vec![std::mem::MaybeUninit::new(0f32); 64];
        assert!(!block8(&src, (1, 8), &mut dst, (0, 8)));
        assert!(!block8(&src, (0, 8), &mut dst, (1, 8)));
        let wide = vec![0f64; 64];
        let mut wdst = vec![std::mem::MaybeUninit::new(0f64); 64];
        assert!(!block8(&wide, (0, 8), &mut wdst, (0, 8)));
    }
}
