//! Seeded arguments for the run targets: a literal for every parameter shape (arrays of
//! every element type, tuples, tokens), so no module is skipped for its parameter types.
//! Small values (-5..=5 signed, 0..=5 unsigned, -2.5..=2.5 floats) with the type's edge values
//! (extremes, NaN, ±inf, -0) at every 16th element from the 13th.

use half::{bf16, f16};
use num_complex::{Complex32, Complex64};
use xla::core::literal::NativeData;
use xla::{Literal, PrimitiveType, Shape};

/// Elements in `shape` (arrays, and the arrays inside tuples; tokens have none); `None`
/// when the count overflows or a dimension is unbounded.
pub fn element_count(shape: &Shape) -> Option<i64> {
    match shape {
        Shape::Array(a) => a.element_count(),
        Shape::Tuple(elements) => elements
            .iter()
            .try_fold(0i64, |acc, e| acc.checked_add(element_count(e)?)),
        Shape::Token => Some(0),
    }
}

/// The argument for parameter number `k` of shape `shape` (`None` if it cannot be built).
pub fn input(shape: &Shape, k: usize) -> Option<Literal> {
    match shape {
        Shape::Array(_) => array(shape, k),
        Shape::Tuple(elements) => elements
            .iter()
            .enumerate()
            .map(|(j, e)| input(e, k * 8 + j + 1))
            .collect::<Option<Vec<_>>>()
            .map(Literal::tuple),
        Shape::Token => Some(Literal::token()),
    }
}

/// An array of `dims` for parameter `k`: element `i` is a small value, or one of `edges`
/// (four of the type's edge values) at positions 12..=15 of every 16.
fn filled<T: NativeData + Copy>(
    dims: &[i64],
    k: usize,
    small: impl Fn(i8) -> T,
    edges: [T; 4],
) -> Option<Literal> {
    let n = dims
        .iter()
        .try_fold(1usize, |acc, &d| acc.checked_mul(usize::try_from(d).ok()?))?;
    let values = (0..n)
        .map(|i| match i % 16 {
            e @ 12..=15 => edges[e - 12],
            _ => small(((i * 7 + k * 3) % 11) as i8 - 5),
        })
        .collect();
    Literal::from_vec(dims, values).ok()
}

fn array(shape: &Shape, k: usize) -> Option<Literal> {
    use PrimitiveType as P;
    let d = shape.dims();
    let h = |v: i8| f32::from(v) * 0.5;
    let edges = [f32::NAN, f32::INFINITY, f32::NEG_INFINITY, -0.0];
    // Complex values: two small values; the edges as real parts, then as imaginary parts.
    let c = |v: i8| Complex32::new(h(v), h(v.wrapping_mul(3) % 5));
    let c_edges = [0, 1, 2, 3].map(|e| Complex32::new(edges[e], edges[3 - e]));
    let c128 = |z: Complex32| Complex64::new(z.re.into(), z.im.into());
    match shape.as_array()?.ty {
        P::Pred => filled(d, k, |v| v > 0, [true, false, true, true]),
        P::S8 => filled(d, k, |v| v, [i8::MIN, i8::MAX, -1, 0]),
        P::S16 => filled(d, k, i16::from, [i16::MIN, i16::MAX, -1, 0]),
        P::S32 => filled(d, k, i32::from, [i32::MIN, i32::MAX, -1, 0]),
        P::S64 => filled(d, k, i64::from, [i64::MIN, i64::MAX, -1, 0]),
        P::U8 => filled(d, k, i8::unsigned_abs, [0, u8::MAX, 1 << 7, 1]),
        P::U16 => filled(d, k, |v| v.unsigned_abs().into(), [0, u16::MAX, 1 << 15, 1]),
        P::U32 => filled(d, k, |v| v.unsigned_abs().into(), [0, u32::MAX, 1 << 31, 1]),
        P::U64 => filled(d, k, |v| v.unsigned_abs().into(), [0, u64::MAX, 1 << 63, 1]),
        P::F16 => filled(d, k, |v| f16::from_f32(h(v)), edges.map(f16::from_f32)),
        P::Bf16 => filled(d, k, |v| bf16::from_f32(h(v)), edges.map(bf16::from_f32)),
        P::F32 => filled(d, k, h, edges),
        P::F64 => filled(d, k, |v| h(v).into(), edges.map(f64::from)),
        P::C64 => filled(d, k, c, c_edges),
        P::C128 => filled(d, k, |v| c128(c(v)), c_edges.map(c128)),
        P::Tuple | P::Token => None,
    }
}
