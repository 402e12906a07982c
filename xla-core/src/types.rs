//! Element types: [`PrimitiveType`] names every XLA element type, and [`NativeType`] ties the
//! array types to their Rust representation.

use half::{bf16, f16};
use num_complex::{Complex32, Complex64};
use std::fmt;

macro_rules! primitive_types {
    ($( $(#[$doc:meta])* $variant:ident => $text:literal ),* $(,)?) => {
        /// An XLA element type (`PrimitiveType` in XLA's `xla_data.proto`).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum PrimitiveType {
            $( $(#[$doc])* $variant, )*
        }

        impl PrimitiveType {
            /// Every element type, in declaration order.
            pub const ALL: &'static [PrimitiveType] = &[$(PrimitiveType::$variant),*];

            /// The name XLA's HLO text uses (`f32`, `pred`, `token`, ...).
            pub fn name(self) -> &'static str {
                match self { $(PrimitiveType::$variant => $text,)* }
            }

            /// Parses a type name as written in HLO text.
            pub fn from_name(name: &str) -> Option<PrimitiveType> {
                match name { $($text => Some(PrimitiveType::$variant),)* _ => None }
            }
        }
    };
}

primitive_types! {
    /// Boolean.
    Pred => "pred",
    /// Signed 8-bit integer.
    S8 => "s8",
    /// Signed 16-bit integer.
    S16 => "s16",
    /// Signed 32-bit integer.
    S32 => "s32",
    /// Signed 64-bit integer.
    S64 => "s64",
    /// Unsigned 8-bit integer.
    U8 => "u8",
    /// Unsigned 16-bit integer.
    U16 => "u16",
    /// Unsigned 32-bit integer.
    U32 => "u32",
    /// Unsigned 64-bit integer.
    U64 => "u64",
    /// IEEE half precision.
    F16 => "f16",
    /// bfloat16 (8 exponent bits, 7 mantissa bits).
    Bf16 => "bf16",
    /// IEEE single precision.
    F32 => "f32",
    /// IEEE double precision.
    F64 => "f64",
    /// Complex number of two f32.
    C64 => "c64",
    /// Complex number of two f64.
    C128 => "c128",
    /// The element type of a tuple shape (never an array element).
    Tuple => "tuple",
    /// The element type of a token shape (never an array element).
    Token => "token",
}

impl PrimitiveType {
    /// True for the types an array can hold (everything but TUPLE and TOKEN).
    pub fn is_array_type(self) -> bool {
        !matches!(self, PrimitiveType::Tuple | PrimitiveType::Token)
    }

    /// True for PRED.
    pub fn is_pred(self) -> bool {
        self == PrimitiveType::Pred
    }

    /// True for the signed integer types.
    pub fn is_signed_int(self) -> bool {
        matches!(
            self,
            PrimitiveType::S8 | PrimitiveType::S16 | PrimitiveType::S32 | PrimitiveType::S64
        )
    }

    /// True for the unsigned integer types.
    pub fn is_unsigned_int(self) -> bool {
        matches!(
            self,
            PrimitiveType::U8 | PrimitiveType::U16 | PrimitiveType::U32 | PrimitiveType::U64
        )
    }

    /// True for signed and unsigned integer types (not PRED).
    pub fn is_integer(self) -> bool {
        self.is_signed_int() || self.is_unsigned_int()
    }

    /// True for the real floating-point types.
    pub fn is_float(self) -> bool {
        matches!(
            self,
            PrimitiveType::F16 | PrimitiveType::Bf16 | PrimitiveType::F32 | PrimitiveType::F64
        )
    }

    /// True for C64 and C128.
    pub fn is_complex(self) -> bool {
        matches!(self, PrimitiveType::C64 | PrimitiveType::C128)
    }

    /// True for floating-point and complex types.
    pub fn is_float_or_complex(self) -> bool {
        self.is_float() || self.is_complex()
    }

    /// Size of one element in bits (0 for TUPLE and TOKEN).
    pub fn bit_width(self) -> usize {
        match self {
            PrimitiveType::Pred | PrimitiveType::S8 | PrimitiveType::U8 => 8,
            PrimitiveType::S16 | PrimitiveType::U16 | PrimitiveType::F16 | PrimitiveType::Bf16 => {
                16
            }
            PrimitiveType::S32 | PrimitiveType::U32 | PrimitiveType::F32 => 32,
            PrimitiveType::S64 | PrimitiveType::U64 | PrimitiveType::F64 | PrimitiveType::C64 => 64,
            PrimitiveType::C128 => 128,
            PrimitiveType::Tuple | PrimitiveType::Token => 0,
        }
    }

    /// Size of one element in bytes (0 for TUPLE and TOKEN).
    pub fn byte_size(self) -> usize {
        self.bit_width() / 8
    }

    /// The real type of a complex type's components (`c64` → `f32`); other types map to themselves.
    pub fn component_type(self) -> PrimitiveType {
        match self {
            PrimitiveType::C64 => PrimitiveType::F32,
            PrimitiveType::C128 => PrimitiveType::F64,
            other => other,
        }
    }

    /// The complex type whose components are this real type (`f32` → `c64`).
    pub fn complex_type(self) -> Option<PrimitiveType> {
        match self {
            PrimitiveType::F32 => Some(PrimitiveType::C64),
            PrimitiveType::F64 => Some(PrimitiveType::C128),
            _ => None,
        }
    }

    /// Exponent and mantissa bits of a floating-point type (`f32` → (8, 23)).
    pub fn float_bits(self) -> Option<(u32, u32)> {
        match self {
            PrimitiveType::F16 => Some((5, 10)),
            PrimitiveType::Bf16 => Some((8, 7)),
            PrimitiveType::F32 => Some((8, 23)),
            PrimitiveType::F64 => Some((11, 52)),
            _ => None,
        }
    }
}

impl fmt::Display for PrimitiveType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A Rust type that is the element of an XLA array type.
pub trait NativeType: Copy + Send + Sync + PartialEq + fmt::Debug + Default + 'static {
    /// The XLA element type this Rust type represents.
    const TYPE: PrimitiveType;
}

macro_rules! native_types {
    ($($rust:ty => $variant:ident),* $(,)?) => {
        $(impl NativeType for $rust { const TYPE: PrimitiveType = PrimitiveType::$variant; })*
    };
}

native_types! {
    bool => Pred, i8 => S8, i16 => S16, i32 => S32, i64 => S64,
    u8 => U8, u16 => U16, u32 => U32, u64 => U64,
    f16 => F16, bf16 => Bf16, f32 => F32, f64 => F64,
    Complex32 => C64, Complex64 => C128,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for &t in PrimitiveType::ALL {
            assert_eq!(PrimitiveType::from_name(t.name()), Some(t));
        }
        assert_eq!(PrimitiveType::from_name("f8"), None);
    }

    #[test]
    fn widths() {
        assert_eq!(PrimitiveType::Bf16.bit_width(), 16);
        assert_eq!(PrimitiveType::C128.byte_size(), 16);
        assert_eq!(PrimitiveType::C64.component_type(), PrimitiveType::F32);
    }
}
