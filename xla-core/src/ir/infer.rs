//! The one dispatch from an [`Op`] to its shape rule in [`crate::shape_inference`].

use super::Op;
use crate::shape::Shape;
use crate::shape_inference::{
    collective, contraction, control, elementwise, expect_operand_count, indexing, linalg, rng,
    structural, window, OperandsRule, ProgramShape, ShapeError, ShapeRule,
};
use crate::types::PrimitiveType;

/// Exactly `N` operands, as an array.
fn take<'a, const N: usize>(
    op: &str,
    operands: &[&'a Shape],
) -> Result<[&'a Shape; N], ShapeError> {
    expect_operand_count(op, operands, N)?;
    <[&Shape; N]>::try_from(operands).map_err(|_| {
        let rule = ShapeRule::OperandCount {
            expected: N,
            at_least: false,
            found: operands.len(),
        };
        ShapeError::rule(op, rule)
    })
}

/// Exactly `N` called computations, as an array.
fn callees<'a, const N: usize>(
    op: &str,
    called: &'a [ProgramShape],
) -> Result<&'a [ProgramShape; N], ShapeError> {
    <&[ProgramShape; N]>::try_from(called).map_err(|_| {
        let rule = OperandsRule::Callees {
            expected: N,
            found: called.len(),
        };
        ShapeError::rule(op, ShapeRule::Operands(rule))
    })
}

/// The declared shape, required by ops whose result is not a function of their operands.
fn need<'a>(op: &str, declared: Option<&'a Shape>) -> Result<&'a Shape, ShapeError> {
    declared.ok_or_else(|| ShapeError::rule(op, ShapeRule::Operands(OperandsRule::ResultMissing)))
}

/// The declared result `d` of `op` must be an array.
fn not_array(op: &str, d: &Shape) -> ShapeError {
    let rule = ShapeRule::Form {
        what: "the result".into(),
        expected: "an array".into(),
        found: d.clone(),
    };
    ShapeError::rule(op, rule)
}

/// `op`'s operands (`found` of them) are not laid out as `expected`.
fn layout(op: &str, expected: &'static str, found: usize) -> ShapeError {
    ShapeError::rule(
        op,
        ShapeRule::Operands(OperandsRule::Layout { expected, found }),
    )
}

/// The element type of the declared array shape.
fn declared_type(op: &str, declared: Option<&Shape>) -> Result<PrimitiveType, ShapeError> {
    let d = need(op, declared)?;
    d.as_array().map(|a| a.ty).ok_or_else(|| not_array(op, d))
}

/// The dims of the declared array shape (reshape / broadcast results).
fn declared_dims<'a>(op: &str, declared: Option<&'a Shape>) -> Result<&'a [i64], ShapeError> {
    let d = need(op, declared)?;
    d.as_array()
        .map(|a| a.dims.as_slice())
        .ok_or_else(|| not_array(op, d))
}

/// The element type of the declared shape, when it is an array (dot / convolution results).
fn preferred_type(declared: Option<&Shape>) -> Option<PrimitiveType> {
    declared.and_then(Shape::as_array).map(|a| a.ty)
}

/// Splits `N` operands followed by `N` init values.
fn halves<'a, 'b>(
    op: &str,
    operands: &'b [&'a Shape],
) -> Result<(&'b [&'a Shape], &'b [&'a Shape]), ShapeError> {
    if operands.is_empty() || !operands.len().is_multiple_of(2) {
        let expected = "N operands followed by N init values (N >= 1)";
        return Err(layout(op, expected, operands.len()));
    }
    Ok(operands.split_at(operands.len() / 2))
}

/// The shard count of all-gather / reduce-scatter: the replica-group size, or with no groups
/// (or groups of replicas spanning every partition: a channel without global ids)
/// the ratio between the declared and the operand size along `dimension` (1 without a
/// declared shape).
fn shard_count(
    op: &str,
    config: &crate::attrs::CollectiveConfig,
    operands: &[&Shape],
    declared: Option<&Shape>,
    dimension: i64,
    gather: bool,
) -> Result<i64, ShapeError> {
    let size = collective::group_size(op, &config.replica_groups)?;
    // With a channel and no global ids the groups list replicas and span every partition,
    // so the shard count (group size × partitions) comes from the declared shape.
    let spans_partitions = config.channel_id.is_some() && !config.use_global_device_ids;
    if let (Some(size), false) = (size, spans_partitions) {
        return Ok(size);
    }
    let first_array = |s: &Shape| match s {
        Shape::Tuple(t) => t.first().and_then(Shape::as_array).cloned(),
        other => other.as_array().cloned(),
    };
    let dim = usize::try_from(dimension).ok();
    let sizes = (
        operands.first().and_then(|s| first_array(s)),
        declared.and_then(first_array),
    );
    let (Some(a), Some(d), Some(i)) = (sizes.0, sizes.1, dim) else {
        return Ok(1);
    };
    let (x, y) = (
        a.dims.get(i).copied().unwrap_or(0),
        d.dims.get(i).copied().unwrap_or(0),
    );
    let (big, small) = if gather { (y, x) } else { (x, y) };
    Ok(if small > 0 && big % small == 0 {
        big / small
    } else {
        1
    })
}

/// Infers the result shape of `op` applied to operands of shapes `operands`.
///
/// `called` holds the signatures of the op's called computations, in
/// [`Op::called_computations`] order. `declared` is the instruction's stated shape: ops whose
/// result is not a function of their operands (parameter, constant, iota, reshape, broadcast,
/// convert, bitcast-convert, rng, custom-call, infeed, recv, ...) take it from there and
/// check it against the operands; other ops ignore it (the verifier compares the two).
///
/// # Errors
/// A [`ShapeError`] naming the op, the operand shapes and the rule broken.
pub fn infer_shape(
    op: &Op,
    operands: &[&Shape],
    called: &[ProgramShape],
    declared: Option<&Shape>,
) -> Result<Shape, ShapeError> {
    let name = op.name();
    match op {
        Op::Parameter { .. } => {
            take::<0>(name, operands).and_then(|[]| structural::parameter(need(name, declared)?))
        }
        Op::Constant { literal } => {
            take::<0>(name, operands).and_then(|[]| structural::constant(literal.shape(), declared))
        }
        Op::Iota { dimension } => take::<0>(name, operands)
            .and_then(|[]| structural::iota(need(name, declared)?, *dimension)),
        Op::Unary(u) => elementwise::unary(*u, take::<1>(name, operands)?[0]),
        Op::Binary(b) => take::<2>(name, operands).and_then(|[l, r]| elementwise::binary(*b, l, r)),
        Op::Compare {
            comparison_type, ..
        } => take::<2>(name, operands)
            .and_then(|[l, r]| elementwise::compare(l, r, *comparison_type)),
        Op::Select => take::<3>(name, operands).and_then(|[p, t, f]| elementwise::select(p, t, f)),
        Op::Clamp => {
            take::<3>(name, operands).and_then(|[lo, x, hi]| elementwise::clamp(lo, x, hi))
        }
        Op::Convert => elementwise::convert(
            take::<1>(name, operands)?[0],
            declared_type(name, declared)?,
        ),
        Op::BitcastConvert => elementwise::bitcast_convert(
            take::<1>(name, operands)?[0],
            declared_type(name, declared)?,
        ),
        Op::ReducePrecision {
            exponent_bits,
            mantissa_bits,
        } => elementwise::reduce_precision(
            take::<1>(name, operands)?[0],
            *exponent_bits,
            *mantissa_bits,
        ),
        Op::Map { dimensions, .. } => {
            elementwise::map(operands, dimensions, &callees::<1>(name, called)?[0])
        }
        Op::Tuple => Ok(structural::tuple(operands)),
        Op::GetTupleElement { index } => {
            structural::get_tuple_element(take::<1>(name, operands)?[0], *index)
        }
        Op::Broadcast { dimensions } => structural::broadcast(
            take::<1>(name, operands)?[0],
            declared_dims(name, declared)?,
            dimensions,
        ),
        Op::Reshape => structural::reshape(
            take::<1>(name, operands)?[0],
            declared_dims(name, declared)?,
        ),
        Op::Transpose { permutation } => {
            structural::transpose(take::<1>(name, operands)?[0], permutation)
        }
        Op::Reverse { dimensions } => {
            structural::reverse(take::<1>(name, operands)?[0], dimensions)
        }
        Op::Slice {
            start,
            limit,
            stride,
        } => structural::slice(take::<1>(name, operands)?[0], start, limit, stride),
        Op::DynamicSlice { slice_sizes } => match operands.split_first() {
            Some((x, starts)) => structural::dynamic_slice(x, starts, slice_sizes),
            None => Err(layout(name, "the operand and its start indices", 0)),
        },
        Op::DynamicUpdateSlice => match operands {
            [x, u, starts @ ..] => structural::dynamic_update_slice(x, u, starts),
            _ => {
                let expected = "the operand, the update and the start indices";
                Err(layout(name, expected, operands.len()))
            }
        },
        Op::Concatenate { dimension } => structural::concatenate(operands, *dimension),
        Op::Pad { padding } => {
            take::<2>(name, operands).and_then(|[x, v]| structural::pad(x, v, padding))
        }
        Op::Bitcast => structural::bitcast(take::<1>(name, operands)?[0], need(name, declared)?),
        Op::Copy => Ok(structural::copy(take::<1>(name, operands)?[0])),
        Op::GetDimensionSize { dimension } => {
            structural::get_dimension_size(take::<1>(name, operands)?[0], *dimension)
        }
        Op::SetDimensionSize { dimension } => take::<2>(name, operands)
            .and_then(|[x, s]| structural::set_dimension_size(x, s, *dimension)),
        Op::OptimizationBarrier => Ok(structural::optimization_barrier(
            take::<1>(name, operands)?[0],
        )),
        Op::Gather(dims) => {
            take::<2>(name, operands).and_then(|[x, i]| indexing::gather(x, i, dims))
        }
        Op::Scatter { dims, .. } => infer_scatter(operands, dims, &callees::<1>(name, called)?[0]),
        Op::Dot { dims, precision } => {
            contraction::check_precision(name, precision)?;
            let [l, r] = take::<2>(name, operands)?;
            contraction::dot(l, r, dims, preferred_type(declared))
        }
        Op::Convolution(cfg) => {
            contraction::check_precision(name, &cfg.precision)?;
            let [l, r] = take::<2>(name, operands)?;
            contraction::convolution(l, r, cfg, preferred_type(declared))
        }
        Op::Reduce { dimensions, .. } => halves(name, operands).and_then(|(xs, inits)| {
            window::reduce(xs, inits, dimensions, &callees::<1>(name, called)?[0])
        }),
        Op::ReduceWindow { window: w, .. } => halves(name, operands).and_then(|(xs, inits)| {
            window::reduce_window(xs, inits, w, &callees::<1>(name, called)?[0])
        }),
        Op::SelectAndScatter { window: w, .. } => {
            let [sel, sc] = callees::<2>(name, called)?;
            take::<3>(name, operands)
                .and_then(|[x, s, i]| window::select_and_scatter(x, s, i, w, sel, sc))
        }
        Op::BatchNormTraining { feature_index, .. } => take::<3>(name, operands)
            .and_then(|[x, s, o]| linalg::batch_norm_training(x, s, o, *feature_index)),
        Op::BatchNormInference { feature_index, .. } => {
            take::<5>(name, operands).and_then(|[x, s, o, m, v]| {
                linalg::batch_norm_inference(x, s, o, m, v, *feature_index)
            })
        }
        Op::BatchNormGrad { feature_index, .. } => take::<5>(name, operands)
            .and_then(|[x, s, m, v, g]| linalg::batch_norm_grad(x, s, m, v, g, *feature_index)),
        Op::Cholesky { .. } => linalg::cholesky(take::<1>(name, operands)?[0]),
        Op::TriangularSolve(options) => {
            take::<2>(name, operands).and_then(|[a, b]| linalg::triangular_solve(a, b, options))
        }
        Op::Fft {
            fft_type,
            fft_length,
        } => linalg::fft(take::<1>(name, operands)?[0], *fft_type, fft_length),
        Op::Sort { dimension, .. } => {
            indexing::sort(operands, *dimension, &callees::<1>(name, called)?[0])
        }
        Op::TopK { k, .. } => indexing::topk(take::<1>(name, operands)?[0], *k),
        Op::Call { .. } => control::call(operands, &callees::<1>(name, called)?[0]),
        Op::Conditional { .. } => match operands.split_first() {
            Some((selector, args)) => control::conditional(selector, args, called),
            None => Err(layout(name, "a selector and one operand per branch", 0)),
        },
        Op::While { .. } => {
            let [cond, body] = callees::<2>(name, called)?;
            control::while_loop(take::<1>(name, operands)?[0], cond, body)
        }
        Op::CustomCall { .. } => control::custom_call(need(name, declared)?),
        Op::Rng { distribution } => take::<2>(name, operands)
            .and_then(|[a, b]| rng::rng(a, b, *distribution, need(name, declared)?)),
        Op::RngBitGenerator { .. } => {
            rng::rng_bit_generator(take::<1>(name, operands)?[0], need(name, declared)?)
        }
        Op::RngGetAndUpdateState { .. } => {
            take::<0>(name, operands).map(|[]| rng::rng_get_and_update_state())
        }
        Op::AfterAll => collective::after_all(operands),
        Op::AddDependency => {
            take::<2>(name, operands).and_then(|[x, t]| collective::add_dependency(x, t))
        }
        Op::AllGather { dimension, config } => {
            let shards = shard_count(name, config, operands, declared, *dimension, true)?;
            collective::all_gather(operands, *dimension, shards)
        }
        Op::AllReduce { .. } => collective::all_reduce(operands, &callees::<1>(name, called)?[0]),
        Op::ReduceScatter {
            dimension, config, ..
        } => {
            let shards = shard_count(name, config, operands, declared, *dimension, false)?;
            collective::reduce_scatter(
                operands,
                *dimension,
                shards,
                &callees::<1>(name, called)?[0],
            )
        }
        Op::AllToAll { dimension, config } => {
            let split = collective::group_size(name, &config.replica_groups)?.unwrap_or(1);
            collective::all_to_all(operands, *dimension, split)
        }
        Op::CollectivePermute {
            source_target_pairs,
            ..
        } => collective::collective_permute(take::<1>(name, operands)?[0], source_target_pairs),
        Op::AllReduceStart { .. } => {
            collective::all_reduce(operands, &callees::<1>(name, called)?[0])
        }
        Op::AllReduceDone => Ok(take::<1>(name, operands)?[0].without_layout()),
        Op::AllGatherStart { dimension, config } => {
            let shards = match declared.and_then(Shape::tuple_elements) {
                Some([_, result]) => {
                    shard_count(name, config, operands, Some(result), *dimension, true)?
                }
                _ => collective::group_size(name, &config.replica_groups)?.unwrap_or(1),
            };
            collective::all_gather_start(operands, *dimension, shards)
        }
        Op::AllGatherDone | Op::CollectivePermuteDone => {
            collective::async_done(name, take::<1>(name, operands)?[0])
        }
        Op::CollectivePermuteStart {
            source_target_pairs,
            ..
        } => {
            collective::collective_permute_start(take::<1>(name, operands)?[0], source_target_pairs)
        }
        Op::CollectiveBroadcast { .. } => collective::collective_broadcast(operands),
        Op::ReplicaId => take::<0>(name, operands).map(|[]| collective::replica_id()),
        Op::PartitionId => take::<0>(name, operands).map(|[]| collective::partition_id()),
        Op::Send { .. } => take::<2>(name, operands).and_then(|[d, t]| collective::send(d, t)),
        Op::SendDone { .. } => collective::send_done(take::<1>(name, operands)?[0]),
        Op::Recv { .. } => collective::recv(take::<1>(name, operands)?[0], need(name, declared)?),
        Op::RecvDone { .. } => collective::recv_done(take::<1>(name, operands)?[0]),
        Op::Infeed { .. } => {
            collective::infeed(take::<1>(name, operands)?[0], need(name, declared)?)
        }
        Op::Outfeed { outfeed_shape, .. } => take::<2>(name, operands)
            .and_then(|[d, t]| collective::outfeed(d, t, outfeed_shape.as_ref())),
    }
}

/// Splits scatter's `N` operands, the indices and `N` updates.
fn infer_scatter(
    operands: &[&Shape],
    dims: &crate::attrs::ScatterDims,
    to_apply: &ProgramShape,
) -> Result<Shape, ShapeError> {
    let n = operands.len() / 2;
    match (operands.len() % 2, operands.get(n)) {
        (1, Some(indices)) => {
            let (xs, rest) = operands.split_at(n);
            indexing::scatter(xs, indices, rest.get(1..).unwrap_or(&[]), dims, to_apply)
        }
        _ => {
            let expected = "N operands, the indices and N updates";
            Err(layout("scatter", expected, operands.len()))
        }
    }
}
