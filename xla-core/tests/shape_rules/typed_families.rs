//! The op families' typed rules ([`ShapeRule::Callee`], [`ShapeRule::Slice`], ...): what
//! each rule reports is in fields a caller can match on, not only in the message, and the
//! message written from them still names the shapes in XLA notation and the rule.

use crate::util::*;
use xla_core::attrs::{DotDims, FftType, GatherDims, Window, WindowDim};
use xla_core::ir::{infer_shape, Op};
use xla_core::shape_inference::{
    collective, contraction, control, elementwise, indexing, linalg, structural, window,
    BroadcastRule, CalleeRule, CollectiveRule, ContractionRule, ConvertRule, GatherRule,
    LinalgRule, OperandsRule, SliceRule, WindowRule,
};
use xla_core::{PrimitiveType, ShapeError, ShapeRule};

fn array(text: &str) -> xla_core::shape::ArrayShape {
    sh(text).as_array().expect("an array shape").clone()
}

fn check(e: ShapeError, op: &str, rule: ShapeRule, message: &str) {
    assert_eq!(e.op, op);
    assert_eq!(*e.rule, rule);
    assert_eq!(e.to_string(), format!("{op}: {message}"));
}

#[test]
fn reshape_and_slice_rules_are_typed() {
    let e = structural::reshape(&sh("f32[2,3]"), &[4, 2]).unwrap_err();
    let rule = ShapeRule::ElementCounts {
        from: array("f32[2,3]"),
        from_count: 6,
        to: array("f32[4,2]"),
        to_count: 8,
    };
    check(
        e,
        "reshape",
        rule,
        "cannot reshape f32[2,3] (6 elements) to f32[4,2] (8 elements)",
    );

    let e = structural::slice(&sh("f32[4]"), &[3], &[2], &[1]).unwrap_err();
    let rule = ShapeRule::Slice(SliceRule::Bounds {
        dimension: 0,
        start: 3,
        limit: 2,
        size: 4,
        shape: array("f32[4]"),
    });
    let message = "dimension 0 of f32[4]: need 0 <= start (3) <= limit (2) <= size (4)";
    check(e, "slice", rule, message);
}

#[test]
fn called_computation_rules_are_typed() {
    let init = sh("(s32[], f32[2])");
    let cond = sig("((s32[], f32[2])) -> pred[]");
    let body = sig("((s32[], f32[2])) -> (s32[], f32[3])");
    let e = control::while_loop(&init, &cond, &body).unwrap_err();
    let rule = ShapeRule::Callee {
        what: "body".into(),
        signature: body.clone(),
        rule: CalleeRule::Loop { init: init.clone() },
    };
    let message = "body ((s32[], f32[2])) -> (s32[], f32[3]) must be (T) -> T with T the init shape (s32[], f32[2])";
    check(e, "while", rule, message);

    let e = control::while_loop(&init, &sig("((s32[], f32[2])) -> s32[]"), &body).unwrap_err();
    assert!(matches!(
        &*e.rule,
        ShapeRule::Callee { what, rule: CalleeRule::PredResult, .. } if what == "condition"
    ));
    assert_eq!(
        e.to_string(),
        "while: condition must return pred[], got s32[]"
    );
}

#[test]
fn conversion_and_broadcast_rules_are_typed() {
    let e = elementwise::convert(&sh("c64[2]"), PrimitiveType::F32).unwrap_err();
    let rule = ShapeRule::Convert {
        from: array("c64[2]"),
        to: PrimitiveType::F32,
        rule: ConvertRule::ComplexToReal,
    };
    let message = "conversion from complex c64[2] to real type f32 is not defined";
    check(e, "convert", rule, message);

    let e = elementwise::select(&sh("pred[3]"), &sh("f32[2]"), &sh("f32[2]")).unwrap_err();
    assert_eq!(e.operand, Some(0));
    let rule = ShapeRule::Broadcast(BroadcastRule::Predicate {
        pred: array("pred[3]"),
        on_true: sh("f32[2]"),
    });
    let message = "pred pred[3] must be a PRED scalar or have the dimensions of on_true f32[2]";
    check(e, "select", rule, message);
}

#[test]
fn contraction_and_gather_rules_are_typed() {
    let dims = DotDims {
        lhs_contracting_dims: vec![1],
        rhs_contracting_dims: vec![0],
        ..DotDims::default()
    };
    let (a, b) = (sh("s32[2,3]"), sh("s32[3,4]"));
    let e = contraction::dot(&a, &b, &dims, Some(PrimitiveType::S8)).unwrap_err();
    let rule = ShapeRule::Contraction(ContractionRule::ResultType {
        ty: PrimitiveType::S8,
        lhs: array("s32[2,3]"),
        rhs: array("s32[3,4]"),
    });
    let message = "result element type s8 is not allowed for operands s32[2,3] and s32[3,4]";
    check(e, "dot", rule, message);

    let g = GatherDims {
        index_vector_dim: 3,
        ..GatherDims::default()
    };
    let e = indexing::gather(&sh("f32[5,3]"), &sh("s32[2,1]"), &g).unwrap_err();
    let rule = ShapeRule::Gather(GatherRule::IndexVectorDim {
        index_vector_dim: 3,
        indices: array("s32[2,1]"),
    });
    check(
        e,
        "gather",
        rule,
        "index_vector_dim 3 must be in [0, 2] for indices s32[2,1]",
    );
}

#[test]
fn window_linalg_and_collective_rules_are_typed() {
    let w = Window {
        dims: vec![WindowDim {
            size: 2,
            stride: 1,
            padding_low: 0,
            padding_high: 0,
            window_dilation: 0,
            base_dilation: 1,
            window_reversal: false,
        }],
    };
    let e = window::window_output_dims("reduce-window", &[8], &w).unwrap_err();
    let rule = ShapeRule::Window(WindowRule::Dilation {
        dimension: 0,
        base_dilation: 1,
        window_dilation: 0,
        base: vec![8],
    });
    let message =
        "window dimension 0 must have dilations >= 1, got lhs/base 1 rhs/window 0 (base area {8})";
    check(e, "reduce-window", rule, message);

    let e = linalg::fft(&sh("c64[8]"), FftType::Fft, &[1, 2, 3, 4]).unwrap_err();
    let rule = ShapeRule::Linalg(LinalgRule::FftLength {
        fft_length: vec![1, 2, 3, 4],
    });
    check(
        e,
        "fft",
        rule,
        "fft_length {1,2,3,4} must have 1 to 3 entries",
    );

    let e = collective::all_gather(&[&sh("f32[2]")], 0, 0).unwrap_err();
    let rule = ShapeRule::Collective(CollectiveRule::Positive {
        what: "shard count",
        count: 0,
    });
    check(e, "all-gather", rule, "shard count must be positive, got 0");
}

#[test]
fn operand_layout_rules_are_typed() {
    let e = infer_shape(&Op::DynamicUpdateSlice, &[&sh("f32[2]")], &[], None).unwrap_err();
    let rule = ShapeRule::Operands(OperandsRule::Layout {
        expected: "the operand, the update and the start indices",
        found: 1,
    });
    let message = "expects the operand, the update and the start indices, got 1 operands";
    check(e, "dynamic-update-slice", rule, message);
}
