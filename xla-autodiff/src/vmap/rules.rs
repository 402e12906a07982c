//! What a batching rule sees ([`Cx`]) and the dispatch from each op to its rule.
//!
//! A rule runs only when some operand is batched (the driver copies the others as they
//! are); it returns the batched result with the batch dimension at 0 where a leaf is
//! batched.

use super::driver::Batcher;
use super::error::VmapError;
use super::value::{batched_shape, full, with_batch, Bt, Val};
use super::{collective, contraction, control, elementwise, indexing, lanes, linalg};
use super::{rng, structural, window};
use xla_core::builder::{XlaBuilder, XlaOp};
use xla_core::{Instruction, Op, Shape};

/// One instruction to batch.
pub(crate) struct Cx<'a, 'm> {
    /// The builder of the batched graph.
    pub b: &'a XlaBuilder,
    /// The transform's state.
    pub bat: &'a Batcher<'m>,
    /// The original instruction (its shape is the unbatched result shape).
    pub ins: &'a Instruction,
    /// The batched operands.
    pub args: &'a [Val],
    /// The unbatched operand shapes.
    pub shapes: Vec<Shape>,
    /// Per operand that is a broadcast (of a broadcast ...) in the original computation:
    /// the broadcast value and where its dimensions land in the operand.
    pub sources: Vec<Option<(Val, Vec<i64>)>>,
}

impl Cx<'_, '_> {
    /// The batch size.
    pub fn n(&self) -> i64 {
        self.bat.n
    }

    /// Whether operand `i` has a batched leaf.
    pub fn is_b(&self, i: usize) -> bool {
        self.args.get(i).is_some_and(|a| a.bt.any())
    }

    /// Operand `i` as it is.
    pub fn v(&self, i: usize) -> XlaOp {
        match self.args.get(i) {
            Some(a) => a.v.clone(),
            None => self.b.tuple(Vec::<XlaOp>::new()),
        }
    }

    /// The unbatched shape of operand `i`.
    pub fn shape(&self, i: usize) -> Shape {
        self.shapes
            .get(i)
            .cloned()
            .unwrap_or_else(|| Shape::tuple(Vec::new()))
    }

    /// Operand `i` (an array) batched: broadcast along the batch dimension if it is not.
    pub fn full(&self, i: usize) -> XlaOp {
        match self.args.get(i) {
            Some(a) => full(self.b, a, &self.shape(i), self.n()),
            None => self.v(i),
        }
    }

    /// Every operand batched.
    pub fn all_full(&self) -> Vec<XlaOp> {
        (0..self.args.len()).map(|i| self.full(i)).collect()
    }

    /// The result shape with the batch dimension in front (for an array result).
    pub fn out(&self) -> Shape {
        with_batch(&self.ins.shape, self.n())
    }

    /// The result shape with every array leaf batched.
    pub fn out_all(&self) -> Shape {
        batched_shape(
            &self.ins.shape,
            &Bt::uniform(&self.ins.shape, true),
            self.n(),
        )
    }

    /// Emits `op` (called computations of the original module) on `operands`; the
    /// result's batching is read off its shape.
    pub fn emit(
        &self,
        op: Op,
        operands: &[XlaOp],
        declared: Option<Shape>,
    ) -> Result<Val, VmapError> {
        let op = self.bat.import(self.b, &op)?;
        let v = self.b.add_op(op, operands, declared);
        let bt = match v.shape() {
            Ok(s) => Bt::from_shapes(&self.ins.shape, &s),
            Err(_) => Bt::uniform(&self.ins.shape, true),
        };
        Ok(Val { v, bt })
    }

    /// The instruction's own op on `operands`, with the batched result shape `declared`.
    pub fn same(&self, operands: &[XlaOp], declared: Shape) -> Result<Val, VmapError> {
        self.emit(self.ins.op.clone(), operands, Some(declared))
    }

    /// The error for an op that cannot be batched.
    pub fn no_rule(&self, reason: &str) -> VmapError {
        let target = if let Op::CustomCall { config, .. } = &self.ins.op {
            format!(" target \"{}\"", config.target)
        } else {
            String::new()
        };
        VmapError::NoRule {
            instruction: self.ins.name.clone(),
            op: self.ins.op.name().to_string(),
            target,
            reason: reason.to_string(),
        }
    }

    /// The generic rule: a loop over the lanes running the unbatched op on each.
    pub fn lanes(&self) -> Result<Val, VmapError> {
        lanes::per_lane(self)
    }
}

/// The batching rule of the instruction.
pub(crate) fn batch(cx: &Cx) -> Result<Val, VmapError> {
    match &cx.ins.op {
        Op::Parameter { .. }
        | Op::Constant { .. }
        | Op::Iota { .. }
        | Op::RngGetAndUpdateState { .. }
        | Op::ReplicaId
        | Op::PartitionId
        | Op::AfterAll
        | Op::Recv { .. }
        | Op::Infeed { .. } => Err(cx.no_rule("an op without array operands is never batched")),
        Op::Unary(_)
        | Op::Binary(_)
        | Op::Compare { .. }
        | Op::Select
        | Op::Clamp
        | Op::Convert
        | Op::BitcastConvert
        | Op::ReducePrecision { .. } => elementwise::elementwise(cx),
        Op::Map { to_apply, .. } => elementwise::map(cx, *to_apply),
        Op::Tuple => structural::tuple(cx),
        Op::GetTupleElement { index } => structural::get_tuple_element(cx, *index),
        Op::Copy | Op::OptimizationBarrier => structural::pass_through(cx),
        Op::Broadcast { dimensions } => structural::broadcast(cx, dimensions),
        Op::Reshape | Op::Bitcast => structural::reshape(cx),
        Op::Transpose { permutation } => structural::transpose(cx, permutation),
        Op::Reverse { dimensions } => structural::reverse(cx, dimensions),
        Op::Slice {
            start,
            limit,
            stride,
        } => structural::slice(cx, start, limit, stride),
        Op::Concatenate { dimension } => structural::concatenate(cx, *dimension),
        Op::Pad { padding } => structural::pad(cx, padding),
        Op::GetDimensionSize { dimension } => structural::get_dimension_size(cx, *dimension),
        Op::SetDimensionSize { .. } => cx.lanes(),
        Op::DynamicSlice { slice_sizes } => indexing::dynamic_slice(cx, slice_sizes),
        Op::DynamicUpdateSlice => indexing::dynamic_update_slice(cx),
        Op::Gather(g) => indexing::gather(cx, g),
        Op::Scatter { dims, to_apply } => indexing::scatter(cx, dims, *to_apply),
        Op::Dot { dims, precision } => contraction::dot(cx, dims, precision),
        Op::Convolution(conv) => contraction::convolution(cx, conv),
        Op::Reduce {
            dimensions,
            to_apply,
        } => window::reduce(cx, dimensions, *to_apply),
        Op::ReduceWindow { window, to_apply } => window::reduce_window(cx, window, *to_apply),
        Op::SelectAndScatter {
            window,
            select,
            scatter,
        } => window::select_and_scatter(cx, window, *select, *scatter),
        Op::BatchNormInference { feature_index, .. }
        | Op::BatchNormTraining { feature_index, .. }
        | Op::BatchNormGrad { feature_index, .. } => linalg::batch_norm(cx, *feature_index),
        Op::Cholesky { .. } | Op::TriangularSolve(_) | Op::Fft { .. } | Op::TopK { .. } => {
            linalg::leading_batch(cx)
        }
        Op::Sort {
            dimension,
            is_stable,
            to_apply,
        } => linalg::sort(cx, *dimension, *is_stable, *to_apply),
        Op::Call { to_apply, .. } => control::call(cx, *to_apply),
        Op::Conditional { branches } => control::conditional(cx, branches),
        Op::While { condition, body } => control::while_loop(cx, *condition, *body),
        Op::CustomCall { .. } => control::custom_call(cx),
        Op::Rng { .. } => rng::rng(cx),
        Op::RngBitGenerator { algorithm } => rng::rng_bit_generator(cx, *algorithm),
        Op::AllReduce { .. }
        | Op::AllReduceStart { .. }
        | Op::CollectivePermute { .. }
        | Op::CollectivePermuteStart { .. }
        | Op::CollectiveBroadcast { .. }
        | Op::AllToAll {
            dimension: None, ..
        } => collective::elementwise(cx),
        Op::AllGather { dimension, config } => {
            collective::all_gather(cx, *dimension, config, false)
        }
        Op::AllGatherStart { dimension, config } => {
            collective::all_gather(cx, *dimension, config, true)
        }
        Op::ReduceScatter {
            dimension,
            config,
            to_apply,
        } => collective::reduce_scatter(cx, *dimension, config, *to_apply),
        Op::AllToAll {
            dimension: Some(d),
            config,
        } => collective::all_to_all(cx, *d, config),
        Op::AllReduceDone | Op::AllGatherDone | Op::CollectivePermuteDone | Op::AddDependency => {
            collective::pass(cx)
        }
        Op::Send { .. } | Op::SendDone { .. } | Op::RecvDone { .. } | Op::Outfeed { .. } => {
            collective::host_transfer(cx)
        }
    }
}
