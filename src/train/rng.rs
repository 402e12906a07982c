//! A small seeded random number generator (PCG32, O'Neill 2014) for shuffling, splitting and
//! initialising weights. It is part of this crate, so a seed gives the same numbers on every
//! machine and with every version of the dependencies.
//!
//! ```
//! use xla::train::Rng;
//!
//! let mut a = Rng::new(7);
//! let mut b = Rng::new(7);
//! assert_eq!(a.next_u32(), b.next_u32());
//! let w = a.glorot_uniform(&[64, 10]).unwrap(); // f32[64,10] in ±sqrt(6/74)
//! assert_eq!(w.dims(), &[64, 10]);
//! ```

use super::error::{Result, TrainError};
use xla_core::Literal;

const MULTIPLIER: u64 = 6_364_136_223_846_793_005;
/// The stream [`Rng::new`] uses (the one of PCG's reference demo).
const DEFAULT_STREAM: u64 = 54;

/// PCG32 (XSH-RR): 64-bit state, 32-bit outputs. Same seed, same sequence.
#[derive(Clone, Debug)]
pub struct Rng {
    state: u64,
    inc: u64,
}

impl Rng {
    /// A generator seeded with `seed` on the default stream.
    pub fn new(seed: u64) -> Rng {
        Rng::with_stream(seed, DEFAULT_STREAM)
    }

    /// A generator seeded with `seed` on stream `stream` (different streams give independent
    /// sequences for the same seed). This is PCG's `pcg32_srandom(seed, stream)`.
    pub fn with_stream(seed: u64, stream: u64) -> Rng {
        let mut rng = Rng {
            state: 0,
            inc: (stream << 1) | 1,
        };
        rng.next_u32();
        rng.state = rng.state.wrapping_add(seed);
        rng.next_u32();
        rng
    }

    /// The next 32 random bits.
    pub fn next_u32(&mut self) -> u32 {
        let old = self.state;
        self.state = old.wrapping_mul(MULTIPLIER).wrapping_add(self.inc);
        let xorshifted = (((old >> 18) ^ old) >> 27) as u32;
        let rot = (old >> 59) as u32;
        xorshifted.rotate_right(rot)
    }

    /// The next 64 random bits (two outputs, high word first).
    pub fn next_u64(&mut self) -> u64 {
        let hi = u64::from(self.next_u32());
        (hi << 32) | u64::from(self.next_u32())
    }

    /// A uniform integer in `0..n` without modulo bias; 0 when `n` is 0.
    pub fn below(&mut self, n: usize) -> usize {
        match u32::try_from(n) {
            Ok(0) => 0,
            Ok(n32) => {
                let threshold = n32.wrapping_neg() % n32;
                loop {
                    let r = self.next_u32();
                    if r >= threshold {
                        return (r % n32) as usize;
                    }
                }
            }
            Err(_) => {
                let n64 = n as u64;
                let threshold = n64.wrapping_neg() % n64;
                loop {
                    let r = self.next_u64();
                    if r >= threshold {
                        return (r % n64) as usize;
                    }
                }
            }
        }
    }

    /// A uniform `f32` in `[0, 1)` (24 random bits).
    pub fn uniform_f32(&mut self) -> f32 {
        (self.next_u32() >> 8) as f32 * (1.0 / 16_777_216.0)
    }

    /// A uniform `f64` in `[0, 1)` (53 random bits).
    pub fn uniform_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / 9_007_199_254_740_992.0)
    }

    /// A standard normal sample (Box–Muller).
    pub fn normal_f64(&mut self) -> f64 {
        let u1 = 1.0 - self.uniform_f64(); // in (0, 1]: ln is finite
        let u2 = self.uniform_f64();
        (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
    }

    /// Shuffles `items` in place (Fisher–Yates).
    pub fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            let j = self.below(i + 1);
            items.swap(i, j);
        }
    }

    /// A random permutation of `0..n`.
    pub fn permutation(&mut self, n: usize) -> Vec<usize> {
        let mut p: Vec<usize> = (0..n).collect();
        self.shuffle(&mut p);
        p
    }

    /// An `f32` literal of `dims` with elements uniform in `[low, high)`.
    ///
    /// # Errors
    /// If a dim is negative or `low > high`.
    pub fn uniform_literal(&mut self, dims: &[i64], low: f32, high: f32) -> Result<Literal> {
        if low.partial_cmp(&high).is_none_or(|o| o.is_gt()) {
            return Err(TrainError::invalid(
                "uniform_literal",
                format!("low {low} is above high {high}"),
            ));
        }
        let n = element_count("uniform_literal", dims)?;
        let values = (0..n)
            .map(|_| low + (high - low) * self.uniform_f32())
            .collect();
        Ok(Literal::from_vec(dims, values)?)
    }

    /// An `f32` literal of `dims` with normal elements of mean `mean` and deviation `std`.
    ///
    /// # Errors
    /// If a dim is negative.
    pub fn normal_literal(&mut self, dims: &[i64], mean: f32, std: f32) -> Result<Literal> {
        let n = element_count("normal_literal", dims)?;
        let values = (0..n)
            .map(|_| mean + std * self.normal_f64() as f32)
            .collect();
        Ok(Literal::from_vec(dims, values)?)
    }

    /// Glorot (Xavier) uniform initialisation: `U(±sqrt(6 / (fan_in + fan_out)))`. For
    /// `[in, out]` weights the fans are `in` and `out`; for convolution kernels `[.., in, out]`
    /// (HWIO) both are multiplied by the product of the leading (spatial) dims.
    ///
    /// # Errors
    /// If `dims` is empty or has a negative or zero dim.
    pub fn glorot_uniform(&mut self, dims: &[i64]) -> Result<Literal> {
        let (fan_in, fan_out) = fans(dims)?;
        let limit = (6.0 / (fan_in + fan_out) as f64).sqrt() as f32;
        self.uniform_literal(dims, -limit, limit)
    }
}

/// Fan-in and fan-out of a weight of `dims` (see [`Rng::glorot_uniform`]).
pub(crate) fn fans(dims: &[i64]) -> Result<(i64, i64)> {
    if dims.is_empty() || dims.iter().any(|&d| d <= 0) {
        return Err(TrainError::invalid(
            "glorot_uniform",
            format!("dims {dims:?} must be non-empty and positive"),
        ));
    }
    let (&last, rest) = dims.split_last().unwrap_or((&1, &[]));
    let Some((&second, spatial)) = rest.split_last() else {
        return Ok((last, last));
    };
    let receptive: i64 = spatial.iter().product();
    Ok((second * receptive, last * receptive))
}

/// The element count of `dims`, or an error naming `op`.
pub(crate) fn element_count(op: &'static str, dims: &[i64]) -> Result<usize> {
    dims.iter()
        .try_fold(1usize, |n, &d| {
            usize::try_from(d).ok().and_then(|d| n.checked_mul(d))
        })
        .ok_or_else(|| TrainError::invalid(op, format!("invalid dims {dims:?}")))
}
