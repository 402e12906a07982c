//! The error every shape rule returns.

use std::fmt;

use super::rules::{
    BroadcastRule, CalleeRule, CollectiveRule, ContractionRule, ConvertRule, GatherRule,
    LinalgRule, OperandsRule, SliceRule, WindowRule,
};
use super::validators::fmt_dims;
use super::ProgramShape;
use crate::attrs::ComparisonType;
use crate::shape::{ArrayShape, Shape};
use crate::types::PrimitiveType;

/// A violated shape rule: which operation, which operand (if one is to blame), and the rule
/// broken, with the offending shapes and dimension numbers as typed fields
/// ([`ShapeRule`]); its `Display` writes the shapes in XLA notation (`f32[2,3]`).
///
/// The caller adds *where*: the instruction name (verifier), line and column (parser), or
/// the span of the expression (macro).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShapeError {
    /// The operation, as named in HLO text (`dot`, `reduce-window`, ...).
    pub op: String,
    /// The operand the rule blames, if one.
    pub operand: Option<usize>,
    /// The rule broken, with the shapes involved (boxed: results stay small).
    pub rule: Box<ShapeRule>,
}

/// The rule a [`ShapeError`] reports, with its shapes and dimension numbers. Each `what`
/// names the operand or attribute as the message says it (`operand 1`, `lhs contracting
/// dim`, `broadcast_dimensions`).
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ShapeRule {
    /// The op takes `expected` operands (at least `expected` when `at_least`).
    OperandCount {
        /// Operands the op takes.
        expected: usize,
        /// Whether `expected` is a minimum.
        at_least: bool,
        /// Operands given.
        found: usize,
    },
    /// An operand must be an array (not a tuple or token).
    NotArray {
        /// The operand.
        what: String,
        /// Its shape.
        found: Shape,
    },
    /// An operand must be a scalar.
    NotScalar {
        /// The operand.
        what: String,
        /// Its shape.
        found: Shape,
    },
    /// An operand must be a token.
    NotToken {
        /// The operand.
        what: String,
        /// Its shape.
        found: Shape,
    },
    /// An operand must have rank `expected`.
    Rank {
        /// The operand.
        what: String,
        /// The rank required.
        expected: usize,
        /// Its shape.
        found: ArrayShape,
    },
    /// Two arrays must have the same element type.
    SameElementType {
        /// The first array.
        what_a: String,
        /// Its shape.
        a: ArrayShape,
        /// The second array.
        what_b: String,
        /// Its shape.
        b: ArrayShape,
    },
    /// Two arrays must have the same dimensions.
    SameDimensions {
        /// The first array.
        what_a: String,
        /// Its shape.
        a: ArrayShape,
        /// The second array.
        what_b: String,
        /// Its shape.
        b: ArrayShape,
    },
    /// An operand's element type is not one the op accepts.
    ElementType {
        /// The operand.
        what: String,
        /// The types accepted (`a floating-point`).
        expected: String,
        /// Its shape.
        found: ArrayShape,
    },
    /// A dimension number is not in `[0, rank)` of `shape`.
    DimensionOutOfRange {
        /// The attribute or role (`lhs contracting dim`).
        what: String,
        /// The dimension number.
        dimension: i64,
        /// The array it refers to.
        shape: ArrayShape,
    },
    /// A list of dimension numbers holds one not in `[0, rank)`.
    DimensionsOutOfRange {
        /// The attribute (`dimensions`).
        what: String,
        /// The list.
        dims: Vec<i64>,
        /// The number out of range.
        dimension: i64,
        /// The rank it must be below.
        rank: usize,
        /// What the numbers refer to, as written in the message.
        of: String,
    },
    /// A list of dimension numbers repeats one.
    RepeatedDimension {
        /// The attribute.
        what: String,
        /// The list.
        dims: Vec<i64>,
        /// The number repeated.
        dimension: i64,
        /// What the numbers refer to.
        of: String,
    },
    /// A list of dimension numbers must be strictly increasing.
    NotIncreasing {
        /// The attribute.
        what: String,
        /// The list.
        dims: Vec<i64>,
        /// What the numbers refer to.
        of: String,
    },
    /// A list of dimension numbers must be a permutation of the dimensions of `shape`.
    NotPermutation {
        /// The attribute.
        what: String,
        /// The list.
        dims: Vec<i64>,
        /// The array.
        shape: ArrayShape,
    },
    /// A list of sizes holds a negative one.
    NegativeSize {
        /// The attribute.
        what: String,
        /// The sizes.
        sizes: Vec<i64>,
        /// The negative size.
        size: i64,
    },
    /// A declared shape has an element type arrays cannot have.
    InvalidElementType {
        /// The shape's role.
        what: String,
        /// The element type.
        ty: PrimitiveType,
    },
    /// A declared shape has a negative dimension.
    NegativeDimension {
        /// The shape's role.
        what: String,
        /// The shape.
        shape: ArrayShape,
        /// The negative size.
        size: i64,
    },
    /// The two operands of an HLO elementwise op differ in dimensions (HLO has no implicit
    /// broadcasting).
    OperandDims {
        /// The first operand's shape.
        lhs: ArrayShape,
        /// The second operand's shape.
        rhs: ArrayShape,
    },
    /// Two operands of an elementwise op cannot be broadcast together: dimension
    /// `dimension` is `lhs_size` in one and `rhs_size` in the other.
    Incompatible {
        /// The first operand's shape.
        lhs: ArrayShape,
        /// The second operand's shape.
        rhs: ArrayShape,
        /// The dimension that differs.
        dimension: usize,
        /// Its size in `lhs`.
        lhs_size: i64,
        /// Its size in `rhs`.
        rhs_size: i64,
    },
    /// Paired dimensions of a contraction (dot's batch or contracting dims) differ in size.
    PairedSizes {
        /// `batch` or `contracting`.
        kind: String,
        /// The lhs shape.
        lhs: ArrayShape,
        /// The lhs dimension.
        lhs_dim: i64,
        /// Its size.
        lhs_size: i64,
        /// The rhs shape.
        rhs: ArrayShape,
        /// The rhs dimension paired with `lhs_dim`.
        rhs_dim: i64,
        /// Its size.
        rhs_size: i64,
    },
    /// An element count (or other size arithmetic) overflows `i64` or is negative.
    Overflow {
        /// What overflows, as the message says it.
        what: String,
    },
    /// The element count of a shape overflows `i64` or is negative.
    ElementCount {
        /// The shape or operand, as the message says it.
        of: String,
    },
    /// A shape must have a given form (`a tuple`, `(data, token[])`, `an array`).
    Form {
        /// The shape's role (`operand`, `result`).
        what: String,
        /// The form required, as the message says it.
        expected: String,
        /// The shape found.
        found: Shape,
    },
    /// A shape must have rank at least `min`.
    MinRank {
        /// The shape's role.
        what: String,
        /// The least rank.
        min: usize,
        /// The shape found.
        found: Shape,
    },
    /// Two shapes (arrays or tuples) must be equal.
    SameShape {
        /// The first shape's role.
        what_a: String,
        /// The first shape.
        a: Shape,
        /// The second shape's role.
        what_b: String,
        /// The second shape.
        b: Shape,
    },
    /// A constant's literal does not have its declared shape.
    LiteralShape {
        /// The literal's shape.
        literal: Shape,
        /// The declared shape.
        declared: Shape,
    },
    /// A tuple index is out of range.
    TupleIndex {
        /// The index.
        index: i64,
        /// The tuple.
        tuple: Shape,
        /// Its element count.
        len: usize,
    },
    /// A reshape changes the element count.
    ElementCounts {
        /// The operand.
        from: ArrayShape,
        /// Its element count.
        from_count: i64,
        /// The result.
        to: ArrayShape,
        /// Its element count.
        to_count: i64,
    },
    /// A bitcast changes the byte size.
    ByteSizes {
        /// The operand.
        operand: ArrayShape,
        /// The result.
        result: ArrayShape,
    },
    /// A dimension's size does not fit in s32.
    FitsS32 {
        /// The dimension.
        dimension: usize,
        /// The array.
        shape: ArrayShape,
    },
    /// A comparison type does not apply to the operands' element type.
    ComparisonType {
        /// The comparison type.
        comparison: ComparisonType,
        /// The lhs.
        operand: ArrayShape,
    },
    /// Two lists of dimension numbers must have the same length.
    ListLengths {
        /// The first list's attribute.
        what_a: String,
        /// The first list.
        a: Vec<i64>,
        /// The second list's attribute.
        what_b: String,
        /// The second list.
        b: Vec<i64>,
    },
    /// A list must have one entry per dimension of `shape`.
    EntryPerDimension {
        /// The attribute.
        what: String,
        /// The list.
        list: Vec<i64>,
        /// What `shape` is (`operand`, or empty).
        of: String,
        /// The array.
        shape: ArrayShape,
    },
    /// A list of dimension numbers must be every dimension of `shape` in order.
    EveryDimension {
        /// The attribute.
        what: String,
        /// The list.
        dims: Vec<i64>,
        /// The array.
        shape: ArrayShape,
    },
    /// `reduce-precision`: a bit count below its least value.
    PrecisionBits {
        /// `exponent_bits` or `mantissa_bits`.
        what: &'static str,
        /// The least value.
        min: i64,
        /// The value given.
        value: i64,
        /// The operand.
        operand: ArrayShape,
    },
    /// A called computation breaks a rule.
    Callee {
        /// Its role (`to_apply`, `condition`, `branch 1`, `comparator`).
        what: String,
        /// Its signature.
        signature: ProgramShape,
        /// The rule.
        rule: CalleeRule,
    },
    /// A conversion of `from` to `to` is not defined.
    Convert {
        /// The operand.
        from: ArrayShape,
        /// The target element type.
        to: PrimitiveType,
        /// Why.
        rule: ConvertRule,
    },
    /// The operand list (or called computations) breaks the op's layout.
    Operands(OperandsRule),
    /// A broadcasting rule.
    Broadcast(BroadcastRule),
    /// A slicing, padding or concatenation rule.
    Slice(SliceRule),
    /// A gather or scatter dimension-numbers rule.
    Gather(GatherRule),
    /// A dot or convolution rule.
    Contraction(ContractionRule),
    /// A window rule.
    Window(WindowRule),
    /// A linear-algebra rule.
    Linalg(LinalgRule),
    /// A collective or transfer rule.
    Collective(CollectiveRule),
}

impl ShapeError {
    /// An error of `op` breaking `rule`.
    pub fn rule(op: impl Into<String>, rule: ShapeRule) -> ShapeError {
        ShapeError {
            op: op.into(),
            operand: None,
            rule: Box::new(rule),
        }
    }

    /// An error of `op` breaking `rule`, blaming operand `operand`.
    pub fn rule_at(op: impl Into<String>, operand: usize, rule: ShapeRule) -> ShapeError {
        ShapeError {
            op: op.into(),
            operand: Some(operand),
            rule: Box::new(rule),
        }
    }

    /// The rule broken, written out (the message without the op).
    pub fn message(&self) -> String {
        self.rule.to_string()
    }
}

impl fmt::Display for ShapeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.op, self.rule)
    }
}

impl std::error::Error for ShapeError {}

impl fmt::Display for ShapeRule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use ShapeRule as R;
        match self {
            R::OperandCount { expected, at_least, found } => {
                let noun = if *expected == 1 { "operand" } else { "operands" };
                let least = if *at_least { "at least " } else { "" };
                write!(f, "expects {least}{expected} {noun}, got {found}")
            }
            R::NotArray { what, found } => write!(f, "{what} must be an array, got {found}"),
            R::NotScalar { what, found } => write!(f, "{what} must be a scalar, got {found}"),
            R::NotToken { what, found } => write!(f, "{what} must be a token, got {found}"),
            R::Rank { what, expected, found } => write!(
                f,
                "{what} must have rank {expected}, got {found} of rank {}",
                found.dims.len()
            ),
            R::SameElementType { what_a, a, what_b, b } => {
                write!(f, "{what_a} {a} and {what_b} {b} must have the same element type")
            }
            R::SameDimensions { what_a, a, what_b, b } => {
                write!(f, "{what_a} {a} and {what_b} {b} must have the same dimensions")
            }
            R::ElementType { what, expected, found } => {
                write!(f, "{what} must have {expected} element type, got {found}")
            }
            R::DimensionOutOfRange { what, dimension, shape } => write!(
                f,
                "{what} {dimension} is out of range for {shape} (rank {})",
                shape.dims.len()
            ),
            R::DimensionsOutOfRange { what, dims, dimension, rank, of } => write!(
                f,
                "{what} {} contains {dimension}, out of range for {of} (rank {rank})",
                fmt_dims(dims)
            ),
            R::RepeatedDimension { what, dims, dimension, of } => write!(
                f,
                "{what} {} repeats dimension {dimension} for {of}",
                fmt_dims(dims)
            ),
            R::NotIncreasing { what, dims, of } => {
                write!(f, "{what} {} must be strictly increasing for {of}", fmt_dims(dims))
            }
            R::NotPermutation { what, dims, shape } => write!(
                f,
                "{what} {} must be a permutation of the {} dimensions of {shape}",
                fmt_dims(dims),
                shape.dims.len()
            ),
            R::NegativeSize { what, sizes, size } => {
                write!(f, "{what} {} contains negative size {size}", fmt_dims(sizes))
            }
            R::InvalidElementType { what, ty } => write!(f, "{what} has invalid element type {ty}"),
            R::NegativeDimension { what, shape, size } => {
                write!(f, "{what} {shape} has negative dimension {size}")
            }
            R::OperandDims { lhs, rhs } => write!(
                f,
                "operands must have the same dimensions, got lhs {lhs} and rhs {rhs} (HLO has no implicit broadcasting)"
            ),
            R::Incompatible { lhs, rhs, dimension, lhs_size, rhs_size } => write!(
                f,
                "incompatible shapes {lhs} and {rhs}: dimension {dimension} is {lhs_size} vs {rhs_size} (sizes must be equal or one of them 1)"
            ),
            R::PairedSizes {
                kind,
                lhs,
                lhs_dim,
                lhs_size,
                rhs,
                rhs_dim,
                rhs_size,
            } => write!(
                f,
                "{kind} dimension sizes differ: lhs {lhs} dim {lhs_dim} is {lhs_size}, rhs {rhs} dim {rhs_dim} is {rhs_size}"
            ),
            R::Overflow { what } => write!(f, "{what} overflows"),
            R::ElementCount { of } => write!(f, "element count of {of} overflows or is negative"),
            R::Form { .. }
            | R::MinRank { .. }
            | R::SameShape { .. }
            | R::LiteralShape { .. }
            | R::TupleIndex { .. }
            | R::ElementCounts { .. }
            | R::ByteSizes { .. }
            | R::FitsS32 { .. }
            | R::ComparisonType { .. }
            | R::ListLengths { .. }
            | R::EntryPerDimension { .. }
            | R::EveryDimension { .. }
            | R::PrecisionBits { .. }
            | R::Callee { .. }
            | R::Convert { .. }
            | R::Operands(_)
            | R::Broadcast(_)
            | R::Slice(_)
            | R::Gather(_)
            | R::Contraction(_)
            | R::Window(_)
            | R::Linalg(_)
            | R::Collective(_) => self.fmt_family(f),
        }
    }
}

impl ShapeRule {
    /// Writes the rules of the op families (`Display::fmt` writes the shared ones).
    fn fmt_family(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use ShapeRule as R;
        match self {
            R::Form {
                what,
                expected,
                found,
            } => write!(f, "{what} must be {expected}, got {found}"),
            R::MinRank { what, min, found } => {
                write!(f, "{what} must have rank at least {min}, got {found}")
            }
            R::SameShape {
                what_a,
                a,
                what_b,
                b,
            } => {
                write!(f, "{what_a} {a} and {what_b} {b} must have the same shape")
            }
            R::LiteralShape { literal, declared } => write!(
                f,
                "literal of shape {literal} does not match the declared shape {declared}"
            ),
            R::TupleIndex { index, tuple, len } => {
                write!(
                    f,
                    "index {index} is out of range for {tuple} ({len} elements)"
                )
            }
            R::ElementCounts {
                from,
                from_count,
                to,
                to_count,
            } => write!(
                f,
                "cannot reshape {from} ({from_count} elements) to {to} ({to_count} elements)"
            ),
            R::ByteSizes { operand, result } => write!(
                f,
                "operand {operand} and result {result} must have the same byte size"
            ),
            R::FitsS32 { dimension, shape } => {
                write!(f, "dimension {dimension} of {shape} does not fit in s32")
            }
            R::ComparisonType {
                comparison,
                operand,
            } => write!(
                f,
                "comparison type {} does not apply to operands {operand}",
                comparison.name()
            ),
            R::ListLengths {
                what_a,
                a,
                what_b,
                b,
            } => write!(
                f,
                "{what_a} {} and {what_b} {} must have the same length",
                fmt_dims(a),
                fmt_dims(b)
            ),
            R::EntryPerDimension {
                what,
                list,
                of,
                shape,
            } => {
                let of = if of.is_empty() {
                    String::new()
                } else {
                    format!("{of} ")
                };
                write!(
                    f,
                    "{what} {} must have one entry per dimension of {of}{shape}",
                    fmt_dims(list)
                )
            }
            R::EveryDimension { what, dims, shape } => write!(
                f,
                "{what} {} must be every dimension of {shape} in order",
                fmt_dims(dims)
            ),
            R::PrecisionBits {
                what,
                min: 0,
                value,
                operand,
            } => {
                write!(f, "{what} must be non-negative, got {value} for {operand}")
            }
            R::PrecisionBits {
                what,
                min,
                value,
                operand,
            } => {
                write!(
                    f,
                    "{what} must be at least {min}, got {value} for {operand}"
                )
            }
            R::Callee {
                what,
                signature,
                rule,
            } => rule.write(f, what, signature),
            R::Convert { from, to, rule } => rule.write(f, from, *to),
            R::Operands(rule) => write!(f, "{rule}"),
            R::Broadcast(rule) => write!(f, "{rule}"),
            R::Slice(rule) => write!(f, "{rule}"),
            R::Gather(rule) => write!(f, "{rule}"),
            R::Contraction(rule) => write!(f, "{rule}"),
            R::Window(rule) => write!(f, "{rule}"),
            R::Linalg(rule) => write!(f, "{rule}"),
            R::Collective(rule) => write!(f, "{rule}"),
            // Written by `Display::fmt` above; never reached from there.
            R::OperandCount { .. }
            | R::NotArray { .. }
            | R::NotScalar { .. }
            | R::NotToken { .. }
            | R::Rank { .. }
            | R::SameElementType { .. }
            | R::SameDimensions { .. }
            | R::ElementType { .. }
            | R::DimensionOutOfRange { .. }
            | R::DimensionsOutOfRange { .. }
            | R::RepeatedDimension { .. }
            | R::NotIncreasing { .. }
            | R::NotPermutation { .. }
            | R::NegativeSize { .. }
            | R::InvalidElementType { .. }
            | R::NegativeDimension { .. }
            | R::OperandDims { .. }
            | R::Incompatible { .. }
            | R::PairedSizes { .. }
            | R::Overflow { .. }
            | R::ElementCount { .. } => write!(f, "{self:?}"),
        }
    }
}
