//! Shapes: arrays (element type, dimensions, dynamic bounds, layout), tuples and tokens.

use crate::types::PrimitiveType;
use std::fmt;

/// The size recorded for an unbounded dynamic dimension (printed `?`).
pub const UNBOUNDED: i64 = i64::MIN;

/// A physical layout: the dimensions from most minor to most major.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Layout {
    /// Dimension numbers, minor-most first. `{1,0}` is row-major for a rank-2 array.
    pub minor_to_major: Vec<i64>,
}

impl Layout {
    /// The default (row-major) layout of a rank-`rank` array: `{rank-1, ..., 1, 0}`.
    pub fn row_major(rank: usize) -> Layout {
        Layout {
            minor_to_major: (0..rank as i64).rev().collect(),
        }
    }
}

/// The shape of an array: element type, dimension sizes, which dims are dynamic, and an
/// optional layout.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ArrayShape {
    /// Element type (never TUPLE or TOKEN).
    pub ty: PrimitiveType,
    /// Dimension sizes; for a dynamic dimension, its upper bound (or [`UNBOUNDED`]).
    pub dims: Vec<i64>,
    /// `dynamic[i]` is true when dimension `i` is dynamic (`<=N` in HLO text). Empty means
    /// every dimension is static.
    pub dynamic: Vec<bool>,
    /// Physical layout, if one was given.
    pub layout: Option<Layout>,
}

/// An XLA shape.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Shape {
    /// An array of elements.
    Array(ArrayShape),
    /// A tuple of shapes.
    Tuple(Vec<Shape>),
    /// A token, used to order side effects.
    Token,
}

impl Shape {
    /// An array shape with static dims and no layout.
    pub fn array(ty: PrimitiveType, dims: impl Into<Vec<i64>>) -> Shape {
        Shape::Array(ArrayShape {
            ty,
            dims: dims.into(),
            dynamic: Vec::new(),
            layout: None,
        })
    }

    /// A scalar (rank-0 array).
    pub fn scalar(ty: PrimitiveType) -> Shape {
        Shape::array(ty, Vec::new())
    }

    /// A tuple shape.
    pub fn tuple(elements: impl Into<Vec<Shape>>) -> Shape {
        Shape::Tuple(elements.into())
    }

    /// The element type: the array's, or TUPLE / TOKEN.
    pub fn element_type(&self) -> PrimitiveType {
        match self {
            Shape::Array(a) => a.ty,
            Shape::Tuple(_) => PrimitiveType::Tuple,
            Shape::Token => PrimitiveType::Token,
        }
    }

    /// The array part, if this is an array.
    pub fn as_array(&self) -> Option<&ArrayShape> {
        match self {
            Shape::Array(a) => Some(a),
            _ => None,
        }
    }

    /// The tuple elements, if this is a tuple.
    pub fn tuple_elements(&self) -> Option<&[Shape]> {
        match self {
            Shape::Tuple(t) => Some(t),
            _ => None,
        }
    }

    /// True for arrays.
    pub fn is_array(&self) -> bool {
        matches!(self, Shape::Array(_))
    }

    /// True for tuples.
    pub fn is_tuple(&self) -> bool {
        matches!(self, Shape::Tuple(_))
    }

    /// True for tokens.
    pub fn is_token(&self) -> bool {
        matches!(self, Shape::Token)
    }

    /// Dimensions of an array (empty for tuples and tokens).
    pub fn dims(&self) -> &[i64] {
        match self {
            Shape::Array(a) => &a.dims,
            _ => &[],
        }
    }

    /// Rank of an array (0 for tuples and tokens).
    pub fn rank(&self) -> usize {
        self.dims().len()
    }

    /// True for a rank-0 array.
    pub fn is_scalar(&self) -> bool {
        matches!(self, Shape::Array(a) if a.dims.is_empty())
    }

    /// Number of elements of an array (product of dims; `None` on overflow, dynamic
    /// unbounded dims, or for non-arrays).
    pub fn element_count(&self) -> Option<i64> {
        match self {
            Shape::Array(a) => a.element_count(),
            _ => None,
        }
    }

    /// The same shape with every layout removed (recursively).
    pub fn without_layout(&self) -> Shape {
        match self {
            Shape::Array(a) => Shape::Array(ArrayShape {
                layout: None,
                ..a.clone()
            }),
            Shape::Tuple(t) => Shape::Tuple(t.iter().map(Shape::without_layout).collect()),
            Shape::Token => Shape::Token,
        }
    }

    /// Equal ignoring layouts (what shape inference compares).
    pub fn compatible(&self, other: &Shape) -> bool {
        match (self, other) {
            (Shape::Array(a), Shape::Array(b)) => {
                a.ty == b.ty && a.dims == b.dims && a.is_dynamic_vec() == b.is_dynamic_vec()
            }
            (Shape::Tuple(a), Shape::Tuple(b)) => {
                a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.compatible(y))
            }
            (Shape::Token, Shape::Token) => true,
            _ => false,
        }
    }

    /// Equal dims ignoring element types and layouts.
    pub fn same_dims(&self, other: &Shape) -> bool {
        match (self, other) {
            (Shape::Array(a), Shape::Array(b)) => a.dims == b.dims,
            (Shape::Tuple(a), Shape::Tuple(b)) => {
                a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.same_dims(y))
            }
            (Shape::Token, Shape::Token) => true,
            _ => false,
        }
    }

    /// The shape with its element type changed (arrays only; tuples and tokens are returned unchanged).
    pub fn with_element_type(&self, ty: PrimitiveType) -> Shape {
        match self {
            Shape::Array(a) => Shape::Array(ArrayShape { ty, ..a.clone() }),
            other => other.clone(),
        }
    }

    /// The shape written with layouts, as XLA's HLO printer writes it (`f32[2,3]{1,0}`).
    pub fn to_string_with_layout(&self) -> String {
        let mut s = String::new();
        // Writing to a String never fails.
        let _ = write_shape(&mut s, self, true);
        s
    }
}

impl ArrayShape {
    /// Number of elements (`None` on overflow or unbounded dynamic dims).
    pub fn element_count(&self) -> Option<i64> {
        self.dims.iter().try_fold(
            1i64,
            |acc, &d| if d < 0 { None } else { acc.checked_mul(d) },
        )
    }

    /// True when dimension `i` is dynamic.
    pub fn is_dynamic_dim(&self, i: usize) -> bool {
        self.dynamic.get(i).copied().unwrap_or(false)
    }

    fn is_dynamic_vec(&self) -> Vec<bool> {
        (0..self.dims.len())
            .map(|i| self.is_dynamic_dim(i))
            .collect()
    }

    /// True when any dimension is dynamic.
    pub fn is_dynamic(&self) -> bool {
        self.dynamic.iter().any(|&d| d)
    }
}

fn write_shape(f: &mut impl fmt::Write, shape: &Shape, layouts: bool) -> fmt::Result {
    match shape {
        Shape::Array(a) => {
            write!(f, "{}[", a.ty)?;
            for (i, &d) in a.dims.iter().enumerate() {
                if i > 0 {
                    f.write_char(',')?;
                }
                if a.is_dynamic_dim(i) {
                    if d == UNBOUNDED {
                        f.write_char('?')?;
                    } else {
                        write!(f, "<={d}")?;
                    }
                } else {
                    write!(f, "{d}")?;
                }
            }
            f.write_char(']')?;
            if layouts && !a.dims.is_empty() {
                if let Some(l) = &a.layout {
                    f.write_char('{')?;
                    for (i, d) in l.minor_to_major.iter().enumerate() {
                        if i > 0 {
                            f.write_char(',')?;
                        }
                        write!(f, "{d}")?;
                    }
                    f.write_char('}')?;
                }
            }
            Ok(())
        }
        Shape::Tuple(elements) => {
            f.write_char('(')?;
            for (i, e) in elements.iter().enumerate() {
                if i > 0 {
                    f.write_str(", ")?;
                }
                if layouts && i >= 5 && i % 5 == 0 {
                    write!(f, "/*index={i}*/")?;
                }
                write_shape(f, e, layouts)?;
            }
            f.write_char(')')
        }
        Shape::Token => f.write_str("token[]"),
    }
}

/// Prints the shape in XLA's human notation without layouts: `f32[2,3]`, `(f32[], s32[4])`.
impl fmt::Display for Shape {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_shape(f, self, false)
    }
}

impl fmt::Display for ArrayShape {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_shape(f, &Shape::Array(self.clone()), false)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::PrimitiveType::*;

    #[test]
    fn display() {
        assert_eq!(Shape::array(F32, vec![2, 3]).to_string(), "f32[2,3]");
        assert_eq!(Shape::scalar(Pred).to_string(), "pred[]");
        let t = Shape::tuple(vec![Shape::scalar(F32), Shape::array(S32, vec![4])]);
        assert_eq!(t.to_string(), "(f32[], s32[4])");
        let mut a = Shape::array(F32, vec![4, 3]);
        if let Shape::Array(x) = &mut a {
            x.layout = Some(Layout {
                minor_to_major: vec![0, 1],
            });
        }
        assert_eq!(a.to_string_with_layout(), "f32[4,3]{0,1}");
    }

    #[test]
    fn element_count_overflow() {
        assert_eq!(Shape::array(F32, vec![2, 3]).element_count(), Some(6));
        assert_eq!(Shape::array(F32, vec![i64::MAX, 3]).element_count(), None);
        assert_eq!(Shape::array(F32, vec![0, 3]).element_count(), Some(0));
    }
}
