//! Why a shape-generic function cannot be expanded at the ranks its arguments give.

/// An error of [`super::signature`], [`super::ranks`], [`super::expand_source`] or
/// [`super::bindings`], with the names and ranks as fields.
///
/// ```
/// use xla_dsl::shapes::ShapeParamError;
/// let e = ShapeParamError::RanksDisagree {
///     shape: "S".into(),
///     first: "x".into(),
///     first_rank: 2,
///     argument: "y".into(),
///     rank: 1,
/// };
/// assert_eq!(e.to_string(), "shape `S` has rank 2 from `x` but rank 1 from `y`");
/// ```
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ShapeParamError {
    /// One parameter's type writes two shape parameters (`Tensor<f32, S, T>`).
    #[error(
        "parameter {parameter} writes two shape parameters in one type: their ranks cannot \
         be told apart; use one shape parameter per type"
    )]
    TwoInOneType {
        /// The parameter, counted from 1.
        parameter: usize,
    },
    /// No parameter's type writes the shape parameter, so no argument gives its rank.
    #[error(
        "shape parameter `{shape}` is not the shape of any parameter (`Tensor<f32, {shape}>`), \
         so its rank cannot be read from the arguments"
    )]
    NotWritten {
        /// The shape parameter (`S`).
        shape: String,
    },
    /// An argument has fewer dims than its type writes besides the shape.
    #[error(
        "argument `{argument}` has rank {rank}, but its type writes {others} dims besides the \
         shape `{shape}`"
    )]
    RankBelowType {
        /// The argument's parameter name.
        argument: String,
        /// Its rank.
        rank: usize,
        /// The dims its type writes besides the shape.
        others: usize,
        /// The shape parameter.
        shape: String,
    },
    /// Two arguments give one shape parameter different ranks.
    #[error(
        "shape `{shape}` has rank {first_rank} from `{first}` but rank {rank} from `{argument}`"
    )]
    RanksDisagree {
        /// The shape parameter.
        shape: String,
        /// The first argument that gives its rank.
        first: String,
        /// The rank it gives.
        first_rank: usize,
        /// The argument that disagrees.
        argument: String,
        /// The rank that one gives.
        rank: usize,
    },
    /// A rank above [`super::MAX_RANK`].
    #[error("shape `{shape}` has rank {rank}: at most {max}")]
    RankTooHigh {
        /// The shape parameter.
        shape: String,
        /// The rank the arguments give.
        rank: usize,
        /// The largest rank supported.
        max: usize,
    },
    /// The function has no shape parameter, yet was stored as shape-generic.
    #[error("the function has no shape parameter (a bug in xla-rs)")]
    NotShapeGeneric,
    /// The source or attribute the macro stored does not parse again.
    #[error("the stored {what} does not parse (a bug in xla-rs): {message}")]
    Stored {
        /// `"source"` or `"attribute"`.
        what: &'static str,
        /// The parser's message.
        message: String,
    },
    /// The expanded function's signature has errors (the front end's messages, each
    /// naming what broke).
    #[error("{}", messages.join("\n"))]
    Signature {
        /// One message per error.
        messages: Vec<String>,
    },
}
