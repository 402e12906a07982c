//! The error type of the batching transform.

use xla_core::Shape;

/// Why a batched module could not be built.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum VmapError {
    /// The module has no valid entry computation or root.
    #[error("vmap: module `{module}` is malformed: {reason}")]
    Malformed {
        /// The module's name.
        module: String,
        /// What is wrong.
        reason: String,
    },
    /// `in_axes` does not have one entry per parameter.
    #[error("vmap: in_axes has {given} entries but the entry computation has {params} parameters")]
    InAxesLength {
        /// Entries given.
        given: usize,
        /// Parameters of the entry computation.
        params: usize,
    },
    /// A batch axis is not a dimension of its parameter.
    #[error("vmap: in_axes[{param}] = {axis} is out of range for parameter {param} of shape {shape} (rank {rank})")]
    InAxisOutOfRange {
        /// The parameter number.
        param: usize,
        /// The requested axis.
        axis: usize,
        /// The parameter's rank.
        rank: usize,
        /// The parameter's shape.
        shape: Box<Shape>,
    },
    /// Two batched inputs disagree on the batch size.
    #[error("vmap: batch sizes differ: parameter {first} has size {first_size} on its batch axis but parameter {param} has size {size}")]
    SizeMismatch {
        /// The first batched parameter.
        first: usize,
        /// Its batch size.
        first_size: i64,
        /// The parameter that disagrees.
        param: usize,
        /// Its batch size.
        size: i64,
    },
    /// `size` disagrees with the batched inputs.
    #[error("vmap: size {given} was given but parameter {param} has batch size {size}")]
    SizeConflict {
        /// The `size` argument.
        given: i64,
        /// A batched parameter.
        param: usize,
        /// Its batch size.
        size: i64,
    },
    /// No input is batched and no size was given.
    #[error("vmap: no parameter is batched (every in_axes entry is none): give the batch size")]
    NoBatchSize,
    /// The batch size is not positive or does not fit an index.
    #[error("vmap: batch size {size} is not between 1 and 2^31-1")]
    BadSize {
        /// The size.
        size: i64,
    },
    /// `out_axes` does not have one entry, or one per result.
    #[error("vmap: out_axes has {given} entries but the result has {results} (give one, or one per result)")]
    OutAxesLength {
        /// Entries given.
        given: usize,
        /// Elements of the result tuple (1 for an array result).
        results: usize,
    },
    /// An output axis is not a dimension of the batched result.
    #[error("vmap: out axis {axis} is out of range for result {result} of shape {shape} (batched rank {rank})")]
    OutAxisOutOfRange {
        /// The result index.
        result: usize,
        /// The requested axis.
        axis: usize,
        /// The rank of the batched result.
        rank: usize,
        /// The unbatched result shape.
        shape: Box<Shape>,
    },
    /// An output asked to be unbatched (`out_axes` none) depends on a batched input.
    #[error("vmap: result {result} depends on a batched input, so its out axis cannot be none")]
    OutNotUnbatched {
        /// The result index.
        result: usize,
    },
    /// An instruction whose batched form does not exist (a custom-call, host transfer, ...).
    #[error("vmap: no batching rule for `{instruction}` ({op}){target}: {reason}")]
    NoRule {
        /// The instruction's name.
        instruction: String,
        /// Its opcode (HLO text name).
        op: String,
        /// For a custom-call, ` target "NAME"`; else empty.
        target: String,
        /// Why.
        reason: String,
    },
    /// The builder rejected the batched graph (a bug in a rule).
    #[error("vmap: building the batched module failed: {0}")]
    Build(#[source] crate::error::CoreError),
}

impl From<xla_core::Error> for VmapError {
    fn from(e: xla_core::Error) -> Self {
        VmapError::Build(crate::error::CoreError(std::sync::Arc::new(e)))
    }
}
