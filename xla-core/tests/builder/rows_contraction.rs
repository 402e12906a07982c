//! Rows of the method table: contractions, reductions and windows, indexing.

use super::*;

pub(super) fn rows() -> Vec<Row> {
    vec![
        (
            "dot vv",
            |b| b.dot(param(b, 0, f32s(&[3])), param(b, 1, f32s(&[3]))),
            "dot",
            "f32[]",
        ),
        (
            "dot mv",
            |b| b.dot(param(b, 0, f32s(&[2, 3])), param(b, 1, f32s(&[3]))),
            "dot",
            "f32[2]",
        ),
        (
            "dot mm",
            |b| b.dot(param(b, 0, f32s(&[2, 3])), param(b, 1, f32s(&[3, 4]))),
            "dot",
            "f32[2,4]",
        ),
        (
            "dot_general batch",
            |b| {
                let dims = DotDims {
                    lhs_batch_dims: vec![0],
                    lhs_contracting_dims: vec![2],
                    rhs_batch_dims: vec![0],
                    rhs_contracting_dims: vec![1],
                };
                b.dot_general(
                    param(b, 0, f32s(&[2, 2, 2])),
                    param(b, 1, f32s(&[2, 2, 2])),
                    &dims,
                )
            },
            "dot",
            "f32[2,2,2]",
        ),
        (
            "conv valid",
            |b| {
                b.conv(
                    param(b, 0, f32s(&[1, 2, 5, 5])),
                    param(b, 1, f32s(&[3, 2, 3, 3])),
                    &[1, 1],
                    Padding::Valid,
                )
            },
            "convolution",
            "f32[1,3,3,3]",
        ),
        (
            "conv same strided",
            |b| {
                b.conv(
                    param(b, 0, f32s(&[1, 2, 5, 5])),
                    param(b, 1, f32s(&[3, 2, 3, 3])),
                    &[2, 2],
                    Padding::Same,
                )
            },
            "convolution",
            "f32[1,3,3,3]",
        ),
        (
            "conv_with_general_padding",
            |b| {
                let (l, r) = (
                    param(b, 0, f32s(&[1, 1, 4, 4])),
                    param(b, 1, f32s(&[1, 1, 2, 2])),
                );
                b.conv_with_general_padding(l, r, &[1, 1], &[(1, 0), (0, 1)])
            },
            "convolution",
            "f32[1,1,4,4]",
        ),
        (
            "conv_general_dilated",
            |b| {
                let options = ConvOptions::new()
                    .strides(&[1, 1])
                    .padding(&[(0, 0), (0, 0)])
                    .lhs_dilation(&[2, 2])
                    .rhs_dilation(&[1, 2])
                    .feature_group_count(2);
                b.conv_general_dilated(
                    param(b, 0, f32s(&[1, 4, 3, 3])),
                    param(b, 1, f32s(&[6, 2, 2, 2])),
                    &options,
                )
            },
            "convolution",
            "f32[1,6,4,3]",
        ),
        (
            "reduce",
            |b| {
                b.reduce(
                    param(b, 0, f32s(&[2, 3])),
                    b.constant_r0(0.0f32),
                    &[1],
                    Combiner::Add,
                )
            },
            "reduce",
            "f32[2]",
        ),
        (
            "reduce_all",
            |b| {
                b.reduce_all(
                    param(b, 0, f32s(&[2, 3])),
                    b.constant_r0(0.0f32),
                    Combiner::Max,
                )
            },
            "reduce",
            "f32[]",
        ),
        (
            "reduce_variadic",
            |b| {
                let (v, i) = (param(b, 0, f32s(&[2, 3])), param(b, 1, arr(S32, &[2, 3])));
                let inits = [b.constant_r0(f32::NEG_INFINITY), b.constant_r0(0i32)];
                b.reduce_variadic([&v, &i], &inits, &[1], Combiner::Max)
            },
            "reduce",
            "(f32[2], s32[2])",
        ),
        (
            "reduce_window spec example",
            |b| {
                let x = param(b, 0, f32s(&[4, 6]));
                b.reduce_window(
                    x,
                    b.constant_r0(f32::MIN),
                    &[2, 3],
                    &[2, 3],
                    Padding::Valid,
                    Combiner::Max,
                )
            },
            "reduce-window",
            "f32[2,2]",
        ),
        (
            "reduce_window same",
            |b| {
                let x = param(b, 0, f32s(&[5, 5]));
                b.reduce_window(
                    x,
                    b.constant_r0(0.0f32),
                    &[3, 3],
                    &[2, 2],
                    Padding::Same,
                    Combiner::Add,
                )
            },
            "reduce-window",
            "f32[3,3]",
        ),
        (
            "reduce_window_with_general_padding",
            |b| {
                let x = param(b, 0, f32s(&[3]));
                b.reduce_window_with_general_padding(
                    x,
                    b.constant_r0(0.0f32),
                    &[2],
                    &[1],
                    &[2],
                    &[2],
                    &[(1, 1)],
                    Combiner::Add,
                )
            },
            "reduce-window",
            "f32[5]",
        ),
        (
            "reduce_window_variadic",
            |b| {
                let ops = [param(b, 0, f32s(&[4])), param(b, 1, arr(S32, &[4]))];
                let inits = [b.constant_r0(0.0f32), b.constant_r0(0i32)];
                b.reduce_window_variadic(&ops, &inits, &[2], &[2], Padding::Valid, Combiner::Add)
            },
            "reduce-window",
            "(f32[2], s32[2])",
        ),
        (
            "select_and_scatter",
            |b| {
                let (x, s) = (param(b, 0, f32s(&[4, 6])), param(b, 1, f32s(&[2, 2])));
                let select = binary(|sb, a, c| sb.ge(a, c));
                b.select_and_scatter(
                    x,
                    &[2, 3],
                    &[2, 3],
                    Padding::Valid,
                    s,
                    b.constant_r0(0.0f32),
                    select,
                    Combiner::Add,
                )
            },
            "select-and-scatter",
            "f32[4,6]",
        ),
        (
            "select_and_scatter_with_general_padding",
            |b| {
                let (x, s) = (param(b, 0, f32s(&[4])), param(b, 1, f32s(&[3])));
                let select = binary(|sb, a, c| sb.ge(a, c));
                let init = b.constant_r0(0.0f32);
                b.select_and_scatter_with_general_padding(
                    x,
                    &[2],
                    &[2],
                    &[(1, 1)],
                    s,
                    init,
                    select,
                    Combiner::Add,
                )
            },
            "select-and-scatter",
            "f32[4]",
        ),
        (
            "reduce_window_variadic_with_general_padding",
            |b| {
                let ops = [param(b, 0, f32s(&[4, 4])), param(b, 1, arr(S32, &[4, 4]))];
                let inits = [b.constant_r0(0.0f32), b.constant_r0(0i32)];
                let (dims, strides, pads) = (&[2, 2], &[1, 1], &[(0, 0), (1, 1)]);
                b.reduce_window_variadic_with_general_padding(
                    &ops,
                    &inits,
                    dims,
                    strides,
                    &[2, 1],
                    &[1, 2],
                    pads,
                    Combiner::Max,
                )
            },
            "reduce-window",
            "(f32[6,4], s32[6,4])",
        ),
        (
            "dot_general_with_precision",
            |b| {
                let dims = DotDims {
                    lhs_contracting_dims: vec![1],
                    rhs_contracting_dims: vec![1],
                    ..Default::default()
                };
                let precision = xla_core::ir::PrecisionConfig {
                    operand_precision: vec![xla_core::ir::Precision::Highest; 2],
                };
                b.dot_general_with_precision(
                    param(b, 0, f32s(&[2, 3])),
                    param(b, 1, f32s(&[4, 3])),
                    &dims,
                    &precision,
                )
            },
            "dot",
            "f32[2,4]",
        ),
    ]
}
