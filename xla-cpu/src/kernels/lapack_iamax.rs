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
    let pair = |p: usize| [get(a, p), get(a, p + 1)];
    for _ in 0..m >> 4 {
        for k in 0..8 {
            maxp(&mut r[k % 4], pair(p + 2 * k));
        }
        p += 16;
    }
    if m & 8 != 0 {
        for k in 0..4 {
            maxp(&mut r[k], pair(p + 2 * k));
        }
        p += 8;
    }
    if m & 4 != 0 {
        maxp(&mut r[0], pair(p));
        maxp(&mut r[1], pair(p + 2));
        p += 4;
    }
    if m & 2 != 0 {
        maxp(&mut r[2], pair(p));
        p += 2;
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
    let quad = |p: usize| [get(a, p), get(a, p + 1), get(a, p + 2), get(a, p + 3)];
    for _ in 0..m >> 4 {
        for (k, reg) in r.iter_mut().enumerate() {
            maxp(reg, quad(p + 4 * k));
        }
        p += 16;
    }
    if m & 8 != 0 {
        maxp(&mut r[0], quad(p));
        maxp(&mut r[1], quad(p + 4));
        p += 8;
    }
    if m & 4 != 0 {
        maxp(&mut r[2], quad(p));
        p += 4;
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

#[cfg(test)]
mod tests {
    use super::iamax;

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
}
