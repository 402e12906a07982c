//! Contraction rules: dot (the spec's Dot and DotGeneral tables) and convolution (strides,
//! padding, dilations, feature and batch groups, dimension numbers).

use crate::util::*;
use xla_core::attrs::{ConvDimensionNumbers, DotDims, Precision, PrecisionConfig};
use xla_core::ir::Op;

fn dot(lb: &[i64], lc: &[i64], rb: &[i64], rc: &[i64]) -> Op {
    let dims = DotDims {
        lhs_batch_dims: lb.to_vec(),
        lhs_contracting_dims: lc.to_vec(),
        rhs_batch_dims: rb.to_vec(),
        rhs_contracting_dims: rc.to_vec(),
    };
    Op::Dot {
        dims,
        precision: PrecisionConfig::default(),
    }
}

/// `b01f_01io->b01f` (NHWC / HWIO) for two spatial dims.
fn nhwc() -> ConvDimensionNumbers {
    ConvDimensionNumbers {
        input_batch_dimension: 0,
        input_feature_dimension: 3,
        input_spatial_dimensions: vec![1, 2],
        kernel_input_feature_dimension: 2,
        kernel_output_feature_dimension: 3,
        kernel_spatial_dimensions: vec![0, 1],
        output_batch_dimension: 0,
        output_feature_dimension: 3,
        output_spatial_dimensions: vec![1, 2],
    }
}

#[test]
fn dot_rules() {
    let mm = || dot(&[], &[1], &[], &[0]);
    run(vec![
        // Spec, Dot: vector.vector, matrix.vector, matrix.matrix.
        ok(
            "vector dot vector",
            dot(&[], &[0], &[], &[0]),
            &["f32[3]", "f32[3]"],
            "f32[]",
        ),
        ok("matrix dot vector", mm(), &["f32[4,3]", "f32[3]"], "f32[4]"),
        ok(
            "matrix dot matrix",
            mm(),
            &["f32[4,3]", "f32[3,5]"],
            "f32[4,5]",
        ),
        // Spec, DotGeneral: contracting {1},{1}; batch {0},{0} with contracting {2},{1}.
        ok(
            "contract dim 1 with dim 1",
            dot(&[], &[1], &[], &[1]),
            &["f32[2,3]", "f32[2,3]"],
            "f32[2,2]",
        ),
        ok(
            "batch matmul 2x2",
            dot(&[0], &[2], &[0], &[1]),
            &["f32[2,2,2]", "f32[2,2,2]"],
            "f32[2,2,2]",
        ),
        ok(
            "[b0,m,k] dot [b0,k,n]",
            dot(&[0], &[2], &[0], &[1]),
            &["f32[6,4,3]", "f32[6,3,5]"],
            "f32[6,4,5]",
        ),
        ok(
            "[b0,b1,m,k] dot [b0,b1,k,n]",
            dot(&[0, 1], &[3], &[0, 1], &[2]),
            &["f32[6,7,4,3]", "f32[6,7,3,5]"],
            "f32[6,7,4,5]",
        ),
        ok(
            "batch dims anywhere (README)",
            dot(&[2], &[0], &[0], &[2]),
            &["f32[3,4,6]", "f32[6,5,3]"],
            "f32[6,4,5]",
        ),
        ok(
            "outer product",
            dot(&[], &[], &[], &[]),
            &["f32[2]", "f32[3]"],
            "f32[2,3]",
        ),
        ok(
            "s8 x s8 -> s32 (declared)",
            mm(),
            &["s8[4,3]", "s8[3,5]"],
            "s32[4,5]",
        )
        .declared("s32[4,5]"),
        ok(
            "bf16 x bf16 -> f32 (declared)",
            mm(),
            &["bf16[4,3]", "bf16[3,5]"],
            "f32[4,5]",
        )
        .declared("f32[4,5]"),
        err(
            "contracting sizes differ",
            dot(&[], &[1], &[], &[0]),
            &["f32[2,3]", "f32[4,5]"],
            "contracting dimension sizes differ: lhs f32[2,3] dim 1 is 3, rhs f32[4,5] dim 0 is 4",
        ),
        err(
            "batch sizes differ",
            dot(&[0], &[2], &[0], &[1]),
            &["f32[2,4,3]", "f32[5,3,5]"],
            "batch dimension sizes differ: lhs f32[2,4,3] dim 0 is 2, rhs f32[5,3,5] dim 0 is 5",
        ),
        err(
            "contracting counts differ",
            dot(&[], &[1], &[], &[]),
            &["f32[2,3]", "f32[3]"],
            "must have the same length",
        ),
        err(
            "batch counts differ",
            dot(&[0], &[], &[], &[]),
            &["f32[2,3]", "f32[2]"],
            "lhs_batch_dims {0} and rhs_batch_dims {} must have the same length",
        ),
        err(
            "contracting dim out of range",
            dot(&[], &[2], &[], &[0]),
            &["f32[2,3]", "f32[3]"],
            "lhs_contracting_dims {2} contains 2",
        ),
        err(
            "dim both batch and contracting",
            dot(&[0], &[0], &[0], &[1]),
            &["f32[2,3]", "f32[2,2]"],
            "repeats dimension 0",
        ),
        err(
            "operand types differ",
            mm(),
            &["f32[4,3]", "s32[3,5]"],
            "same element type",
        ),
        err(
            "declared type narrows integers",
            mm(),
            &["s32[4,3]", "s32[3,5]"],
            "result element type s8 is not allowed",
        )
        .declared("s8[4,5]"),
        err(
            "precision config of one entry",
            Op::Dot {
                dims: DotDims {
                    lhs_contracting_dims: vec![1],
                    rhs_contracting_dims: vec![0],
                    ..DotDims::default()
                },
                precision: PrecisionConfig {
                    operand_precision: vec![Precision::Highest],
                },
            },
            &["f32[4,3]", "f32[3,5]"],
            "0 or 2 entries",
        ),
        err(
            "dot of a tuple",
            mm(),
            &["(f32[4,3])", "f32[3,5]"],
            "lhs must be an array",
        ),
    ]);
}

#[test]
fn convolution_rules() {
    let w1 = |k: i64, s: i64| win_simple(&[k, k], &[s, s]);
    let x = "f32[1,1,4,4]";
    let k2 = "f32[1,1,2,2]";
    run(vec![
        ok(
            "2x2 kernel, stride 1",
            conv(w1(2, 1), 1, 1),
            &[x, k2],
            "f32[1,1,3,3]",
        ),
        ok("stride 2", conv(w1(2, 2), 1, 1), &[x, k2], "f32[1,1,2,2]"),
        ok(
            "padding 1 on each side",
            conv(win(&[(2, 1, 1, 1, 1, 1), (2, 1, 1, 1, 1, 1)]), 1, 1),
            &[x, k2],
            "f32[1,1,5,5]",
        ),
        ok(
            "negative padding",
            conv(win(&[(2, 1, -1, 0, 1, 1), (2, 1, 0, -1, 1, 1)]), 1, 1),
            &[x, k2],
            "f32[1,1,2,2]",
        ),
        ok(
            "lhs dilation 2",
            conv(win(&[(2, 1, 0, 0, 2, 1), (2, 1, 0, 0, 2, 1)]), 1, 1),
            &[x, k2],
            "f32[1,1,6,6]",
        ),
        ok(
            "rhs dilation 2",
            conv(win(&[(2, 1, 0, 0, 1, 2), (2, 1, 0, 0, 1, 2)]), 1, 1),
            &[x, k2],
            "f32[1,1,2,2]",
        ),
        ok(
            "SAME padding for a 3x3 kernel",
            conv(win(&[(3, 1, 1, 1, 1, 1), (3, 1, 1, 1, 1, 1)]), 1, 1),
            &["f32[2,3,5,5]", "f32[8,3,3,3]"],
            "f32[2,8,5,5]",
        ),
        ok(
            "feature groups",
            conv(w1(3, 1), 2, 1),
            &["f32[1,4,5,5]", "f32[8,2,3,3]"],
            "f32[1,8,3,3]",
        ),
        ok(
            "depthwise",
            conv(w1(3, 1), 3, 1),
            &["f32[2,3,5,5]", "f32[3,1,3,3]"],
            "f32[2,3,3,3]",
        ),
        ok(
            "batch groups",
            conv(w1(3, 1), 1, 2),
            &["f32[4,2,5,5]", "f32[6,2,3,3]"],
            "f32[2,6,3,3]",
        ),
        ok(
            "NHWC / HWIO numbering",
            conv_dn(w1(3, 1), nhwc(), 1, 1),
            &["f32[1,5,5,3]", "f32[3,3,3,8]"],
            "f32[1,3,3,8]",
        ),
        ok(
            "1-D convolution",
            conv(win_simple(&[3], &[2]), 1, 1),
            &["f32[2,4,9]", "f32[5,4,3]"],
            "f32[2,5,4]",
        ),
        ok(
            "s8 conv to s32 (declared)",
            conv(w1(2, 1), 1, 1),
            &["s8[1,1,4,4]", "s8[1,1,2,2]"],
            "s32[1,1,3,3]",
        )
        .declared("s32[1,1,3,3]"),
        err(
            "input features vs kernel",
            conv(w1(2, 1), 1, 1),
            &["f32[1,2,4,4]", k2],
            "feature dimension (2) must equal feature_group_count (1)",
        ),
        err(
            "feature groups must divide input features",
            conv(w1(3, 1), 3, 1),
            &["f32[1,4,5,5]", "f32[6,1,3,3]"],
            "must equal feature_group_count (3)",
        ),
        err(
            "feature groups must divide output features",
            conv(w1(3, 1), 2, 1),
            &["f32[1,4,5,5]", "f32[3,2,3,3]"],
            "divisible by feature_group_count (2)",
        ),
        err(
            "batch groups must divide the batch",
            conv(w1(3, 1), 1, 3),
            &["f32[4,2,5,5]", "f32[6,2,3,3]"],
            "batch dimension (4) must be divisible by batch_group_count (3)",
        ),
        err(
            "batch groups must divide output features",
            conv(w1(3, 1), 1, 2),
            &["f32[4,2,5,5]", "f32[5,2,3,3]"],
            "divisible by batch_group_count (2)",
        ),
        err(
            "both group counts > 1",
            conv(w1(3, 1), 2, 2),
            &["f32[4,4,5,5]", "f32[8,2,3,3]"],
            "cannot both exceed 1",
        ),
        err(
            "group count 0",
            conv(w1(3, 1), 0, 1),
            &["f32[4,4,5,5]", "f32[8,2,3,3]"],
            "must be positive",
        ),
        err(
            "window size differs from the kernel",
            conv(w1(3, 1), 1, 1),
            &[x, k2],
            "window sizes {3,3} must equal the kernel spatial sizes {2,2}",
        ),
        err(
            "window dims count",
            conv_dn(win_simple(&[2], &[1]), ConvDimensionNumbers::nchw(2), 1, 1),
            &[x, k2],
            "must agree in count",
        ),
        err(
            "lhs rank",
            conv(w1(2, 1), 1, 1),
            &["f32[1,4,4]", k2],
            "lhs must have rank 4",
        ),
        err(
            "repeated dimension number",
            conv_dn(
                w1(2, 1),
                ConvDimensionNumbers {
                    input_feature_dimension: 0,
                    ..ConvDimensionNumbers::nchw(2)
                },
                1,
                1,
            ),
            &[x, k2],
            "input dimension numbers",
        ),
        err(
            "stride 0",
            conv(w1(2, 0), 1, 1),
            &[x, k2],
            "positive size and stride",
        ),
        err(
            "operand types differ",
            conv(w1(2, 1), 1, 1),
            &[x, "f64[1,1,2,2]"],
            "same element type",
        ),
    ]);
}

#[test]
fn more_contraction_rules() {
    let mm = || dot(&[], &[1], &[], &[0]);
    let out_dup = ConvDimensionNumbers {
        output_feature_dimension: 0,
        ..ConvDimensionNumbers::nchw(2)
    };
    let kernel_range = ConvDimensionNumbers {
        kernel_output_feature_dimension: 4,
        ..ConvDimensionNumbers::nchw(2)
    };
    run(vec![
        err(
            "declared type drops the imaginary part",
            mm(),
            &["c64[4,3]", "c64[3,5]"],
            "result element type f32 is not allowed",
        )
        .declared("f32[4,5]"),
        err(
            "declared pred result",
            mm(),
            &["f32[4,3]", "f32[3,5]"],
            "result element type pred is not allowed",
        )
        .declared("pred[4,5]"),
        err(
            "rhs contracting dim out of range",
            dot(&[], &[1], &[], &[2]),
            &["f32[4,3]", "f32[3,5]"],
            "rhs_contracting_dims {2} contains 2",
        ),
        err(
            "output dimension numbers repeat",
            conv_dn(win_simple(&[2, 2], &[1, 1]), out_dup, 1, 1),
            &["f32[1,1,4,4]", "f32[1,1,2,2]"],
            "output dimension numbers",
        ),
        err(
            "kernel dimension number out of range",
            conv_dn(win_simple(&[2, 2], &[1, 1]), kernel_range, 1, 1),
            &["f32[1,1,4,4]", "f32[1,1,2,2]"],
            "kernel dimension numbers",
        ),
        err(
            "rhs rank",
            conv(win_simple(&[2, 2], &[1, 1]), 1, 1),
            &["f32[1,1,4,4]", "f32[1,2,2]"],
            "rhs must have rank 4",
        ),
    ]);
}
