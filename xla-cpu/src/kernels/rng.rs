//! Random numbers: `rng` (uniform / normal, deterministic from the executable's seed),
//! `rng-bit-generator` (ThreeFry-2x32 and Philox-4x32 bit for bit as XLA:CPU computes them) and
//! `rng-get-and-update-state`.

use crate::error::{operand_count, operand_kind, CpuError, Result};
use crate::index::{count, dims_of, make};
use crate::kernels::host::Host;
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
        _ => Err(operand_kind("rng", "a scalar bound", l.shape())),
    }
}

/// `rng(a, b)`: uniform on `[a, b)` or normal with mean `a` and standard deviation `b`.
///
/// # Errors
/// If the bounds are not scalars or the type is not numeric.
pub fn rng(cx: &dyn Host, a: &[&Literal], dist: RngDistribution, out: &Shape) -> Result<Literal> {
    let [lo, hi] = a else {
        return Err(operand_count("rng", "2 operands", a.len()));
    };
    let ty = out.element_type();
    let n = count(&dims_of(out)?);
    let call = cx.next_rng_call();
    let mut g = SplitMix(cx.rng_seed() ^ call.wrapping_mul(0xD6E8_FEB8_6659_FD93));
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

/// ThreeFry's 32-bit words for an array of `dims`, laid out as XLA's `ThreeFryRngBit32`
/// does, and the number of counter values used.
///
/// XLA splits one dimension into halves: the first even dimension, else the (first) largest
/// one (a scalar is treated as `[1]`). Block `c` of the "half" shape, where that dimension
/// is `ceil(d/2)` long and `c` is the row-major index in it, is ThreeFry of the counter
/// `ctr + c`; its two output words go to indices `2a` and `2a + 1` of the split dimension
/// (the second is dropped when `d` is odd). So a 1-D array interleaves the words of
/// consecutive blocks, but `u32[4,3]` pairs rows 0 and 1, not neighbouring elements.
fn threefry_words32(key: u64, ctr: u64, dims: &[usize]) -> (Vec<u32>, u64) {
    let k = split(key);
    let block = |c: usize| threefry2x32(k, split(ctr.wrapping_add(c as u64)));
    let Some(s) = dims
        .iter()
        .position(|d| d % 2 == 0)
        .or_else(|| (0..dims.len()).rev().max_by_key(|&i| dims[i]))
    else {
        return (vec![block(0)[0]], ctr.wrapping_add(1));
    };
    let (outer, mid) = (count(&dims[..s]), dims[s]);
    let inner = count(&dims[s + 1..]);
    let half = mid.div_ceil(2);
    let blocks: Vec<[u32; 2]> = (0..outer * half * inner).map(block).collect();
    let mut out = Vec::with_capacity(outer * mid * inner);
    for o in 0..outer {
        for a in 0..mid {
            let row = (o * half + a / 2) * inner;
            out.extend(blocks[row..row + inner].iter().map(|b| b[a % 2]));
        }
    }
    (out, ctr.wrapping_add(blocks.len() as u64))
}

/// Philox blocks for the 128-bit counters `ctr`, `ctr + 1`, ... (`blocks` of them), each
/// four 32-bit words.
fn philox_blocks(key: u64, ctr: u128, blocks: usize) -> Vec<[u32; 4]> {
    (0..blocks)
        .map(|i| {
            let c = ctr.wrapping_add(i as u128);
            let [a, b] = split(c as u64);
            let [d, e] = split((c >> 64) as u64);
            philox4x32([a, b, d, e], split(key))
        })
        .collect()
}

/// The generated words, before the final conversion to the result type.
enum Words {
    /// One 32-bit word per element (8/16-bit results keep its low bits).
    W32(Vec<u32>),
    /// One 64-bit word per element.
    W64(Vec<u64>),
}

/// ThreeFry-2x32: the key is `state[0]`, the counter `state[1]`. 64-bit results take block
/// `ctr + i` for element `i` (low word first) and advance the counter by the element count.
fn threefry(state: &[u64], dims: &[usize], wide: bool) -> (Words, Vec<u64>) {
    let (key, ctr) = (state[0], state[1]);
    if wide {
        let n = count(dims);
        let k = split(key);
        let v = (0..n)
            .map(|i| threefry2x32(k, split(ctr.wrapping_add(i as u64))))
            .map(|o| join(o[0], o[1]))
            .collect();
        return (Words::W64(v), vec![key, ctr.wrapping_add(n as u64)]);
    }
    let (v, next) = threefry_words32(key, ctr, dims);
    (Words::W32(v), vec![key, next])
}

/// Philox-4x32-10: the key is `state[0]`. With a 3-word state the 128-bit counter is
/// `state[2]:state[1]` (high:low) and all of it is returned advanced. With a 2-word state
/// XLA reverses the state, so the counter is `state[0]:state[1]`: the *key* is the counter's
/// high word, which a carry out of the low word does increase for the blocks generated, and
/// only the advanced low word is returned. Block `i` (counter `ctr + i`) gives the words
/// `4i..4i+4` (32-bit results) or the two elements `2i, 2i+1` (64-bit results, low word
/// first); the counter advances by the number of blocks.
fn philox(state: &[u64], n: usize, wide: bool) -> (Words, Vec<u64>) {
    let key = state[0];
    let ctr = match state {
        [_, lo, hi] => u128::from(*lo) | (u128::from(*hi) << 64),
        _ => u128::from(state[1]) | (u128::from(key) << 64),
    };
    let blocks = if wide { n.div_ceil(2) } else { n.div_ceil(4) };
    let out = philox_blocks(key, ctr, blocks);
    let words = if wide {
        let v = out
            .iter()
            .flat_map(|o| [join(o[0], o[1]), join(o[2], o[3])]);
        Words::W64(v.take(n).collect())
    } else {
        Words::W32(out.iter().flatten().copied().take(n).collect())
    };
    let next = ctr.wrapping_add(blocks as u128);
    let mut new_state = vec![key, next as u64, (next >> 64) as u64];
    new_state.truncate(state.len());
    (words, new_state)
}

/// Checks the state against what XLA's expander can split: `u64[2]` for ThreeFry, `u64[2]`
/// or `u64[3]` for Philox. `RngAlgorithm::Default` must be resolved first.
fn check_state(state: &Literal, alg: RngAlgorithm) -> Result<&[u64]> {
    let st = state.data::<u64>().unwrap_or(&[]);
    let fits = match alg {
        RngAlgorithm::ThreeFry => st.len() == 2,
        RngAlgorithm::Philox | RngAlgorithm::Default => matches!(st.len(), 2 | 3),
    };
    if !fits || state.shape().rank() != 1 {
        let or3 = if alg == RngAlgorithm::ThreeFry {
            ""
        } else {
            " or u64[3]"
        };
        return Err(operand_kind(
            "rng-bit-generator",
            format!("a {alg} state of u64[2]{or3}"),
            state.shape(),
        ));
    }
    Ok(st)
}

/// `rng-bit-generator(state)` → `(new_state, bits)`, bit for bit what XLA's
/// `RngBitGeneratorExpander` computes (`xla/hlo/builder/lib/prng.cc`), checked against XLA:CPU
/// in `tests/rng_xla.rs`.
///
/// `rng_default` is Philox: XLA leaves the choice to the backend, and XLA:CPU (the
/// reference, jax 0.10.2) runs the expander with Philox as its default algorithm. Results
/// narrower than 32 bits take the low bits of the 32-bit words the same shape would get
/// (one word per element, as XLA does); signed and other same-width types get the bits
/// unchanged.
///
/// # Errors
/// If the state is not u64[2] (ThreeFry) or u64[2]/u64[3] (Philox), or the result is not a
/// `(state, bits)` pair whose bits have an 8/16/32/64-bit non-PRED, non-complex type.
pub fn rng_bit_generator(state: &Literal, alg: RngAlgorithm, out: &Shape) -> Result<Literal> {
    let alg = match alg {
        RngAlgorithm::Default => RngAlgorithm::Philox,
        RngAlgorithm::ThreeFry | RngAlgorithm::Philox => alg,
    };
    let st = check_state(state, alg)?;
    let [ss, ds] = out.tuple_elements().unwrap_or(&[]) else {
        let pair = "a (state, bits) pair";
        return Err(crate::error::result_shape("rng-bit-generator", pair, out));
    };
    let ty = ds.element_type();
    let width = ty.bit_width();
    if ty.is_pred() || ty.is_complex() || !matches!(width, 8 | 16 | 32 | 64) {
        return Err(CpuError::UnsupportedType {
            op: "rng-bit-generator",
            ty,
        });
    }
    let dims = dims_of(ds)?;
    let (words, new_state) = match alg {
        RngAlgorithm::ThreeFry => threefry(st, &dims, width == 64),
        RngAlgorithm::Philox | RngAlgorithm::Default => philox(st, count(&dims), width == 64),
    };
    let raw = match words {
        Words::W64(v) => ArrayData::U64(v),
        Words::W32(v) if width == 32 => ArrayData::U32(v),
        Words::W32(v) if width == 16 => ArrayData::U16(v.iter().map(|&w| w as u16).collect()),
        Words::W32(v) => ArrayData::U8(v.iter().map(|&w| w as u8).collect()),
    };
    Ok(Literal::tuple(vec![
        make(ss, ArrayData::U64(new_state))?,
        make(ds, bitcast_convert(&raw, ty)?)?,
    ]))
}

/// `rng-get-and-update-state`: the current state as u64[2], then advances it by `delta`.
///
/// # Errors
/// If the result shape is not u64[2].
pub fn get_and_update_state(cx: &dyn Host, delta: i64, out: &Shape) -> Result<Literal> {
    let old = cx.rng_state_add(delta as u64);
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
