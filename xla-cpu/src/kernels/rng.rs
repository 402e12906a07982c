//! Random numbers: `rng` (uniform / normal, deterministic from the executable's seed),
//! `rng-bit-generator` (ThreeFry-2x32 and Philox-4x32 as XLA's expander computes them) and
//! `rng-get-and-update-state`.

use crate::error::{invalid, CpuError, Result};
use crate::exec::Ctx;
use crate::index::{array, count, dims_of, make};
use std::sync::atomic::Ordering;
use xla_core::attrs::{RngAlgorithm, RngDistribution};
use xla_core::literal::ArrayData;
use xla_core::{Literal, PrimitiveType, Shape};

use super::elementwise::{bitcast_convert, convert};

/// SplitMix64: a small, well-mixed generator for the `rng` op.
struct SplitMix(u64);

impl SplitMix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
}

fn scalar_f64(l: &Literal) -> Result<f64> {
    match convert(crate::index::data(l)?, PrimitiveType::F64)? {
        ArrayData::F64(v) if v.len() == 1 => Ok(v[0]),
        _ => Err(invalid("rng: bounds must be scalars")),
    }
}

/// `rng(a, b)`: uniform on `[a, b)` or normal with mean `a` and standard deviation `b`.
///
/// # Errors
/// If the bounds are not scalars or the type is not numeric.
pub fn rng(cx: &Ctx, a: &[&Literal], dist: RngDistribution, out: &Shape) -> Result<Literal> {
    let [lo, hi] = a else {
        return Err(invalid("rng: expects two operands"));
    };
    let ty = out.element_type();
    let n = count(&dims_of(out)?);
    let call = cx.rng_calls.get();
    cx.rng_calls.set(call + 1);
    let mut g = SplitMix(
        cx.exe.rng_seed.load(Ordering::Relaxed) ^ call.wrapping_mul(0xD6E8_FEB8_6659_FD93),
    );
    let (a, b) = (scalar_f64(lo)?, scalar_f64(hi)?);
    let v: Vec<f64> = match dist {
        RngDistribution::Uniform if ty.is_integer() => {
            let (ai, bi) = (a as i128, b as i128);
            let span = (bi - ai).max(1) as u128;
            (0..n)
                .map(|_| (ai + (u128::from(g.next()) % span) as i128) as f64)
                .collect()
        }
        RngDistribution::Uniform => (0..n)
            .map(|_| (a + (b - a) * g.unit()).min(b.next_down().max(a)))
            .collect(),
        RngDistribution::Normal => (0..n)
            .map(|_| {
                let (u1, u2) = (1.0 - g.unit(), g.unit());
                a + b * (-2.0 * u1.ln()).sqrt() * (2.0 * std::f64::consts::PI * u2).cos()
            })
            .collect(),
    };
    if !(ty.is_float() || ty.is_integer()) {
        return Err(CpuError::UnsupportedType { op: "rng", ty });
    }
    make(out, convert(&ArrayData::F64(v), ty)?)
}

fn threefry2x32(key: [u32; 2], mut x: [u32; 2]) -> [u32; 2] {
    const ROT: [u32; 8] = [13, 15, 26, 6, 17, 29, 16, 24];
    let ks = [key[0], key[1], 0x1BD1_1BDA ^ key[0] ^ key[1]];
    x[0] = x[0].wrapping_add(ks[0]);
    x[1] = x[1].wrapping_add(ks[1]);
    for i in 0..5usize {
        for r in 0..4 {
            x[0] = x[0].wrapping_add(x[1]);
            x[1] = x[1].rotate_left(ROT[(i % 2) * 4 + r]);
            x[1] ^= x[0];
        }
        x[0] = x[0].wrapping_add(ks[(i + 1) % 3]);
        x[1] = x[1]
            .wrapping_add(ks[(i + 2) % 3])
            .wrapping_add(i as u32 + 1);
    }
    x
}

fn philox4x32(mut x: [u32; 4], mut key: [u32; 2]) -> [u32; 4] {
    for _ in 0..10 {
        let p0 = u64::from(x[0]) * 0xD251_1F53;
        let p1 = u64::from(x[2]) * 0xCD9E_8D57;
        x = [
            (p1 >> 32) as u32 ^ x[1] ^ key[0],
            p1 as u32,
            (p0 >> 32) as u32 ^ x[3] ^ key[1],
            p0 as u32,
        ];
        key = [
            key[0].wrapping_add(0x9E37_79B9),
            key[1].wrapping_add(0xBB67_AE85),
        ];
    }
    x
}

fn split(x: u64) -> [u32; 2] {
    [x as u32, (x >> 32) as u32]
}

fn join(lo: u32, hi: u32) -> u64 {
    u64::from(lo) | (u64::from(hi) << 32)
}

/// ThreeFry bits: `n` words of `wide` (64) or 32 bits, and the advanced counter.
fn threefry_bits(key: u64, ctr: u64, n: usize, wide: bool) -> (Vec<u64>, u64) {
    let k = split(key);
    if wide {
        let v = (0..n)
            .map(|i| threefry2x32(k, split(ctr.wrapping_add(i as u64))))
            .map(|o| join(o[0], o[1]))
            .collect();
        return (v, ctr.wrapping_add(n as u64));
    }
    // 32-bit words: block i gives words 2i and 2i+1 (XLA's interleaved order).
    let half = n.div_ceil(2);
    let v = (0..half)
        .flat_map(|i| threefry2x32(k, split(ctr.wrapping_add(i as u64))))
        .map(u64::from)
        .take(n)
        .collect();
    (v, ctr.wrapping_add(half as u64))
}

/// Philox bits: `n` words, and the advanced 128-bit counter.
fn philox_bits(key: u64, ctr: [u64; 2], n: usize, wide: bool) -> (Vec<u64>, [u64; 2]) {
    let words32 = if wide { n * 2 } else { n };
    let blocks = words32.div_ceil(4);
    let add = |c: [u64; 2], x: u64| {
        let (lo, carry) = c[0].overflowing_add(x);
        [lo, c[1].wrapping_add(u64::from(carry))]
    };
    let outs: Vec<[u32; 4]> = (0..blocks)
        .map(|i| {
            let c = add(ctr, i as u64);
            let [a, b] = split(c[0]);
            let [d, e] = split(c[1]);
            philox4x32([a, b, d, e], split(key))
        })
        .collect();
    let v = if wide {
        let half = n.div_ceil(2);
        let b64: Vec<[u64; 2]> = outs
            .iter()
            .map(|o| [join(o[0], o[1]), join(o[2], o[3])])
            .collect();
        b64.iter()
            .take(half)
            .flat_map(|p| p.iter().copied())
            .take(n)
            .collect()
    } else {
        outs.iter()
            .flat_map(|o| o.iter().map(|&x| u64::from(x)))
            .take(n)
            .collect()
    };
    (v, add(ctr, blocks as u64))
}

/// `rng-bit-generator(state)` → `(new_state, bits)`.
///
/// # Errors
/// If the state is not u64[2] (u64[3] for Philox) or the output type is not 32/64-bit.
pub fn rng_bit_generator(state: &Literal, alg: RngAlgorithm, out: &Shape) -> Result<Literal> {
    let st = state.data::<u64>().ok_or_else(|| {
        invalid(format!(
            "rng-bit-generator: state must be u64[], found {}",
            state.shape()
        ))
    })?;
    let [ss, ds] = out.tuple_elements().unwrap_or(&[]) else {
        return Err(invalid(format!(
            "rng-bit-generator: result must be a (state, bits) pair, found {out}"
        )));
    };
    let ty = ds.element_type();
    let wide = match ty.bit_width() {
        32 if !ty.is_complex() => false,
        64 if !ty.is_complex() => true,
        _ => {
            return Err(CpuError::UnsupportedType {
                op: "rng-bit-generator",
                ty,
            })
        }
    };
    let n = count(&dims_of(ds)?);
    let key = st.first().copied().unwrap_or(0);
    let (bits, new_state) = match alg {
        RngAlgorithm::ThreeFry | RngAlgorithm::Default => {
            let (b, c) = threefry_bits(key, st.get(1).copied().unwrap_or(0), n, wide);
            (b, vec![key, c])
        }
        RngAlgorithm::Philox => {
            let ctr = [
                st.get(1).copied().unwrap_or(0),
                st.get(2).copied().unwrap_or(0),
            ];
            let (b, c) = philox_bits(key, ctr, n, wide);
            let mut s = vec![key, c[0], c[1]];
            s.truncate(st.len().max(2));
            (b, s)
        }
    };
    let raw = if wide {
        ArrayData::U64(bits)
    } else {
        ArrayData::U32(bits.iter().map(|&b| b as u32).collect())
    };
    let (_, sdims) = array(state)?;
    let _ = sdims;
    Ok(Literal::tuple(vec![
        make(ss, ArrayData::U64(new_state))?,
        make(ds, bitcast_convert(&raw, ty)?)?,
    ]))
}

/// `rng-get-and-update-state`: the current state as u64[2], then advances it by `delta`.
///
/// # Errors
/// If the result shape is not u64[2].
pub fn get_and_update_state(cx: &Ctx, delta: i64, out: &Shape) -> Result<Literal> {
    let old = cx.exe.rng_state.fetch_add(delta as u64, Ordering::Relaxed);
    make(out, ArrayData::U64(vec![old, 0]))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn threefry_known_answer() {
        // Random123 known-answer test for threefry2x32_20: key = ctr = 0.
        assert_eq!(threefry2x32([0, 0], [0, 0]), [0x6b20_0159, 0x99ba_4efe]);
        assert_eq!(
            threefry2x32([u32::MAX, u32::MAX], [u32::MAX, u32::MAX]),
            [0x1cb9_96fc, 0xbb00_2be7]
        );
    }

    #[test]
    fn philox_known_answer() {
        // Random123 known-answer test for philox4x32_10: ctr = key = 0.
        assert_eq!(
            philox4x32([0, 0, 0, 0], [0, 0]),
            [0x6627_e8d5, 0xe169_c58d, 0xbc57_ac4c, 0x9b00_dbd8]
        );
    }
}
