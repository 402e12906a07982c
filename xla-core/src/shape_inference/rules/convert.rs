//! Rules of element-type conversion (`convert`, `bitcast-convert`); the wrapping
//! [`ShapeRule::Convert`](super::super::ShapeRule::Convert) carries the operand and the
//! target type.

use std::fmt;

use crate::shape::ArrayShape;
use crate::types::PrimitiveType;

/// Why a conversion of `from` to `to` is not defined.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ConvertRule {
    /// `convert` to a type arrays cannot have (TUPLE, TOKEN).
    NotArrayType,
    /// `convert` from complex to real drops the imaginary part: not defined in XLA.
    ComplexToReal,
    /// `bitcast-convert` to a type arrays cannot have.
    BitcastNotArrayType,
    /// `bitcast-convert` between complex and real types.
    BitcastComplexReal,
    /// `bitcast-convert` between types whose bit widths do not divide.
    BitWidths {
        /// The operand type's width.
        from_bits: i64,
        /// The target type's width.
        to_bits: i64,
    },
    /// `bitcast-convert` to a wider type needs a last dimension equal to the width ratio.
    LastDimension {
        /// The width ratio.
        ratio: i64,
    },
}

impl ConvertRule {
    /// Writes the message for converting `from` to `to`.
    pub(crate) fn write(
        &self,
        f: &mut fmt::Formatter<'_>,
        from: &ArrayShape,
        to: PrimitiveType,
    ) -> fmt::Result {
        use ConvertRule as C;
        match self {
            C::NotArrayType => write!(f, "cannot convert {from} to {to}"),
            C::ComplexToReal => write!(
                f,
                "conversion from complex {from} to real type {to} is not defined"
            ),
            C::BitcastNotArrayType => write!(f, "cannot bitcast {from} to {to}"),
            C::BitcastComplexReal => write!(
                f,
                "cannot bitcast between complex and real types: {from} to {to}"
            ),
            C::BitWidths { from_bits, to_bits } => write!(
                f,
                "bit widths of {} ({from_bits}) and {to} ({to_bits}) do not divide",
                from.ty
            ),
            C::LastDimension { ratio } => write!(
                f,
                "bitcast from {from} to wider {to} needs a last dimension equal to the width ratio {ratio}"
            ),
        }
    }
}
