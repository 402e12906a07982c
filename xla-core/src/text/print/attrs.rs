//! The attributes of each [`Op`], in the order and spelling XLA's printer uses.
//!
//! One exhaustive match (no wildcard: a new op must say how it prints); each arm is one line
//! delegating to a helper here or in [`super::families`].

use super::families::{
    collective_attrs, composite_attrs, conv_attrs, custom_call_attrs, dot_attrs, gather_attrs,
    padding, precision, scatter_dims_attrs, slice_attr, window_attr,
};
use super::{int_list, quoted, shape_with_layout, Ctx};
use crate::ir::{CompId, Instruction, Op};
use crate::literal::format_f32;

/// The `name=value` attributes written after the operand list of `ins`.
pub(super) fn attributes(ctx: &Ctx<'_>, ins: &Instruction) -> Vec<String> {
    let apply = |c: &CompId| format!("to_apply={}", ctx.comp_name(*c));
    match &ins.op {
        Op::Parameter { .. } | Op::Constant { .. } | Op::Unary(_) | Op::Binary(_) => vec![],
        Op::Select | Op::Clamp | Op::Convert | Op::BitcastConvert | Op::Tuple => vec![],
        Op::Reshape | Op::DynamicUpdateSlice | Op::Bitcast | Op::Copy => vec![],
        Op::OptimizationBarrier | Op::AfterAll | Op::AddDependency => vec![],
        Op::ReplicaId | Op::PartitionId => vec![],
        Op::AllReduceDone | Op::AllGatherDone | Op::CollectivePermuteDone => vec![],
        Op::Iota { dimension } => vec![format!("iota_dimension={dimension}")],
        Op::Compare {
            direction,
            comparison_type,
        } => {
            let mut a = vec![format!("direction={direction}")];
            a.extend(comparison_type.map(|t| format!("type={t}")));
            a
        }
        Op::ReducePrecision {
            exponent_bits: e,
            mantissa_bits: m,
        } => {
            vec![format!("exponent_bits={e}"), format!("mantissa_bits={m}")]
        }
        Op::Map {
            dimensions,
            to_apply,
        } => vec![dims(dimensions), apply(to_apply)],
        Op::GetTupleElement { index } => vec![format!("index={index}")],
        Op::Broadcast { dimensions } | Op::Reverse { dimensions } => vec![dims(dimensions)],
        Op::Transpose { permutation } => vec![dims(permutation)],
        Op::Slice {
            start,
            limit,
            stride,
        } => vec![slice_attr(start, limit, stride)],
        Op::DynamicSlice { slice_sizes: s } => vec![format!("dynamic_slice_sizes={}", int_list(s))],
        Op::Concatenate { dimension } => vec![dims(&[*dimension])],
        Op::GetDimensionSize { dimension } | Op::SetDimensionSize { dimension } => {
            vec![dims(&[*dimension])]
        }
        Op::Pad { padding: p } => vec![format!("padding={}", padding(p))],
        Op::Gather(g) => gather_attrs(g),
        Op::Scatter { dims: d, to_apply } => {
            [scatter_dims_attrs(d), vec![apply(to_apply)]].concat()
        }
        Op::Dot {
            dims: d,
            precision: p,
        } => [dot_attrs(d), precision(p)].concat(),
        Op::Convolution(c) => conv_attrs(c),
        Op::Reduce {
            dimensions,
            to_apply,
        } => vec![dims(dimensions), apply(to_apply)],
        Op::ReduceWindow { window, to_apply } => {
            [window_attr(window), vec![apply(to_apply)]].concat()
        }
        Op::SelectAndScatter {
            window,
            select,
            scatter,
        } => {
            let calls = vec![
                format!("select={}", ctx.comp_name(*select)),
                format!("scatter={}", ctx.comp_name(*scatter)),
            ];
            [window_attr(window), calls].concat()
        }
        Op::BatchNormTraining {
            epsilon,
            feature_index,
        }
        | Op::BatchNormInference {
            epsilon,
            feature_index,
        }
        | Op::BatchNormGrad {
            epsilon,
            feature_index,
        } => vec![
            format!("epsilon={}", format_f32(*epsilon)),
            format!("feature_index={feature_index}"),
        ],
        Op::Cholesky { lower } => flags(&[("lower", *lower)]),
        Op::TriangularSolve(t) => {
            let mut a = flags(&[
                ("left_side", t.left_side),
                ("lower", t.lower),
                ("unit_diagonal", t.unit_diagonal),
            ]);
            a.push(format!("transpose_a={}", t.transpose_a));
            a
        }
        Op::Fft {
            fft_type,
            fft_length,
        } => {
            vec![
                format!("fft_type={fft_type}"),
                format!("fft_length={}", int_list(fft_length)),
            ]
        }
        Op::Sort {
            dimension,
            is_stable,
            to_apply,
        } => [
            vec![dims(&[*dimension])],
            flags(&[("is_stable", *is_stable)]),
            vec![apply(to_apply)],
        ]
        .concat(),
        Op::TopK { k, largest } => vec![format!("k={k}"), format!("largest={largest}")],
        Op::Call {
            to_apply,
            composite,
        } => [
            vec![apply(to_apply)],
            composite.as_ref().map(composite_attrs).unwrap_or_default(),
        ]
        .concat(),
        Op::Conditional { branches } => conditional_attrs(ctx, ins, branches),
        Op::While { condition, body } => vec![
            format!("condition={}", ctx.comp_name(*condition)),
            format!("body={}", ctx.comp_name(*body)),
        ],
        Op::CustomCall { config, called } => custom_call_attrs(ctx, config, called),
        Op::Rng { distribution } => vec![format!("distribution={distribution}")],
        Op::RngBitGenerator { algorithm } => vec![format!("algorithm={algorithm}")],
        Op::RngGetAndUpdateState { delta } => vec![format!("delta={delta}")],
        Op::AllGather { dimension, config } => collective_attrs(config, Some(*dimension), false),
        Op::AllGatherStart { dimension, config } => {
            collective_attrs(config, Some(*dimension), false)
        }
        Op::CollectiveBroadcast { config } => collective_attrs(config, None, false),
        Op::AllReduce { config, to_apply } | Op::AllReduceStart { config, to_apply } => {
            [collective_attrs(config, None, false), vec![apply(to_apply)]].concat()
        }
        Op::ReduceScatter {
            dimension,
            config,
            to_apply,
        } => [
            collective_attrs(config, Some(*dimension), true),
            vec![apply(to_apply)],
        ]
        .concat(),
        Op::AllToAll { dimension, config } => collective_attrs(config, *dimension, false),
        Op::CollectivePermute {
            source_target_pairs,
            channel_id,
        }
        | Op::CollectivePermuteStart {
            source_target_pairs,
            channel_id,
        } => permute_attrs(source_target_pairs, *channel_id),
        Op::Send {
            channel_id,
            is_host_transfer,
        }
        | Op::SendDone {
            channel_id,
            is_host_transfer,
        }
        | Op::Recv {
            channel_id,
            is_host_transfer,
        }
        | Op::RecvDone {
            channel_id,
            is_host_transfer,
        } => [
            vec![format!("channel_id={channel_id}")],
            flags(&[("is_host_transfer", *is_host_transfer)]),
        ]
        .concat(),
        Op::Infeed { config } => non_empty("infeed_config", config),
        Op::Outfeed {
            config,
            outfeed_shape,
        } => {
            let shape = outfeed_shape
                .iter()
                .map(|s| format!("outfeed_shape={}", shape_with_layout(s)));
            shape.chain(non_empty("outfeed_config", config)).collect()
        }
    }
}

/// `dimensions={...}`.
fn dims(d: &[i64]) -> String {
    format!("dimensions={}", int_list(d))
}

/// `name=true` for each set flag (XLA omits false booleans).
fn flags(f: &[(&str, bool)]) -> Vec<String> {
    f.iter()
        .filter(|(_, v)| *v)
        .map(|(n, _)| format!("{n}=true"))
        .collect()
}

/// `name="value"` when the value is not empty.
fn non_empty(name: &str, value: &str) -> Vec<String> {
    if value.is_empty() {
        vec![]
    } else {
        vec![format!("{name}={}", quoted(value))]
    }
}

/// `true_computation=, false_computation=` for a PRED selector with two branches (how XLA
/// prints it), `branch_computations={...}` otherwise.
fn conditional_attrs(ctx: &Ctx<'_>, ins: &Instruction, branches: &[CompId]) -> Vec<String> {
    let pred = ctx
        .operand_shape(ins, 0)
        .is_some_and(|s| s.element_type().is_pred());
    match branches {
        [t, f] if pred => vec![
            format!("true_computation={}", ctx.comp_name(*t)),
            format!("false_computation={}", ctx.comp_name(*f)),
        ],
        _ => vec![format!("branch_computations={}", ctx.comp_list(branches))],
    }
}

/// `channel_id=N, source_target_pairs={{0,1},{1,0}}`.
fn permute_attrs(pairs: &[(i64, i64)], channel_id: Option<i64>) -> Vec<String> {
    let pairs: Vec<String> = pairs.iter().map(|(s, t)| format!("{{{s},{t}}}")).collect();
    let channel = channel_id.map(|c| format!("channel_id={c}"));
    channel
        .into_iter()
        .chain([format!("source_target_pairs={{{}}}", pairs.join(","))])
        .collect()
}
