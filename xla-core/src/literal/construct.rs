//! Building literals from Rust values and checking them.

use super::{ArrayData, Literal, LiteralValue, NativeData};
use crate::shape::Shape;
use crate::types::PrimitiveType;
use thiserror::Error;

/// Why a literal could not be built, read or written.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum LiteralError {
    /// The element count implied by the shape differs from the data's.
    #[error("literal: shape {shape} holds {expected} elements but {found} were given")]
    ElementCount {
        /// The shape asked for.
        shape: String,
        /// Elements the shape holds.
        expected: String,
        /// Elements given.
        found: usize,
    },
    /// The data's element type differs from the shape's.
    #[error("literal: shape {shape} has element type {expected} but the data is {found}")]
    ElementType {
        /// The shape asked for.
        shape: String,
        /// The shape's element type.
        expected: PrimitiveType,
        /// The data's element type.
        found: PrimitiveType,
    },
    /// The shape is not an array shape, or has a negative dimension.
    #[error("literal: invalid shape {shape}: {reason}")]
    InvalidShape {
        /// The shape.
        shape: String,
        /// What is wrong.
        reason: String,
    },
    /// A typed access asked for a different element type than the literal holds.
    #[error("literal: {shape} holds {found} elements, not {requested}")]
    TypeMismatch {
        /// The literal's shape.
        shape: String,
        /// The element type asked for.
        requested: PrimitiveType,
        /// The element type held.
        found: PrimitiveType,
    },
    /// An index has the wrong rank or lies outside the shape.
    #[error("literal: index {index:?} is out of bounds for {shape}")]
    IndexOutOfBounds {
        /// The literal's shape.
        shape: String,
        /// The index given.
        index: Vec<i64>,
    },
    /// The operation needs an array (or a tuple) and got something else.
    #[error("literal: {op} needs {expected}, got {shape}")]
    WrongKind {
        /// The operation.
        op: &'static str,
        /// What it needs (`an array`, `a tuple`).
        expected: &'static str,
        /// The literal's shape.
        shape: String,
    },
    /// A `.npy` file or buffer could not be read or written.
    #[error("npy: {path}: {reason}")]
    Npy {
        /// The file (`<bytes>` for an in-memory buffer).
        path: String,
        /// What went wrong.
        reason: String,
    },
    /// Any other problem (ndarray conversion, ...).
    #[error("literal: {0}")]
    Other(String),
}

impl Literal {
    /// An array literal of `shape` holding `data` (row-major).
    ///
    /// # Errors
    /// If `shape` is not an array shape, has a negative dimension, or disagrees with the data
    /// in element type or element count.
    pub fn from_array_data(shape: Shape, data: ArrayData) -> Result<Literal, LiteralError> {
        let a = match &shape {
            Shape::Array(a) => a,
            other => {
                return Err(LiteralError::InvalidShape {
                    shape: other.to_string(),
                    reason: "not an array shape".into(),
                })
            }
        };
        if a.dims.iter().any(|&d| d < 0) {
            return Err(LiteralError::InvalidShape {
                shape: shape.to_string(),
                reason: "negative dimension".into(),
            });
        }
        if a.ty != data.element_type() {
            return Err(LiteralError::ElementType {
                shape: shape.to_string(),
                expected: a.ty,
                found: data.element_type(),
            });
        }
        let count = a.element_count();
        if count != Some(data.len() as i64) {
            return Err(LiteralError::ElementCount {
                shape: shape.to_string(),
                expected: count.map_or_else(|| "too many".to_string(), |c| c.to_string()),
                found: data.len(),
            });
        }
        Ok(Literal::from_parts_unchecked(
            shape,
            LiteralValue::Array(data),
        ))
    }

    /// An array literal of dims `dims` holding `values` (row-major).
    ///
    /// # Errors
    /// If the element count of `dims` differs from `values.len()` or a dim is negative.
    pub fn from_vec<T: NativeData>(dims: &[i64], values: Vec<T>) -> Result<Literal, LiteralError> {
        Literal::from_array_data(Shape::array(T::TYPE, dims.to_vec()), T::wrap(values))
    }

    /// A rank-0 literal.
    pub fn scalar<T: NativeData>(value: T) -> Literal {
        Literal::from_parts_unchecked(
            Shape::scalar(T::TYPE),
            LiteralValue::Array(T::wrap(vec![value])),
        )
    }

    /// A rank-1 literal holding a copy of `values`.
    pub fn vec1<T: NativeData>(values: &[T]) -> Literal {
        Literal::from_parts_unchecked(
            Shape::array(T::TYPE, vec![values.len() as i64]),
            LiteralValue::Array(T::wrap(values.to_vec())),
        )
    }

    /// A tuple of literals.
    pub fn tuple(elements: Vec<Literal>) -> Literal {
        let shape = Shape::Tuple(elements.iter().map(|e| e.shape().clone()).collect());
        Literal::from_parts_unchecked(shape, LiteralValue::Tuple(elements))
    }

    /// A token.
    pub fn token() -> Literal {
        Literal::from_parts_unchecked(Shape::Token, LiteralValue::Token)
    }

    /// An all-zero literal of an array shape (tuples: zero elements recursively).
    ///
    /// # Errors
    /// If the shape has negative dims or too many elements.
    pub fn zeros(shape: &Shape) -> Result<Literal, LiteralError> {
        match shape {
            Shape::Array(a) => {
                let n = a
                    .element_count()
                    .ok_or_else(|| LiteralError::InvalidShape {
                        shape: shape.to_string(),
                        reason: "element count overflows".into(),
                    })?;
                let n = usize::try_from(n).map_err(|_| LiteralError::InvalidShape {
                    shape: shape.to_string(),
                    reason: "element count overflows".into(),
                })?;
                let data = ArrayData::zeros(a.ty, n).ok_or_else(|| LiteralError::InvalidShape {
                    shape: shape.to_string(),
                    reason: "not an array type".into(),
                })?;
                Ok(Literal::from_parts_unchecked(
                    shape.clone(),
                    LiteralValue::Array(data),
                ))
            }
            Shape::Tuple(t) => Ok(Literal::tuple(
                t.iter().map(Literal::zeros).collect::<Result<_, _>>()?,
            )),
            Shape::Token => Ok(Literal::token()),
        }
    }
}
