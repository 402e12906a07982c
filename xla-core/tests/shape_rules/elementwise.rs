//! Elementwise rules: unary and binary type constraints, compare, select, clamp, converts,
//! reduce-precision, map, and the builder's broadcasting plan.

use crate::util::*;
use xla_core::attrs::{BinaryOp as B, ComparisonDirection, ComparisonType, UnaryOp as U};
use xla_core::ir::Op;
use xla_core::shape_inference::elementwise::{broadcast_plan, BroadcastPlan};

fn cmp(t: Option<ComparisonType>) -> Op {
    Op::Compare {
        direction: ComparisonDirection::Lt,
        comparison_type: t,
    }
}

fn map_op(dims: &[i64]) -> Op {
    Op::Map {
        dimensions: dims.to_vec(),
        to_apply: C0,
    }
}

#[test]
fn unary_rules() {
    let u = Op::Unary;
    run(vec![
        ok("exp keeps the shape", u(U::Exp), &["f32[2,3]"], "f32[2,3]"),
        ok("tanh of a scalar", u(U::Tanh), &["f64[]"], "f64[]"),
        ok("sqrt of complex", u(U::Sqrt), &["c64[4]"], "c64[4]"),
        ok(
            "is-finite gives pred",
            u(U::IsFinite),
            &["f32[3]"],
            "pred[3]",
        ),
        ok("real of c64 is f32", u(U::Real), &["c64[2,2]"], "f32[2,2]"),
        ok("imag of c128 is f64", u(U::Imag), &["c128[3]"], "f64[3]"),
        ok("real of f32 is f32", u(U::Real), &["f32[3]"], "f32[3]"),
        ok(
            "abs of complex is the modulus type",
            u(U::Abs),
            &["c64[5]"],
            "f32[5]",
        ),
        ok("abs of s32", u(U::Abs), &["s32[5]"], "s32[5]"),
        ok("clz of u8", u(U::Clz), &["u8[4]"], "u8[4]"),
        ok("popcnt of s64", u(U::Popcnt), &["s64[4]"], "s64[4]"),
        ok("not of pred", u(U::Not), &["pred[2]"], "pred[2]"),
        ok("not of u32", u(U::Not), &["u32[2]"], "u32[2]"),
        ok("negate of s8", u(U::Neg), &["s8[2]"], "s8[2]"),
        ok("sign of f32", u(U::Sign), &["f32[2]"], "f32[2]"),
        ok(
            "round-nearest-even of f64",
            u(U::RoundNearestEven),
            &["f64[7]"],
            "f64[7]",
        ),
        err(
            "floor needs floats",
            u(U::Floor),
            &["s32[3]"],
            "must have a floating-point element type",
        ),
        err(
            "exp of an integer",
            u(U::Exp),
            &["s32[3]"],
            "floating-point or complex",
        ),
        err("erf of complex", u(U::Erf), &["c64[3]"], "floating-point"),
        err(
            "is-finite of an integer",
            u(U::IsFinite),
            &["s32[3]"],
            "floating-point",
        ),
        err(
            "real of an integer",
            u(U::Real),
            &["s32[3]"],
            "floating-point or complex",
        ),
        err(
            "abs of unsigned",
            u(U::Abs),
            &["u32[3]"],
            "signed integer, floating-point or complex",
        ),
        err("clz of a float", u(U::Clz), &["f32[3]"], "an integer"),
        err("popcnt of pred", u(U::Popcnt), &["pred[3]"], "an integer"),
        err("not of a float", u(U::Not), &["f32[3]"], "PRED or integer"),
        err(
            "negate of pred",
            u(U::Neg),
            &["pred[3]"],
            "integer, floating-point or complex",
        ),
        err("sign of unsigned", u(U::Sign), &["u8[3]"], "signed integer"),
        err(
            "unary of a tuple",
            u(U::Exp),
            &["(f32[])"],
            "must be an array",
        ),
        err(
            "unary operand count",
            u(U::Exp),
            &["f32[]", "f32[]"],
            "expects 1 operand, got 2",
        ),
    ]);
}

#[test]
fn binary_rules() {
    let b = Op::Binary;
    run(vec![
        ok(
            "add of equal shapes",
            b(B::Add),
            &["f32[2,3]", "f32[2,3]"],
            "f32[2,3]",
        ),
        ok(
            "layouts are ignored",
            b(B::Mul),
            &["f32[2,3]{1,0}", "f32[2,3]{0,1}"],
            "f32[2,3]",
        ),
        ok(
            "add on pred is allowed",
            b(B::Add),
            &["pred[2]", "pred[2]"],
            "pred[2]",
        ),
        ok(
            "shift-left on s32",
            b(B::ShiftLeft),
            &["s32[4]", "s32[4]"],
            "s32[4]",
        ),
        ok("power on s32", b(B::Pow), &["s32[4]", "s32[4]"], "s32[4]"),
        ok("and on pred", b(B::And), &["pred[4]", "pred[4]"], "pred[4]"),
        ok("xor on u8", b(B::Xor), &["u8[4]", "u8[4]"], "u8[4]"),
        ok(
            "complex of f32",
            b(B::Complex),
            &["f32[3]", "f32[3]"],
            "c64[3]",
        ),
        ok(
            "complex of f64",
            b(B::Complex),
            &["f64[]", "f64[]"],
            "c128[]",
        ),
        ok("atan2 of f32", b(B::Atan2), &["f32[2]", "f32[2]"], "f32[2]"),
        err(
            "add: expects 2 operands",
            b(B::Add),
            &["f32[2]", "f32[2]", "f32[2]"],
            "expects 2 operands, got 3",
        ),
        err(
            "no implicit broadcast at HLO level",
            b(B::Add),
            &["f32[2,3]", "f32[3]"],
            "must have the same dimensions",
        ),
        err(
            "no scalar broadcast at HLO level",
            b(B::Add),
            &["f32[2,3]", "f32[]"],
            "must have the same dimensions",
        ),
        err(
            "types must match",
            b(B::Add),
            &["f32[2]", "f64[2]"],
            "must have the same element type",
        ),
        err(
            "subtract on pred",
            b(B::Sub),
            &["pred[2]", "pred[2]"],
            "non-PRED",
        ),
        err(
            "divide on pred",
            b(B::Div),
            &["pred[2]", "pred[2]"],
            "non-PRED",
        ),
        err(
            "shift on floats",
            b(B::ShiftRightLogical),
            &["f32[2]", "f32[2]"],
            "an integer",
        ),
        err(
            "or on floats",
            b(B::Or),
            &["f32[2]", "f32[2]"],
            "PRED or integer",
        ),
        err(
            "complex of f16",
            b(B::Complex),
            &["f16[2]", "f16[2]"],
            "F32 or F64",
        ),
        err(
            "binary on a token",
            b(B::Max),
            &["token[]", "token[]"],
            "must be an array",
        ),
    ]);
}

#[test]
fn compare_select_clamp() {
    run(vec![
        ok(
            "compare gives pred",
            cmp(None),
            &["f32[2,3]", "f32[2,3]"],
            "pred[2,3]",
        ),
        ok(
            "TOTALORDER on floats",
            cmp(Some(ComparisonType::TotalOrder)),
            &["f32[4]", "f32[4]"],
            "pred[4]",
        ),
        ok(
            "TOTALORDER on integers",
            cmp(Some(ComparisonType::TotalOrder)),
            &["s64[4]", "s64[4]"],
            "pred[4]",
        ),
        ok(
            "SIGNED on s32",
            cmp(Some(ComparisonType::Signed)),
            &["s32[4]", "s32[4]"],
            "pred[4]",
        ),
        ok(
            "UNSIGNED on u8",
            cmp(Some(ComparisonType::Unsigned)),
            &["u8[4]", "u8[4]"],
            "pred[4]",
        ),
        err(
            "compare dims differ",
            cmp(None),
            &["f32[2]", "f32[3]"],
            "same dimensions",
        ),
        err(
            "compare types differ",
            cmp(None),
            &["s32[2]", "u32[2]"],
            "same element type",
        ),
        err(
            "FLOAT comparison on ints",
            cmp(Some(ComparisonType::Float)),
            &["s32[4]", "s32[4]"],
            "comparison type FLOAT does not apply",
        ),
        err(
            "SIGNED comparison on unsigned",
            cmp(Some(ComparisonType::Signed)),
            &["u32[4]", "u32[4]"],
            "SIGNED does not apply",
        ),
        // Spec, Select: pred[4] with s32[4] branches, and a scalar pred.
        ok(
            "select with array pred",
            Op::Select,
            &["pred[4]", "s32[4]", "s32[4]"],
            "s32[4]",
        ),
        ok(
            "select with scalar pred",
            Op::Select,
            &["pred[]", "s32[4]", "s32[4]"],
            "s32[4]",
        ),
        ok(
            "select between tuples with scalar pred",
            Op::Select,
            &["pred[]", "(f32[2], s32[])", "(f32[2], s32[])"],
            "(f32[2], s32[])",
        ),
        err(
            "select pred must be PRED",
            Op::Select,
            &["s32[4]", "s32[4]", "s32[4]"],
            "pred must have PRED element type",
        ),
        err(
            "select pred dims",
            Op::Select,
            &["pred[3]", "s32[4]", "s32[4]"],
            "must be a PRED scalar or have the dimensions",
        ),
        err(
            "select branches differ",
            Op::Select,
            &["pred[]", "s32[4]", "f32[4]"],
            "must have the same shape",
        ),
        err(
            "select tuples with array pred",
            Op::Select,
            &["pred[2]", "(f32[2])", "(f32[2])"],
            "must be a PRED scalar when selecting",
        ),
        // Spec, Clamp: scalar min and max.
        ok(
            "clamp with scalar bounds",
            Op::Clamp,
            &["s32[]", "s32[3]", "s32[]"],
            "s32[3]",
        ),
        ok(
            "clamp with array bounds",
            Op::Clamp,
            &["f32[2,2]", "f32[2,2]", "f32[2,2]"],
            "f32[2,2]",
        ),
        err(
            "clamp bound of another type",
            Op::Clamp,
            &["f32[]", "s32[3]", "s32[]"],
            "same element type",
        ),
        err(
            "clamp bound of another shape",
            Op::Clamp,
            &["s32[2]", "s32[3]", "s32[]"],
            "must be a scalar or have the dimensions",
        ),
    ]);
}

#[test]
fn converts_and_precision() {
    let rp = |e, m| Op::ReducePrecision {
        exponent_bits: e,
        mantissa_bits: m,
    };
    run(vec![
        ok(
            "convert s32 to f32 (spec)",
            Op::Convert,
            &["s32[3]"],
            "f32[3]",
        )
        .declared("f32[3]"),
        ok(
            "convert f32 to pred",
            Op::Convert,
            &["f32[2,2]"],
            "pred[2,2]",
        )
        .declared("pred[2,2]"),
        ok("convert f32 to c64", Op::Convert, &["f32[2]"], "c64[2]").declared("c64[2]"),
        err(
            "convert needs a declared type",
            Op::Convert,
            &["s32[3]"],
            "result shape must be given",
        ),
        err(
            "convert complex to real",
            Op::Convert,
            &["c64[2]"],
            "complex",
        )
        .declared("f32[2]"),
        err(
            "convert of a tuple",
            Op::Convert,
            &["(s32[3])"],
            "must be an array",
        )
        .declared("f32[3]"),
        // Spec, BitcastConvertType across widths.
        ok(
            "bitcast f32[10] to f16 adds a minor dim",
            Op::BitcastConvert,
            &["f32[10]"],
            "f16[10,2]",
        )
        .declared("f16[10,2]"),
        ok(
            "bitcast scalar f32 to f16[2]",
            Op::BitcastConvert,
            &["f32[]"],
            "f16[2]",
        )
        .declared("f16[2]"),
        ok(
            "bitcast f16[10,2] to f32[10]",
            Op::BitcastConvert,
            &["f16[10,2]"],
            "f32[10]",
        )
        .declared("f32[10]"),
        ok(
            "bitcast s32 to f32 (same width)",
            Op::BitcastConvert,
            &["s32[4]"],
            "f32[4]",
        )
        .declared("f32[4]"),
        ok(
            "bitcast s32 to four s8",
            Op::BitcastConvert,
            &["s32[3]"],
            "s8[3,4]",
        )
        .declared("s8[3,4]"),
        err(
            "bitcast to wider needs the ratio as last dim",
            Op::BitcastConvert,
            &["f16[10,3]"],
            "last dimension equal to the width ratio 2",
        )
        .declared("f32[10]"),
        err(
            "bitcast scalar to wider",
            Op::BitcastConvert,
            &["s8[]"],
            "width ratio 4",
        )
        .declared("s32[]"),
        err(
            "bitcast complex to real",
            Op::BitcastConvert,
            &["c64[2]"],
            "complex and real",
        )
        .declared("f64[2]"),
        ok("reduce-precision e5m10", rp(5, 10), &["f32[4]"], "f32[4]"),
        err(
            "reduce-precision needs floats",
            rp(5, 10),
            &["s32[4]"],
            "floating-point",
        ),
        err(
            "reduce-precision exponent_bits >= 1",
            rp(0, 10),
            &["f32[4]"],
            "exponent_bits must be at least 1",
        ),
        err(
            "reduce-precision mantissa_bits >= 0",
            rp(5, -1),
            &["f32[4]"],
            "mantissa_bits must be non-negative",
        ),
    ]);
}

#[test]
fn map_rules() {
    run(vec![
        ok(
            "map two operands",
            map_op(&[0, 1]),
            &["f32[2,3]", "f32[2,3]"],
            "f32[2,3]",
        )
        .called(&["(f32[], f32[]) -> f32[]"]),
        ok(
            "map changes the element type",
            map_op(&[0]),
            &["s32[4]"],
            "pred[4]",
        )
        .called(&["(s32[]) -> pred[]"]),
        err(
            "map operand dims differ",
            map_op(&[0]),
            &["f32[2]", "f32[3]"],
            "same dimensions",
        )
        .called(&["(f32[], f32[]) -> f32[]"]),
        err(
            "map over a subset of dims",
            map_op(&[0]),
            &["f32[2,3]"],
            "must be every dimension",
        )
        .called(&["(f32[]) -> f32[]"]),
        err(
            "map arity",
            map_op(&[0]),
            &["f32[2]"],
            "must take 1 parameters",
        )
        .called(&["(f32[], f32[]) -> f32[]"]),
        err(
            "map parameter type",
            map_op(&[0]),
            &["f32[2]"],
            "parameter 0 must be a f32 scalar",
        )
        .called(&["(s32[]) -> f32[]"]),
        err(
            "map result not scalar",
            map_op(&[0]),
            &["f32[2]"],
            "must return a scalar",
        )
        .called(&["(f32[]) -> f32[2]"]),
        err(
            "map needs its computation",
            map_op(&[0]),
            &["f32[2]"],
            "expects 1 called computation, got 0",
        ),
    ]);
}

fn plan(lhs: &str, rhs: &str, bd: &[i64]) -> Result<BroadcastPlan, String> {
    broadcast_plan("add", &sh(lhs), &sh(rhs), bd).map_err(|e| e.to_string())
}

fn p(dims: &[i64], lhs: Option<&[i64]>, rhs: Option<&[i64]>) -> Result<BroadcastPlan, String> {
    Ok(BroadcastPlan {
        dims: dims.to_vec(),
        lhs: lhs.map(<[i64]>::to_vec),
        rhs: rhs.map(<[i64]>::to_vec),
    })
}

#[test]
fn broadcasting_plans() {
    // Examples of broadcasting.fa.txt.
    assert_eq!(
        plan("f32[2,3]", "f32[]", &[]),
        p(&[2, 3], None, Some(&[])),
        "scalar + matrix"
    );
    assert_eq!(
        plan("f32[2,3]", "f32[3]", &[1]),
        p(&[2, 3], None, Some(&[1])),
        "vector on dim 1"
    );
    assert_eq!(
        plan("f32[3,3]", "f32[3]", &[0]),
        p(&[3, 3], None, Some(&[0])),
        "vector on dim 0"
    );
    assert_eq!(
        plan("f32[2,3,4]", "f32[3,4]", &[1, 2]),
        p(&[2, 3, 4], None, Some(&[1, 2])),
        "matrix into a cube"
    );
    assert_eq!(
        plan("f32[2,1]", "f32[2,3]", &[]),
        p(&[2, 3], Some(&[0, 1]), None),
        "(2,1) and (2,3)"
    );
    assert_eq!(
        plan("f32[1,2,5]", "f32[7,2,5]", &[]),
        p(&[7, 2, 5], Some(&[0, 1, 2]), None),
        "(1,2,5) and (7,2,5)"
    );
    assert_eq!(
        plan("f32[7,2,5]", "f32[7,1,5]", &[]),
        p(&[7, 2, 5], None, Some(&[0, 1, 2])),
        "(7,2,5) and (7,1,5)"
    );
    assert_eq!(
        plan("f32[2,1]", "f32[1,3]", &[]),
        p(&[2, 3], Some(&[0, 1]), Some(&[0, 1])),
        "outer operation"
    );
    assert_eq!(
        plan("f32[4]", "f32[1,2]", &[0]),
        p(&[4, 2], Some(&[0]), Some(&[0, 1])),
        "vector 4 + matrix 1x2"
    );
    assert_eq!(
        plan("f32[1,2]", "f32[4,3,1]", &[1, 2]),
        p(&[4, 3, 2], Some(&[1, 2]), Some(&[0, 1, 2])),
        "1x2 + 4x3x1"
    );
    assert_eq!(
        plan("f32[2,3]", "f32[2,3]", &[0, 1]),
        p(&[2, 3], None, None),
        "identity broadcast_dimensions"
    );
    let e = |l: &str, r: &str, bd: &[i64], s: &str| {
        let got = plan(l, r, bd);
        assert!(
            matches!(&got, Err(m) if m.contains(s) && m.starts_with("add: ")),
            "{l} + {r} {bd:?}: {got:?}"
        );
    };
    e(
        "f32[7,2,5]",
        "f32[7,2,6]",
        &[],
        "incompatible shapes f32[7,2,5] and f32[7,2,6]",
    );
    e("f32[2,3]", "f32[3]", &[], "different ranks");
    e("f32[2,3,4,5]", "f32[4,3]", &[2, 1], "strictly increasing");
    e("f32[2,3]", "f32[3]", &[0, 1], "one entry per dimension");
    e("f32[2,3]", "f32[3]", &[2], "out of range");
    e("f32[4,3]", "f32[3]", &[0], "broadcast dimension 0 mismatch");
    e(
        "f32[2,3]",
        "f32[2,3]",
        &[1, 0],
        "must be empty or the identity",
    );
    e("(f32[])", "f32[]", &[], "must be an array");
}

#[test]
fn more_elementwise_rules() {
    run(vec![
        err(
            "convert to a token",
            Op::Convert,
            &["f32[2]"],
            "the result must be an array",
        )
        .declared("token[]"),
        err(
            "bitcast-convert to a tuple",
            Op::BitcastConvert,
            &["f32[2]"],
            "the result must be an array",
        )
        .declared("(f32[2])"),
        err(
            "map of a token",
            map_op(&[]),
            &["token[]"],
            "operand must be an array",
        )
        .called(&["(f32[]) -> f32[]"]),
        err(
            "select of a tuple pred",
            Op::Select,
            &["(pred[])", "f32[]", "f32[]"],
            "pred must be an array",
        ),
        err(
            "clamp with a token bound",
            Op::Clamp,
            &["token[]", "f32[2]", "f32[]"],
            "min must be an array",
        ),
        ok(
            "dynamic dims pass through",
            Op::Unary(U::Neg),
            &["f32[<=4]"],
            "f32[<=4]",
        ),
        ok(
            "dynamic dims merge in binary ops",
            Op::Binary(B::Add),
            &["f32[<=4]", "f32[4]"],
            "f32[<=4]",
        ),
    ]);
}
