//! Collective, communication and rng rules.

use crate::util::*;
use xla_core::attrs::{CollectiveConfig, ReplicaGroups, RngAlgorithm, RngDistribution};
use xla_core::ir::Op;

fn groups(g: &[&[i64]]) -> CollectiveConfig {
    CollectiveConfig {
        replica_groups: ReplicaGroups {
            groups: g.iter().map(|x| x.to_vec()).collect(),
        },
        ..CollectiveConfig::default()
    }
}

#[test]
fn collectives() {
    let ag = |d, g: &[&[i64]]| Op::AllGather {
        dimension: d,
        config: groups(g),
    };
    let rs = |d, g: &[&[i64]]| Op::ReduceScatter {
        dimension: d,
        config: groups(g),
        to_apply: C0,
    };
    let ar = Op::AllReduce {
        config: groups(&[]),
        to_apply: C0,
    };
    let a2a = |d: Option<i64>, g: &[&[i64]]| Op::AllToAll {
        dimension: d,
        config: groups(g),
    };
    let add = "(f32[], f32[]) -> f32[]";
    run(vec![
        ok(
            "all-gather over groups of 2",
            ag(0, &[&[0, 2], &[1, 3]]),
            &["f32[4,16]"],
            "f32[8,16]",
        ),
        ok(
            "all-gather with no groups and no declared shape",
            ag(1, &[]),
            &["f32[4,16]"],
            "f32[4,16]",
        ),
        ok(
            "all-gather with no groups takes the count from the result",
            ag(1, &[]),
            &["f32[4,16]"],
            "f32[4,64]",
        )
        .declared("f32[4,64]"),
        err(
            "all-gather dimension out of range",
            ag(2, &[&[0, 1]]),
            &["f32[4,16]"],
            "dimension 2 is out of range",
        ),
        err(
            "all-gather groups of different sizes",
            ag(0, &[&[0, 1], &[2]]),
            &["f32[4]"],
            "same size",
        ),
        ok(
            "reduce-scatter divides",
            rs(0, &[&[0, 1]]),
            &["f32[4,16]"],
            "f32[2,16]",
        )
        .called(&[add]),
        err(
            "reduce-scatter not divisible",
            rs(1, &[&[0, 1, 2]]),
            &["f32[4,16]"],
            "must be divisible by the shard count 3",
        )
        .called(&[add]),
        err(
            "reduce-scatter reducer",
            rs(0, &[&[0, 1]]),
            &["f32[4,16]"],
            "must take and return f32 scalars",
        )
        .called(&["(s32[], s32[]) -> s32[]"]),
        ok(
            "all-reduce keeps the shape",
            ar.clone(),
            &["f32[2,5]"],
            "f32[2,5]",
        )
        .called(&[add]),
        ok(
            "all-reduce of several operands",
            ar.clone(),
            &["f32[2]", "f32[3]"],
            "(f32[2], f32[3])",
        )
        .called(&[add]),
        err(
            "all-reduce of a token",
            ar.clone(),
            &["token[]"],
            "must be an array",
        )
        .called(&[add]),
        err(
            "all-reduce reducer arity",
            ar,
            &["f32[2]"],
            "must take 2 parameters",
        )
        .called(&["(f32[]) -> f32[]"]),
        // Spec, AllToAll: f32[4,16] split over 4 cores.
        ok(
            "all-to-all array form",
            a2a(Some(1), &[&[0, 1, 2, 3]]),
            &["f32[4,16]"],
            "f32[4,16]",
        ),
        ok(
            "all-to-all tuple form",
            a2a(None, &[&[0, 1]]),
            &["f32[2]", "f32[2]"],
            "(f32[2], f32[2])",
        ),
        err(
            "all-to-all not divisible",
            a2a(Some(0), &[&[0, 1, 2]]),
            &["f32[4,16]"],
            "divisible by the split count 3",
        ),
        err(
            "all-to-all tuple shapes differ",
            a2a(None, &[&[0, 1]]),
            &["f32[2]", "f32[3]"],
            "must have the same shape",
        ),
        ok(
            "collective-permute",
            Op::CollectivePermute {
                source_target_pairs: vec![(0, 1), (1, 0)],
                channel_id: None,
            },
            &["f32[3]"],
            "f32[3]",
        ),
        err(
            "collective-permute repeated target",
            Op::CollectivePermute {
                source_target_pairs: vec![(0, 1), (2, 1)],
                channel_id: None,
            },
            &["f32[3]"],
            "repeat target replica 1 (pair 1)",
        ),
        ok("replica-id", Op::ReplicaId, &[], "u32[]"),
        ok("partition-id", Op::PartitionId, &[], "u32[]"),
        err(
            "replica-id takes nothing",
            Op::ReplicaId,
            &["f32[]"],
            "expects 0 operands, got 1",
        ),
    ]);
}

#[test]
fn tokens_and_channels() {
    let send = Op::Send {
        channel_id: 1,
        is_host_transfer: false,
    };
    let send_done = Op::SendDone {
        channel_id: 1,
        is_host_transfer: false,
    };
    let recv = Op::Recv {
        channel_id: 1,
        is_host_transfer: false,
    };
    let recv_done = Op::RecvDone {
        channel_id: 1,
        is_host_transfer: false,
    };
    let infeed = Op::Infeed {
        config: String::new(),
    };
    let outfeed = |s: Option<&str>| Op::Outfeed {
        config: String::new(),
        outfeed_shape: s.map(sh),
    };
    run(vec![
        ok(
            "after-all joins tokens",
            Op::AfterAll,
            &["token[]", "token[]"],
            "token[]",
        ),
        ok("after-all of nothing", Op::AfterAll, &[], "token[]"),
        err(
            "after-all of an array",
            Op::AfterAll,
            &["token[]", "f32[]"],
            "operand must be a token",
        ),
        ok(
            "add-dependency",
            Op::AddDependency,
            &["f32[3]", "token[]"],
            "f32[3]",
        ),
        err(
            "add-dependency needs a token",
            Op::AddDependency,
            &["f32[3]", "f32[3]"],
            "must be a token",
        ),
        ok(
            "send context",
            send,
            &["f32[3]", "token[]"],
            "(f32[3], u32[], token[])",
        ),
        ok(
            "send-done",
            send_done.clone(),
            &["(f32[3], u32[], token[])"],
            "token[]",
        ),
        err(
            "send-done of a non-context",
            send_done,
            &["f32[3]"],
            "context",
        ),
        ok(
            "recv takes the declared context",
            recv.clone(),
            &["token[]"],
            "(f32[3], u32[], token[])",
        )
        .declared("(f32[3], u32[], token[])"),
        err(
            "recv declared shape",
            recv,
            &["token[]"],
            "result must be (data, u32[], token[])",
        )
        .declared("f32[3]"),
        ok(
            "recv-done",
            recv_done,
            &["(f32[3], u32[], token[])"],
            "(f32[3], token[])",
        ),
        ok("infeed", infeed.clone(), &["token[]"], "(f32[2], token[])")
            .declared("(f32[2], token[])"),
        err(
            "infeed declared shape",
            infeed.clone(),
            &["token[]"],
            "result must be (data, token[])",
        )
        .declared("f32[2]"),
        err(
            "infeed of nested tuples",
            infeed.clone(),
            &["token[]"],
            "nested tuple data",
        )
        .declared("(((f32[]), f32[]), token[])"),
        err(
            "infeed needs a token",
            infeed,
            &["f32[]"],
            "must be a token",
        )
        .declared("(f32[2], token[])"),
        ok(
            "outfeed",
            outfeed(Some("f32[2]")),
            &["f32[2]", "token[]"],
            "token[]",
        ),
        err(
            "outfeed shape mismatch",
            outfeed(Some("f32[3]")),
            &["f32[2]", "token[]"],
            "does not match outfeed_shape",
        ),
    ]);
}

#[test]
fn rng_rules() {
    let rng = |d| Op::Rng { distribution: d };
    let rbg = Op::RngBitGenerator {
        algorithm: RngAlgorithm::ThreeFry,
    };
    run(vec![
        ok(
            "uniform floats",
            rng(RngDistribution::Uniform),
            &["f32[]", "f32[]"],
            "f32[3,4]",
        )
        .declared("f32[3,4]"),
        ok(
            "uniform ints",
            rng(RngDistribution::Uniform),
            &["s32[]", "s32[]"],
            "s32[5]",
        )
        .declared("s32[5]"),
        ok(
            "normal",
            rng(RngDistribution::Normal),
            &["f64[]", "f64[]"],
            "f64[5]",
        )
        .declared("f64[5]"),
        err(
            "normal of ints",
            rng(RngDistribution::Normal),
            &["s32[]", "s32[]"],
            "floating-point",
        )
        .declared("s32[5]"),
        err(
            "rng parameters not scalars",
            rng(RngDistribution::Uniform),
            &["f32[1]", "f32[]"],
            "a must be a scalar",
        )
        .declared("f32[5]"),
        err(
            "rng parameter types differ",
            rng(RngDistribution::Uniform),
            &["f32[]", "f64[]"],
            "same element type",
        )
        .declared("f32[5]"),
        err(
            "rng result type",
            rng(RngDistribution::Uniform),
            &["f32[]", "f32[]"],
            "same element type",
        )
        .declared("f64[5]"),
        err(
            "rng needs a declared shape",
            rng(RngDistribution::Uniform),
            &["f32[]", "f32[]"],
            "result shape must be given",
        ),
        ok(
            "rng-bit-generator",
            rbg.clone(),
            &["u64[2]"],
            "(u64[2], u32[3,4])",
        )
        .declared("(u64[2], u32[3,4])"),
        ok(
            "rng-bit-generator float bits",
            rbg.clone(),
            &["u64[2]"],
            "(u64[2], f16[5])",
        )
        .declared("(u64[2], f16[5])"),
        err(
            "rng-bit-generator state type",
            rbg.clone(),
            &["u32[2]"],
            "U64",
        )
        .declared("(u32[2], u32[3,4])"),
        err(
            "rng-bit-generator result",
            rbg,
            &["u64[2]"],
            "result must be",
        )
        .declared("(u64[3], u32[3,4])"),
        ok(
            "rng-get-and-update-state",
            Op::RngGetAndUpdateState { delta: 1 },
            &[],
            "u64[2]",
        ),
    ]);
}

#[test]
fn more_collective_rules() {
    let a2a = Op::AllToAll {
        dimension: Some(0),
        config: groups(&[&[0, 1]]),
    };
    let rbg = Op::RngBitGenerator {
        algorithm: RngAlgorithm::Philox,
    };
    run(vec![
        err(
            "array all-to-all of two operands",
            a2a,
            &["f32[4]", "f32[4]"],
            "expects 1 operand, got 2",
        ),
        err(
            "send needs a token",
            Op::Send {
                channel_id: 1,
                is_host_transfer: false,
            },
            &["f32[3]", "f32[]"],
            "second operand must be a token",
        ),
        err(
            "recv-done of a non-context",
            Op::RecvDone {
                channel_id: 1,
                is_host_transfer: false,
            },
            &["(f32[3], token[])"],
            "context",
        ),
        err(
            "outfeed needs a token",
            Op::Outfeed {
                config: String::new(),
                outfeed_shape: None,
            },
            &["f32[3]", "f32[3]"],
            "must be a token",
        ),
        err(
            "uniform of complex",
            Op::Rng {
                distribution: RngDistribution::Uniform,
            },
            &["c64[]", "c64[]"],
            "PRED, integer or floating-point",
        )
        .declared("c64[2]"),
        err(
            "rng-bit-generator state rank",
            rbg.clone(),
            &["u64[2,2]"],
            "state must have rank 1",
        )
        .declared("(u64[2,2], u32[3])"),
        err(
            "rng-bit-generator complex output",
            rbg.clone(),
            &["u64[3]"],
            "an integer or floating-point array",
        )
        .declared("(u64[3], c64[3])"),
        err(
            "rng-bit-generator pred output",
            rbg,
            &["u64[3]"],
            "an integer or floating-point array",
        )
        .declared("(u64[3], pred[3])"),
        err(
            "all-gather of a token",
            Op::AllGather {
                dimension: 0,
                config: groups(&[&[0, 1]]),
            },
            &["token[]"],
            "must be an array",
        ),
    ]);
}
