//! Rows of the method table: indexing, linalg, sorting, control flow, rng, collectives.

use super::*;

pub(super) fn rows() -> Vec<Row> {
    vec![
        (
            "gather rows",
            |b| {
                let dims = GatherDims {
                    offset_dims: vec![1],
                    collapsed_slice_dims: vec![0],
                    start_index_map: vec![0],
                    index_vector_dim: 1,
                    slice_sizes: vec![1, 3],
                    ..GatherDims::default()
                };
                b.gather(
                    param(b, 0, f32s(&[3, 3])),
                    param(b, 1, arr(S32, &[2, 1])),
                    &dims,
                )
            },
            "gather",
            "f32[2,3]",
        ),
        (
            "scatter",
            |b| {
                b.scatter(
                    param(b, 0, f32s(&[3, 3])),
                    param(b, 1, arr(S32, &[2, 1])),
                    param(b, 2, f32s(&[2, 3])),
                    &row_scatter(),
                    Combiner::Add,
                )
            },
            "scatter",
            "f32[3,3]",
        ),
        (
            "scatter_variadic",
            |b| {
                let ops = [param(b, 0, f32s(&[3, 3])), param(b, 1, arr(S32, &[3, 3]))];
                let upd = [param(b, 3, f32s(&[2, 3])), param(b, 4, arr(S32, &[2, 3]))];
                b.scatter_variadic(
                    &ops,
                    param(b, 2, arr(S32, &[2, 1])),
                    &upd,
                    &row_scatter(),
                    Combiner::Add,
                )
            },
            "scatter",
            "(f32[3,3], s32[3,3])",
        ),
        (
            "batch_norm_training",
            |b| {
                b.batch_norm_training(
                    param(b, 0, f32s(&[2, 3, 4])),
                    param(b, 1, f32s(&[3])),
                    param(b, 2, f32s(&[3])),
                    1e-3,
                    1,
                )
            },
            "batch-norm-training",
            "(f32[2,3,4], f32[3], f32[3])",
        ),
        (
            "batch_norm_inference",
            |b| {
                let f = |n| param(b, n, f32s(&[3]));
                b.batch_norm_inference(
                    param(b, 0, f32s(&[2, 3, 4])),
                    f(1),
                    f(2),
                    f(3),
                    f(4),
                    1e-3,
                    1,
                )
            },
            "batch-norm-inference",
            "f32[2,3,4]",
        ),
        (
            "batch_norm_grad",
            |b| {
                let f = |n| param(b, n, f32s(&[3]));
                b.batch_norm_grad(
                    param(b, 0, f32s(&[2, 3, 4])),
                    f(1),
                    f(2),
                    f(3),
                    param(b, 4, f32s(&[2, 3, 4])),
                    1e-3,
                    1,
                )
            },
            "batch-norm-grad",
            "(f32[2,3,4], f32[3], f32[3])",
        ),
        (
            "cholesky",
            |b| b.cholesky(param(b, 0, f32s(&[5, 3, 3])), true),
            "cholesky",
            "f32[5,3,3]",
        ),
        (
            "triangular_solve",
            |b| {
                let options = TriangularSolveOptions {
                    left_side: true,
                    lower: true,
                    unit_diagonal: false,
                    transpose_a: Transpose::NoTranspose,
                };
                b.triangular_solve(
                    param(b, 0, f32s(&[3, 3])),
                    param(b, 1, f32s(&[3, 4])),
                    options,
                )
            },
            "triangular-solve",
            "f32[3,4]",
        ),
        (
            "fft",
            |b| b.fft(param(b, 0, arr(C64, &[2, 8])), FftType::Fft, &[8]),
            "fft",
            "c64[2,8]",
        ),
        (
            "rfft",
            |b| b.fft(param(b, 0, f32s(&[2, 8])), FftType::Rfft, &[8]),
            "fft",
            "c64[2,5]",
        ),
        (
            "irfft",
            |b| b.fft(param(b, 0, arr(C64, &[2, 5])), FftType::Irfft, &[8]),
            "fft",
            "f32[2,8]",
        ),
        (
            "sort",
            |b| {
                b.sort(
                    [param(b, 0, f32s(&[2, 5]))],
                    -1,
                    false,
                    binary(|sb, a, c| sb.lt(a, c)),
                )
            },
            "sort",
            "f32[2,5]",
        ),
        (
            "sort multi-operand",
            |b| {
                let ops = [param(b, 0, f32s(&[5])), param(b, 1, arr(S32, &[5]))];
                b.sort(&ops, 0, true, nary(|sb, p| sb.lt_total_order(&p[0], &p[1])))
            },
            "sort",
            "(f32[5], s32[5])",
        ),
        (
            "top_k",
            |b| b.top_k(param(b, 0, f32s(&[3, 10])), 4, true),
            "topk",
            "(f32[3,4], s32[3,4])",
        ),
        (
            "map",
            |b| {
                b.map(
                    [param(b, 0, f32s(&[4])), param(b, 1, f32s(&[4]))],
                    &[0],
                    binary(|_, x, y| x * y),
                )
            },
            "map",
            "f32[4]",
        ),
        (
            "call",
            |b| b.call([param(b, 0, f32s(&[4]))], unary(|_, x| x.exp())),
            "call",
            "f32[4]",
        ),
        (
            "composite_call",
            |b| {
                b.composite_call(
                    [param(b, 0, f32s(&[4]))],
                    unary(|_, x| x.tanh()),
                    "my.tanh",
                    "{}",
                    1,
                )
            },
            "call",
            "f32[4]",
        ),
        (
            "conditional pred",
            |b| {
                let (p, x) = (param(b, 0, arr(Pred, &[])), param(b, 1, f32s(&[3])));
                let y = param(b, 2, arr(S32, &[3]));
                b.conditional(p, &x, unary(|_, v| -v), &y, unary(|_, v| v.convert(F32)))
            },
            "conditional",
            "f32[3]",
        ),
        (
            "conditional_indexed",
            |b| {
                let (i, x) = (param(b, 0, arr(S32, &[])), param(b, 1, f32s(&[3])));
                let exp = unary(|_, v: XlaOp| v.exp());
                let sub = b.sub_builder("neg");
                let nx = sub.parameter(0, f32s(&[3]), "x");
                let neg = sub.build_sub(&sub.neg(&nx)).unwrap();
                let exp = {
                    let sub = b.sub_builder("exp");
                    let ex = sub.parameter(0, f32s(&[3]), "x");
                    let _ = exp;
                    sub.build_sub(&ex.exp()).unwrap()
                };
                b.conditional_indexed(i, [&neg, &exp, &neg], [&x, &x, &x])
            },
            "conditional",
            "f32[3]",
        ),
        (
            "while_loop",
            |b| {
                let init = b.tuple([b.constant_r0(0i32), b.constant_r0(1.0f32)]);
                let cond = unary(|sb, s| sb.lt(sb.get_tuple_element(&s, 0), sb.constant_r0(10i32)));
                let body = unary(|sb, s| {
                    let i = sb.get_tuple_element(&s, 0);
                    let x = sb.get_tuple_element(&s, 1);
                    sb.tuple([&i + 1i32, &x * 2.0f32])
                });
                b.while_loop(init, cond, body)
            },
            "while",
            "(s32[], f32[])",
        ),
        (
            "custom_call",
            |b| b.custom_call("my_fn", [param(b, 0, f32s(&[2]))], f32s(&[7]), "cfg", true),
            "custom-call",
            "f32[7]",
        ),
        (
            "rng_uniform",
            |b| b.rng_uniform(b.constant_r0(0.0f32), b.constant_r0(1.0f32), f32s(&[2, 3])),
            "rng",
            "f32[2,3]",
        ),
        (
            "rng_normal",
            |b| b.rng_normal(b.constant_r0(0.0f64), b.constant_r0(1.0f64), arr(F64, &[4])),
            "rng",
            "f64[4]",
        ),
        (
            "rng_bernoulli",
            |b| b.rng_bernoulli(b.constant_r0(0.3f32), arr(U32, &[2, 2])),
            "convert",
            "u32[2,2]",
        ),
        (
            "rng_bit_generator",
            |b| {
                b.rng_bit_generator(
                    RngAlgorithm::ThreeFry,
                    param(b, 0, arr(U64, &[2])),
                    arr(U32, &[4, 4]),
                )
            },
            "rng-bit-generator",
            "(u64[2], u32[4,4])",
        ),
        (
            "after_all",
            |b| b.after_all([b.create_token(), b.create_token()]),
            "after-all",
            "token[]",
        ),
        (
            "all_gather",
            |b| {
                b.all_gather(
                    param(b, 0, f32s(&[2, 3])),
                    1,
                    4,
                    &CollectiveConfig::default(),
                )
            },
            "all-gather",
            "f32[2,12]",
        ),
        (
            "all_reduce",
            |b| {
                b.all_reduce(
                    param(b, 0, f32s(&[2, 3])),
                    &CollectiveConfig::default(),
                    Combiner::Add,
                )
            },
            "all-reduce",
            "f32[2,3]",
        ),
        (
            "cross_replica_sum",
            |b| b.cross_replica_sum(param(b, 0, f32s(&[2])), &ReplicaGroups::default()),
            "all-reduce",
            "f32[2]",
        ),
        (
            "reduce_scatter",
            |b| {
                b.reduce_scatter(
                    param(b, 0, f32s(&[8, 3])),
                    0,
                    4,
                    &CollectiveConfig::default(),
                    Combiner::Add,
                )
            },
            "reduce-scatter",
            "f32[2,3]",
        ),
        (
            "all_to_all spec example",
            |b| {
                b.all_to_all(
                    param(b, 0, f32s(&[4, 16])),
                    1,
                    0,
                    4,
                    &CollectiveConfig::default(),
                )
            },
            "reshape",
            "f32[16,4]",
        ),
        (
            "all_to_all same dimension",
            |b| {
                b.all_to_all(
                    param(b, 0, f32s(&[8, 3])),
                    0,
                    0,
                    4,
                    &CollectiveConfig::default(),
                )
            },
            "all-to-all",
            "f32[8,3]",
        ),
        (
            "collective_permute",
            |b| b.collective_permute(param(b, 0, f32s(&[2])), &[(0, 1), (1, 0)]),
            "collective-permute",
            "f32[2]",
        ),
        ("replica_id", |b| b.replica_id(), "replica-id", "u32[]"),
        (
            "partition_id",
            |b| b.partition_id(),
            "partition-id",
            "u32[]",
        ),
        (
            "send",
            |b| b.send(param(b, 0, f32s(&[2])), 7),
            "send-done",
            "token[]",
        ),
        (
            "recv",
            |b| b.recv(f32s(&[2]), 7),
            "get-tuple-element",
            "f32[2]",
        ),
        (
            "recv_with_token",
            |b| b.recv_with_token(b.create_token(), f32s(&[2]), 7),
            "recv-done",
            "(f32[2], token[])",
        ),
        (
            "infeed",
            |b| b.infeed(f32s(&[2]), ""),
            "get-tuple-element",
            "f32[2]",
        ),
        (
            "infeed_with_token",
            |b| b.infeed_with_token(b.create_token(), f32s(&[2]), ""),
            "infeed",
            "(f32[2], token[])",
        ),
        (
            "outfeed",
            |b| b.outfeed(param(b, 0, f32s(&[2])), ""),
            "outfeed",
            "token[]",
        ),
        (
            "outfeed_with_token",
            |b| b.outfeed_with_token(param(b, 0, f32s(&[2])), b.create_token(), ""),
            "outfeed",
            "token[]",
        ),
        (
            "send_with_token",
            |b| b.send_with_token(param(b, 0, f32s(&[2])), b.create_token(), 1),
            "send-done",
            "token[]",
        ),
        ("create_token", |b| b.create_token(), "after-all", "token[]"),
        (
            "custom_call_with_config",
            |b| {
                let config = xla_core::ir::CustomCallConfig {
                    target: "f".into(),
                    api_version: "API_VERSION_TYPED_FFI".into(),
                    ..Default::default()
                };
                let shape = Shape::tuple(vec![f32s(&[2]), arr(S32, &[])]);
                b.custom_call_with_config([param(b, 0, f32s(&[2]))], shape, config, &[])
            },
            "custom-call",
            "(f32[2], s32[])",
        ),
    ]
}
