//! Host values: [`Literal`] holds an array of any element type and shape, or a tuple of
//! literals.
//!
//! ```
//! use xla_core::Literal;
//!
//! let lit = Literal::from_vec(&[2, 2], vec![1.5f32, -2.25, f32::INFINITY, f32::NAN]).unwrap();
//! assert_eq!(lit.get::<f32>(&[0, 1]).unwrap(), -2.25);
//! assert_eq!(lit.hlo_constant_body(), "{ { 1.5, -2.25 }, { inf, nan } }");
//! assert_eq!(lit.to_string(), "f32[2,2] {\n  { 1.5, -2.25 },\n  { inf, nan }\n}");
//! ```
//!
//! The submodules: construction (`from_vec`, `scalar`, `tuple`, ...), element access
//! (`get`, `set`, `to_vec`, `reshape`, `decompose_tuple`), printing in XLA's notation
//! (`Display`, `hlo_constant_body`), `ndarray` conversions (feature `ndarray`) and `.npy`
//! files ([`npy`], feature `npy`).

use crate::shape::Shape;
use crate::types::{NativeType, PrimitiveType};
use half::{bf16, f16};
use num_complex::{Complex32, Complex64};

mod access;
mod construct;
#[cfg(feature = "ndarray")]
mod ndarray_interop;
#[cfg(feature = "npy")]
pub mod npy;
mod print;

pub use construct::LiteralError;
pub use print::{format_bf16, format_f16, format_f32, format_f64, format_g};

/// The elements of an array literal, row-major, one vector variant per element type.
#[derive(Clone, Debug)]
pub enum ArrayData {
    /// PRED elements.
    Pred(Vec<bool>),
    /// S8 elements.
    S8(Vec<i8>),
    /// S16 elements.
    S16(Vec<i16>),
    /// S32 elements.
    S32(Vec<i32>),
    /// S64 elements.
    S64(Vec<i64>),
    /// U8 elements.
    U8(Vec<u8>),
    /// U16 elements.
    U16(Vec<u16>),
    /// U32 elements.
    U32(Vec<u32>),
    /// U64 elements.
    U64(Vec<u64>),
    /// F16 elements.
    F16(Vec<f16>),
    /// BF16 elements.
    Bf16(Vec<bf16>),
    /// F32 elements.
    F32(Vec<f32>),
    /// F64 elements.
    F64(Vec<f64>),
    /// C64 elements.
    C64(Vec<Complex32>),
    /// C128 elements.
    C128(Vec<Complex64>),
}

/// Applies `$body` to the vector inside an [`ArrayData`], binding it as `$v`.
#[macro_export]
macro_rules! with_array_data {
    ($data:expr, $v:ident => $body:expr) => {
        match $data {
            $crate::literal::ArrayData::Pred($v) => $body,
            $crate::literal::ArrayData::S8($v) => $body,
            $crate::literal::ArrayData::S16($v) => $body,
            $crate::literal::ArrayData::S32($v) => $body,
            $crate::literal::ArrayData::S64($v) => $body,
            $crate::literal::ArrayData::U8($v) => $body,
            $crate::literal::ArrayData::U16($v) => $body,
            $crate::literal::ArrayData::U32($v) => $body,
            $crate::literal::ArrayData::U64($v) => $body,
            $crate::literal::ArrayData::F16($v) => $body,
            $crate::literal::ArrayData::Bf16($v) => $body,
            $crate::literal::ArrayData::F32($v) => $body,
            $crate::literal::ArrayData::F64($v) => $body,
            $crate::literal::ArrayData::C64($v) => $body,
            $crate::literal::ArrayData::C128($v) => $body,
        }
    };
}

impl ArrayData {
    /// The element type of these elements.
    pub fn element_type(&self) -> PrimitiveType {
        match self {
            ArrayData::Pred(_) => PrimitiveType::Pred,
            ArrayData::S8(_) => PrimitiveType::S8,
            ArrayData::S16(_) => PrimitiveType::S16,
            ArrayData::S32(_) => PrimitiveType::S32,
            ArrayData::S64(_) => PrimitiveType::S64,
            ArrayData::U8(_) => PrimitiveType::U8,
            ArrayData::U16(_) => PrimitiveType::U16,
            ArrayData::U32(_) => PrimitiveType::U32,
            ArrayData::U64(_) => PrimitiveType::U64,
            ArrayData::F16(_) => PrimitiveType::F16,
            ArrayData::Bf16(_) => PrimitiveType::Bf16,
            ArrayData::F32(_) => PrimitiveType::F32,
            ArrayData::F64(_) => PrimitiveType::F64,
            ArrayData::C64(_) => PrimitiveType::C64,
            ArrayData::C128(_) => PrimitiveType::C128,
        }
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        with_array_data!(self, v => v.len())
    }

    /// True when there are no elements.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// `count` zero elements of type `ty` (`None` for TUPLE and TOKEN).
    pub fn zeros(ty: PrimitiveType, count: usize) -> Option<ArrayData> {
        Some(match ty {
            PrimitiveType::Pred => ArrayData::Pred(vec![false; count]),
            PrimitiveType::S8 => ArrayData::S8(vec![0; count]),
            PrimitiveType::S16 => ArrayData::S16(vec![0; count]),
            PrimitiveType::S32 => ArrayData::S32(vec![0; count]),
            PrimitiveType::S64 => ArrayData::S64(vec![0; count]),
            PrimitiveType::U8 => ArrayData::U8(vec![0; count]),
            PrimitiveType::U16 => ArrayData::U16(vec![0; count]),
            PrimitiveType::U32 => ArrayData::U32(vec![0; count]),
            PrimitiveType::U64 => ArrayData::U64(vec![0; count]),
            PrimitiveType::F16 => ArrayData::F16(vec![f16::ZERO; count]),
            PrimitiveType::Bf16 => ArrayData::Bf16(vec![bf16::ZERO; count]),
            PrimitiveType::F32 => ArrayData::F32(vec![0.0; count]),
            PrimitiveType::F64 => ArrayData::F64(vec![0.0; count]),
            PrimitiveType::C64 => ArrayData::C64(vec![Complex32::new(0.0, 0.0); count]),
            PrimitiveType::C128 => ArrayData::C128(vec![Complex64::new(0.0, 0.0); count]),
            PrimitiveType::Tuple | PrimitiveType::Token => return None,
        })
    }

    /// Bitwise equality (NaN payloads and the sign of zero count; `NaN == NaN` when the bits agree).
    pub fn bitwise_eq(&self, other: &ArrayData) -> bool {
        use ArrayData::*;
        match (self, other) {
            (Pred(a), Pred(b)) => a == b,
            (S8(a), S8(b)) => a == b,
            (S16(a), S16(b)) => a == b,
            (S32(a), S32(b)) => a == b,
            (S64(a), S64(b)) => a == b,
            (U8(a), U8(b)) => a == b,
            (U16(a), U16(b)) => a == b,
            (U32(a), U32(b)) => a == b,
            (U64(a), U64(b)) => a == b,
            (F16(a), F16(b)) => a
                .iter()
                .map(|x| x.to_bits())
                .eq(b.iter().map(|x| x.to_bits())),
            (Bf16(a), Bf16(b)) => a
                .iter()
                .map(|x| x.to_bits())
                .eq(b.iter().map(|x| x.to_bits())),
            (F32(a), F32(b)) => a
                .iter()
                .map(|x| x.to_bits())
                .eq(b.iter().map(|x| x.to_bits())),
            (F64(a), F64(b)) => a
                .iter()
                .map(|x| x.to_bits())
                .eq(b.iter().map(|x| x.to_bits())),
            (C64(a), C64(b)) => a
                .iter()
                .map(|x| (x.re.to_bits(), x.im.to_bits()))
                .eq(b.iter().map(|x| (x.re.to_bits(), x.im.to_bits()))),
            (C128(a), C128(b)) => a
                .iter()
                .map(|x| (x.re.to_bits(), x.im.to_bits()))
                .eq(b.iter().map(|x| (x.re.to_bits(), x.im.to_bits()))),
            _ => false,
        }
    }
}

/// Element access for the Rust types of [`NativeType`]: the bridge between a typed slice
/// and the [`ArrayData`] enum.
pub trait NativeData: NativeType {
    /// The elements, when `data` holds this type.
    fn slice(data: &ArrayData) -> Option<&[Self]>;
    /// The elements, mutable, when `data` holds this type.
    fn slice_mut(data: &mut ArrayData) -> Option<&mut [Self]>;
    /// Wraps a vector of this type.
    fn wrap(values: Vec<Self>) -> ArrayData;
    /// Unwraps the vector when `data` holds this type; gives `data` back otherwise.
    fn into_vec(data: ArrayData) -> Result<Vec<Self>, ArrayData>;
}

macro_rules! native_data {
    ($($rust:ty => $variant:ident),* $(,)?) => {$(
        impl NativeData for $rust {
            fn slice(data: &ArrayData) -> Option<&[Self]> {
                if let ArrayData::$variant(v) = data { Some(v) } else { None }
            }
            fn slice_mut(data: &mut ArrayData) -> Option<&mut [Self]> {
                if let ArrayData::$variant(v) = data { Some(v) } else { None }
            }
            fn wrap(values: Vec<Self>) -> ArrayData {
                ArrayData::$variant(values)
            }
            fn into_vec(data: ArrayData) -> Result<Vec<Self>, ArrayData> {
                if let ArrayData::$variant(v) = data { Ok(v) } else { Err(data) }
            }
        }
    )*};
}

native_data! {
    bool => Pred, i8 => S8, i16 => S16, i32 => S32, i64 => S64,
    u8 => U8, u16 => U16, u32 => U32, u64 => U64,
    f16 => F16, bf16 => Bf16, f32 => F32, f64 => F64,
    Complex32 => C64, Complex64 => C128,
}

/// The contents of a [`Literal`].
#[derive(Clone, Debug)]
pub enum LiteralValue {
    /// An array's elements in row-major (logical) order, whatever the shape's layout says.
    Array(ArrayData),
    /// A tuple's elements.
    Tuple(Vec<Literal>),
    /// A token (carries no data).
    Token,
}

/// A host value: an array of any element type and shape, a tuple of literals, or a token.
///
/// Invariant: for arrays, `shape` is an array shape whose element type is the data's and
/// whose element count is the data's length; tuples' shapes are the tuple of their
/// elements' shapes.
#[derive(Clone, Debug)]
pub struct Literal {
    shape: Shape,
    value: LiteralValue,
}

impl Literal {
    /// The literal's shape.
    pub fn shape(&self) -> &Shape {
        &self.shape
    }

    /// The literal's contents.
    pub fn value(&self) -> &LiteralValue {
        &self.value
    }

    /// The array elements, if this is an array.
    pub fn array_data(&self) -> Option<&ArrayData> {
        match &self.value {
            LiteralValue::Array(a) => Some(a),
            _ => None,
        }
    }

    /// The array elements, mutable, if this is an array.
    pub fn array_data_mut(&mut self) -> Option<&mut ArrayData> {
        match &mut self.value {
            LiteralValue::Array(a) => Some(a),
            _ => None,
        }
    }

    /// The tuple elements, if this is a tuple.
    pub fn tuple_elements(&self) -> Option<&[Literal]> {
        match &self.value {
            LiteralValue::Tuple(t) => Some(t),
            _ => None,
        }
    }

    /// The elements as a typed slice, if this is an array of `T`.
    pub fn data<T: NativeData>(&self) -> Option<&[T]> {
        self.array_data().and_then(T::slice)
    }

    /// Splits the literal into its shape and contents.
    pub fn into_parts(self) -> (Shape, LiteralValue) {
        (self.shape, self.value)
    }

    /// Builds a literal from a shape and contents without checking the invariant; callers in
    /// this crate guarantee it.
    pub(crate) fn from_parts_unchecked(shape: Shape, value: LiteralValue) -> Literal {
        Literal { shape, value }
    }
}

/// Equality of shapes (layouts included) and bitwise equality of elements, so that
/// `NaN` constants compare equal to themselves (what a print/parse round trip needs).
impl PartialEq for Literal {
    fn eq(&self, other: &Literal) -> bool {
        if self.shape != other.shape {
            return false;
        }
        match (&self.value, &other.value) {
            (LiteralValue::Array(a), LiteralValue::Array(b)) => a.bitwise_eq(b),
            (LiteralValue::Tuple(a), LiteralValue::Tuple(b)) => a == b,
            (LiteralValue::Token, LiteralValue::Token) => true,
            _ => false,
        }
    }
}
