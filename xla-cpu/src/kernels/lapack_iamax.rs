//! OpenBLAS's `idamax`/`isamax` as JAX's LAPACK runs them (scipy's OpenBLAS 0.3.30,
//! `DYNAMIC_ARCH` core `Haswell` on x86-64: `kernel/x86_64/iamax_sse2.S` for f64,
//! `iamax_sse.S` for f32), so that `getrf` picks the pivots JAX's does when a column holds
//! a NaN. With finite values they return the first entry of largest magnitude, as the
//! reference BLAS does; with a NaN they do not: the first pass keeps the largest magnitude
//! per SIMD lane with x86 `max` (`dst > src ? dst : src`, so a NaN is replaced by the next
//! value of its lane, and a lane seeded with a NaN stays NaN until it is written), the
//! second pass returns the first entry equal to that maximum, where the scalar `comis`
//! tests also stop at a NaN (unordered compares as equal) and 8-entry blocks are skipped
//! unless an ordered-equal entry is in them. Which lane an entry falls in depends on the
//! address of the first entry modulo 16 bytes, so the caller passes it. Checked against
//! scipy's `idamax`/`isamax` on 6,000 random vectors each (lengths 1 to 70, every
//! alignment, NaN, ±inf and ties): identical.

/// x86 `maxps`/`maxpd` on one lane: `dst > src ? dst : src`.
fn mx(d: f64, s: f64) -> f64 {
    if d > s {
        d
    } else {
        s
    }
}

/// `comiss`/`comisd` then `je`: equal, or unordered.
fn hit(x: f64, m: f64) -> bool {
    x == m || x.is_nan() || m.is_nan()
}

fn get(a: &[f64], i: usize) -> f64 {
    a.get(i).copied().unwrap_or(f64::NAN)
}

/// `dst = max(dst, src)` lane by lane.
fn maxp<const L: usize>(r: &mut [f64; L], v: [f64; L]) {
    for (d, s) in r.iter_mut().zip(v) {
        *d = mx(*d, s);
    }
}

/// The kernels' reduction of their four registers: `max(max(r0, r1), max(r2, r3))`.
fn reduce<const L: usize>(r: [[f64; L]; 4]) -> [f64; L] {
    let [mut c, r1, mut d, r3] = r;
    maxp(&mut c, r1);
    maxp(&mut d, r3);
    maxp(&mut c, d);
    c
}

/// `L` consecutive entries from `p` into one register each of `regs` in turn (the
/// kernels' unrolled `maxp` runs); returns the next entry.
fn feed<const L: usize>(r: &mut [[f64; L]; 4], regs: &[usize], a: &[f64], mut p: usize) -> usize {
    for &k in regs {
        if let Some(reg) = r.get_mut(k) {
            maxp(reg, std::array::from_fn(|i| get(a, p + i)));
        }
        p += L;
    }
    p
}

/// The 1-based index `i?amax` returns for the magnitudes `a` (f32 kernel when `f32`),
/// whose first entry is at byte address `addr` (only `addr % 16` matters). May be
/// `a.len() + 1` when a NaN hides the maximum (OpenBLAS's `getf2` clamps it).
pub(crate) fn iamax(a: &[f64], addr: usize, f32: bool) -> usize {
    if a.is_empty() {
        return 0;
    }
    let (m, p, ret) = if f32 {
        first_pass_s(a, addr)
    } else {
        first_pass_d(a, addr)
    };
    second_pass(a, m, p, ret)
}

/// f64 (`iamax_sse2.S`): four registers of two lanes seeded with `a[0]`; returns the
/// maximum and where the second pass starts (its scalar prologue done).
fn first_pass_d(a: &[f64], addr: usize) -> (f64, usize, usize) {
    let n = a.len();
    let mut r = [[get(a, 0); 2]; 4];
    let (mut p, mut m) = (1, n - 1);
    let aligned = m > 7;
    if aligned && (addr + 8) % 16 != 0 {
        maxp(&mut r[3], [get(a, 1); 2]);
        (p, m) = (2, m - 1);
    }
    for _ in 0..m >> 4 {
        p = feed(&mut r, &[0, 1, 2, 3, 0, 1, 2, 3], a, p);
    }
    for (bit, regs) in [(8, &[0, 1, 2, 3][..]), (4, &[0, 1]), (2, &[2])] {
        if m & bit != 0 {
            p = feed(&mut r, regs, a, p);
        }
    }
    if m & 1 != 0 {
        maxp(&mut r[3], [get(a, p); 2]);
    }
    let c = reduce(r);
    let max = mx(c[1], c[0]);
    if aligned && addr % 16 != 0 {
        if hit(get(a, 0), max) {
            return (max, usize::MAX, 1);
        }
        return (max, 1, 1);
    }
    (max, 0, 0)
}

/// f32 (`iamax_sse.S`): four registers of four lanes seeded with `a[0]`.
fn first_pass_s(a: &[f64], addr: usize) -> (f64, usize, usize) {
    let n = a.len();
    let mut r = [[get(a, 0); 4]; 4];
    let (mut p, mut m) = (1, n - 1);
    let aligned = m > 8;
    if aligned && (addr + 4) & 4 != 0 {
        r[0][0] = mx(r[0][0], get(a, 1));
        (p, m) = (2, m - 1);
    }
    let dup = |p: usize| [get(a, p), get(a, p), get(a, p + 1), get(a, p + 1)];
    if aligned && (addr + 4 * p) & 8 != 0 {
        maxp(&mut r[1], dup(p));
        (p, m) = (p + 2, m - 2);
    }
    for _ in 0..m >> 4 {
        p = feed(&mut r, &[0, 1, 2, 3], a, p);
    }
    for (bit, regs) in [(8, &[0, 1][..]), (4, &[2])] {
        if m & bit != 0 {
            p = feed(&mut r, regs, a, p);
        }
    }
    if m & 2 != 0 {
        maxp(&mut r[3], dup(p));
        p += 2;
    }
    if m & 1 != 0 {
        r[0][0] = mx(r[0][0], get(a, p));
    }
    let c = reduce(r);
    let max = mx(mx(c[3], c[1]), mx(c[2], c[0]));
    let (mut p, mut ret) = (0, 0);
    if aligned && addr & 4 != 0 {
        (p, ret) = (1, 1);
        if hit(get(a, 0), max) {
            return (max, usize::MAX, ret);
        }
    }
    if aligned && (addr + 4 * p) & 8 != 0 {
        for _ in 0..2 {
            ret += 1;
            if hit(get(a, p), max) {
                return (max, usize::MAX, ret);
            }
            p += 1;
        }
    }
    (max, p, ret)
}

/// The index search from entry `p` (`usize::MAX`: already found at `ret`).
fn second_pass(a: &[f64], max: f64, mut p: usize, mut ret: usize) -> usize {
    if p == usize::MAX {
        return ret;
    }
    let m = a.len().saturating_sub(p);
    for _ in 0..m >> 3 {
        let block = crate::invariant::span(a, p..p + 8, "iamax: whole blocks of 8");
        if block.iter().any(|&v| v == max) {
            for &v in block.iter().take(7) {
                ret += 1;
                if hit(v, max) {
                    return ret;
                }
            }
            return ret + 1;
        }
        p += 8;
        ret += 8;
    }
    for width in [4, 2] {
        if m & width != 0 {
            for k in 0..width {
                ret += 1;
                if hit(get(a, p + k), max) {
                    return ret;
                }
            }
            p += width;
        }
    }
    ret + 1
}

/// OpenBLAS's `izamax`/`icamax` (`kernel/x86_64/izamax_sse2.S` for c128, `izamax_sse.S`
/// for c64; contiguous vectors) on the magnitudes `|re| + |im|` (computed in the element
/// precision), 1-based; may be `a.len() + 1` as [`iamax`]. Unlike the real kernels they
/// take no alignment prologue, so the answer does not depend on the address. The first
/// pass keeps per-lane maxima seeded with `a[0]` (c128: four registers of two lanes, a last
/// odd entry into the low lane of the third; c64: one register of four lanes, a pair tail
/// into the low lanes of two); the second pass scans blocks of 4 with an ordered compare
/// and then entry by entry where unordered counts as equal. Checked against scipy's
/// `izamax`/`icamax` (the OpenBLAS JAX runs) on 12,000 random vectors (lengths 1 to 70,
/// NaN, ±inf, zeros and ties in either part): identical.
pub(crate) fn izamax(a: &[f64], f32: bool) -> usize {
    if a.is_empty() {
        return 0;
    }
    let max = if f32 {
        first_pass_c(a)
    } else {
        first_pass_z(a)
    };
    second_pass_cplx(a, max)
}

/// c128: `max(max(r0, r1), max(r2, r3))` of four two-lane registers, high lane first.
fn first_pass_z(a: &[f64]) -> f64 {
    let mut r = [[get(a, 0); 2]; 4];
    let (mut p, m) = (1, a.len() - 1);
    for _ in 0..m >> 3 {
        p = feed(&mut r, &[0, 1, 2, 3], a, p);
    }
    for (bit, regs) in [(4, &[0, 1][..]), (2, &[0])] {
        if m & bit != 0 {
            p = feed(&mut r, regs, a, p);
        }
    }
    if m & 1 != 0 {
        r[2][0] = mx(r[2][0], get(a, p));
    }
    let c = reduce(r);
    mx(c[1], c[0])
}

/// c64: one four-lane register (and a second for the pair tail), reduced as the real f32
/// kernel's.
fn first_pass_c(a: &[f64]) -> f64 {
    let (mut x0, mut x1) = ([get(a, 0); 4], [get(a, 0); 4]);
    let (mut p, m) = (1, a.len() - 1);
    let quad = |p: usize| [get(a, p), get(a, p + 1), get(a, p + 2), get(a, p + 3)];
    for _ in 0..m >> 3 {
        maxp(&mut x0, quad(p));
        maxp(&mut x0, quad(p + 4));
        p += 8;
    }
    if m & 4 != 0 {
        maxp(&mut x0, quad(p));
        p += 4;
    }
    if m & 2 != 0 {
        x0[0] = mx(x0[0], get(a, p));
        x1[0] = mx(x1[0], get(a, p + 1));
        p += 2;
    }
    if m & 1 != 0 {
        x0[0] = mx(x0[0], get(a, p));
    }
    maxp(&mut x0, x1);
    mx(mx(x0[3], x0[1]), mx(x0[2], x0[0]))
}

/// The complex kernels' index search: blocks of 4 (entered when one entry is ordered-equal
/// to the maximum), then a pair, then `ret + 1` (an odd last entry is never tested).
fn second_pass_cplx(a: &[f64], max: f64) -> usize {
    let (mut p, mut ret) = (0, 0);
    let n = a.len();
    for _ in 0..n >> 2 {
        let block = a.get(p..p + 4).unwrap_or(&[]);
        if block.iter().any(|&v| v == max) {
            for &v in block {
                ret += 1;
                if hit(v, max) {
                    return ret;
                }
            }
        }
        p += 4;
        ret += 4;
    }
    if n & 2 != 0 {
        for k in 0..2 {
            ret += 1;
            if hit(get(a, p + k), max) {
                return ret;
            }
        }
    }
    ret + 1
}

#[cfg(test)]
mod tests {
    use super::{iamax, izamax};

    #[test]
    fn finite_values_give_the_first_largest_magnitude() {
        let a = [1.0, 3.0, 2.0, 3.0, 0.5, 1.0, 2.0, 2.5, 1.0, 0.0, 1.5];
        for addr in [0, 4, 8, 12] {
            assert_eq!(iamax(&a, addr, false), 2);
            assert_eq!(iamax(&a, addr, true), 2);
        }
    }

    #[test]
    fn a_nan_as_scipy_openblas_returns_it() {
        // Values from scipy.linalg.blas.idamax/isamax on 16-byte aligned arrays.
        let nan = f64::NAN;
        // NaN first: the lanes it seeded forget it; the maximum 9 is found in the tail.
        let a = [nan, 1.0, 2.0, 3.0, 1.0, 2.0, 1.0, 2.0, 9.0];
        assert_eq!((iamax(&a, 0, false), iamax(&a, 0, true)), (9, 9));
        // f64 stops at the NaN in its scalar scan; f32's seeded lanes make the maximum
        // `a[0]`, found first.
        let b = [1.0, nan, 5.0, 2.0];
        assert_eq!((iamax(&b, 0, false), iamax(&b, 0, true)), (2, 1));
        // All NaN: no entry compares equal in the 8-entry block, the scan runs off the
        // end (n + 1; BLAS's interface and getf2 clamp it to n).
        assert_eq!(iamax(&[nan; 8], 0, false), 9);
    }
    #[test]
    fn complex_kernels_as_scipy_openblas() {
        // Magnitudes |re| + |im|; expected values from scipy.linalg.blas.izamax/icamax
        // (plus one) on the same vectors.
        let nan = f64::NAN;
        // Finite: the first largest.
        let a = [1.0, 3.0, 2.0, 3.0, 0.5];
        assert_eq!((izamax(&a, false), izamax(&a, true)), (2, 2));
        // A NaN first seeds every lane; the per-lane max forgets it where a later entry
        // lands, so the answer is the largest finite entry.
        let b = [nan, 1.0, 2.0, 3.0, 1.0, 2.0, 1.0, 2.0, 9.0];
        assert_eq!((izamax(&b, false), izamax(&b, true)), (9, 9));
        // A NaN in the first block of 4: the scalar scan stops there once the block holds
        // the maximum.
        let c = [1.0, nan, 5.0, 2.0];
        assert_eq!((izamax(&c, false), izamax(&c, true)), (2, 2));
        // No entry ordered-equal to a NaN maximum: runs off the end (n + 1).
        assert_eq!(izamax(&[nan; 4], false), 5);
    }
}
