//! Element traits: [`Elem`] (every array element type, with XLA's conversion rules),
//! [`Real`] (f32, f64), [`Int`] (the eight integer types).
//!
//! Kernels are generic over these traits; the element type is dispatched once per
//! instruction, never per element.

pub(crate) mod complex_mul;
pub(crate) mod minmax;

use half::{bf16, f16};
use num_complex::{Complex, Complex32, Complex64};
use num_traits::{Float, FloatConst};
use xla_core::attrs::BinaryOp;
use xla_core::literal::NativeData;

/// The family of an element type; a constant of each [`Elem`], so matches on it are
/// resolved at compile time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// PRED.
    Pred,
    /// S8..S64.
    Signed,
    /// U8..U64.
    Unsigned,
    /// F16, BF16, F32, F64.
    Float,
    /// C64, C128.
    Complex,
}

/// An array element type with XLA's conversion semantics.
pub trait Elem: NativeData {
    /// The type's family.
    const KIND: Kind;
    /// As f64 (complex: the real part; PRED: 0 or 1; integers rounded to nearest).
    fn to_f64(self) -> f64;
    /// As i64 (floats saturate, NaN gives 0; unsigned wraps).
    fn to_i64(self) -> i64;
    /// As u64 (signed values sign-extend and wrap).
    fn to_u64(self) -> u64;
    /// As complex f64 (reals get a zero imaginary part).
    fn to_c128(self) -> Complex64;
    /// Nonzero (NaN counts as nonzero, like XLA's `x != 0`).
    fn is_nonzero(self) -> bool;
    /// XLA's `convert` from any element type.
    fn from_elem<S: Elem>(s: S) -> Self;
    /// Appends the little-endian bytes of the value.
    fn write_le(self, out: &mut Vec<u8>);
    /// Reads a value from exactly `Self`'s byte width of little-endian bytes.
    fn read_le(bytes: &[u8]) -> Self;
}

fn le_array<const N: usize>(bytes: &[u8]) -> [u8; N] {
    let mut a = [0u8; N];
    for (d, s) in a.iter_mut().zip(bytes) {
        *d = *s;
    }
    a
}

macro_rules! int_elem {
    ($($t:ty => $kind:ident, $n:literal);* $(;)?) => {$(
        impl Elem for $t {
            const KIND: Kind = Kind::$kind;
            fn to_f64(self) -> f64 { self as f64 }
            fn to_i64(self) -> i64 { self as i64 }
            fn to_u64(self) -> u64 { self as u64 }
            fn to_c128(self) -> Complex64 { Complex64::new(self as f64, 0.0) }
            fn is_nonzero(self) -> bool { self != 0 }
            fn from_elem<S: Elem>(s: S) -> Self {
                match S::KIND {
                    Kind::Pred => s.is_nonzero() as $t,
                    Kind::Signed => s.to_i64() as $t,
                    Kind::Unsigned => s.to_u64() as $t,
                    Kind::Float => s.to_f64() as $t,
                    Kind::Complex => s.to_c128().re as $t,
                }
            }
            fn write_le(self, out: &mut Vec<u8>) { out.extend_from_slice(&self.to_le_bytes()) }
            fn read_le(bytes: &[u8]) -> Self { <$t>::from_le_bytes(le_array::<$n>(bytes)) }
        }
    )*};
}

int_elem! {
    i8 => Signed, 1; i16 => Signed, 2; i32 => Signed, 4; i64 => Signed, 8;
    u8 => Unsigned, 1; u16 => Unsigned, 2; u32 => Unsigned, 4; u64 => Unsigned, 8;
}

impl Elem for bool {
    const KIND: Kind = Kind::Pred;
    fn to_f64(self) -> f64 {
        f64::from(u8::from(self))
    }
    fn to_i64(self) -> i64 {
        i64::from(self)
    }
    fn to_u64(self) -> u64 {
        u64::from(self)
    }
    fn to_c128(self) -> Complex64 {
        Complex64::new(self.to_f64(), 0.0)
    }
    fn is_nonzero(self) -> bool {
        self
    }
    fn from_elem<S: Elem>(s: S) -> Self {
        s.is_nonzero()
    }
    fn write_le(self, out: &mut Vec<u8>) {
        out.push(u8::from(self));
    }
    fn read_le(bytes: &[u8]) -> Self {
        bytes.first().is_some_and(|&b| b != 0)
    }
}

macro_rules! float_elem {
    ($($t:ty, $n:literal, $to64:expr, $from64:expr, $fromi:expr, $fromu:expr);* $(;)?) => {$(
        impl Elem for $t {
            const KIND: Kind = Kind::Float;
            fn to_f64(self) -> f64 { ($to64)(self) }
            fn to_i64(self) -> i64 { self.to_f64() as i64 }
            fn to_u64(self) -> u64 { self.to_f64() as u64 }
            fn to_c128(self) -> Complex64 { Complex64::new(self.to_f64(), 0.0) }
            #[allow(clippy::float_cmp)]
            fn is_nonzero(self) -> bool { self.to_f64() != 0.0 }
            fn from_elem<S: Elem>(s: S) -> Self {
                match S::KIND {
                    Kind::Pred => ($from64)(s.to_f64()),
                    Kind::Signed => ($fromi)(s.to_i64()),
                    Kind::Unsigned => ($fromu)(s.to_u64()),
                    Kind::Float => ($from64)(s.to_f64()),
                    Kind::Complex => ($from64)(s.to_c128().re),
                }
            }
            fn write_le(self, out: &mut Vec<u8>) { out.extend_from_slice(&self.to_le_bytes()) }
            fn read_le(bytes: &[u8]) -> Self { <$t>::from_le_bytes(le_array::<$n>(bytes)) }
        }
    )*};
}

float_elem! {
    f32, 4, |x: f32| x as f64, |x: f64| x as f32, |x: i64| x as f32, |x: u64| x as f32;
    f64, 8, |x: f64| x, |x: f64| x, |x: i64| x as f64, |x: u64| x as f64;
    f16, 2, |x: f16| x.to_f64(), f16::from_f64, |x: i64| f16::from_f32(x as f32), |x: u64| f16::from_f32(x as f32);
    bf16, 2, |x: bf16| x.to_f64(), bf16::from_f64, |x: i64| bf16::from_f32(x as f32), |x: u64| bf16::from_f32(x as f32);
}

macro_rules! complex_elem {
    ($($t:ty, $f:ty, $n:literal);* $(;)?) => {$(
        impl Elem for $t {
            const KIND: Kind = Kind::Complex;
            fn to_f64(self) -> f64 { self.re as f64 }
            fn to_i64(self) -> i64 { self.re as i64 }
            fn to_u64(self) -> u64 { self.re as u64 }
            fn to_c128(self) -> Complex64 { Complex64::new(self.re as f64, self.im as f64) }
            fn is_nonzero(self) -> bool { self.re != 0.0 || self.im != 0.0 }
            fn from_elem<S: Elem>(s: S) -> Self {
                match S::KIND {
                    Kind::Complex => {
                        let c = s.to_c128();
                        Complex::new(c.re as $f, c.im as $f)
                    }
                    Kind::Pred | Kind::Signed | Kind::Unsigned | Kind::Float => {
                        Complex::new(<$f>::from_elem(s), 0.0)
                    }
                }
            }
            fn write_le(self, out: &mut Vec<u8>) {
                out.extend_from_slice(&self.re.to_le_bytes());
                out.extend_from_slice(&self.im.to_le_bytes());
            }
            fn read_le(bytes: &[u8]) -> Self {
                let h = $n / 2;
                let re = <$f>::from_le_bytes(le_array::<{ $n / 2 }>(bytes));
                let im = <$f>::from_le_bytes(le_array::<{ $n / 2 }>(bytes.get(h..).unwrap_or(&[])));
                Complex::new(re, im)
            }
        }
    )*};
}

complex_elem! { Complex32, f32, 8; Complex64, f64, 16; }

/// f32 and f64: the types real-valued math is computed in (f16 and bf16 go through f32).
pub trait Real: Elem + Float + FloatConst + num_traits::NumAssign {
    /// Bit width.
    const BITS: u32;
    /// Mantissa bits (without the implicit bit).
    const MANTISSA: u32;
    /// Exponent bits.
    const EXPONENT: u32;
    /// The error function.
    fn erf(self) -> Self;
    /// Round half to even.
    fn round_even(self) -> Self;
    /// The raw bits, zero-extended.
    fn bits(self) -> u64;
    /// From raw bits (truncated to the width).
    fn from_bits_u64(b: u64) -> Self;
    /// From f64 (rounding to nearest even).
    fn of(x: f64) -> Self;
    /// Wraps complex numbers of this component type.
    fn wrap_complex(v: Vec<Complex<Self>>) -> xla_core::literal::ArrayData;
}

impl Real for f32 {
    const BITS: u32 = 32;
    const MANTISSA: u32 = 23;
    const EXPONENT: u32 = 8;
    fn erf(self) -> Self {
        libm::erff(self)
    }
    fn round_even(self) -> Self {
        self.round_ties_even()
    }
    fn bits(self) -> u64 {
        u64::from(self.to_bits())
    }
    fn from_bits_u64(b: u64) -> Self {
        f32::from_bits(b as u32)
    }
    fn of(x: f64) -> Self {
        x as f32
    }
    fn wrap_complex(v: Vec<Complex<Self>>) -> xla_core::literal::ArrayData {
        xla_core::literal::ArrayData::C64(v)
    }
}

impl Real for f64 {
    const BITS: u32 = 64;
    const MANTISSA: u32 = 52;
    const EXPONENT: u32 = 11;
    fn erf(self) -> Self {
        libm::erf(self)
    }
    fn round_even(self) -> Self {
        self.round_ties_even()
    }
    fn bits(self) -> u64 {
        self.to_bits()
    }
    fn from_bits_u64(b: u64) -> Self {
        f64::from_bits(b)
    }
    fn of(x: f64) -> Self {
        x
    }
    fn wrap_complex(v: Vec<Complex<Self>>) -> xla_core::literal::ArrayData {
        xla_core::literal::ArrayData::C128(v)
    }
}

/// An index operand value as i64: unsigned values above `i64::MAX` saturate.
pub fn index_value<T: Elem>(x: T) -> i64 {
    match T::KIND {
        Kind::Unsigned => x.to_u64().min(i64::MAX as u64) as i64,
        Kind::Pred | Kind::Signed | Kind::Float | Kind::Complex => x.to_i64(),
    }
}

/// The integer element types, with XLA's wrap-around arithmetic.
pub trait Int: Elem + Ord + Copy {
    /// Bit width.
    const BITS: u32;
    /// True for signed types.
    const SIGNED: bool;
    /// 0.
    const ZERO: Self;
    /// 1.
    const ONE: Self;
    /// All bits set (-1 for signed types).
    const ALL_ONES: Self;
    /// Wrapping add.
    fn wadd(self, o: Self) -> Self;
    /// Wrapping subtract.
    fn wsub(self, o: Self) -> Self;
    /// Wrapping multiply.
    fn wmul(self, o: Self) -> Self;
    /// Division with XLA's corners (x/0 = -1, MIN/-1 = MIN).
    fn xdiv(self, o: Self) -> Self;
    /// Remainder with XLA's corners (x%0 = x, MIN%-1 = 0).
    fn xrem(self, o: Self) -> Self;
    /// Wrapping negate.
    fn wneg(self) -> Self;
    /// Bitwise and / or / xor / not.
    fn and(self, o: Self) -> Self;
    /// Bitwise or.
    fn or(self, o: Self) -> Self;
    /// Bitwise xor.
    fn xor(self, o: Self) -> Self;
    /// Bitwise not.
    fn not(self) -> Self;
    /// The amount as an unsigned number of the same width (negative amounts are huge).
    fn shift_amount(self) -> u64;
    /// Shift left by `n < BITS`.
    fn shl(self, n: u32) -> Self;
    /// Logical shift right by `n < BITS` (on the bit pattern).
    fn lshr(self, n: u32) -> Self;
    /// Arithmetic shift right by `n < BITS` (on the bit pattern, sign-filling).
    fn ashr(self, n: u32) -> Self;
    /// Leading zero bits.
    fn clz(self) -> Self;
    /// Set bits.
    fn popcnt(self) -> Self;
    /// -1, 0 or 1.
    fn sign(self) -> Self;
    /// Wrapping absolute value.
    fn wabs(self) -> Self;
    /// True for a negative value.
    fn is_negative(self) -> bool;
}

macro_rules! int_impl {
    ($($t:ty, $u:ty, $signed:literal);* $(;)?) => {$(
        impl Int for $t {
            const BITS: u32 = <$t>::BITS;
            const SIGNED: bool = $signed;
            const ZERO: Self = 0;
            const ONE: Self = 1;
            const ALL_ONES: Self = !0;
            fn wadd(self, o: Self) -> Self { self.wrapping_add(o) }
            fn wsub(self, o: Self) -> Self { self.wrapping_sub(o) }
            fn wmul(self, o: Self) -> Self { self.wrapping_mul(o) }
            fn xdiv(self, o: Self) -> Self {
                if o == 0 { !0 } else { self.wrapping_div(o) }
            }
            fn xrem(self, o: Self) -> Self {
                if o == 0 { self } else { self.wrapping_rem(o) }
            }
            fn wneg(self) -> Self { self.wrapping_neg() }
            fn and(self, o: Self) -> Self { self & o }
            fn or(self, o: Self) -> Self { self | o }
            fn xor(self, o: Self) -> Self { self ^ o }
            fn not(self) -> Self { !self }
            fn shift_amount(self) -> u64 { (self as $u) as u64 }
            fn shl(self, n: u32) -> Self { self.wrapping_shl(n) }
            fn lshr(self, n: u32) -> Self { ((self as $u) >> n) as $t }
            fn ashr(self, n: u32) -> Self {
                let s = self as $u;
                let neg = (s >> (<$t>::BITS - 1)) == 1;
                let shifted = s >> n;
                let fill = if neg && n > 0 { !((!(0 as $u)) >> n) } else { 0 };
                (shifted | fill) as $t
            }
            fn clz(self) -> Self { self.leading_zeros() as $t }
            fn popcnt(self) -> Self { self.count_ones() as $t }
            #[allow(unused_comparisons)]
            fn sign(self) -> Self {
                if self > 0 { 1 } else if self == 0 { 0 } else { (!0 as $u) as $t }
            }
            #[allow(unused_comparisons)]
            fn wabs(self) -> Self { if self < 0 { self.wrapping_neg() } else { self } }
            #[allow(unused_comparisons)]
            fn is_negative(self) -> bool { self < 0 }
        }
    )*};
}

int_impl! {
    i8, u8, true; i16, u16, true; i32, u32, true; i64, u64, true;
    u8, u8, false; u16, u16, false; u32, u32, false; u64, u64, false;
}

/// Numbers that support `+` and `*` (dot, convolution): integers wrap, floats and complex
/// numbers are IEEE.
pub trait Ring: Elem {
    /// Additive identity.
    fn zero() -> Self;
    /// Addition.
    fn add(self, o: Self) -> Self;
    /// Multiplication.
    fn mul(self, o: Self) -> Self;
}

macro_rules! ring_int {
    ($($t:ty),*) => {$(
        impl Ring for $t {
            fn zero() -> Self { 0 }
            fn add(self, o: Self) -> Self { self.wrapping_add(o) }
            fn mul(self, o: Self) -> Self { self.wrapping_mul(o) }
        }
    )*};
}
ring_int!(i8, i16, i32, i64, u8, u16, u32, u64);

macro_rules! ring_float {
    ($($t:ty),*) => {$(
        impl Ring for $t {
            fn zero() -> Self { Default::default() }
            fn add(self, o: Self) -> Self { self + o }
            fn mul(self, o: Self) -> Self { self * o }
        }
    )*};
}
ring_float!(f32, f64, Complex32, Complex64);

impl Ring for bool {
    fn zero() -> Self {
        false
    }
    fn add(self, o: Self) -> Self {
        self | o
    }
    fn mul(self, o: Self) -> Self {
        self & o
    }
}

/// Element types with native versions of the common scalar combiners (the reductions XLA
/// programs use: add, multiply, maximum, minimum, and, or, xor), so reduce-like ops with
/// such a computation run without the interpreter.
pub trait Combine: Elem {
    /// The combiner for `op`, if it is defined on this type.
    fn native(op: BinaryOp) -> Option<fn(Self, Self) -> Self>;
}

macro_rules! combine_int {
    ($($t:ty),*) => {$(
        impl Combine for $t {
            fn native(op: BinaryOp) -> Option<fn(Self, Self) -> Self> {
                Some(match op {
                    BinaryOp::Add => |a: $t, b: $t| a.wrapping_add(b),
                    BinaryOp::Mul => |a: $t, b: $t| a.wrapping_mul(b),
                    BinaryOp::Max => |a: $t, b: $t| a.max(b),
                    BinaryOp::Min => |a: $t, b: $t| a.min(b),
                    BinaryOp::And => |a: $t, b: $t| a & b,
                    BinaryOp::Or => |a: $t, b: $t| a | b,
                    BinaryOp::Xor => |a: $t, b: $t| a ^ b,
                    _ => return None,
                })
            }
        }
    )*};
}
combine_int!(i8, i16, i32, i64, u8, u16, u32, u64);

impl Combine for bool {
    fn native(op: BinaryOp) -> Option<fn(Self, Self) -> Self> {
        Some(match op {
            BinaryOp::And | BinaryOp::Min | BinaryOp::Mul => |a: bool, b: bool| a & b,
            BinaryOp::Or | BinaryOp::Max | BinaryOp::Add => |a: bool, b: bool| a | b,
            BinaryOp::Xor => |a: bool, b: bool| a ^ b,
            _ => return None,
        })
    }
}

macro_rules! combine_float {
    ($($t:ty => $to:expr, $from:expr);* $(;)?) => {$(
        impl Combine for $t {
            fn native(op: BinaryOp) -> Option<fn(Self, Self) -> Self> {
                Some(match op {
                    BinaryOp::Add => |a: $t, b: $t| ($from)(($to)(a) + ($to)(b)),
                    BinaryOp::Mul => |a: $t, b: $t| ($from)(($to)(a) * ($to)(b)),
                    BinaryOp::Max => |a: $t, b: $t| ($from)(minmax::fmax(($to)(a), ($to)(b))),
                    BinaryOp::Min => |a: $t, b: $t| ($from)(minmax::fmin(($to)(a), ($to)(b))),
                    _ => return None,
                })
            }
        }
    )*};
}
combine_float! {
    f32 => |x: f32| x, |x: f32| x;
    f64 => |x: f64| x, |x: f64| x;
    f16 => |x: f16| x.to_f32(), f16::from_f32;
    bf16 => |x: bf16| x.to_f32(), bf16::from_f32;
}

macro_rules! combine_complex {
    ($($t:ty),*) => {$(
        impl Combine for $t {
            fn native(op: BinaryOp) -> Option<fn(Self, Self) -> Self> {
                Some(match op {
                    BinaryOp::Add => |a: $t, b: $t| a + b,
                    BinaryOp::Mul => complex_mul::xla_complex_mul,
                    _ => return None,
                })
            }
        }
    )*};
}
combine_complex!(Complex32, Complex64);

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn conversions_follow_xla() {
        assert_eq!(i32::from_elem(f32::NAN), 0);
        assert_eq!(i32::from_elem(1e20f32), i32::MAX);
        assert_eq!(i32::from_elem(-1e20f64), i32::MIN);
        assert_eq!(u8::from_elem(-3.7f32), 0);
        assert_eq!(i8::from_elem(300i32), 44);
        assert_eq!(u64::from_elem(-1i32), u64::MAX);
        assert!(bool::from_elem(f32::NAN));
        assert!(!bool::from_elem(-0.0f32));
        assert_eq!(f32::from_elem(16_777_217i32), 16_777_216.0);
        assert_eq!(f32::from_elem(1.0000000596046448f64), 1.0);
        assert_eq!(f16::from_elem(65520.0f32), f16::INFINITY);
        assert_eq!(f32::from_elem(true), 1.0);
    }

    #[test]
    fn integer_corners() {
        assert_eq!(7i32.xdiv(0), -1);
        assert_eq!(7u32.xdiv(0), u32::MAX);
        assert_eq!(7i32.xrem(0), 7);
        assert_eq!(i32::MIN.xdiv(-1), i32::MIN);
        assert_eq!(i32::MIN.xrem(-1), 0);
        assert_eq!((-7i32).xrem(2), -1);
        assert_eq!((-8i8).ashr(2), -2);
        assert_eq!(0x80u8.ashr(1), 0xC0);
        assert_eq!((-1i8).lshr(4), 0x0F);
        assert_eq!(0i32.clz(), 32);
        assert_eq!((-1i8).popcnt(), 8);
        assert_eq!(i32::MIN.wabs(), i32::MIN);
    }
}
