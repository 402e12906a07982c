//! Value tests per op family, through the public API on hand-written HLO text. Expected
//! values come from XLA's operation semantics and from what XLA:CPU does in the corners
//! (see `testdata/conformance` and its README).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod collective;
mod contraction;
mod control;
mod elementwise;
mod fft_random;
mod indexing;
mod indexing_random;
mod linalg;
mod spec_examples;
mod structural;
mod window;

use xla_core::Literal;
use xla_cpu::{CpuError, Executable};

/// A small deterministic generator (an LCG) for random test inputs.
pub struct Rng(pub u64);

impl Rng {
    fn step(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.0
    }
    /// A value in `0..n` (0 when `n` is 0).
    pub fn below(&mut self, n: usize) -> usize {
        ((self.step() >> 33) % n.max(1) as u64) as usize
    }
    /// A value in `[-1, 1)`.
    pub fn unit(&mut self) -> f64 {
        (self.step() >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
    }
}

/// Parses and compiles `hlo`, then runs it on `args`.
pub fn run(hlo: &str, args: &[Literal]) -> Result<Literal, CpuError> {
    let module = xla_core::text::parse_module(hlo).unwrap_or_else(|e| panic!("parse: {e}\n{hlo}"));
    Executable::compile(&module)?.execute(args)
}

/// The elements of an array result.
pub fn vals<T: xla_core::literal::NativeData>(l: &Literal) -> Vec<T> {
    l.data::<T>()
        .unwrap_or_else(|| panic!("expected {} data, got {}", T::TYPE, l.shape()))
        .to_vec()
}

/// Element `i` of a tuple result.
pub fn elem(l: &Literal, i: usize) -> Literal {
    l.tuple_elements().expect("a tuple")[i].clone()
}

/// Bitwise float equality that treats every NaN alike and tells -0 from +0.
pub fn same_f32(a: &[f32], b: &[f32]) -> bool {
    a.len() == b.len()
        && a.iter()
            .zip(b)
            .all(|(x, y)| (x.is_nan() && y.is_nan()) || x.to_bits() == y.to_bits())
}
