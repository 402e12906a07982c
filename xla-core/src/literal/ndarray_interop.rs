//! Conversions between literals and `ndarray` arrays (feature `ndarray`).
//!
//! A literal's elements are row-major, so an array in standard layout converts without
//! reordering; any other array (transposed, sliced with steps, negative strides) is read in
//! logical order, so the literal always has the same element at the same index.
//!
//! ```
//! use ndarray::{array, ArrayD};
//! use xla_core::Literal;
//!
//! let a = array![[1.0f32, 2.0, 3.0], [4.0, 5.0, 6.0]];
//! let lit = Literal::from_ndarray(&a.t());
//! assert_eq!(lit.to_string_oneline(), "f32[3,2] { { 1, 4 }, { 2, 5 }, { 3, 6 } }");
//! let back: ArrayD<f32> = lit.to_ndarray().unwrap();
//! assert_eq!(back, a.t().into_dyn());
//! ```

use super::{Literal, LiteralError, LiteralValue, NativeData};
use crate::shape::Shape;
use ndarray::{Array, ArrayBase, ArrayD, ArrayView, ArrayViewD, Data, Dimension, IxDyn};

/// The dims of an ndarray as XLA dims. ndarray keeps the product of the non-zero axis lengths
/// within `isize::MAX`, so every length fits in an `i64`.
fn dims_of(shape: &[usize]) -> Vec<i64> {
    shape
        .iter()
        .map(|&d| i64::try_from(d).unwrap_or(i64::MAX))
        .collect()
}

impl Literal {
    /// A literal with the array's shape and elements (in logical, row-major order whatever the
    /// array's strides).
    pub fn from_ndarray<T, S, D>(array: &ArrayBase<S, D>) -> Literal
    where
        T: NativeData,
        S: Data<Elem = T>,
        D: Dimension,
    {
        let data = T::wrap(array.iter().copied().collect());
        Literal::from_parts_unchecked(
            Shape::array(T::TYPE, dims_of(array.shape())),
            LiteralValue::Array(data),
        )
    }

    /// The ndarray dims of an array literal.
    fn ndarray_dims(&self, op: &'static str) -> Result<IxDyn, LiteralError> {
        if self.array_data().is_none() {
            return Err(LiteralError::WrongKind {
                op,
                expected: "an array",
                shape: self.shape().to_string(),
            });
        }
        let dims: Option<Vec<usize>> = self
            .dims()
            .iter()
            .map(|&d| usize::try_from(d).ok())
            .collect();
        dims.map(|d| IxDyn(&d))
            .ok_or_else(|| LiteralError::InvalidShape {
                shape: self.shape().to_string(),
                reason: "negative dimension".into(),
            })
    }

    /// A copy of the elements as a dynamic-rank ndarray (use `into_dimensionality` for a
    /// fixed rank).
    ///
    /// # Errors
    /// If this is not an array of `T`.
    pub fn to_ndarray<T: NativeData>(&self) -> Result<ArrayD<T>, LiteralError> {
        self.to_ndarray_view::<T>().map(|v| v.to_owned())
    }

    /// A view of the elements as a dynamic-rank ndarray, without copying.
    ///
    /// # Errors
    /// If this is not an array of `T`.
    pub fn to_ndarray_view<T: NativeData>(&self) -> Result<ArrayViewD<'_, T>, LiteralError> {
        let dims = self.ndarray_dims("to_ndarray_view")?;
        let data = self.typed_data::<T>()?;
        ArrayViewD::from_shape(dims, data)
            .map_err(|e| LiteralError::Other(format!("to_ndarray: {e}")))
    }

    /// The elements moved into a dynamic-rank ndarray, without copying.
    ///
    /// # Errors
    /// If this is not an array of `T`.
    pub fn into_ndarray<T: NativeData>(self) -> Result<ArrayD<T>, LiteralError> {
        let dims = self.ndarray_dims("into_ndarray")?;
        self.typed_data::<T>()?;
        let (shape, value) = self.into_parts();
        let vec = match value {
            LiteralValue::Array(data) => T::into_vec(data).ok(),
            LiteralValue::Tuple(_) | LiteralValue::Token => None,
        };
        let vec = vec.ok_or_else(|| {
            LiteralError::Other(format!(
                "into_ndarray: {shape} is not an array of {}",
                T::TYPE
            ))
        })?;
        ArrayD::from_shape_vec(dims, vec)
            .map_err(|e| LiteralError::Other(format!("into_ndarray: {e}")))
    }
}

impl<T: NativeData, S: Data<Elem = T>, D: Dimension> From<&ArrayBase<S, D>> for Literal {
    /// See [`Literal::from_ndarray`].
    fn from(array: &ArrayBase<S, D>) -> Literal {
        Literal::from_ndarray(array)
    }
}

impl<T: NativeData, D: Dimension> From<ArrayView<'_, T, D>> for Literal {
    /// See [`Literal::from_ndarray`].
    fn from(view: ArrayView<'_, T, D>) -> Literal {
        Literal::from_ndarray(&view)
    }
}

impl<T: NativeData, D: Dimension> From<Array<T, D>> for Literal {
    /// Moves the elements when the array is in standard layout; copies them in logical order
    /// otherwise.
    fn from(array: Array<T, D>) -> Literal {
        if !array.is_standard_layout() {
            return Literal::from_ndarray(&array);
        }
        let shape = Shape::array(T::TYPE, dims_of(array.shape()));
        let len = array.len();
        let (vec, offset) = array.into_raw_vec_and_offset();
        if vec.len() == len && offset.unwrap_or(0) == 0 {
            return Literal::from_parts_unchecked(shape, LiteralValue::Array(T::wrap(vec)));
        }
        // A standard-layout array that does not own exactly its elements: copy them out.
        let skip = offset.unwrap_or(0);
        let data: Vec<T> = vec.into_iter().skip(skip).take(len).collect();
        Literal::from_parts_unchecked(shape, LiteralValue::Array(T::wrap(data)))
    }
}

impl<T: NativeData> TryFrom<&Literal> for ArrayD<T> {
    type Error = LiteralError;
    /// See [`Literal::to_ndarray`].
    fn try_from(literal: &Literal) -> Result<ArrayD<T>, LiteralError> {
        literal.to_ndarray()
    }
}

impl<T: NativeData> TryFrom<Literal> for ArrayD<T> {
    type Error = LiteralError;
    /// See [`Literal::into_ndarray`].
    fn try_from(literal: Literal) -> Result<ArrayD<T>, LiteralError> {
        literal.into_ndarray()
    }
}
