//! Gradient rules, one per op, grouped by family, and the table of which opcodes are
//! differentiable ([`differentiability`]).
//!
//! A rule gets the primal operands and result ([`Cx`]) and the result's cotangent, and
//! returns one optional cotangent per operand (`None` = zero / no gradient). Rules emit HLO
//! through the builder, so gradients are ordinary computations.

mod contraction;
mod control;
mod elementwise;
mod indexing;
mod linalg;
mod pick;
mod scatter;
mod structural;
mod window;

use crate::backward::Ct;
use crate::error::AutodiffError;
use xla_core::builder::{Combiner, XlaBuilder, XlaOp};
use xla_core::ir::{BinaryOp, Opcode, UnaryOp};
use xla_core::{Module, Op, PrimitiveType, Shape};

/// Cotangents of an op's operands, one per operand.
pub(crate) type Cts = Vec<Option<Ct>>;

/// What a rule sees of the primal instruction.
pub(crate) struct Cx<'a> {
    /// The builder the gradient is emitted into.
    pub b: &'a XlaBuilder,
    /// The original module (for called computations).
    pub module: &'a Module,
    /// The original instruction's name.
    pub name: &'a str,
    /// The op, with the original module's computation ids.
    pub op: &'a Op,
    /// The result shape.
    pub shape: &'a Shape,
    /// Primal operand values.
    pub args: &'a [XlaOp],
    /// Operand shapes.
    pub shapes: &'a [Shape],
    /// The primal result value.
    pub out: &'a XlaOp,
    /// Which operands need a cotangent.
    pub active: &'a [bool],
    /// For a `while`: its trip count, when known at build time.
    pub trip_count: Option<i64>,
}

impl Cx<'_> {
    /// Operand `i` (arity was checked by shape inference when the forward op was built;
    /// a rule reading past it is a bug, recorded in the builder so the build fails).
    pub fn x(&self, i: usize) -> XlaOp {
        match self.args.get(i) {
            Some(x) => x.clone(),
            None => self.b.internal_error(
                self.op.name(),
                "a gradient rule reads only operands the op has",
            ),
        }
    }

    /// The shape of operand `i` (as [`Cx::x`]: a rule reading past the operands is a bug,
    /// recorded in the builder; the result's shape stands in until the build fails).
    pub fn s(&self, i: usize) -> Shape {
        match self.shapes.get(i) {
            Some(s) => s.clone(),
            None => {
                self.b.internal_error(
                    self.op.name(),
                    "a gradient rule reads only the shapes of operands the op has",
                );
                self.shape.clone()
            }
        }
    }

    /// Whether operand `i` needs a cotangent.
    pub fn wants(&self, i: usize) -> bool {
        self.active.get(i).copied().unwrap_or(false)
    }

    /// The error for a gradient this op does not have.
    pub fn nd(&self, reason: impl Into<String>) -> AutodiffError {
        AutodiffError::NotDifferentiable {
            instruction: self.name.to_string(),
            op: self.op.name().to_string(),
            reason: reason.into(),
        }
    }

    /// The array cotangent (an error for a tuple cotangent of an array op).
    pub fn g(&self, ct: &Ct) -> Result<XlaOp, AutodiffError> {
        match ct {
            Ct::Array(g) => Ok(g.clone()),
            Ct::Tuple(_) => Err(self.nd("internal: a tuple cotangent reached an array op")),
        }
    }
}

/// `sum(x)` over `dims`.
pub(crate) fn sum(b: &XlaBuilder, x: &XlaOp, ty: PrimitiveType, dims: &[i64]) -> XlaOp {
    if dims.is_empty() {
        return x.clone();
    }
    let zero = b.constant_scalar(ty, 0);
    b.reduce(x, &zero, dims, Combiner::Add)
}

/// `sum(x)` over every dimension of `shape`.
pub(crate) fn sum_all(b: &XlaBuilder, x: &XlaOp, shape: &Shape) -> XlaOp {
    let dims: Vec<i64> = (0..shape.rank() as i64).collect();
    sum(b, x, shape.element_type(), &dims)
}

/// The cotangent `g` of a value broadcast from a scalar: the sum of `g`.
pub(crate) fn unbroadcast_scalar(
    b: &XlaBuilder,
    g: &XlaOp,
    target: &Shape,
    gshape: &Shape,
) -> XlaOp {
    if target.is_scalar() && !gshape.is_scalar() {
        sum_all(b, g, gshape)
    } else {
        g.clone()
    }
}

/// The cotangents of an op: rule dispatch.
pub(crate) fn vjp(cx: &Cx<'_>, ct: &Ct) -> Result<Cts, AutodiffError> {
    match cx.op {
        Op::Parameter { .. } | Op::Constant { .. } | Op::Iota { .. } => Ok(Vec::new()),
        Op::Unary(u) => elementwise::unary(cx, *u, &cx.g(ct)?),
        Op::Binary(op) => elementwise::binary(cx, *op, &cx.g(ct)?),
        Op::Select => elementwise::select(cx, &cx.g(ct)?),
        Op::Clamp => elementwise::clamp(cx, &cx.g(ct)?),
        Op::Convert => elementwise::convert(cx, &cx.g(ct)?),
        Op::ReducePrecision { .. } | Op::Copy | Op::OptimizationBarrier => {
            Ok(vec![Some(ct.clone())])
        }
        Op::AddDependency => Ok(vec![Some(ct.clone()), None]),
        Op::Map { dimensions, to_apply } => control::map(cx, dimensions, *to_apply, &cx.g(ct)?),
        Op::Tuple => structural::tuple(cx, ct),
        Op::GetTupleElement { index } => structural::get_tuple_element(cx, *index, ct),
        Op::Broadcast { dimensions } => structural::broadcast(cx, dimensions, &cx.g(ct)?),
        Op::Reshape | Op::Bitcast => structural::reshape(cx, &cx.g(ct)?),
        Op::Transpose { permutation } => structural::transpose(cx, permutation, &cx.g(ct)?),
        Op::Reverse { dimensions } => Ok(vec![Ct::some(cx.b.rev(cx.g(ct)?, dimensions))]),
        Op::Slice { start, limit, stride } => structural::slice(cx, start, limit, stride, &cx.g(ct)?),
        Op::DynamicSlice { .. } => structural::dynamic_slice(cx, &cx.g(ct)?),
        Op::DynamicUpdateSlice => structural::dynamic_update_slice(cx, &cx.g(ct)?),
        Op::Concatenate { dimension } => structural::concatenate(cx, *dimension, &cx.g(ct)?),
        Op::Pad { padding } => structural::pad(cx, padding, &cx.g(ct)?),
        Op::Gather(dims) => indexing::gather(cx, dims, &cx.g(ct)?),
        Op::Scatter { dims, to_apply } => scatter::scatter(cx, dims, *to_apply, ct),
        Op::Dot { dims, precision } => contraction::dot(cx, dims, precision, &cx.g(ct)?),
        Op::Convolution(config) => contraction::convolution(cx, config, &cx.g(ct)?),
        Op::Reduce { dimensions, to_apply } => window::reduce(cx, dimensions, *to_apply, ct),
        Op::AllReduce { config, to_apply } => window::all_reduce(cx, config, *to_apply, ct),
        Op::ReduceWindow { window, to_apply } => window::reduce_window(cx, window, *to_apply, ct),
        Op::SelectAndScatter { window, select, scatter } => {
            if window::combiner_op(cx.module, *scatter) != Some(BinaryOp::Add) {
                return Err(cx.nd("only select-and-scatter whose scatter computation adds is differentiated"));
            }
            window::select_and_scatter(cx, window, *select, &cx.g(ct)?)
        }
        Op::BatchNormTraining { epsilon, feature_index } => {
            linalg::batch_norm_training(cx, *epsilon, *feature_index, ct)
        }
        Op::BatchNormInference { epsilon, feature_index } => {
            linalg::batch_norm_inference(cx, *epsilon, *feature_index, &cx.g(ct)?)
        }
        Op::BatchNormGrad { epsilon, feature_index } => {
            linalg::batch_norm_grad(cx, *epsilon, *feature_index, ct)
        }
        Op::Cholesky { lower } => linalg::cholesky(cx, *lower, &cx.g(ct)?),
        Op::TriangularSolve(o) => linalg::triangular_solve(cx, o, &cx.g(ct)?),
        Op::Fft { fft_type, fft_length } => linalg::fft(cx, *fft_type, fft_length, &cx.g(ct)?),
        Op::Sort { dimension, to_apply, .. } => linalg::sort(cx, *dimension, *to_apply, ct),
        Op::TopK { k, .. } => linalg::top_k(cx, *k, ct),
        Op::Call { to_apply, .. } => control::call(cx, *to_apply, ct),
        Op::Conditional { branches } => control::conditional(cx, branches, ct),
        Op::While { body, .. } => match cx.trip_count {
            Some(n) => control::while_loop(cx, *body, n, ct),
            None => Err(cx.nd(
                "the loop's trip count is not known at build time (only fori_loop-style loops are differentiated: a counter compared LT/LE/GT/GE against a constant and incremented by 1, starting from a constant)",
            )),
        },
        Op::Compare { .. }
        | Op::BitcastConvert
        | Op::GetDimensionSize { .. }
        | Op::SetDimensionSize { .. }
        | Op::CustomCall { .. }
        | Op::Rng { .. }
        | Op::RngBitGenerator { .. }
        | Op::RngGetAndUpdateState { .. }
        | Op::AfterAll
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
        | Op::CollectiveBroadcast { .. }
        | Op::ReplicaId
        | Op::PartitionId
        | Op::Send { .. }
        | Op::SendDone { .. }
        | Op::Recv { .. }
        | Op::RecvDone { .. }
        | Op::Infeed { .. }
        | Op::Outfeed { .. } => Err(cx.nd(non_differentiable_reason(cx.op.opcode()).unwrap_or("no gradient rule"))),
    }
}

/// Whether an opcode has a gradient rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Differentiability {
    /// A rule exists (it may still reject some attribute combinations, saying why).
    Rule,
    /// Not differentiable; the reason is what the error says.
    NonDifferentiable(&'static str),
}

/// Why an opcode has no gradient, or `None` when it has a rule.
fn non_differentiable_reason(op: Opcode) -> Option<&'static str> {
    match differentiability(op) {
        Differentiability::Rule => None,
        Differentiability::NonDifferentiable(r) => Some(r),
    }
}

/// The gradient table: every opcode is either differentiable (a rule exists) or listed
/// as non-differentiable with the reason.
pub fn differentiability(op: Opcode) -> Differentiability {
    use Differentiability::{NonDifferentiable as No, Rule};
    match op {
        Opcode::Parameter | Opcode::Constant | Opcode::Iota => Rule,
        Opcode::Unary(u) => match u {
            UnaryOp::Clz | UnaryOp::IsFinite | UnaryOp::Not | UnaryOp::Popcnt => {
                No("integer and predicate ops have no gradient")
            }
            UnaryOp::Abs
            | UnaryOp::Cbrt
            | UnaryOp::Ceil
            | UnaryOp::Cos
            | UnaryOp::Erf
            | UnaryOp::Exp
            | UnaryOp::Expm1
            | UnaryOp::Floor
            | UnaryOp::Imag
            | UnaryOp::Log
            | UnaryOp::Log1p
            | UnaryOp::Logistic
            | UnaryOp::Neg
            | UnaryOp::Real
            | UnaryOp::RoundNearestAfz
            | UnaryOp::RoundNearestEven
            | UnaryOp::Rsqrt
            | UnaryOp::Sign
            | UnaryOp::Sin
            | UnaryOp::Sqrt
            | UnaryOp::Tan
            | UnaryOp::Tanh => Rule,
        },
        Opcode::Binary(op) => match op {
            BinaryOp::And
            | BinaryOp::Or
            | BinaryOp::Xor
            | BinaryOp::ShiftLeft
            | BinaryOp::ShiftRightArithmetic
            | BinaryOp::ShiftRightLogical => No("bitwise ops on integers have no gradient"),
            BinaryOp::Add
            | BinaryOp::Sub
            | BinaryOp::Mul
            | BinaryOp::Div
            | BinaryOp::Pow
            | BinaryOp::Rem
            | BinaryOp::Max
            | BinaryOp::Min
            | BinaryOp::Atan2
            | BinaryOp::Complex => Rule,
        },
        Opcode::Select | Opcode::Clamp | Opcode::Convert | Opcode::ReducePrecision => Rule,
        Opcode::Map | Opcode::Tuple | Opcode::GetTupleElement | Opcode::Broadcast => Rule,
        Opcode::Reshape | Opcode::Transpose | Opcode::Reverse | Opcode::Slice => Rule,
        Opcode::DynamicSlice | Opcode::DynamicUpdateSlice | Opcode::Concatenate => Rule,
        Opcode::Pad | Opcode::Bitcast | Opcode::Copy | Opcode::OptimizationBarrier => Rule,
        Opcode::Gather | Opcode::Scatter | Opcode::Dot | Opcode::Convolution => Rule,
        Opcode::Reduce | Opcode::ReduceWindow | Opcode::SelectAndScatter => Rule,
        Opcode::BatchNormTraining | Opcode::BatchNormInference | Opcode::BatchNormGrad => Rule,
        Opcode::Cholesky | Opcode::TriangularSolve | Opcode::Fft => Rule,
        Opcode::Sort | Opcode::TopK | Opcode::Call | Opcode::Conditional => Rule,
        Opcode::While => Rule,
        Opcode::AddDependency => Rule,
        Opcode::Compare => No("a comparison's result is PRED"),
        Opcode::BitcastConvert => No("reinterpreting bits is not differentiable"),
        Opcode::GetDimensionSize | Opcode::SetDimensionSize => {
            No("dynamic dimension sizes are integers")
        }
        Opcode::CustomCall => No("a custom call is opaque"),
        Opcode::Rng | Opcode::RngBitGenerator | Opcode::RngGetAndUpdateState => {
            No("random number generation has no gradient")
        }
        Opcode::AllReduce => Rule,
        Opcode::AllGather
        | Opcode::ReduceScatter
        | Opcode::AllToAll
        | Opcode::CollectivePermute
        | Opcode::AllReduceStart
        | Opcode::AllReduceDone
        | Opcode::AllGatherStart
        | Opcode::AllGatherDone
        | Opcode::CollectivePermuteStart
        | Opcode::CollectivePermuteDone
        | Opcode::CollectiveBroadcast => {
            No("collectives other than an adding all-reduce have no gradient rule")
        }
        Opcode::ReplicaId | Opcode::PartitionId => No("replica and partition ids are integers"),
        Opcode::AfterAll
        | Opcode::Send
        | Opcode::SendDone
        | Opcode::Recv
        | Opcode::RecvDone
        | Opcode::Infeed
        | Opcode::Outfeed => No("communication and tokens have no gradient"),
    }
}
