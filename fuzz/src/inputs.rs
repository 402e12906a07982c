//! Seeded arguments for the run targets: a literal for every parameter shape (arrays of
//! every element type, tuples, tokens), so no module is skipped for its parameter types.
//! Small values (-5..=5 for integers, -2.5..=2.5 for floats) with the type's edge values
//! (extremes, NaN, ±inf, -0) at every 16th element from the 13th.

use half::{bf16, f16};
use num_complex::{Complex32, Complex64};
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

/// Element `i` of parameter `k`: a small value, or one of `edges` (four of the type's edge
/// values) at positions 12..=15 of every 16.
fn values<T: Copy>(n: usize, k: usize, small: impl Fn(i8) -> T, edges: [T; 4]) -> Vec<T> {
    (0..n)
        .map(|i| match i % 16 {
            e @ 12..=15 => edges[e - 12],
            _ => small(((i * 7 + k * 3) % 11) as i8 - 5),
        })
        .collect()
}

fn array(shape: &Shape, k: usize) -> Option<Literal> {
    let dims = shape.dims().to_vec();
    let n = usize::try_from(shape.element_count()?).ok()?;
    let half = |v: i8| f32::from(v) * 0.5;
    let lit = match shape.as_array()?.ty {
        PrimitiveType::Pred => Literal::from_vec(&dims, values(n, k, |v| v > 0, [true; 4])),
        PrimitiveType::S8 => {
            Literal::from_vec(&dims, values(n, k, |v| v, [i8::MIN, i8::MAX, -1, 0]))
        }
        PrimitiveType::S16 => {
            Literal::from_vec(&dims, values(n, k, i16::from, [i16::MIN, i16::MAX, -1, 0]))
        }
        PrimitiveType::S32 => {
            Literal::from_vec(&dims, values(n, k, i32::from, [i32::MIN, i32::MAX, -1, 0]))
        }
        PrimitiveType::S64 => {
            Literal::from_vec(&dims, values(n, k, i64::from, [i64::MIN, i64::MAX, -1, 0]))
        }
        PrimitiveType::U8 => Literal::from_vec(
            &dims,
            values(n, k, |v| v.unsigned_abs(), [0, u8::MAX, 1 << 7, 1]),
        ),
        PrimitiveType::U16 => Literal::from_vec(
            &dims,
            values(
                n,
                k,
                |v| u16::from(v.unsigned_abs()),
                [0, u16::MAX, 1 << 15, 1],
            ),
        ),
        PrimitiveType::U32 => Literal::from_vec(
            &dims,
            values(
                n,
                k,
                |v| u32::from(v.unsigned_abs()),
                [0, u32::MAX, 1 << 31, 1],
            ),
        ),
        PrimitiveType::U64 => Literal::from_vec(
            &dims,
            values(
                n,
                k,
                |v| u64::from(v.unsigned_abs()),
                [0, u64::MAX, 1 << 63, 1],
            ),
        ),
        PrimitiveType::F16 => Literal::from_vec(
            &dims,
            values(
                n,
                k,
                |v| f16::from_f32(half(v)),
                [f16::NAN, f16::INFINITY, f16::NEG_INFINITY, f16::NEG_ZERO],
            ),
        ),
        PrimitiveType::Bf16 => Literal::from_vec(
            &dims,
            values(
                n,
                k,
                |v| bf16::from_f32(half(v)),
                [
                    bf16::NAN,
                    bf16::INFINITY,
                    bf16::NEG_INFINITY,
                    bf16::NEG_ZERO,
                ],
            ),
        ),
        PrimitiveType::F32 => Literal::from_vec(
            &dims,
            values(
                n,
                k,
                half,
                [f32::NAN, f32::INFINITY, f32::NEG_INFINITY, -0.0],
            ),
        ),
        PrimitiveType::F64 => Literal::from_vec(
            &dims,
            values(
                n,
                k,
                |v| f64::from(half(v)),
                [f64::NAN, f64::INFINITY, f64::NEG_INFINITY, -0.0],
            ),
        ),
        PrimitiveType::C64 => Literal::from_vec(
            &dims,
            values(
                n,
                k,
                |v| Complex32::new(half(v), half(v.wrapping_mul(3) % 5)),
                [
                    Complex32::new(f32::NAN, 0.0),
                    Complex32::new(f32::INFINITY, 1.0),
                    Complex32::new(0.0, f32::NEG_INFINITY),
                    Complex32::new(-0.0, -0.0),
                ],
            ),
        ),
        PrimitiveType::C128 => Literal::from_vec(
            &dims,
            values(
                n,
                k,
                |v| Complex64::new(f64::from(half(v)), f64::from(half(v.wrapping_mul(3) % 5))),
                [
                    Complex64::new(f64::NAN, 0.0),
                    Complex64::new(f64::INFINITY, 1.0),
                    Complex64::new(0.0, f64::NEG_INFINITY),
                    Complex64::new(-0.0, -0.0),
                ],
            ),
        ),
        PrimitiveType::Tuple | PrimitiveType::Token => return None,
    };
    lit.ok()
}
