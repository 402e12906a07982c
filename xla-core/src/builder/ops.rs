//! Operator overloading for [`XlaOp`] (`a + b`, `x * 2.0f32`, `-x`, `!p`, `a << b`, ...),
//! scalar constants that take the other operand's element type, and method forms of the
//! unary ops (`x.exp()`).

use super::{XlaBuilder, XlaOp};
use crate::ir::{BinaryOp, UnaryOp};
use crate::literal::Literal;
use crate::types::PrimitiveType;
use half::{bf16, f16};
use num_complex::{Complex32, Complex64};
use std::ops;

/// A Rust scalar usable as a constant next to an [`XlaOp`]: `x * 2.0f32` multiplies by a
/// constant of `x`'s element type (like XLA's `ScalarLike`).
pub trait ScalarValue: Copy {
    /// The value as a float or an integer.
    fn to_scalar(self) -> Scalar;
}

/// A scalar value, before it is given an element type.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Scalar {
    /// A floating-point value.
    Float(f64),
    /// An integer value.
    Int(i64),
    /// An unsigned integer value.
    UInt(u64),
    /// A boolean.
    Bool(bool),
}

macro_rules! scalar_values {
    ($($t:ty => $variant:ident as $as:ty),* $(,)?) => {
        $(impl ScalarValue for $t {
            fn to_scalar(self) -> Scalar {
                Scalar::$variant(self as $as)
            }
        })*
    };
}

scalar_values! {
    f32 => Float as f64, f64 => Float as f64,
    i8 => Int as i64, i16 => Int as i64, i32 => Int as i64, i64 => Int as i64,
    u8 => UInt as u64, u16 => UInt as u64, u32 => UInt as u64, u64 => UInt as u64,
}

impl ScalarValue for bool {
    fn to_scalar(self) -> Scalar {
        Scalar::Bool(self)
    }
}

impl Scalar {
    fn as_f64(self) -> f64 {
        match self {
            Scalar::Float(v) => v,
            Scalar::Int(v) => v as f64,
            Scalar::UInt(v) => v as f64,
            Scalar::Bool(v) => f64::from(u8::from(v)),
        }
    }

    fn as_i64(self) -> i64 {
        match self {
            Scalar::Float(v) => v as i64,
            Scalar::Int(v) => v,
            Scalar::UInt(v) => v as i64,
            Scalar::Bool(v) => i64::from(v),
        }
    }

    fn as_u64(self) -> u64 {
        match self {
            Scalar::Float(v) => v as u64,
            Scalar::Int(v) => v as u64,
            Scalar::UInt(v) => v,
            Scalar::Bool(v) => u64::from(v),
        }
    }
}

/// A scalar literal of `ty` holding `v` (`None` for TUPLE and TOKEN).
pub(super) fn scalar_literal(ty: PrimitiveType, v: Scalar) -> Option<Literal> {
    use PrimitiveType as P;
    let (f, i, u) = (v.as_f64(), v.as_i64(), v.as_u64());
    Some(match ty {
        P::Pred => Literal::scalar(f != 0.0),
        P::S8 => Literal::scalar(i as i8),
        P::S16 => Literal::scalar(i as i16),
        P::S32 => Literal::scalar(i as i32),
        P::S64 => Literal::scalar(i),
        P::U8 => Literal::scalar(u as u8),
        P::U16 => Literal::scalar(u as u16),
        P::U32 => Literal::scalar(u as u32),
        P::U64 => Literal::scalar(u),
        P::F16 => Literal::scalar(f16::from_f64(f)),
        P::Bf16 => Literal::scalar(bf16::from_f64(f)),
        P::F32 => Literal::scalar(f as f32),
        P::F64 => Literal::scalar(f),
        P::C64 => Literal::scalar(Complex32::new(f as f32, 0.0)),
        P::C128 => Literal::scalar(Complex64::new(f, 0.0)),
        P::Tuple | P::Token => return None,
    })
}

impl XlaOp {
    fn b(&self) -> XlaBuilder {
        self.builder()
    }

    fn binary_with(&self, op: BinaryOp, rhs: &XlaOp) -> XlaOp {
        self.b().binary_op(op, self, rhs, &[])
    }

    fn binary_scalar(&self, op: BinaryOp, rhs: Scalar, scalar_on_left: bool) -> XlaOp {
        let b = self.b();
        let Ok(shape) = self.shape() else {
            return b.poisoned();
        };
        let c = match scalar_literal(shape.element_type(), rhs) {
            Some(lit) => b.constant(&lit),
            None => {
                return b.misuse(
                    op.name(),
                    format!("no scalar constant of the element type of {shape}"),
                )
            }
        };
        if scalar_on_left {
            b.binary_op(op, &c, self, &[])
        } else {
            b.binary_op(op, self, &c, &[])
        }
    }

    /// Shift right: arithmetic for signed integers, logical otherwise (as XLA's `>>`).
    fn shift_right(&self, rhs: &XlaOp) -> XlaOp {
        let signed = self.shape().is_ok_and(|s| s.element_type().is_signed_int());
        let op = if signed {
            BinaryOp::ShiftRightArithmetic
        } else {
            BinaryOp::ShiftRightLogical
        };
        self.binary_with(op, rhs)
    }
}

macro_rules! binary_operator {
    ($trait:ident, $method:ident, $op:expr) => {
        impl ops::$trait<XlaOp> for XlaOp {
            type Output = XlaOp;
            fn $method(self, rhs: XlaOp) -> XlaOp {
                self.binary_with($op, &rhs)
            }
        }
        impl ops::$trait<&XlaOp> for XlaOp {
            type Output = XlaOp;
            fn $method(self, rhs: &XlaOp) -> XlaOp {
                self.binary_with($op, rhs)
            }
        }
        impl ops::$trait<XlaOp> for &XlaOp {
            type Output = XlaOp;
            fn $method(self, rhs: XlaOp) -> XlaOp {
                self.binary_with($op, &rhs)
            }
        }
        impl ops::$trait<&XlaOp> for &XlaOp {
            type Output = XlaOp;
            fn $method(self, rhs: &XlaOp) -> XlaOp {
                self.binary_with($op, rhs)
            }
        }
    };
}

binary_operator!(Add, add, BinaryOp::Add);
binary_operator!(Sub, sub, BinaryOp::Sub);
binary_operator!(Mul, mul, BinaryOp::Mul);
binary_operator!(Div, div, BinaryOp::Div);
binary_operator!(Rem, rem, BinaryOp::Rem);
binary_operator!(BitAnd, bitand, BinaryOp::And);
binary_operator!(BitOr, bitor, BinaryOp::Or);
binary_operator!(BitXor, bitxor, BinaryOp::Xor);
binary_operator!(Shl, shl, BinaryOp::ShiftLeft);

impl ops::Shr<XlaOp> for XlaOp {
    type Output = XlaOp;
    fn shr(self, rhs: XlaOp) -> XlaOp {
        self.shift_right(&rhs)
    }
}
impl ops::Shr<&XlaOp> for XlaOp {
    type Output = XlaOp;
    fn shr(self, rhs: &XlaOp) -> XlaOp {
        self.shift_right(rhs)
    }
}
impl ops::Shr<XlaOp> for &XlaOp {
    type Output = XlaOp;
    fn shr(self, rhs: XlaOp) -> XlaOp {
        self.shift_right(&rhs)
    }
}
impl ops::Shr<&XlaOp> for &XlaOp {
    type Output = XlaOp;
    fn shr(self, rhs: &XlaOp) -> XlaOp {
        self.shift_right(rhs)
    }
}

macro_rules! scalar_operators {
    ($($t:ty),*) => {$(
        scalar_operators!(@one $t, Add, add, BinaryOp::Add);
        scalar_operators!(@one $t, Sub, sub, BinaryOp::Sub);
        scalar_operators!(@one $t, Mul, mul, BinaryOp::Mul);
        scalar_operators!(@one $t, Div, div, BinaryOp::Div);
        scalar_operators!(@one $t, Rem, rem, BinaryOp::Rem);
    )*};
    (@one $t:ty, $trait:ident, $method:ident, $op:expr) => {
        impl ops::$trait<$t> for XlaOp {
            type Output = XlaOp;
            fn $method(self, rhs: $t) -> XlaOp {
                self.binary_scalar($op, rhs.to_scalar(), false)
            }
        }
        impl ops::$trait<$t> for &XlaOp {
            type Output = XlaOp;
            fn $method(self, rhs: $t) -> XlaOp {
                self.binary_scalar($op, rhs.to_scalar(), false)
            }
        }
        impl ops::$trait<XlaOp> for $t {
            type Output = XlaOp;
            fn $method(self, rhs: XlaOp) -> XlaOp {
                rhs.binary_scalar($op, self.to_scalar(), true)
            }
        }
        impl ops::$trait<&XlaOp> for $t {
            type Output = XlaOp;
            fn $method(self, rhs: &XlaOp) -> XlaOp {
                rhs.binary_scalar($op, self.to_scalar(), true)
            }
        }
    };
}

scalar_operators!(f32, f64, i32, i64, u32, u64);

impl ops::Neg for XlaOp {
    type Output = XlaOp;
    fn neg(self) -> XlaOp {
        self.b().unary_op(UnaryOp::Neg, &self)
    }
}

impl ops::Neg for &XlaOp {
    type Output = XlaOp;
    fn neg(self) -> XlaOp {
        self.b().unary_op(UnaryOp::Neg, self)
    }
}

impl ops::Not for XlaOp {
    type Output = XlaOp;
    fn not(self) -> XlaOp {
        self.b().unary_op(UnaryOp::Not, &self)
    }
}

impl ops::Not for &XlaOp {
    type Output = XlaOp;
    fn not(self) -> XlaOp {
        self.b().unary_op(UnaryOp::Not, self)
    }
}

macro_rules! unary_method_forms {
    ($($name:ident => $variant:ident),* $(,)?) => {
        impl XlaOp {
            $(
                #[doc = concat!("`", stringify!($name), "` of this value (see [`XlaBuilder::", stringify!($name), "`]).")]
                pub fn $name(&self) -> XlaOp {
                    self.b().unary_op(UnaryOp::$variant, self)
                }
            )*
        }
    };
}

unary_method_forms! {
    abs => Abs, cbrt => Cbrt, ceil => Ceil, cos => Cos, erf => Erf, exp => Exp, expm1 => Expm1,
    floor => Floor, log => Log, log1p => Log1p, logistic => Logistic, rsqrt => Rsqrt,
    sign => Sign, sin => Sin, sqrt => Sqrt, tan => Tan, tanh => Tanh,
}

impl XlaOp {
    /// `max(self, rhs)` (see [`XlaBuilder::max`]).
    pub fn max(&self, rhs: &XlaOp) -> XlaOp {
        self.binary_with(BinaryOp::Max, rhs)
    }

    /// `min(self, rhs)` (see [`XlaBuilder::min`]).
    pub fn min(&self, rhs: &XlaOp) -> XlaOp {
        self.binary_with(BinaryOp::Min, rhs)
    }

    /// `self ^ rhs` (see [`XlaBuilder::pow`]).
    pub fn pow(&self, rhs: &XlaOp) -> XlaOp {
        self.binary_with(BinaryOp::Pow, rhs)
    }

    /// Converts the element type (see [`XlaBuilder::convert_element_type`]).
    pub fn convert(&self, ty: PrimitiveType) -> XlaOp {
        self.b().convert_element_type(self, ty)
    }

    /// Reshapes (see [`XlaBuilder::reshape`]).
    pub fn reshape(&self, new_sizes: &[i64]) -> XlaOp {
        self.b().reshape(self, new_sizes)
    }

    /// Transposes (see [`XlaBuilder::transpose`]).
    pub fn transpose(&self, permutation: &[i64]) -> XlaOp {
        self.b().transpose(self, permutation)
    }
}
