//! Complex `reduce` in XLA:CPU's order. XLA's CPU pipeline runs `TreeReductionRewriter`
//! (window 32): a reduced dimension longer than 32 is padded with the init value to a
//! multiple of 32 (half the padding, rounded down, before the data, the rest after),
//! reduced in windows of 32 by a `reduce-window`, and that is repeated until at most 32
//! values are left, which a plain `reduce` folds. Each window and the last fold run left
//! to right from the init value, as `f(accumulator, element)`. Real XLA's complex sums and
//! products (`testdata/xla_complex_multiply`) are reproduced bit for bit this way, with
//! XLA's fused complex multiply as the combiner.
//!
//! Taken only for a reduce over one dimension (others of size 1 or kept); other complex
//! reductions use the lane-ordered fold of `reduce_fast.rs` and differ from XLA in rounding.
//! The run's stop is polled once per reduced line: a stopped run's unfinished result is
//! filled with the init value and never used (the executor checks the stop after every
//! instruction).

use crate::limits::stop::Stop;
use crate::scalar::Combine;
use num_complex::{Complex32, Complex64};
use std::iter::repeat;
use xla_core::attrs::BinaryOp;
use xla_core::literal::{ArrayData, NativeData};

/// XLA:CPU's tree-reduction window.
const WINDOW: usize = 32;

/// `x` (of `dims`, already checked to hold their product of elements) reduced over the
/// dims flagged in `red` in XLA's order, for complex `x` reduced over one dimension;
/// `None` otherwise (the caller then uses the general fold).
pub(crate) fn complex_reduce(
    x: &ArrayData,
    init: &ArrayData,
    dims: &[usize],
    red: &[bool],
    op: BinaryOp,
) -> Option<ArrayData> {
    let stop = Stop::current();
    match x {
        ArrayData::C64(v) => {
            typed::<Complex32>(v, init, (dims, red), op, &stop).map(ArrayData::C64)
        }
        ArrayData::C128(v) => {
            typed::<Complex64>(v, init, (dims, red), op, &stop).map(ArrayData::C128)
        }
        _ => None,
    }
}

fn typed<T: Combine + NativeData + Copy>(
    v: &[T],
    init: &ArrayData,
    (dims, red): (&[usize], &[bool]),
    op: BinaryOp,
    stop: &Stop,
) -> Option<Vec<T>> {
    let f = T::native(op)?;
    let init = *T::slice(init)?.first()?;
    let reduced: Vec<usize> = (0..dims.len())
        .filter(|&d| red.get(d) == Some(&true) && dims[d] > 1)
        .collect();
    let [axis] = reduced[..] else {
        return None;
    };
    let n = dims[axis];
    let inner: usize = dims[axis + 1..].iter().product();
    let outer: usize = dims[..axis].iter().product();
    let mut out = Vec::with_capacity(outer * inner);
    let mut line = Vec::with_capacity(n);
    for o in 0..outer {
        for i in 0..inner {
            if stop.stopped() {
                out.resize(outer * inner, init);
                return Some(out);
            }
            line.clear();
            line.extend(v.iter().skip(o * n * inner + i).step_by(inner).take(n));
            out.push(tree(&mut line, init, f));
        }
    }
    Some(out)
}

/// The `dot` of two complex vectors as XLA:CPU computes it: its algebraic simplifier
/// turns a vector-vector dot into an elementwise multiply (XLA's fused complex multiply,
/// rounded) and an add-`reduce`, which the tree rewrite then orders. `None` unless both
/// are c64 or both c128 of the same length.
pub(crate) fn complex_vector_dot(l: &ArrayData, r: &ArrayData) -> Option<ArrayData> {
    use crate::scalar::complex_mul::xla_complex_mul;
    match (l, r) {
        (ArrayData::C64(a), ArrayData::C64(b)) if a.len() == b.len() => {
            let mut p: Vec<Complex32> = a
                .iter()
                .zip(b)
                .map(|(&x, &y)| xla_complex_mul(x, y))
                .collect();
            Some(ArrayData::C64(vec![tree(
                &mut p,
                Complex32::new(0.0, 0.0),
                |x, y| x + y,
            )]))
        }
        (ArrayData::C128(a), ArrayData::C128(b)) if a.len() == b.len() => {
            let mut p: Vec<Complex64> = a
                .iter()
                .zip(b)
                .map(|(&x, &y)| xla_complex_mul(x, y))
                .collect();
            Some(ArrayData::C128(vec![tree(
                &mut p,
                Complex64::new(0.0, 0.0),
                |x, y| x + y,
            )]))
        }
        _ => None,
    }
}

/// Folds `line` as XLA's tree-reduction rewrite does (module docs); `line` is scratch.
fn tree<T: Copy>(line: &mut Vec<T>, init: T, f: fn(T, T) -> T) -> T {
    let fold = |xs: &[T]| xs.iter().fold(init, |acc, &x| f(acc, x));
    while line.len() > WINDOW {
        let pad = line.len().div_ceil(WINDOW) * WINDOW - line.len();
        let padded: Vec<T> = repeat(init)
            .take(pad / 2)
            .chain(line.iter().copied())
            .chain(repeat(init).take(pad - pad / 2))
            .collect();
        *line = padded.chunks(WINDOW).map(fold).collect();
    }
    fold(line)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The order, seen through a combiner that records it: 70 elements are padded to 96
    /// (13 before, 13 after), 3 windows of 32, then one fold of the 3.
    #[test]
    fn order_of_a_tree_fold() {
        fn cat(a: u64, b: u64) -> u64 {
            a.wrapping_mul(1_000_003).wrapping_add(b)
        }
        let data: Vec<u64> = (1..=70).collect();
        let window = |xs: &[u64]| xs.iter().fold(0, |a, &x| cat(a, x));
        let padded: Vec<u64> = [vec![0; 13], data.clone(), vec![0; 13]].concat();
        let w: Vec<u64> = padded.chunks(32).map(window).collect();
        assert_eq!(w.len(), 3);
        let want = window(&w);
        let mut line = data;
        assert_eq!(tree(&mut line, 0, cat), want);
        // 32 or fewer: one plain fold.
        let mut short: Vec<u64> = (1..=32).collect();
        assert_eq!(
            tree(&mut short, 0, cat),
            window(&(1..=32).collect::<Vec<_>>())
        );
    }
}
