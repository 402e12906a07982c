//! Reading and writing single elements, typed views, reshapes and tuple decomposition.
//!
//! Indices are logical (row-major over the shape's dims), whatever layout the shape carries:
//! a literal stores its elements in row-major order.

use super::{ArrayData, Literal, LiteralError, LiteralValue, NativeData};
use crate::shape::Shape;
use crate::types::PrimitiveType;

impl Literal {
    /// The element type (TUPLE or TOKEN for those).
    pub fn element_type(&self) -> PrimitiveType {
        self.shape().element_type()
    }

    /// The dims of an array (empty for tuples and tokens).
    pub fn dims(&self) -> &[i64] {
        self.shape().dims()
    }

    /// The rank of an array (0 for tuples and tokens).
    pub fn rank(&self) -> usize {
        self.shape().rank()
    }

    /// Number of elements of an array; 0 for tuples and tokens.
    pub fn element_count(&self) -> usize {
        self.array_data().map_or(0, ArrayData::len)
    }

    /// The array data, or an error naming `op` when this is a tuple or token.
    fn array_for(&self, op: &'static str) -> Result<&ArrayData, LiteralError> {
        self.array_data()
            .ok_or_else(|| self.wrong_kind(op, "an array"))
    }

    fn wrong_kind(&self, op: &'static str, expected: &'static str) -> LiteralError {
        LiteralError::WrongKind {
            op,
            expected,
            shape: self.shape().to_string(),
        }
    }

    fn type_mismatch(&self, requested: PrimitiveType) -> LiteralError {
        LiteralError::TypeMismatch {
            shape: self.shape().to_string(),
            requested,
            found: self.element_type(),
        }
    }

    /// The row-major position of `index` in the element vector.
    ///
    /// # Errors
    /// If this is not an array, or `index` has the wrong length or an entry outside `[0, dim)`.
    pub fn linear_index(&self, index: &[i64]) -> Result<usize, LiteralError> {
        self.array_for("linear_index")?;
        let dims = self.dims();
        let out_of_bounds = || LiteralError::IndexOutOfBounds {
            shape: self.shape().to_string(),
            index: index.to_vec(),
        };
        if index.len() != dims.len() {
            return Err(out_of_bounds());
        }
        let mut linear = 0usize;
        for (&i, &d) in index.iter().zip(dims) {
            if i < 0 || i >= d {
                return Err(out_of_bounds());
            }
            // Both fit: 0 <= i < d, and the element count fits in memory.
            let step = linear
                .checked_mul(d as usize)
                .and_then(|l| l.checked_add(i as usize));
            linear = step.ok_or_else(out_of_bounds)?;
        }
        Ok(linear)
    }

    /// The elements as a typed slice.
    ///
    /// # Errors
    /// If this is not an array of `T`.
    pub fn typed_data<T: NativeData>(&self) -> Result<&[T], LiteralError> {
        T::slice(self.array_for("typed_data")?).ok_or_else(|| self.type_mismatch(T::TYPE))
    }

    /// The elements as a mutable typed slice.
    ///
    /// # Errors
    /// If this is not an array of `T`.
    pub fn typed_data_mut<T: NativeData>(&mut self) -> Result<&mut [T], LiteralError> {
        let err = match self.array_data() {
            None => self.wrong_kind("typed_data_mut", "an array"),
            Some(_) => self.type_mismatch(T::TYPE),
        };
        self.array_data_mut().and_then(T::slice_mut).ok_or(err)
    }

    /// A copy of the elements, row-major.
    ///
    /// # Errors
    /// If this is not an array of `T`.
    pub fn to_vec<T: NativeData>(&self) -> Result<Vec<T>, LiteralError> {
        self.typed_data::<T>().map(<[T]>::to_vec)
    }

    /// The element at `index`.
    ///
    /// # Errors
    /// If this is not an array of `T` or `index` is out of bounds.
    pub fn get<T: NativeData>(&self, index: &[i64]) -> Result<T, LiteralError> {
        let at = self.linear_index(index)?;
        let data = self.typed_data::<T>()?;
        data.get(at)
            .copied()
            .ok_or_else(|| LiteralError::IndexOutOfBounds {
                shape: self.shape().to_string(),
                index: index.to_vec(),
            })
    }

    /// The value of a rank-0 literal.
    ///
    /// # Errors
    /// If this is not a scalar of `T`.
    pub fn to_scalar<T: NativeData>(&self) -> Result<T, LiteralError> {
        if !self.shape().is_scalar() {
            return Err(self.wrong_kind("to_scalar", "a scalar"));
        }
        self.get(&[])
    }

    /// Replaces the element at `index`.
    ///
    /// # Errors
    /// If this is not an array of `T` or `index` is out of bounds.
    pub fn set<T: NativeData>(&mut self, index: &[i64], value: T) -> Result<(), LiteralError> {
        let at = self.linear_index(index)?;
        let shape = self.shape().to_string();
        let slot = self.typed_data_mut::<T>()?.get_mut(at);
        let slot = slot.ok_or(LiteralError::IndexOutOfBounds {
            shape,
            index: index.to_vec(),
        })?;
        *slot = value;
        Ok(())
    }

    /// The element at `index` converted to `f64` (PRED as 0/1; 64-bit integers beyond 2^53
    /// round). Meant for tests and diagnostics.
    ///
    /// # Errors
    /// If this is not an array, the index is out of bounds, or the elements are complex.
    pub fn get_as_f64(&self, index: &[i64]) -> Result<f64, LiteralError> {
        let at = self.linear_index(index)?;
        let data = self.array_for("get_as_f64")?;
        if data.element_type().is_complex() {
            return Err(self.wrong_kind("get_as_f64", "a real or integer array"));
        }
        data.get_as_f64(at)
            .ok_or_else(|| LiteralError::IndexOutOfBounds {
                shape: self.shape().to_string(),
                index: index.to_vec(),
            })
    }

    /// The same elements with new dims (same element count; the layout is dropped).
    ///
    /// # Errors
    /// If this is not an array, a dim is negative, or the element counts differ.
    pub fn reshape(&self, dims: &[i64]) -> Result<Literal, LiteralError> {
        let data = self.array_for("reshape")?.clone();
        Literal::from_array_data(Shape::array(self.element_type(), dims.to_vec()), data)
    }

    /// Like [`Literal::reshape`] but reuses the element vector.
    ///
    /// # Errors
    /// If this is not an array, a dim is negative, or the element counts differ.
    pub fn into_reshaped(self, dims: &[i64]) -> Result<Literal, LiteralError> {
        let ty = self.element_type();
        match self.into_parts() {
            (_, LiteralValue::Array(data)) => {
                Literal::from_array_data(Shape::array(ty, dims.to_vec()), data)
            }
            (shape, _) => Err(LiteralError::WrongKind {
                op: "reshape",
                expected: "an array",
                shape: shape.to_string(),
            }),
        }
    }

    /// Element `i` of a tuple.
    ///
    /// # Errors
    /// If this is not a tuple or `i` is out of range.
    pub fn tuple_element(&self, i: usize) -> Result<&Literal, LiteralError> {
        let elements = self
            .tuple_elements()
            .ok_or_else(|| self.wrong_kind("tuple_element", "a tuple"))?;
        elements
            .get(i)
            .ok_or_else(|| LiteralError::IndexOutOfBounds {
                shape: self.shape().to_string(),
                index: vec![i as i64],
            })
    }

    /// The elements of a tuple, moved out.
    ///
    /// # Errors
    /// If this is not a tuple.
    pub fn decompose_tuple(self) -> Result<Vec<Literal>, LiteralError> {
        match self.into_parts() {
            (_, LiteralValue::Tuple(elements)) => Ok(elements),
            (shape, _) => Err(LiteralError::WrongKind {
                op: "decompose_tuple",
                expected: "a tuple",
                shape: shape.to_string(),
            }),
        }
    }
}

impl ArrayData {
    /// Element `at` converted to `f64` (PRED as 0/1, complex as its real part); `None` when
    /// `at` is out of range.
    pub fn get_as_f64(&self, at: usize) -> Option<f64> {
        Some(match self {
            ArrayData::Pred(v) => f64::from(u8::from(*v.get(at)?)),
            ArrayData::S8(v) => f64::from(*v.get(at)?),
            ArrayData::S16(v) => f64::from(*v.get(at)?),
            ArrayData::S32(v) => f64::from(*v.get(at)?),
            ArrayData::S64(v) => *v.get(at)? as f64,
            ArrayData::U8(v) => f64::from(*v.get(at)?),
            ArrayData::U16(v) => f64::from(*v.get(at)?),
            ArrayData::U32(v) => f64::from(*v.get(at)?),
            ArrayData::U64(v) => *v.get(at)? as f64,
            ArrayData::F16(v) => v.get(at)?.to_f64(),
            ArrayData::Bf16(v) => v.get(at)?.to_f64(),
            ArrayData::F32(v) => f64::from(*v.get(at)?),
            ArrayData::F64(v) => *v.get(at)?,
            ArrayData::C64(v) => f64::from(v.get(at)?.re),
            ArrayData::C128(v) => v.get(at)?.re,
        })
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn index_and_reshape() {
        let lit = Literal::from_vec(&[2, 3], vec![1i32, 2, 3, 4, 5, 6]).unwrap();
        assert_eq!(lit.get::<i32>(&[1, 0]).unwrap(), 4);
        assert_eq!(lit.linear_index(&[1, 2]).unwrap(), 5);
        assert!(lit.get::<i32>(&[2, 0]).is_err());
        assert!(lit.get::<i32>(&[0]).is_err());
        assert!(lit.get::<f32>(&[0, 0]).is_err());
        let r = lit.reshape(&[3, 2]).unwrap();
        assert_eq!(r.get::<i32>(&[2, 1]).unwrap(), 6);
        assert!(lit.reshape(&[4]).is_err());
        assert_eq!(lit.get_as_f64(&[0, 1]).unwrap(), 2.0);
    }
}
