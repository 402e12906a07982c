//! The float all-reduce (and reduce-scatter) of a group as XLA:CPU computes it, to its bits.
//!
//! XLA:CPU recognises the reduction computation (add, multiply, maximum, minimum) and runs its
//! own loop: the accumulator starts at the op's identity and each member's value `x` is
//! combined in group order as `x + acc` / `x * acc`, `acc < x ? x : acc` (maximum),
//! `x < acc ? x : acc` (minimum). Measured on real XLA:CPU (JAX 0.10.2, 2-8 devices,
//! `scripts/make_nan_fold_cases.py`), this shows in three places where a plain fold
//! `f(f(v0, v1), v2)` differs:
//!
//! - NaN payloads: when several members hold NaNs, the **last** one in group order survives
//!   (x86 keeps the first operand's NaN, and `x` is the first operand);
//! - the sum of `-0` only is `+0` (the accumulator starts at `+0`);
//! - maximum and minimum drop NaNs (a NaN never compares greater), so an all-NaN element gives
//!   `-inf` / `+inf`.
//!
//! f16 and bf16 add in f32 and round each step (Eigen's half), and a NaN result is the
//! canonical quiet NaN with its sign. Complex add is the real rule on each component. Other
//! types (integers and PRED, exact in any order) and other reductions (complex multiply, any
//! computation XLA:CPU does not recognise, which it rejects) take the fold in group order.

use half::{bf16, f16};
use num_complex::Complex;
use xla_core::attrs::BinaryOp;
use xla_core::literal::ArrayData;

/// The reductions XLA:CPU runs with its own loop.
#[derive(Clone, Copy)]
enum Kind {
    Add,
    Mul,
    Max,
    Min,
}

impl Kind {
    fn of(op: BinaryOp) -> Option<Kind> {
        match op {
            BinaryOp::Add => Some(Kind::Add),
            BinaryOp::Mul => Some(Kind::Mul),
            BinaryOp::Max => Some(Kind::Max),
            BinaryOp::Min => Some(Kind::Min),
            _ => None,
        }
    }
}

/// A real float type XLA:CPU reduces natively.
trait Real: Copy + PartialOrd + std::ops::Add<Output = Self> + std::ops::Mul<Output = Self> {
    const ZERO: Self;
    const ONE: Self;
    const INF: Self;
    fn is_nan(self) -> bool;
    /// The NaN with its quiet bit set (x86 quiets a signalling NaN operand).
    fn quiet(self) -> Self;
    fn neg(self) -> Self;
}

/// `Real` for a primitive float whose quiet bit is `$quiet`.
macro_rules! real {
    ($t:ty, $quiet:expr) => {
        impl Real for $t {
            const ZERO: $t = 0.0;
            const ONE: $t = 1.0;
            const INF: $t = <$t>::INFINITY;
            fn is_nan(self) -> bool {
                <$t>::is_nan(self)
            }
            fn quiet(self) -> $t {
                <$t>::from_bits(self.to_bits() | $quiet)
            }
            fn neg(self) -> $t {
                -self
            }
        }
    };
}

real!(f32, 0x0040_0000);
real!(f64, 0x0008_0000_0000_0000);

/// The accumulator's start for `k`.
fn identity<T: Real>(k: Kind) -> T {
    match k {
        Kind::Add => T::ZERO,
        Kind::Mul => T::ONE,
        Kind::Max => T::INF.neg(),
        Kind::Min => T::INF,
    }
}

/// One step: member value `x` into the accumulator `acc`.
fn step<T: Real>(k: Kind, acc: T, x: T) -> T {
    match k {
        Kind::Add | Kind::Mul if x.is_nan() => x.quiet(),
        Kind::Add | Kind::Mul if acc.is_nan() => acc.quiet(),
        Kind::Add => x + acc,
        Kind::Mul => x * acc,
        Kind::Max if acc < x => x,
        Kind::Min if x < acc => x,
        Kind::Max | Kind::Min => acc,
    }
}

/// The reduction of `members` (equal lengths) elementwise, element type `T`.
fn fold_with<T: Copy>(members: &[&Vec<T>], start: T, mut f: impl FnMut(T, T) -> T) -> Vec<T> {
    let n = members.first().map_or(0, |m| m.len());
    let mut acc = vec![start; n];
    for m in members {
        for (a, &x) in acc.iter_mut().zip(m.iter()) {
            *a = f(*a, x);
        }
    }
    acc
}

fn real<T: Real>(k: Kind, members: &[&Vec<T>]) -> Vec<T> {
    fold_with(members, identity(k), |a, x| step(k, a, x))
}

/// A half-precision step: add and multiply in f32 then round, with a NaN made canonical
/// (`canon` of the sign bit); maximum and minimum select one of the operands as they are.
fn half_step<H: Copy>(
    k: Kind,
    acc: H,
    x: H,
    to: impl Fn(H) -> f32,
    from: impl Fn(f32) -> H,
    canon: impl Fn(bool) -> H,
) -> H {
    let (a, v) = (to(acc), to(x));
    match k {
        Kind::Max if a < v => x,
        Kind::Min if v < a => x,
        Kind::Max | Kind::Min => acc,
        Kind::Add | Kind::Mul => {
            let r = step(k, a, v);
            if r.is_nan() {
                canon(r.is_sign_negative())
            } else {
                from(r)
            }
        }
    }
}

fn complex<T: Real>(members: &[&Vec<Complex<T>>]) -> Vec<Complex<T>> {
    let zero = Complex::new(T::ZERO, T::ZERO);
    fold_with(members, zero, |a, x| {
        Complex::new(step(Kind::Add, a.re, x.re), step(Kind::Add, a.im, x.im))
    })
}

/// The members' arrays of one type, or `None` if any has another type.
macro_rules! all_of {
    ($members:expr, $variant:ident) => {
        $members
            .iter()
            .map(|d| match d {
                ArrayData::$variant(v) => Some(v),
                _ => None,
            })
            .collect::<Option<Vec<_>>>()
    };
}

/// The elementwise reduction of `members` (group order, equal shapes) with `op` as XLA:CPU
/// computes it, or `None` when the fold in group order already gives XLA's bits (integer and
/// PRED types, complex multiply, any other op) or the members' types differ.
pub(crate) fn fold(op: BinaryOp, members: &[&ArrayData]) -> Option<ArrayData> {
    let k = Kind::of(op)?;
    let first = members.first()?;
    let additive = matches!(k, Kind::Add);
    Some(match first {
        ArrayData::F32(_) => ArrayData::F32(real(k, &all_of!(members, F32)?)),
        ArrayData::F64(_) => ArrayData::F64(real(k, &all_of!(members, F64)?)),
        ArrayData::F16(_) => {
            let canon = |neg: bool| f16::from_bits(if neg { 0xfe00 } else { 0x7e00 });
            let start = f16::from_f32(identity(k));
            let step = |a, x| half_step(k, a, x, f16::to_f32, f16::from_f32, canon);
            ArrayData::F16(fold_with(&all_of!(members, F16)?, start, step))
        }
        ArrayData::Bf16(_) => {
            let canon = |neg: bool| bf16::from_bits(if neg { 0xffc0 } else { 0x7fc0 });
            let start = bf16::from_f32(identity(k));
            let step = |a, x| half_step(k, a, x, bf16::to_f32, bf16::from_f32, canon);
            ArrayData::Bf16(fold_with(&all_of!(members, Bf16)?, start, step))
        }
        ArrayData::C64(_) if additive => ArrayData::C64(complex(&all_of!(members, C64)?)),
        ArrayData::C128(_) if additive => ArrayData::C128(complex(&all_of!(members, C128)?)),
        _ => return None,
    })
}

/// Whether `data` holds a value on which XLA:CPU's float all-reduce may differ in its bits
/// from an add or multiply in another order: a NaN (whose payload survives) or a `-0` (a sum
/// of `-0` only is `+0`). Types that are not float never do.
#[cfg(any(test, feature = "mpi"))]
pub(crate) fn order_sensitive(data: &ArrayData) -> bool {
    match data {
        ArrayData::F32(v) => v.iter().any(|x| x.is_nan() || x.to_bits() == 0x8000_0000),
        ArrayData::F64(v) => v.iter().any(|x| x.is_nan() || x.to_bits() == 1 << 63),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f32s(words: &[u32]) -> ArrayData {
        ArrayData::F32(words.iter().map(|&w| f32::from_bits(w)).collect())
    }

    fn words(d: &ArrayData) -> Vec<u32> {
        match d {
            ArrayData::F32(v) => v.iter().map(|x| x.to_bits()).collect(),
            _ => Vec::new(),
        }
    }

    /// Real XLA:CPU's results on 2 replicas (jax 0.10.2, the probe behind
    /// `scripts/make_nan_fold_cases.py`): device 0 holds the first row, device 1 the second.
    #[test]
    fn two_members_give_xlas_bits() {
        let v0 = f32s(&[
            0x7fc0_0001,
            0x8000_0000,
            0x0000_0000,
            0x7fc0_0001,
            0x3f80_0000,
        ]);
        let v1 = f32s(&[
            0x7fc0_0002,
            0x8000_0000,
            0x3f80_0000,
            0x3f80_0000,
            0x7fc0_0002,
        ]);
        let add = fold(BinaryOp::Add, &[&v0, &v1]).unwrap();
        assert_eq!(
            words(&add),
            [0x7fc0_0002, 0, 0x3f80_0000, 0x7fc0_0001, 0x7fc0_0002]
        );
        let max = fold(BinaryOp::Max, &[&v0, &v1]).unwrap();
        assert_eq!(
            words(&max),
            [
                0xff80_0000,
                0x8000_0000,
                0x3f80_0000,
                0x3f80_0000,
                0x3f80_0000
            ]
        );
        let min = fold(BinaryOp::Min, &[&v0, &v1]).unwrap();
        assert_eq!(
            words(&min),
            [0x7f80_0000, 0x8000_0000, 0, 0x3f80_0000, 0x3f80_0000]
        );
    }

    /// Without NaNs and with a result other than zero, the order XLA:CPU adds in gives the
    /// bits of the plain left fold (IEEE addition and multiplication commute), on random
    /// values with infinities and signed zeros among them.
    #[test]
    fn without_nans_the_order_is_the_left_folds() {
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            match state % 16 {
                0 => f32::INFINITY,
                1 => f32::NEG_INFINITY,
                2 => 0.0,
                3 => -0.0,
                _ => f32::from_bits((state >> 20) as u32 & 0xbfff_ffff),
            }
        };
        for members in 2..6 {
            let vs: Vec<ArrayData> = (0..members)
                .map(|_| ArrayData::F32((0..64).map(|_| next()).collect()))
                .collect();
            let refs: Vec<&ArrayData> = vs.iter().collect();
            let rows: Vec<Vec<f32>> = vs
                .iter()
                .map(|d| match d {
                    ArrayData::F32(v) => v.clone(),
                    _ => Vec::new(),
                })
                .collect();
            for (op, f) in [
                (BinaryOp::Add, (|a, b| a + b) as fn(f32, f32) -> f32),
                (BinaryOp::Mul, |a, b| a * b),
                (BinaryOp::Max, f32::max),
                (BinaryOp::Min, f32::min),
            ] {
                let got = words(&fold(op, &refs).unwrap());
                for (i, g) in got.iter().enumerate() {
                    let want = rows.iter().skip(1).fold(rows[0][i], |a, r| f(a, r[i]));
                    if want.is_nan() || want == 0.0 {
                        continue;
                    }
                    assert_eq!(*g, want.to_bits(), "{members} members, element {i}");
                }
            }
        }
    }

    #[test]
    fn integers_and_other_ops_keep_the_fold() {
        let a = ArrayData::S32(vec![1, 2]);
        assert!(fold(BinaryOp::Add, &[&a, &a]).is_none());
        let x = f32s(&[1, 2]);
        assert!(fold(BinaryOp::Sub, &[&x, &x]).is_none());
        assert!(order_sensitive(&f32s(&[0x3f80_0000, 0x8000_0000])));
        assert!(order_sensitive(&f32s(&[0x7fc0_0001])));
        assert!(!order_sensitive(&f32s(&[0, 0x3f80_0000])));
    }
}
