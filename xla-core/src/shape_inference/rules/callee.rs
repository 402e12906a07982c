//! Rules on called computations (`to_apply`, `condition`, `body`, branches, comparators,
//! reducers, `select` and `scatter` of select-and-scatter).

use std::fmt;

use super::super::ProgramShape;
use crate::shape::Shape;
use crate::types::PrimitiveType;

/// A rule a called computation breaks; [`ShapeRule::Callee`](super::super::ShapeRule::Callee)
/// names the computation's role and carries its signature.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum CalleeRule {
    /// The arguments given do not match the number of parameters (`call`).
    Arguments {
        /// The argument shapes.
        args: Vec<Shape>,
    },
    /// Argument `index` does not match the parameter it is passed to (`call`).
    Argument {
        /// The argument's position.
        index: usize,
        /// Its shape.
        arg: Shape,
    },
    /// The computation must take exactly one parameter of the shape `shape` (`while`'s
    /// condition, a conditional's branch).
    OneParameter {
        /// What `shape` is (`the init shape`, `the operand's shape`).
        of: String,
        /// The shape.
        shape: Shape,
    },
    /// A branch returns another shape than branch 0.
    SameResult {
        /// Branch 0's result.
        first: Shape,
    },
    /// The computation must return `pred[]`.
    PredResult,
    /// `while`'s body must be `(T) -> T` with `T` the init shape.
    Loop {
        /// The init shape.
        init: Shape,
    },
    /// The computation must take `expected` parameters.
    ParameterCount {
        /// The parameters required.
        expected: usize,
        /// Whether the count is one per operand (`map`).
        per_operand: bool,
    },
    /// Parameter `index` must be a `ty` scalar.
    ScalarParameter {
        /// The parameter.
        index: usize,
        /// The element type required.
        ty: PrimitiveType,
    },
    /// The computation must return a scalar.
    ScalarResult,
    /// A reducer must return `count` scalars.
    ScalarResults {
        /// The scalars required.
        count: usize,
    },
    /// A reducer must take and return `ty` scalars at `position`.
    ScalarAt {
        /// The position (operand) in the reducer's accumulators.
        position: usize,
        /// The element type.
        ty: PrimitiveType,
    },
    /// `select` of select-and-scatter must be `(T[], T[]) -> pred[]`.
    Select {
        /// The operand's element type `T`.
        ty: PrimitiveType,
    },
}

impl CalleeRule {
    /// Writes the message for the computation `what` of signature `sig`.
    pub(crate) fn write(
        &self,
        f: &mut fmt::Formatter<'_>,
        what: &str,
        sig: &ProgramShape,
    ) -> fmt::Result {
        use CalleeRule as C;
        match self {
            C::Arguments { args } => {
                let shapes: Vec<String> = args.iter().map(Shape::to_string).collect();
                write!(
                    f,
                    "{what} {sig} takes {} parameters but {} arguments were given ({})",
                    sig.parameters.len(),
                    args.len(),
                    shapes.join(", ")
                )
            }
            C::Argument { index, arg } => match sig.parameters.get(*index) {
                Some(p) => write!(
                    f,
                    "argument {index} {arg} does not match parameter {p} of {what} {sig}"
                ),
                None => write!(f, "argument {index} {arg} has no parameter in {what} {sig}"),
            },
            C::OneParameter { of, shape } => {
                write!(
                    f,
                    "{what} {sig} must take exactly one parameter of {of} {shape}"
                )
            }
            C::SameResult { first } => {
                write!(
                    f,
                    "{what} returns {} but branch 0 returns {first}",
                    sig.result
                )
            }
            C::PredResult => write!(f, "{what} must return pred[], got {}", sig.result),
            C::Loop { init } => {
                write!(
                    f,
                    "{what} {sig} must be (T) -> T with T the init shape {init}"
                )
            }
            C::ParameterCount {
                expected,
                per_operand,
            } => {
                let per = if *per_operand {
                    ", one per operand"
                } else {
                    ""
                };
                write!(f, "{what} {sig} must take {expected} parameters{per}")
            }
            C::ScalarParameter { index, ty } => match sig.parameters.get(*index) {
                Some(p) => write!(f, "{what} parameter {index} must be a {ty} scalar, got {p}"),
                None => write!(
                    f,
                    "{what} parameter {index} must be a {ty} scalar, got {sig}"
                ),
            },
            C::ScalarResult => write!(f, "{what} must return a scalar, got {}", sig.result),
            C::ScalarResults { count } => write!(f, "{what} {sig} must return {count} scalars"),
            C::ScalarAt { position, ty } => write!(
                f,
                "{what} {sig} must take and return {ty} scalars at position {position}"
            ),
            C::Select { ty } => write!(f, "{what} {sig} must be ({ty}[], {ty}[]) -> pred[]"),
        }
    }
}
