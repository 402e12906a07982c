//! Structural rules: leaves, tuples, broadcast, reshape (and Collapse), transpose, reverse,
//! slices, concatenate, pad, bitcast, copy, dimension sizes.

use crate::util::*;
use xla_core::attrs::PadDim;
use xla_core::ir::Op;
use xla_core::Literal;

fn bcast(d: &[i64]) -> Op {
    Op::Broadcast {
        dimensions: d.to_vec(),
    }
}
fn slice(s: &[i64], l: &[i64], st: &[i64]) -> Op {
    Op::Slice {
        start: s.to_vec(),
        limit: l.to_vec(),
        stride: st.to_vec(),
    }
}
fn ds(sizes: &[i64]) -> Op {
    Op::DynamicSlice {
        slice_sizes: sizes.to_vec(),
    }
}
fn concat(d: i64) -> Op {
    Op::Concatenate { dimension: d }
}
fn pad(p: &[(i64, i64, i64)]) -> Op {
    Op::Pad {
        padding: p
            .iter()
            .map(|&(low, high, interior)| PadDim {
                low,
                high,
                interior,
            })
            .collect(),
    }
}

#[test]
fn leaves_and_tuples() {
    let gte = |i| Op::GetTupleElement { index: i };
    run(vec![
        ok(
            "parameter takes the declared shape",
            Op::Parameter { number: 0 },
            &[],
            "f32[2,3]",
        )
        .declared("f32[2,3]{1,0}"),
        err(
            "parameter needs a declared shape",
            Op::Parameter { number: 0 },
            &[],
            "result shape must be given",
        ),
        err(
            "parameter has no operands",
            Op::Parameter { number: 0 },
            &["f32[]"],
            "expects 0 operands, got 1",
        )
        .declared("f32[]"),
        ok(
            "constant takes the literal's shape",
            Op::Constant {
                literal: Literal::scalar(1.5f32),
            },
            &[],
            "f32[]",
        )
        .declared("f32[]"),
        err(
            "constant literal differs from the declared shape",
            Op::Constant {
                literal: Literal::scalar(1.5f32),
            },
            &[],
            "does not match the declared shape",
        )
        .declared("f64[]"),
        // Spec, Iota: s32[4,8] along 0 and 1.
        ok("iota along 0", Op::Iota { dimension: 0 }, &[], "s32[4,8]").declared("s32[4,8]"),
        ok("iota along 1", Op::Iota { dimension: 1 }, &[], "s32[4,8]").declared("s32[4,8]"),
        ok("iota of floats", Op::Iota { dimension: 0 }, &[], "f32[5]").declared("f32[5]"),
        err(
            "iota dimension out of range",
            Op::Iota { dimension: 2 },
            &[],
            "iota_dimension 2 is out of range",
        )
        .declared("s32[4,8]"),
        err(
            "iota of a scalar",
            Op::Iota { dimension: 0 },
            &[],
            "rank at least 1",
        )
        .declared("s32[]"),
        err(
            "iota needs a declared shape",
            Op::Iota { dimension: 0 },
            &[],
            "result shape must be given",
        ),
        // Spec, Tuple / GetTupleElement: t = tuple(v, s); element 1 is s32.
        ok(
            "tuple of two",
            Op::Tuple,
            &["f32[10]", "s32[]"],
            "(f32[10], s32[])",
        ),
        ok("empty tuple", Op::Tuple, &[], "()"),
        ok(
            "get-tuple-element 1",
            gte(1),
            &["(f32[10], s32[])"],
            "s32[]",
        ),
        ok(
            "nested tuple element",
            gte(0),
            &["((f32[], s32[]), pred[])"],
            "(f32[], s32[])",
        ),
        err(
            "get-tuple-element out of range",
            gte(2),
            &["(f32[10], s32[])"],
            "index 2 is out of range",
        ),
        err(
            "get-tuple-element negative",
            gte(-1),
            &["(f32[10], s32[])"],
            "index -1 is out of range",
        ),
        err(
            "get-tuple-element of an array",
            gte(0),
            &["f32[10]"],
            "must be a tuple",
        ),
        ok(
            "opt-barrier passes through",
            Op::OptimizationBarrier,
            &["(f32[2], s32[])"],
            "(f32[2], s32[])",
        ),
        ok(
            "copy passes through",
            Op::Copy,
            &["f32[4,3]{0,1}"],
            "f32[4,3]",
        ),
    ]);
}

#[test]
fn broadcast_reshape_transpose_reverse() {
    let rev = |d: &[i64]| Op::Reverse {
        dimensions: d.to_vec(),
    };
    let tr = |p: &[i64]| Op::Transpose {
        permutation: p.to_vec(),
    };
    run(vec![
        // Spec, Broadcast: scalar 2.0f to {2,3}.
        ok("broadcast a scalar", bcast(&[]), &["f32[]"], "f32[2,3]").declared("f32[2,3]"),
        ok("broadcast in dim", bcast(&[1]), &["f32[3]"], "f32[2,3]").declared("f32[2,3]"),
        ok(
            "broadcast expands size-1 dims (XLA accepts it)",
            bcast(&[1, 2]),
            &["f32[3,1]"],
            "f32[2,3,4]",
        )
        .declared("f32[2,3,4]"),
        ok(
            "broadcast with permuted dims",
            bcast(&[1, 0]),
            &["f32[2,3]"],
            "f32[3,2]",
        )
        .declared("f32[3,2]"),
        err(
            "broadcast size mismatch",
            bcast(&[0]),
            &["f32[3]"],
            "cannot broadcast to result",
        )
        .declared("f32[2,3]"),
        err(
            "broadcast dims count",
            bcast(&[0]),
            &["f32[2,3]"],
            "one entry per dimension",
        )
        .declared("f32[2,3,4]"),
        err(
            "broadcast dim out of range",
            bcast(&[2]),
            &["f32[3]"],
            "out of range",
        )
        .declared("f32[2,3]"),
        err(
            "broadcast repeated dim",
            bcast(&[1, 1]),
            &["f32[3,3]"],
            "repeats dimension 1",
        )
        .declared("f32[2,3]"),
        err(
            "broadcast needs a declared shape",
            bcast(&[]),
            &["f32[]"],
            "result shape must be given",
        ),
        // Spec, Reshape and Collapse (as reshape) of v = f32[4x2x3].
        ok("reshape to 24", Op::Reshape, &["f32[4,2,3]"], "f32[24]").declared("f32[24]"),
        ok(
            "reshape to 8x3 (collapse {0,1})",
            Op::Reshape,
            &["f32[4,2,3]"],
            "f32[8,3]",
        )
        .declared("f32[8,3]"),
        ok(
            "reshape to 4x6 (collapse {1,2})",
            Op::Reshape,
            &["f32[4,2,3]"],
            "f32[4,6]",
        )
        .declared("f32[4,6]"),
        ok(
            "reshape 1x1 to a scalar",
            Op::Reshape,
            &["f32[1,1]"],
            "f32[]",
        )
        .declared("f32[]"),
        ok(
            "reshape a scalar to 1x1",
            Op::Reshape,
            &["f32[]"],
            "f32[1,1]",
        )
        .declared("f32[1,1]"),
        err(
            "reshape element count",
            Op::Reshape,
            &["f32[2,3]"],
            "6 elements",
        )
        .declared("f32[4]"),
        err(
            "reshape to a tuple",
            Op::Reshape,
            &["f32[2]"],
            "the result must be an array",
        )
        .declared("(f32[2])"),
        err("reshape overflow", Op::Reshape, &["f32[2]"], "overflows")
            .declared("f32[9223372036854775807,2]"),
        ok(
            "transpose 3-D",
            tr(&[2, 0, 1]),
            &["f32[2,3,4]"],
            "f32[4,2,3]",
        ),
        err(
            "transpose not a permutation",
            tr(&[0, 0]),
            &["f32[2,3]"],
            "repeats dimension 0",
        ),
        err(
            "transpose wrong length",
            tr(&[0]),
            &["f32[2,3]"],
            "must be a permutation",
        ),
        err(
            "transpose out of range",
            tr(&[0, 2]),
            &["f32[2,3]"],
            "out of range",
        ),
        ok("reverse", rev(&[0, 1]), &["f32[2,3]"], "f32[2,3]"),
        err(
            "reverse out of range",
            rev(&[2]),
            &["f32[2,3]"],
            "out of range",
        ),
        err(
            "reverse repeated",
            rev(&[1, 1]),
            &["f32[2,3]"],
            "repeats dimension 1",
        ),
    ]);
}

#[test]
fn slices() {
    let dus = Op::DynamicUpdateSlice;
    run(vec![
        // Spec, Slice: {2} to {4} of a 5-vector; {2,1} to {4,3} of a 4x3 matrix.
        ok("slice 1-D", slice(&[2], &[4], &[1]), &["f32[5]"], "f32[2]"),
        ok(
            "slice 2-D",
            slice(&[2, 1], &[4, 3], &[1, 1]),
            &["f32[4,3]"],
            "f32[2,2]",
        ),
        ok(
            "strided slice rounds up",
            slice(&[1], &[8], &[3]),
            &["f32[10]"],
            "f32[3]",
        ),
        ok(
            "empty slice",
            slice(&[3], &[3], &[2]),
            &["f32[5]"],
            "f32[0]",
        ),
        err(
            "slice start > limit",
            slice(&[3], &[2], &[1]),
            &["f32[5]"],
            "start (3) <= limit (2)",
        ),
        err(
            "slice limit > size",
            slice(&[0], &[6], &[1]),
            &["f32[5]"],
            "limit (6) <= size (5)",
        ),
        err(
            "slice negative start",
            slice(&[-1], &[2], &[1]),
            &["f32[5]"],
            "0 <= start (-1)",
        ),
        err(
            "slice stride 0",
            slice(&[0], &[2], &[0]),
            &["f32[5]"],
            "stride must be at least 1",
        ),
        err(
            "slice rank",
            slice(&[0], &[2], &[1]),
            &["f32[5,2]"],
            "one entry per dimension",
        ),
        // Spec, DynamicSlice: {2} of a 5-vector; {2,2} of a 4x3 matrix.
        ok(
            "dynamic-slice 1-D",
            ds(&[2]),
            &["f32[5]", "s32[]"],
            "f32[2]",
        ),
        ok(
            "dynamic-slice 2-D",
            ds(&[2, 2]),
            &["f32[4,3]", "s64[]", "s64[]"],
            "f32[2,2]",
        ),
        err(
            "dynamic-slice index count",
            ds(&[2, 2]),
            &["f32[4,3]", "s32[]"],
            "one start index per dimension",
        ),
        err(
            "dynamic-slice size too large",
            ds(&[5, 2]),
            &["f32[4,3]", "s32[]", "s32[]"],
            "must be in [0, 4]",
        ),
        err(
            "dynamic-slice sizes count",
            ds(&[2]),
            &["f32[4,3]", "s32[]", "s32[]"],
            "one entry per dimension",
        ),
        err(
            "dynamic-slice vector index",
            ds(&[2]),
            &["f32[5]", "s32[1]"],
            "start index must be a scalar",
        ),
        err(
            "dynamic-slice float index",
            ds(&[2]),
            &["f32[5]", "f32[]"],
            "an integer element type",
        ),
        err(
            "dynamic-slice mixed index types",
            ds(&[2, 2]),
            &["f32[4,3]", "s32[]", "s64[]"],
            "same type",
        ),
        err(
            "dynamic-slice with no operand",
            ds(&[]),
            &[],
            "got 0 operands",
        ),
        // Spec, DynamicUpdateSlice.
        ok(
            "dynamic-update-slice 1-D",
            dus.clone(),
            &["f32[5]", "f32[2]", "s32[]"],
            "f32[5]",
        ),
        ok(
            "dynamic-update-slice 2-D",
            dus.clone(),
            &["f32[4,3]", "f32[3,2]", "s32[]", "s32[]"],
            "f32[4,3]",
        ),
        err(
            "dynamic-update-slice update too large",
            dus.clone(),
            &["f32[4,3]", "f32[5,2]", "s32[]", "s32[]"],
            "exceeds operand",
        ),
        err(
            "dynamic-update-slice type",
            dus.clone(),
            &["f32[5]", "s32[2]", "s32[]"],
            "same element type",
        ),
        err(
            "dynamic-update-slice rank",
            dus.clone(),
            &["f32[5]", "f32[1,2]", "s32[]"],
            "must have rank 1",
        ),
        err(
            "dynamic-update-slice index count",
            dus.clone(),
            &["f32[5]", "f32[2]"],
            "one start index per dimension",
        ),
        err(
            "dynamic-update-slice too few operands",
            dus,
            &["f32[5]"],
            "got 1 operands",
        ),
    ]);
}

#[test]
fn concatenate_and_pad() {
    run(vec![
        // Spec, Concatenate: {2,3},{4,5},{6,7} along 0; a (3x2) and b (1x2) along 0.
        ok(
            "concatenate three vectors",
            concat(0),
            &["s32[2]", "s32[2]", "s32[2]"],
            "s32[6]",
        ),
        ok(
            "concatenate matrices",
            concat(0),
            &["f32[3,2]", "f32[1,2]"],
            "f32[4,2]",
        ),
        ok(
            "concatenate along 1",
            concat(1),
            &["f32[2,1]", "f32[2,3]"],
            "f32[2,4]",
        ),
        ok(
            "concatenate one operand",
            concat(0),
            &["pred[3]"],
            "pred[3]",
        ),
        err("concatenate nothing", concat(0), &[], "at least 1 operand"),
        err(
            "concatenate ranks",
            concat(0),
            &["f32[2]", "f32[2,1]"],
            "(as operand 0 f32[2]) must have rank 1",
        ),
        err(
            "concatenate types",
            concat(0),
            &["f32[2]", "s32[2]"],
            "same element type",
        ),
        err(
            "concatenate other dims",
            concat(0),
            &["f32[2,3]", "f32[2,4]"],
            "differ in dimension 1",
        ),
        err(
            "concatenate dimension out of range",
            concat(2),
            &["f32[2,3]", "f32[2,3]"],
            "dimension 2 is out of range",
        ),
        ok(
            "pad edges and interior",
            pad(&[(1, 2, 1)]),
            &["f32[3]", "f32[]"],
            "f32[8]",
        ),
        ok(
            "pad negative low edge",
            pad(&[(-1, 2, 0)]),
            &["f32[5]", "f32[]"],
            "f32[6]",
        ),
        ok(
            "pad 2-D",
            pad(&[(0, 0, 0), (1, 1, 2)]),
            &["f32[2,3]", "f32[]"],
            "f32[2,9]",
        ),
        ok(
            "pad an empty dim with interior",
            pad(&[(1, 1, 3)]),
            &["f32[0]", "f32[]"],
            "f32[2]",
        ),
        ok(
            "pad removing everything",
            pad(&[(-2, -1, 0)]),
            &["f32[3]", "f32[]"],
            "f32[0]",
        ),
        err(
            "pad negative interior",
            pad(&[(0, 0, -1)]),
            &["f32[3]", "f32[]"],
            "interior padding of dimension 0 of f32[3] must be non-negative",
        ),
        err(
            "pad negative result",
            pad(&[(-3, -1, 0)]),
            &["f32[3]", "f32[]"],
            "negative (-1)",
        ),
        err(
            "pad value not scalar",
            pad(&[(0, 0, 0)]),
            &["f32[3]", "f32[1]"],
            "padding value must be a scalar",
        ),
        err(
            "pad value type",
            pad(&[(0, 0, 0)]),
            &["f32[3]", "s32[]"],
            "same element type",
        ),
        err(
            "pad entries count",
            pad(&[(0, 0, 0)]),
            &["f32[3,2]", "f32[]"],
            "padding has 1 entries",
        ),
        err(
            "pad overflow",
            pad(&[(i64::MAX, 1, 0)]),
            &["f32[3]", "f32[]"],
            "overflows",
        ),
    ]);
}

#[test]
fn bitcast_and_dimension_sizes() {
    let gds = |d| Op::GetDimensionSize { dimension: d };
    let sds = |d| Op::SetDimensionSize { dimension: d };
    run(vec![
        ok("bitcast same bytes", Op::Bitcast, &["f32[2,3]"], "s32[6]").declared("s32[6]"),
        ok(
            "bitcast to narrower elements",
            Op::Bitcast,
            &["f32[2]"],
            "u8[8]",
        )
        .declared("u8[8]"),
        err(
            "bitcast byte size",
            Op::Bitcast,
            &["f32[2,3]"],
            "same byte size",
        )
        .declared("f32[7]"),
        ok("get-dimension-size", gds(1), &["f32[2,3]"], "s32[]"),
        err(
            "get-dimension-size out of range",
            gds(2),
            &["f32[2,3]"],
            "dimension 2 is out of range",
        ),
        // Spec, SetDimensionSize: v f32[10], five s32.
        ok(
            "set-dimension-size marks the dim dynamic",
            sds(0),
            &["f32[10]", "s32[]"],
            "f32[<=10]",
        ),
        ok(
            "set-dimension-size of dim 1",
            sds(1),
            &["f32[2,10]", "s32[]"],
            "f32[2,<=10]",
        ),
        err(
            "set-dimension-size needs s32",
            sds(0),
            &["f32[10]", "s64[]"],
            "an S32 element type",
        ),
        err(
            "set-dimension-size needs a scalar",
            sds(0),
            &["f32[10]", "s32[1]"],
            "size must be a scalar",
        ),
        err(
            "set-dimension-size out of range",
            sds(1),
            &["f32[10]", "s32[]"],
            "dimension 1 is out of range",
        ),
    ]);
}

#[test]
fn declared_shape_rules() {
    run(vec![
        err(
            "iota of a tuple",
            Op::Iota { dimension: 0 },
            &[],
            "shape must be an array",
        )
        .declared("(s32[4])"),
        err(
            "broadcast to a token",
            bcast(&[]),
            &["f32[]"],
            "the result must be an array",
        )
        .declared("token[]"),
        err(
            "bitcast to a tuple",
            Op::Bitcast,
            &["f32[2]"],
            "result must be an array",
        )
        .declared("(f32[2])"),
        err(
            "get-dimension-size beyond s32",
            Op::GetDimensionSize { dimension: 0 },
            &["f32[3000000000]"],
            "does not fit in s32",
        ),
        err(
            "set-dimension-size beyond s32",
            Op::SetDimensionSize { dimension: 0 },
            &["f32[3000000000]", "s32[]"],
            "does not fit in s32",
        ),
        err(
            "tuple operand to slice",
            slice(&[0], &[1], &[1]),
            &["(f32[2])"],
            "operand must be an array",
        ),
    ]);
}
