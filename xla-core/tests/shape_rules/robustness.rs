//! Every op on awkward operands and attributes (negative, huge and out-of-range numbers,
//! tuples, tokens, empty and overflowing dims) returns `Ok` or `Err`, never panics.

use crate::util::*;
use xla_core::attrs::*;
use xla_core::ir::{CompId, Op};
use xla_core::shape_inference::ProgramShape;
use xla_core::{Literal, Shape};

const BIG: i64 = i64::MAX;
const NEG: i64 = i64::MIN;

fn weird_lists() -> Vec<Vec<i64>> {
    vec![
        vec![],
        vec![0],
        vec![-1],
        vec![BIG],
        vec![NEG],
        vec![0, 0],
        vec![1, 0],
        vec![2, 1, 0],
        vec![0, 1, 2, 3],
    ]
}

fn window(v: &[i64]) -> Window {
    Window {
        dims: v
            .iter()
            .map(|&x| WindowDim {
                size: x,
                stride: x,
                padding_low: x,
                padding_high: x.wrapping_neg(),
                window_dilation: x,
                base_dilation: x,
                window_reversal: false,
            })
            .collect(),
    }
}

fn ops_for(v: &[i64]) -> Vec<Op> {
    let x = v.first().copied().unwrap_or(0);
    let vv = v.to_vec();
    let dnums = ConvDimensionNumbers {
        input_batch_dimension: x,
        input_feature_dimension: 1,
        input_spatial_dimensions: vv.clone(),
        kernel_input_feature_dimension: x,
        kernel_output_feature_dimension: 0,
        kernel_spatial_dimensions: vv.clone(),
        output_batch_dimension: 0,
        output_feature_dimension: x,
        output_spatial_dimensions: vv.clone(),
    };
    let conv = ConvConfig {
        window: window(v),
        dnums,
        feature_group_count: x,
        batch_group_count: 1,
        precision: PrecisionConfig::default(),
    };
    let gdims = GatherDims {
        offset_dims: vv.clone(),
        collapsed_slice_dims: vv.clone(),
        start_index_map: vv.clone(),
        index_vector_dim: x,
        operand_batching_dims: vv.clone(),
        start_indices_batching_dims: vv.clone(),
        slice_sizes: vv.clone(),
        indices_are_sorted: false,
    };
    let sdims = ScatterDims {
        update_window_dims: vv.clone(),
        inserted_window_dims: vv.clone(),
        scatter_dims_to_operand_dims: vv.clone(),
        index_vector_dim: x,
        input_batching_dims: vv.clone(),
        scatter_indices_batching_dims: vv.clone(),
        indices_are_sorted: false,
        unique_indices: false,
    };
    let dd = DotDims {
        lhs_batch_dims: vv.clone(),
        lhs_contracting_dims: vv.clone(),
        rhs_batch_dims: vv.clone(),
        rhs_contracting_dims: vv.clone(),
    };
    let cc = CollectiveConfig {
        replica_groups: ReplicaGroups {
            groups: vec![vv.clone()],
        },
        ..CollectiveConfig::default()
    };
    let pads = v
        .iter()
        .map(|&p| PadDim {
            low: p,
            high: p,
            interior: p,
        })
        .collect();
    let mut ops = vec![
        Op::Parameter { number: x },
        Op::Constant {
            literal: Literal::scalar(1i32),
        },
        Op::Iota { dimension: x },
        Op::Compare {
            direction: ComparisonDirection::Eq,
            comparison_type: Some(ComparisonType::Signed),
        },
        Op::Select,
        Op::Clamp,
        Op::Convert,
        Op::BitcastConvert,
        Op::ReducePrecision {
            exponent_bits: x,
            mantissa_bits: x,
        },
        Op::Map {
            dimensions: vv.clone(),
            to_apply: CompId(0),
        },
        Op::Tuple,
        Op::GetTupleElement { index: x },
        Op::Broadcast {
            dimensions: vv.clone(),
        },
        Op::Reshape,
        Op::Transpose {
            permutation: vv.clone(),
        },
        Op::Reverse {
            dimensions: vv.clone(),
        },
        Op::Slice {
            start: vv.clone(),
            limit: vv.iter().map(|d| d.wrapping_add(1)).collect(),
            stride: vv.clone(),
        },
        Op::DynamicSlice {
            slice_sizes: vv.clone(),
        },
        Op::DynamicUpdateSlice,
        Op::Concatenate { dimension: x },
        Op::Pad { padding: pads },
        Op::Bitcast,
        Op::Copy,
        Op::GetDimensionSize { dimension: x },
        Op::SetDimensionSize { dimension: x },
        Op::OptimizationBarrier,
        Op::Gather(gdims),
        Op::Scatter {
            dims: sdims,
            to_apply: CompId(0),
        },
        Op::Dot {
            dims: dd,
            precision: PrecisionConfig::default(),
        },
        Op::Convolution(conv),
        Op::Reduce {
            dimensions: vv.clone(),
            to_apply: CompId(0),
        },
        Op::ReduceWindow {
            window: window(v),
            to_apply: CompId(0),
        },
        Op::SelectAndScatter {
            window: window(v),
            select: CompId(0),
            scatter: CompId(1),
        },
        Op::BatchNormTraining {
            epsilon: 0.1,
            feature_index: x,
        },
        Op::BatchNormInference {
            epsilon: 0.1,
            feature_index: x,
        },
        Op::BatchNormGrad {
            epsilon: 0.1,
            feature_index: x,
        },
        Op::Cholesky { lower: true },
        Op::TriangularSolve(TriangularSolveOptions {
            left_side: x % 2 == 0,
            lower: true,
            unit_diagonal: false,
            transpose_a: Transpose::Adjoint,
        }),
        Op::Sort {
            dimension: x,
            is_stable: false,
            to_apply: CompId(0),
        },
        Op::TopK {
            k: x,
            largest: true,
        },
        Op::Call {
            to_apply: CompId(0),
            composite: None,
        },
        Op::Conditional {
            branches: vec![CompId(0), CompId(1)],
        },
        Op::While {
            condition: CompId(0),
            body: CompId(1),
        },
        Op::CustomCall {
            config: CustomCallConfig::default(),
            called: Vec::new(),
        },
        Op::Rng {
            distribution: RngDistribution::Normal,
        },
        Op::RngBitGenerator {
            algorithm: RngAlgorithm::Default,
        },
        Op::RngGetAndUpdateState { delta: x },
        Op::AfterAll,
        Op::AddDependency,
        Op::AllGather {
            dimension: x,
            config: cc.clone(),
        },
        Op::AllReduce {
            config: cc.clone(),
            to_apply: CompId(0),
        },
        Op::ReduceScatter {
            dimension: x,
            config: cc.clone(),
            to_apply: CompId(0),
        },
        Op::AllToAll {
            dimension: Some(x),
            config: cc.clone(),
        },
        Op::AllToAll {
            dimension: None,
            config: cc,
        },
        Op::CollectivePermute {
            source_target_pairs: v.iter().map(|&a| (a, a)).collect(),
            channel_id: None,
        },
        Op::ReplicaId,
        Op::PartitionId,
        Op::Send {
            channel_id: x,
            is_host_transfer: false,
        },
        Op::SendDone {
            channel_id: x,
            is_host_transfer: false,
        },
        Op::Recv {
            channel_id: x,
            is_host_transfer: false,
        },
        Op::RecvDone {
            channel_id: x,
            is_host_transfer: false,
        },
        Op::Infeed {
            config: String::new(),
        },
        Op::Outfeed {
            config: String::new(),
            outfeed_shape: None,
        },
    ];
    ops.extend(FftType::ALL.iter().map(|&t| Op::Fft {
        fft_type: t,
        fft_length: vv.clone(),
    }));
    ops.extend(UnaryOp::ALL.iter().map(|&u| Op::Unary(u)));
    ops.extend(BinaryOp::ALL.iter().map(|&b| Op::Binary(b)));
    ops
}

fn shape_pool() -> Vec<Shape> {
    let texts = [
        "f32[]",
        "f32[0]",
        "s32[3]",
        "s32[]",
        "f32[2,1]",
        "u64[2]",
        "c64[2,2]",
        "pred[4,0,2]",
        "(f32[], s32[])",
        "token[]",
        "f32[<=4]",
    ];
    let mut pool: Vec<Shape> = texts.iter().map(|t| sh(t)).collect();
    pool.push(Shape::array(xla_core::PrimitiveType::F32, vec![BIG, 2]));
    pool.push(Shape::array(xla_core::PrimitiveType::S8, vec![-3]));
    pool.push(Shape::array(xla_core::PrimitiveType::F32, vec![NEG, BIG]));
    pool
}

fn called_pool() -> Vec<Vec<ProgramShape>> {
    vec![
        vec![],
        vec![sig("(f32[], f32[]) -> f32[]")],
        vec![sig("(f32[]) -> pred[]"), sig("(f32[]) -> f32[]")],
        vec![
            sig("() -> (f32[], s32[])"),
            sig("((f32[], s32[])) -> s32[2]"),
        ],
    ]
}

#[test]
fn no_rule_panics() {
    let pool = shape_pool();
    let calls = called_pool();
    let mut operand_lists: Vec<Vec<&Shape>> = vec![vec![]];
    for a in &pool {
        operand_lists.push(vec![a]);
        for b in &pool {
            operand_lists.push(vec![a, b]);
            for c in pool.iter().step_by(3) {
                operand_lists.push(vec![a, b, c]);
            }
        }
    }
    operand_lists.extend(pool.iter().map(|a| vec![a; 5]));
    let declared: Vec<Option<&Shape>> =
        vec![None, pool.first(), pool.get(4), pool.get(8), pool.get(11)];
    let mut calls_made = 0usize;
    for v in weird_lists() {
        for op in ops_for(&v) {
            for (k, operands) in operand_lists.iter().enumerate() {
                let called = &calls[k % calls.len()];
                let d = declared[k % declared.len()];
                let _ = xla_core::ir::infer_shape(&op, operands, called, d);
                calls_made += 1;
            }
        }
    }
    assert!(calls_made > 100_000, "only {calls_made} calls");
}
