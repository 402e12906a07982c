//! The operation of an instruction: [`Op`], one variant per XLA HLO opcode, each carrying its
//! typed attributes. Called computations are attributes too (`to_apply`, `body`, ...).
//!
//! The opcode table at the bottom ([`Opcode`]) lists every opcode with the name XLA's HLO
//! text uses, so HLO printed by XLA parses and ours prints the same way.

use super::CompId;
use crate::attrs::*;
use crate::literal::Literal;

/// An HLO operation with its typed attributes.
///
/// Operand conventions (operands live on the [`Instruction`](super::Instruction)) are noted
/// per variant; `N` operands of a variadic op come first, then their `N` init values.
#[derive(Clone, Debug, PartialEq)]
pub enum Op {
    // ----- leaves -----
    /// Parameter number `number` of the enclosing computation.
    Parameter {
        /// Parameter number (0-based).
        number: i64,
    },
    /// A constant value.
    Constant {
        /// The value (its shape is the instruction's shape).
        literal: Literal,
    },
    /// Values 0, 1, 2, ... along `dimension`, broadcast over the others.
    Iota {
        /// The counting dimension.
        dimension: i64,
    },

    // ----- elementwise -----
    /// One-operand elementwise op.
    Unary(UnaryOp),
    /// Two-operand elementwise op.
    Binary(BinaryOp),
    /// Elementwise comparison; result is PRED.
    Compare {
        /// EQ, NE, GE, GT, LE, LT.
        direction: ComparisonDirection,
        /// Ordering (`type=`); `None` when not written (the default for the element type).
        comparison_type: Option<ComparisonType>,
    },
    /// `select(pred, on_true, on_false)`.
    Select,
    /// `clamp(min, operand, max)`.
    Clamp,
    /// Element type conversion; the target type is the instruction's.
    Convert,
    /// Reinterpret bits as another type (possibly of another width).
    BitcastConvert,
    /// Round to a float format with fewer exponent / mantissa bits.
    ReducePrecision {
        /// Exponent bits of the target format.
        exponent_bits: i64,
        /// Mantissa bits of the target format.
        mantissa_bits: i64,
    },
    /// Applies `to_apply` elementwise over `dimensions` of N same-shape operands.
    Map {
        /// The mapped dimensions (all of them, in order).
        dimensions: Vec<i64>,
        /// Scalar computation of N parameters.
        to_apply: CompId,
    },

    // ----- structural -----
    /// `tuple(a, b, ...)`.
    Tuple,
    /// Element `index` of a tuple.
    GetTupleElement {
        /// Tuple index.
        index: i64,
    },
    /// Broadcast (`broadcast(x), dimensions={...}`): operand dim i maps to result dim
    /// `dimensions[i]`; size-1 operand dims may expand.
    Broadcast {
        /// Result dimension of each operand dimension.
        dimensions: Vec<i64>,
    },
    /// Reshape to the instruction's dims (row-major order).
    Reshape,
    /// Permute dims: result dim i is operand dim `permutation[i]`.
    Transpose {
        /// The permutation.
        permutation: Vec<i64>,
    },
    /// Reverse the order of elements along `dimensions`.
    Reverse {
        /// The reversed dimensions.
        dimensions: Vec<i64>,
    },
    /// Static strided slice.
    Slice {
        /// Start index per dimension (inclusive).
        start: Vec<i64>,
        /// Limit index per dimension (exclusive).
        limit: Vec<i64>,
        /// Stride per dimension.
        stride: Vec<i64>,
    },
    /// `dynamic-slice(operand, start0, start1, ...)`; starts are clamped so the slice fits.
    DynamicSlice {
        /// Size of the slice per dimension.
        slice_sizes: Vec<i64>,
    },
    /// `dynamic-update-slice(operand, update, start0, ...)`; starts are clamped.
    DynamicUpdateSlice,
    /// Concatenate operands along `dimension`.
    Concatenate {
        /// The concatenation dimension.
        dimension: i64,
    },
    /// `pad(operand, padding_value)`.
    Pad {
        /// Low, high and interior padding per dimension.
        padding: Vec<PadDim>,
    },
    /// Layout-level reinterpretation with the same element type and count.
    Bitcast,
    /// A copy of the operand.
    Copy,
    /// The (possibly dynamic) size of `dimension`, as S32.
    GetDimensionSize {
        /// The dimension.
        dimension: i64,
    },
    /// `set-dimension-size(operand, size)`: marks `dimension` dynamic with the given size.
    SetDimensionSize {
        /// The dimension.
        dimension: i64,
    },
    /// Passes its operand (usually a tuple) through, blocking reordering across it.
    OptimizationBarrier,

    // ----- indexing -----
    /// `gather(operand, start_indices)`.
    Gather(GatherDims),
    /// `scatter(operands..., scatter_indices, updates...)`.
    Scatter {
        /// Dimension numbers and promises.
        dims: ScatterDims,
        /// Combiner of 2N scalar parameters.
        to_apply: CompId,
    },

    // ----- contraction -----
    /// `dot(lhs, rhs)` with general dimension numbers.
    Dot {
        /// Batch and contracting dims.
        dims: DotDims,
        /// Per-operand precision.
        precision: PrecisionConfig,
    },
    /// `convolution(lhs, rhs)`.
    Convolution(ConvConfig),

    // ----- reductions and windows -----
    /// `reduce(operands..., inits...)` over `dimensions`.
    Reduce {
        /// The reduced dimensions.
        dimensions: Vec<i64>,
        /// Combiner of 2N scalar parameters.
        to_apply: CompId,
    },
    /// `reduce-window(operands..., inits...)`.
    ReduceWindow {
        /// One window dimension per operand dimension.
        window: Window,
        /// Combiner of 2N scalar parameters.
        to_apply: CompId,
    },
    /// `select-and-scatter(operand, source, init)`.
    SelectAndScatter {
        /// One window dimension per operand dimension.
        window: Window,
        /// Selector `(a, b) -> pred`: keep `a`?
        select: CompId,
        /// Scatter combiner `(a, b) -> c`.
        scatter: CompId,
    },

    // ----- normalisation -----
    /// `batch-norm-training(operand, scale, offset)` → (output, mean, variance).
    BatchNormTraining {
        /// Epsilon added to the variance.
        epsilon: f32,
        /// The feature dimension.
        feature_index: i64,
    },
    /// `batch-norm-inference(operand, scale, offset, mean, variance)`.
    BatchNormInference {
        /// Epsilon added to the variance.
        epsilon: f32,
        /// The feature dimension.
        feature_index: i64,
    },
    /// `batch-norm-grad(operand, scale, mean, variance, grad_output)` → (grad_operand,
    /// grad_scale, grad_offset).
    BatchNormGrad {
        /// Epsilon added to the variance.
        epsilon: f32,
        /// The feature dimension.
        feature_index: i64,
    },

    // ----- linear algebra and transforms -----
    /// Cholesky factor of a (batched) symmetric positive-definite matrix.
    Cholesky {
        /// Compute `L` (true) or `U` (false).
        lower: bool,
    },
    /// `triangular-solve(a, b)`.
    TriangularSolve(TriangularSolveOptions),
    /// Fast Fourier transform over the trailing `fft_length.len()` dims.
    Fft {
        /// FFT, IFFT, RFFT or IRFFT.
        fft_type: FftType,
        /// Logical lengths of the transformed dims.
        fft_length: Vec<i64>,
    },

    // ----- sorting -----
    /// `sort(operands...)` along `dimension` with a comparator of 2N scalars.
    Sort {
        /// The sorted dimension.
        dimension: i64,
        /// Keep the input order of equal elements.
        is_stable: bool,
        /// Comparator `(a0, b0, a1, b1, ...) -> pred` ("a before b").
        to_apply: CompId,
    },
    /// The `k` largest (or smallest) along the last dim → (values, s32 indices).
    TopK {
        /// How many.
        k: i64,
        /// Largest (true) or smallest (false).
        largest: bool,
    },

    // ----- control flow -----
    /// Calls `to_apply` with the operands.
    Call {
        /// The called computation.
        to_apply: CompId,
        /// Set for a CompositeCall.
        composite: Option<Composite>,
    },
    /// `conditional(selector, operand0, operand1, ...)`: runs branch `selector` (S32; out of
    /// range → last), or for a PRED selector, branch 0 when true and branch 1 when false.
    Conditional {
        /// The branches (for a PRED selector: `[true_computation, false_computation]`).
        branches: Vec<CompId>,
    },
    /// `while(init)`: runs `body` while `condition` holds.
    While {
        /// `(state) -> pred`.
        condition: CompId,
        /// `(state) -> state`.
        body: CompId,
    },
    /// Calls a function registered by name.
    CustomCall {
        /// Target, configuration and flags.
        config: CustomCallConfig,
        /// Computations passed to the call.
        called: Vec<CompId>,
    },

    // ----- random numbers -----
    /// `rng(a, b)`: uniform on `[a, b)` or normal(mean a, stddev b), of the instruction's shape.
    Rng {
        /// The distribution.
        distribution: RngDistribution,
    },
    /// `rng-bit-generator(state)` → (new state, random bits).
    RngBitGenerator {
        /// The algorithm.
        algorithm: RngAlgorithm,
    },
    /// Returns and advances the module's RNG state (`rng-get-and-update-state`).
    RngGetAndUpdateState {
        /// The amount added to the state.
        delta: i64,
    },

    // ----- collectives and communication (single-replica semantics on CPU) -----
    /// Joins tokens into one.
    AfterAll,
    /// `add-dependency(operand, token)`: the operand, ordered after the token.
    AddDependency,
    /// Concatenates the operand across replicas along `dimension`.
    AllGather {
        /// Concatenation dimension.
        dimension: i64,
        /// Groups and channel.
        config: CollectiveConfig,
    },
    /// Reduces the operands across replicas with `to_apply`.
    AllReduce {
        /// Groups and channel.
        config: CollectiveConfig,
        /// Combiner.
        to_apply: CompId,
    },
    /// Reduces across replicas, then scatters along `dimension`.
    ReduceScatter {
        /// Scatter dimension.
        dimension: i64,
        /// Groups and channel.
        config: CollectiveConfig,
        /// Combiner.
        to_apply: CompId,
    },
    /// Splits along `dimension`, exchanges, and concatenates.
    AllToAll {
        /// Split / concat dimension (`None` for the tuple form).
        dimension: Option<i64>,
        /// Groups and channel.
        config: CollectiveConfig,
    },
    /// Sends the operand from each source replica to its target.
    CollectivePermute {
        /// `(source, target)` replica pairs.
        source_target_pairs: Vec<(i64, i64)>,
        /// Channel id.
        channel_id: Option<i64>,
    },
    /// `all-reduce-start`: an all-reduce begun asynchronously; its value is the result,
    /// which `all-reduce-done` yields.
    AllReduceStart {
        /// Groups and channel.
        config: CollectiveConfig,
        /// Combiner.
        to_apply: CompId,
    },
    /// `all-reduce-done(start)`: the result of an `all-reduce-start`.
    AllReduceDone,
    /// `all-gather-start`: `(operand, result)` of an all-gather begun asynchronously.
    AllGatherStart {
        /// Concatenation dimension.
        dimension: i64,
        /// Groups and channel.
        config: CollectiveConfig,
    },
    /// `all-gather-done(start)`: the result (tuple element 1) of an `all-gather-start`.
    AllGatherDone,
    /// `collective-permute-start`: `(operand, result, u32[], u32[])` of a permute begun
    /// asynchronously.
    CollectivePermuteStart {
        /// `(source, target)` pairs.
        source_target_pairs: Vec<(i64, i64)>,
        /// Channel id.
        channel_id: Option<i64>,
    },
    /// `collective-permute-done(start)`: the result (tuple element 1) of a
    /// `collective-permute-start`.
    CollectivePermuteDone,
    /// `collective-broadcast`: every device of a group gets the operand of the group's first
    /// device.
    CollectiveBroadcast {
        /// Groups and channel.
        config: CollectiveConfig,
    },
    /// The replica id (U32).
    ReplicaId,
    /// The partition id (U32).
    PartitionId,
    /// `send(data, token)`.
    Send {
        /// Channel id.
        channel_id: i64,
        /// Transfer to / from the host.
        is_host_transfer: bool,
    },
    /// `send-done(send)`.
    SendDone {
        /// Channel id.
        channel_id: i64,
        /// Transfer to / from the host.
        is_host_transfer: bool,
    },
    /// `recv(token)`.
    Recv {
        /// Channel id.
        channel_id: i64,
        /// Transfer to / from the host.
        is_host_transfer: bool,
    },
    /// `recv-done(recv)`.
    RecvDone {
        /// Channel id.
        channel_id: i64,
        /// Transfer to / from the host.
        is_host_transfer: bool,
    },
    /// `infeed(token)` → (data, token).
    Infeed {
        /// Opaque configuration.
        config: String,
    },
    /// `outfeed(data, token)` → token.
    Outfeed {
        /// Opaque configuration.
        config: String,
        /// The shape of the data sent.
        outfeed_shape: Option<crate::shape::Shape>,
    },
}

macro_rules! opcode_table {
    ($( $variant:ident => $text:literal ),* $(,)?) => {
        /// The kind of an [`Op`], without attributes: one per HLO opcode, named as in HLO text.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum Opcode {
            $(
                #[doc = concat!("`", $text, "`")]
                $variant,
            )*
            /// An elementwise unary opcode.
            Unary(UnaryOp),
            /// An elementwise binary opcode.
            Binary(BinaryOp),
        }

        impl Opcode {
            /// The opcode's name in HLO text.
            pub fn name(self) -> &'static str {
                match self {
                    $(Opcode::$variant => $text,)*
                    Opcode::Unary(u) => u.name(),
                    Opcode::Binary(b) => b.name(),
                }
            }

            /// Parses an opcode name as written in HLO text.
            pub fn from_name(s: &str) -> Option<Opcode> {
                match s {
                    $($text => Some(Opcode::$variant),)*
                    _ => UnaryOp::from_name(s).map(Opcode::Unary)
                        .or_else(|| BinaryOp::from_name(s).map(Opcode::Binary)),
                }
            }

            /// Every opcode.
            pub fn all() -> Vec<Opcode> {
                let mut v = vec![$(Opcode::$variant),*];
                v.extend(UnaryOp::ALL.iter().map(|&u| Opcode::Unary(u)));
                v.extend(BinaryOp::ALL.iter().map(|&b| Opcode::Binary(b)));
                v
            }
        }
    };
}

opcode_table! {
    Parameter => "parameter",
    Constant => "constant",
    Iota => "iota",
    Compare => "compare",
    Select => "select",
    Clamp => "clamp",
    Convert => "convert",
    BitcastConvert => "bitcast-convert",
    ReducePrecision => "reduce-precision",
    Map => "map",
    Tuple => "tuple",
    GetTupleElement => "get-tuple-element",
    Broadcast => "broadcast",
    Reshape => "reshape",
    Transpose => "transpose",
    Reverse => "reverse",
    Slice => "slice",
    DynamicSlice => "dynamic-slice",
    DynamicUpdateSlice => "dynamic-update-slice",
    Concatenate => "concatenate",
    Pad => "pad",
    Bitcast => "bitcast",
    Copy => "copy",
    GetDimensionSize => "get-dimension-size",
    SetDimensionSize => "set-dimension-size",
    OptimizationBarrier => "opt-barrier",
    Gather => "gather",
    Scatter => "scatter",
    Dot => "dot",
    Convolution => "convolution",
    Reduce => "reduce",
    ReduceWindow => "reduce-window",
    SelectAndScatter => "select-and-scatter",
    BatchNormTraining => "batch-norm-training",
    BatchNormInference => "batch-norm-inference",
    BatchNormGrad => "batch-norm-grad",
    Cholesky => "cholesky",
    TriangularSolve => "triangular-solve",
    Fft => "fft",
    Sort => "sort",
    TopK => "topk",
    Call => "call",
    Conditional => "conditional",
    While => "while",
    CustomCall => "custom-call",
    Rng => "rng",
    RngBitGenerator => "rng-bit-generator",
    RngGetAndUpdateState => "rng-get-and-update-state",
    AfterAll => "after-all",
    AddDependency => "add-dependency",
    AllGather => "all-gather",
    AllReduce => "all-reduce",
    ReduceScatter => "reduce-scatter",
    AllToAll => "all-to-all",
    CollectivePermute => "collective-permute",
    AllReduceStart => "all-reduce-start",
    AllReduceDone => "all-reduce-done",
    AllGatherStart => "all-gather-start",
    AllGatherDone => "all-gather-done",
    CollectivePermuteStart => "collective-permute-start",
    CollectivePermuteDone => "collective-permute-done",
    CollectiveBroadcast => "collective-broadcast",
    ReplicaId => "replica-id",
    PartitionId => "partition-id",
    Send => "send",
    SendDone => "send-done",
    Recv => "recv",
    RecvDone => "recv-done",
    Infeed => "infeed",
    Outfeed => "outfeed",
}

impl Op {
    /// The opcode of this operation.
    pub fn opcode(&self) -> Opcode {
        match self {
            Op::Parameter { .. } => Opcode::Parameter,
            Op::Constant { .. } => Opcode::Constant,
            Op::Iota { .. } => Opcode::Iota,
            Op::Unary(u) => Opcode::Unary(*u),
            Op::Binary(b) => Opcode::Binary(*b),
            Op::Compare { .. } => Opcode::Compare,
            Op::Select => Opcode::Select,
            Op::Clamp => Opcode::Clamp,
            Op::Convert => Opcode::Convert,
            Op::BitcastConvert => Opcode::BitcastConvert,
            Op::ReducePrecision { .. } => Opcode::ReducePrecision,
            Op::Map { .. } => Opcode::Map,
            Op::Tuple => Opcode::Tuple,
            Op::GetTupleElement { .. } => Opcode::GetTupleElement,
            Op::Broadcast { .. } => Opcode::Broadcast,
            Op::Reshape => Opcode::Reshape,
            Op::Transpose { .. } => Opcode::Transpose,
            Op::Reverse { .. } => Opcode::Reverse,
            Op::Slice { .. } => Opcode::Slice,
            Op::DynamicSlice { .. } => Opcode::DynamicSlice,
            Op::DynamicUpdateSlice => Opcode::DynamicUpdateSlice,
            Op::Concatenate { .. } => Opcode::Concatenate,
            Op::Pad { .. } => Opcode::Pad,
            Op::Bitcast => Opcode::Bitcast,
            Op::Copy => Opcode::Copy,
            Op::GetDimensionSize { .. } => Opcode::GetDimensionSize,
            Op::SetDimensionSize { .. } => Opcode::SetDimensionSize,
            Op::OptimizationBarrier => Opcode::OptimizationBarrier,
            Op::Gather(_) => Opcode::Gather,
            Op::Scatter { .. } => Opcode::Scatter,
            Op::Dot { .. } => Opcode::Dot,
            Op::Convolution(_) => Opcode::Convolution,
            Op::Reduce { .. } => Opcode::Reduce,
            Op::ReduceWindow { .. } => Opcode::ReduceWindow,
            Op::SelectAndScatter { .. } => Opcode::SelectAndScatter,
            Op::BatchNormTraining { .. } => Opcode::BatchNormTraining,
            Op::BatchNormInference { .. } => Opcode::BatchNormInference,
            Op::BatchNormGrad { .. } => Opcode::BatchNormGrad,
            Op::Cholesky { .. } => Opcode::Cholesky,
            Op::TriangularSolve(_) => Opcode::TriangularSolve,
            Op::Fft { .. } => Opcode::Fft,
            Op::Sort { .. } => Opcode::Sort,
            Op::TopK { .. } => Opcode::TopK,
            Op::Call { .. } => Opcode::Call,
            Op::Conditional { .. } => Opcode::Conditional,
            Op::While { .. } => Opcode::While,
            Op::CustomCall { .. } => Opcode::CustomCall,
            Op::Rng { .. } => Opcode::Rng,
            Op::RngBitGenerator { .. } => Opcode::RngBitGenerator,
            Op::RngGetAndUpdateState { .. } => Opcode::RngGetAndUpdateState,
            Op::AfterAll => Opcode::AfterAll,
            Op::AddDependency => Opcode::AddDependency,
            Op::AllGather { .. } => Opcode::AllGather,
            Op::AllReduce { .. } => Opcode::AllReduce,
            Op::ReduceScatter { .. } => Opcode::ReduceScatter,
            Op::AllToAll { .. } => Opcode::AllToAll,
            Op::CollectivePermute { .. } => Opcode::CollectivePermute,
            Op::AllReduceStart { .. } => Opcode::AllReduceStart,
            Op::AllReduceDone => Opcode::AllReduceDone,
            Op::AllGatherStart { .. } => Opcode::AllGatherStart,
            Op::AllGatherDone => Opcode::AllGatherDone,
            Op::CollectivePermuteStart { .. } => Opcode::CollectivePermuteStart,
            Op::CollectivePermuteDone => Opcode::CollectivePermuteDone,
            Op::CollectiveBroadcast { .. } => Opcode::CollectiveBroadcast,
            Op::ReplicaId => Opcode::ReplicaId,
            Op::PartitionId => Opcode::PartitionId,
            Op::Send { .. } => Opcode::Send,
            Op::SendDone { .. } => Opcode::SendDone,
            Op::Recv { .. } => Opcode::Recv,
            Op::RecvDone { .. } => Opcode::RecvDone,
            Op::Infeed { .. } => Opcode::Infeed,
            Op::Outfeed { .. } => Opcode::Outfeed,
        }
    }

    /// The opcode's name in HLO text.
    pub fn name(&self) -> &'static str {
        self.opcode().name()
    }

    /// The computations this operation calls, in the order HLO text lists them.
    pub fn called_computations(&self) -> Vec<CompId> {
        match self {
            Op::Map { to_apply, .. }
            | Op::Scatter { to_apply, .. }
            | Op::Reduce { to_apply, .. }
            | Op::ReduceWindow { to_apply, .. }
            | Op::Sort { to_apply, .. }
            | Op::Call { to_apply, .. }
            | Op::AllReduce { to_apply, .. }
            | Op::AllReduceStart { to_apply, .. }
            | Op::ReduceScatter { to_apply, .. } => vec![*to_apply],
            Op::SelectAndScatter {
                select, scatter, ..
            } => vec![*select, *scatter],
            Op::Conditional { branches } => branches.clone(),
            Op::While { condition, body } => vec![*condition, *body],
            Op::CustomCall { called, .. } => called.clone(),
            Op::Parameter { .. }
            | Op::Constant { .. }
            | Op::Iota { .. }
            | Op::Unary(_)
            | Op::Binary(_)
            | Op::Compare { .. }
            | Op::Select
            | Op::Clamp
            | Op::Convert
            | Op::BitcastConvert
            | Op::ReducePrecision { .. }
            | Op::Tuple
            | Op::GetTupleElement { .. }
            | Op::Broadcast { .. }
            | Op::Reshape
            | Op::Transpose { .. }
            | Op::Reverse { .. }
            | Op::Slice { .. }
            | Op::DynamicSlice { .. }
            | Op::DynamicUpdateSlice
            | Op::Concatenate { .. }
            | Op::Pad { .. }
            | Op::Bitcast
            | Op::Copy
            | Op::GetDimensionSize { .. }
            | Op::SetDimensionSize { .. }
            | Op::OptimizationBarrier
            | Op::Gather(_)
            | Op::Dot { .. }
            | Op::Convolution(_)
            | Op::BatchNormTraining { .. }
            | Op::BatchNormInference { .. }
            | Op::BatchNormGrad { .. }
            | Op::Cholesky { .. }
            | Op::TriangularSolve(_)
            | Op::Fft { .. }
            | Op::TopK { .. }
            | Op::Rng { .. }
            | Op::RngBitGenerator { .. }
            | Op::RngGetAndUpdateState { .. }
            | Op::AfterAll
            | Op::AddDependency
            | Op::AllGather { .. }
            | Op::AllToAll { .. }
            | Op::CollectivePermute { .. }
            | Op::AllReduceDone
            | Op::AllGatherStart { .. }
            | Op::AllGatherDone
            | Op::CollectivePermuteStart { .. }
            | Op::CollectivePermuteDone
            | Op::CollectiveBroadcast { .. }
            | Op::ReplicaId
            | Op::PartitionId
            | Op::Send { .. }
            | Op::SendDone { .. }
            | Op::Recv { .. }
            | Op::RecvDone { .. }
            | Op::Infeed { .. }
            | Op::Outfeed { .. } => Vec::new(),
        }
    }

    /// Rewrites every called computation id through `f` (used when computations are
    /// renumbered, e.g. when one module is merged into another).
    pub fn map_called(&mut self, mut f: impl FnMut(CompId) -> CompId) {
        match self {
            Op::Map { to_apply, .. }
            | Op::Scatter { to_apply, .. }
            | Op::Reduce { to_apply, .. }
            | Op::ReduceWindow { to_apply, .. }
            | Op::Sort { to_apply, .. }
            | Op::Call { to_apply, .. }
            | Op::AllReduce { to_apply, .. }
            | Op::AllReduceStart { to_apply, .. }
            | Op::ReduceScatter { to_apply, .. } => *to_apply = f(*to_apply),
            Op::SelectAndScatter {
                select, scatter, ..
            } => {
                *select = f(*select);
                *scatter = f(*scatter);
            }
            Op::Conditional { branches } => branches.iter_mut().for_each(|b| *b = f(*b)),
            Op::While { condition, body } => {
                *condition = f(*condition);
                *body = f(*body);
            }
            Op::CustomCall { called, .. } => called.iter_mut().for_each(|b| *b = f(*b)),
            Op::Parameter { .. }
            | Op::Constant { .. }
            | Op::Iota { .. }
            | Op::Unary(_)
            | Op::Binary(_)
            | Op::Compare { .. }
            | Op::Select
            | Op::Clamp
            | Op::Convert
            | Op::BitcastConvert
            | Op::ReducePrecision { .. }
            | Op::Tuple
            | Op::GetTupleElement { .. }
            | Op::Broadcast { .. }
            | Op::Reshape
            | Op::Transpose { .. }
            | Op::Reverse { .. }
            | Op::Slice { .. }
            | Op::DynamicSlice { .. }
            | Op::DynamicUpdateSlice
            | Op::Concatenate { .. }
            | Op::Pad { .. }
            | Op::Bitcast
            | Op::Copy
            | Op::GetDimensionSize { .. }
            | Op::SetDimensionSize { .. }
            | Op::OptimizationBarrier
            | Op::Gather(_)
            | Op::Dot { .. }
            | Op::Convolution(_)
            | Op::BatchNormTraining { .. }
            | Op::BatchNormInference { .. }
            | Op::BatchNormGrad { .. }
            | Op::Cholesky { .. }
            | Op::TriangularSolve(_)
            | Op::Fft { .. }
            | Op::TopK { .. }
            | Op::Rng { .. }
            | Op::RngBitGenerator { .. }
            | Op::RngGetAndUpdateState { .. }
            | Op::AfterAll
            | Op::AddDependency
            | Op::AllGather { .. }
            | Op::AllToAll { .. }
            | Op::CollectivePermute { .. }
            | Op::AllReduceDone
            | Op::AllGatherStart { .. }
            | Op::AllGatherDone
            | Op::CollectivePermuteStart { .. }
            | Op::CollectivePermuteDone
            | Op::CollectiveBroadcast { .. }
            | Op::ReplicaId
            | Op::PartitionId
            | Op::Send { .. }
            | Op::SendDone { .. }
            | Op::Recv { .. }
            | Op::RecvDone { .. }
            | Op::Infeed { .. }
            | Op::Outfeed { .. } => {}
        }
    }

    /// True for operations with side effects that must not be removed or merged.
    pub fn has_side_effect(&self) -> bool {
        match self {
            Op::CustomCall { config, .. } => config.has_side_effect,
            Op::Rng { .. }
            | Op::RngGetAndUpdateState { .. }
            | Op::Send { .. }
            | Op::SendDone { .. }
            | Op::Recv { .. }
            | Op::RecvDone { .. }
            | Op::Infeed { .. }
            | Op::Outfeed { .. }
            | Op::AllReduce { .. }
            | Op::AllGather { .. }
            | Op::ReduceScatter { .. }
            | Op::AllToAll { .. }
            | Op::CollectivePermute { .. }
            | Op::AllReduceStart { .. }
            | Op::AllReduceDone
            | Op::AllGatherStart { .. }
            | Op::AllGatherDone
            | Op::CollectivePermuteStart { .. }
            | Op::CollectivePermuteDone
            | Op::CollectiveBroadcast { .. } => true,
            Op::Parameter { .. }
            | Op::Constant { .. }
            | Op::Iota { .. }
            | Op::Unary(_)
            | Op::Binary(_)
            | Op::Compare { .. }
            | Op::Select
            | Op::Clamp
            | Op::Convert
            | Op::BitcastConvert
            | Op::ReducePrecision { .. }
            | Op::Map { .. }
            | Op::Tuple
            | Op::GetTupleElement { .. }
            | Op::Broadcast { .. }
            | Op::Reshape
            | Op::Transpose { .. }
            | Op::Reverse { .. }
            | Op::Slice { .. }
            | Op::DynamicSlice { .. }
            | Op::DynamicUpdateSlice
            | Op::Concatenate { .. }
            | Op::Pad { .. }
            | Op::Bitcast
            | Op::Copy
            | Op::GetDimensionSize { .. }
            | Op::SetDimensionSize { .. }
            | Op::OptimizationBarrier
            | Op::Gather(_)
            | Op::Scatter { .. }
            | Op::Dot { .. }
            | Op::Convolution(_)
            | Op::Reduce { .. }
            | Op::ReduceWindow { .. }
            | Op::SelectAndScatter { .. }
            | Op::BatchNormTraining { .. }
            | Op::BatchNormInference { .. }
            | Op::BatchNormGrad { .. }
            | Op::Cholesky { .. }
            | Op::TriangularSolve(_)
            | Op::Fft { .. }
            | Op::Sort { .. }
            | Op::TopK { .. }
            | Op::Call { .. }
            | Op::Conditional { .. }
            | Op::While { .. }
            | Op::RngBitGenerator { .. }
            | Op::AfterAll
            | Op::AddDependency
            | Op::ReplicaId
            | Op::PartitionId => false,
        }
    }
}
