//! The executor's error type.

use thiserror::Error;
use xla_core::literal::LiteralError;
use xla_core::verify::VerifyErrors;
use xla_core::Shape;

/// Why a module could not be compiled or run.
#[derive(Debug, Error)]
pub enum CpuError {
    /// The module failed verification.
    #[error("compile: {0}")]
    Verify(#[from] VerifyErrors),
    /// The module is malformed in a way the executor cannot plan around.
    #[error("compile: {0}")]
    Malformed(String),
    /// `execute` got the wrong number of arguments.
    #[error("execute: the entry computation takes {expected} argument(s) but {found} were given")]
    ArgumentCount {
        /// Parameters of the entry computation.
        expected: usize,
        /// Arguments given.
        found: usize,
    },
    /// An argument's shape differs from its parameter's.
    #[error(
        "execute: parameter {number} ({name}) has shape {expected} but the argument is {found}"
    )]
    ArgumentShape {
        /// Parameter number.
        number: usize,
        /// Parameter instruction name.
        name: String,
        /// The parameter's shape.
        expected: Box<Shape>,
        /// The argument's shape.
        found: Box<Shape>,
    },
    /// A called computation (a `call`, `while` body, `map` function, ...) got the wrong
    /// number of arguments.
    #[error("{computation} takes {expected} argument(s) but {found} were given")]
    CallArgumentCount {
        /// The computation's name.
        computation: String,
        /// Its parameters.
        expected: usize,
        /// Arguments given.
        found: usize,
    },
    /// An operand is not of the kind the op needs (an array, a tuple, an integer scalar).
    #[error("{op}: expected {expected}, found {found}")]
    OperandKind {
        /// The op (or the executor's step) that needs it.
        op: &'static str,
        /// What it needs, e.g. `an array`.
        expected: String,
        /// The operand's shape.
        found: Box<Shape>,
    },
    /// A dimension number, tuple index or parameter number is out of range.
    #[error("{op}: {what} {index} is out of range (must be in 0..{bound})")]
    OutOfRange {
        /// The op.
        op: &'static str,
        /// What the number is, e.g. `dimension`, `tuple index`.
        what: &'static str,
        /// The number given.
        index: i64,
        /// The exclusive upper bound (a rank, a tuple's length).
        bound: usize,
    },
    /// An op's declared result shape is not the form the op produces (what the verifier
    /// would reject).
    #[error("{op}: the result must be {expected}, but the op declares {declared}")]
    ResultShape {
        /// The op.
        op: String,
        /// The form required, e.g. `a (values, indices) pair`.
        expected: String,
        /// The declared result shape.
        declared: Box<Shape>,
    },
    /// A value taken from a host queue (infeed, recv) is not the shape the op declares.
    #[error("{op}: queued value is {queued} but the op declares {declared}")]
    HostValueShape {
        /// `infeed` or `recv`.
        op: &'static str,
        /// The queued value's shape.
        queued: Box<Shape>,
        /// The op's declared shape.
        declared: Box<Shape>,
    },
    /// An instruction failed.
    #[error("{instruction} ({op}): {source}")]
    Instruction {
        /// Instruction name.
        instruction: String,
        /// Opcode name.
        op: &'static str,
        /// What went wrong.
        source: Box<CpuError>,
    },
    /// The element type is not supported by this op.
    #[error("element type {ty} is not supported by {op}")]
    UnsupportedType {
        /// Opcode name.
        op: &'static str,
        /// The element type.
        ty: xla_core::PrimitiveType,
    },
    /// The op (or this form of it) is not supported by the CPU executor.
    #[error("{0} is not supported by the CPU executor")]
    Unsupported(String),
    /// An op (a built-in custom-call target, a collective, a kernel run on vectorised
    /// values) got a number of operands or results other than it takes.
    #[error("{op}: takes {expected}, found {found}")]
    OperandCount {
        /// The op.
        op: String,
        /// What it takes, e.g. `2 operands`, `N operands and N init values`.
        expected: String,
        /// The number given.
        found: usize,
    },
    /// Operand shapes (and the result's, where it is one of them) do not fit together
    /// under the op's rule; the message lists the shapes in XLA notation, then the rule.
    #[error("{op}: {} {rule}", join_shapes(shapes))]
    OperandShapes {
        /// The op.
        op: String,
        /// The shapes involved, in the order the rule names them.
        shapes: Vec<Shape>,
        /// The rule broken, e.g. `do not agree under lhs_contracting_dims={1}`.
        rule: String,
    },
    /// Operands whose element types must agree do not.
    #[error("{op}: operand element types differ ({first} vs {second})")]
    ElementTypes {
        /// The op.
        op: String,
        /// The first operand's element type.
        first: xla_core::PrimitiveType,
        /// The element type that differs from it.
        second: xla_core::PrimitiveType,
    },
    /// An operand's element type is not the one the op needs there (a `select`
    /// predicate, integer indices).
    #[error("{op}: {what} must be {expected}, found {found}")]
    ElementType {
        /// The op.
        op: String,
        /// The operand, e.g. `the predicate`.
        what: &'static str,
        /// The type or class needed, e.g. `pred`, `an integer type`.
        expected: &'static str,
        /// The operand's element type.
        found: xla_core::PrimitiveType,
    },
    /// Operands that must have one element count (or be scalars) do not.
    #[error("{op}: operands of {first} and {second} elements do not match")]
    ElementCounts {
        /// The op.
        op: String,
        /// Elements of the first operand (or of the result).
        first: usize,
        /// Elements of the operand that differs.
        second: usize,
    },
    /// A LAPACK target's operand is not the batch of matrices it needs.
    #[error("{op}: an operand of dimensions {dims:?} is not {needed}")]
    MatrixShape {
        /// The op, e.g. `custom-call geev`.
        op: String,
        /// The operand's dimensions.
        dims: Vec<usize>,
        /// What it needs, e.g. `a batch of square matrices`.
        needed: &'static str,
    },
    /// An attribute of the op (dimension numbers, a window, a backend_config entry, a
    /// mode) has a value the op does not accept.
    #[error("{op}: {attribute} {value} {rule}")]
    Attribute {
        /// The op.
        op: String,
        /// The attribute, as HLO text names it (`permutation`, `window`, `mode`).
        attribute: &'static str,
        /// Its value as written.
        value: String,
        /// The rule it breaks, e.g. `is not a permutation of 0..3`.
        rule: String,
    },
    /// Devices could not exchange values: the device threads could not start, MPI
    /// refused, or a communicator returned other than one value per group member.
    #[error("device transport: {0}")]
    Transport(String),
    /// A custom-call target is not registered, or it failed.
    #[error("custom-call {target}: {failure}")]
    CustomCall {
        /// The target name.
        target: String,
        /// What went wrong.
        #[source]
        failure: CustomCallFailure,
    },
    /// A host queue (infeed, recv) was empty.
    #[error("{0}: the host queue is empty")]
    QueueEmpty(String),
    /// A collective's `replica_groups` (or `source_target_pairs`) do not fit the devices.
    #[error("replica groups: {0}")]
    ReplicaGroups(String),
    /// Devices disagree about a collective (different ops or shapes at the same exchange).
    #[error("devices disagree: {0}")]
    DeviceMismatch(String),
    /// A device waited at a collective for devices that never arrived.
    #[error("{op}: device(s) {missing:?} {reason}")]
    CollectiveTimeout {
        /// The op waiting.
        op: String,
        /// The devices that did not arrive.
        missing: Vec<usize>,
        /// Why waiting stopped (finished elsewhere, or the timeout).
        reason: String,
    },
    /// A device waited at a collective for a device whose run failed.
    #[error("{op}: device {device} failed before reaching this collective: {message}")]
    PeerFailed {
        /// The op waiting.
        op: String,
        /// The device that failed.
        device: usize,
        /// Its error.
        message: String,
    },
    /// A multi-device run got arguments for the wrong number of devices.
    #[error(
        "execute: the module runs on {expected} device(s) (replicas × partitions) but arguments for {found} were given"
    )]
    DeviceCount {
        /// Devices of the module.
        expected: usize,
        /// Argument sets given.
        found: usize,
    },
    /// An MPI run has a number of ranks other than the module's device count.
    #[error(
        "--backend mpi: the module runs on {expected} device(s) (replicas × partitions) but there are {found} MPI rank(s); start it with mpirun -np {expected}"
    )]
    RankCount {
        /// Devices of the module.
        expected: usize,
        /// MPI ranks.
        found: usize,
    },
    /// The run of one device failed.
    #[error("device {device} (replica {replica}, partition {partition}): {source}")]
    OnDevice {
        /// Global device id.
        device: usize,
        /// Its replica.
        replica: usize,
        /// Its partition.
        partition: usize,
        /// What went wrong.
        source: Box<CpuError>,
    },
    /// A literal could not be built.
    #[error(transparent)]
    Literal(#[from] LiteralError),
    /// The executable's peak memory is over the memory limit (checked before anything
    /// is allocated).
    #[error(
        "execute: the module needs {} at its peak (live values of the buffer plan) but the memory limit is {} ({}); set XLA_CPU_MEMORY_LIMIT or Executable::set_memory_limit to change it",
        crate::limits::bytes::human_bytes(*needed),
        crate::limits::bytes::human_bytes(limit.bytes),
        limit.source
    )]
    OutOfMemory {
        /// Bytes the executable needs at its peak.
        needed: u64,
        /// The limit in force.
        limit: crate::limits::MemoryLimit,
    },
    /// The allocator refused memory for an op's result.
    #[error("cannot allocate {} for the result of {what}", crate::limits::bytes::human_bytes(*bytes))]
    Allocation {
        /// What was being allocated (the op).
        what: &'static str,
        /// Bytes asked for.
        bytes: u64,
    },
    /// At run time, an op's result would take the values held past the memory limit
    /// (something the buffer plan could not foresee, such as a computation run vectorised
    /// on many argument sets).
    #[error(
        "the result of {what} needs {} but {} are held already and the memory limit is {} ({}); set XLA_CPU_MEMORY_LIMIT or Executable::set_memory_limit to change it",
        crate::limits::bytes::human_bytes(*bytes),
        crate::limits::bytes::human_bytes(*live),
        crate::limits::bytes::human_bytes(limit.bytes),
        limit.source
    )]
    OverBudget {
        /// The op whose result it is.
        what: &'static str,
        /// Bytes of the result.
        bytes: u64,
        /// Bytes of the values held when it was asked for.
        live: u64,
        /// The limit in force.
        limit: crate::limits::MemoryLimit,
    },
    /// At run time, a kernel's scratch buffer (im2col columns, a sort's permutation, a
    /// LAPACK workspace) would take the memory held past the limit.
    #[error(
        "{what} needs {} of scratch memory but {} are held already and the memory limit is {} ({}); set XLA_CPU_MEMORY_LIMIT or Executable::set_memory_limit to change it",
        crate::limits::bytes::human_bytes(*bytes),
        crate::limits::bytes::human_bytes(*held),
        crate::limits::bytes::human_bytes(limit.bytes),
        limit.source
    )]
    ScratchOverBudget {
        /// The op and its buffer, e.g. `sort (permutation)`.
        what: &'static str,
        /// Bytes of the buffer.
        bytes: u64,
        /// Bytes held when it was asked for (values, the op's result, earlier scratch).
        held: u64,
        /// The limit in force.
        limit: crate::limits::MemoryLimit,
    },
    /// An invariant of the executor does not hold: a bug in xla-cpu, not in the module.
    /// Names the invariant; debug builds assert it instead.
    #[error("internal error (a bug in xla-cpu; please report it): {0}")]
    Internal(&'static str),
    /// The execution's cancel token was cancelled or its deadline passed.
    #[error("execution stopped: {reason}")]
    Stopped {
        /// Why.
        reason: crate::limits::StopReason,
    },
    /// The execution stopped inside a `while` loop (the enclosing
    /// [`CpuError::Instruction`] names the loop).
    #[error("stopped after {trips} complete iteration(s): {source}")]
    LoopStopped {
        /// Iterations of the loop completed before it stopped.
        trips: u64,
        /// Where inside the loop it stopped.
        source: Box<CpuError>,
    },
}

impl CpuError {
    /// True when this error (or the one it wraps) is a stop by cancel token or deadline.
    pub fn is_stop(&self) -> bool {
        match self {
            CpuError::Stopped { .. } | CpuError::LoopStopped { .. } => true,
            CpuError::Instruction { source, .. } | CpuError::OnDevice { source, .. } => {
                source.is_stop()
            }
            _ => false,
        }
    }
}

/// The error a registered custom-call function returns: any error type (a `String` or
/// `&str` converts with `?` or `.into()`), kept as the source of
/// [`CustomCallFailure::Host`].
pub type HostError = Box<dyn std::error::Error + Send + Sync>;

/// Why a `custom-call` failed (the payload of [`CpuError::CustomCall`]).
#[derive(Debug, Error)]
pub enum CustomCallFailure {
    /// No function is registered under the target name, and it is not a built-in target.
    #[error("no function is registered under this name")]
    NotRegistered,
    /// The function returned a value whose shape is not the call's.
    #[error("returned {returned} but the call declares {declared}")]
    WrongResult {
        /// The shape the function returned.
        returned: Box<Shape>,
        /// The shape the `custom-call` instruction declares.
        declared: Box<Shape>,
    },
    /// A built-in target (the LAPACK kernels) rejected its operands.
    #[error("{0}")]
    BuiltIn(#[source] Box<CpuError>),
    /// The registered function failed; its error is the source.
    #[error("{0}")]
    Host(#[source] HostError),
}

/// `Result` with [`CpuError`].
pub type Result<T, E = CpuError> = std::result::Result<T, E>;

/// A [`CpuError::Internal`] for the broken `invariant` (which debug builds assert).
pub(crate) fn internal(invariant: &'static str) -> CpuError {
    debug_assert!(false, "xla-cpu invariant broken: {invariant}");
    CpuError::Internal(invariant)
}

/// `a and b` (`a, b and c`) of shapes in XLA notation.
fn join_shapes(shapes: &[Shape]) -> String {
    let all: Vec<String> = shapes.iter().map(Shape::to_string).collect();
    match all.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
        Some((last, _)) => last.clone(),
        None => String::new(),
    }
}

/// A [`CpuError::OperandCount`]: `op` takes `expected` but got `found`.
pub(crate) fn operand_count(
    op: impl Into<String>,
    expected: impl Into<String>,
    found: usize,
) -> CpuError {
    CpuError::OperandCount {
        op: op.into(),
        expected: expected.into(),
        found,
    }
}

/// A [`CpuError::OperandShapes`]: `shapes` of `op` break `rule`.
pub(crate) fn operand_shapes<'a>(
    op: impl Into<String>,
    shapes: impl IntoIterator<Item = &'a Shape>,
    rule: impl Into<String>,
) -> CpuError {
    CpuError::OperandShapes {
        op: op.into(),
        shapes: shapes.into_iter().cloned().collect(),
        rule: rule.into(),
    }
}

/// A [`CpuError::ElementTypes`]: operands of `op` have types `first` and `second`.
pub(crate) fn element_types(
    op: impl Into<String>,
    first: xla_core::PrimitiveType,
    second: xla_core::PrimitiveType,
) -> CpuError {
    CpuError::ElementTypes {
        op: op.into(),
        first,
        second,
    }
}

/// A [`CpuError::ElementCounts`]: operands of `op` have `first` and `second` elements.
pub(crate) fn element_counts(op: impl Into<String>, first: usize, second: usize) -> CpuError {
    CpuError::ElementCounts {
        op: op.into(),
        first,
        second,
    }
}

/// A [`CpuError::Attribute`]: `attribute` of `op` is `value`, which breaks `rule`.
pub(crate) fn attribute(
    op: impl Into<String>,
    attribute: &'static str,
    value: impl Into<String>,
    rule: impl Into<String>,
) -> CpuError {
    CpuError::Attribute {
        op: op.into(),
        attribute,
        value: value.into(),
        rule: rule.into(),
    }
}

/// A [`CpuError::OperandKind`]: `op` needs `expected` but got a value of shape `found`.
pub(crate) fn operand_kind(
    op: &'static str,
    expected: impl Into<String>,
    found: &Shape,
) -> CpuError {
    CpuError::OperandKind {
        op,
        expected: expected.into(),
        found: Box::new(found.clone()),
    }
}

/// A [`CpuError::OutOfRange`]: `what` of `op` is `index`, not in `0..bound`.
pub(crate) fn out_of_range(
    op: &'static str,
    what: &'static str,
    index: i64,
    bound: usize,
) -> CpuError {
    CpuError::OutOfRange {
        op,
        what,
        index,
        bound,
    }
}

/// A [`CpuError::ResultShape`]: `op`'s result must be `expected` but is declared `declared`.
pub(crate) fn result_shape(
    op: impl Into<String>,
    expected: impl Into<String>,
    declared: &Shape,
) -> CpuError {
    CpuError::ResultShape {
        op: op.into(),
        expected: expected.into(),
        declared: Box::new(declared.clone()),
    }
}
