//! The typed payload of [`ShapeError`]: the rule broken and the shapes and dimension numbers
//! involved are fields a caller can match on, and the message written from them names the
//! op, the shapes in XLA notation and the rule.

use crate::util::*;
use xla_core::attrs::BinaryOp as B;
use xla_core::ir::{infer_shape, Op};
use xla_core::shape_inference::elementwise::broadcast_plan;
use xla_core::{ShapeError, ShapeRule};

fn infer(op: &Op, inputs: &[&str]) -> ShapeError {
    let shapes: Vec<_> = inputs.iter().map(|s| sh(s)).collect();
    let refs: Vec<_> = shapes.iter().collect();
    infer_shape(op, &refs, &[], None).expect_err("the rule must reject these shapes")
}

fn array(text: &str) -> xla_core::shape::ArrayShape {
    sh(text).as_array().expect("an array shape").clone()
}

#[test]
fn binary_operands_of_different_dims_are_typed() {
    let e = infer(&Op::Binary(B::Add), &["f32[2,3]", "f32[3,2]"]);
    assert_eq!(e.op, "add");
    let want = ShapeRule::OperandDims {
        lhs: array("f32[2,3]"),
        rhs: array("f32[3,2]"),
    };
    assert_eq!(*e.rule, want);
    assert_eq!(
        e.to_string(),
        "add: operands must have the same dimensions, got lhs f32[2,3] and rhs f32[3,2] (HLO has no implicit broadcasting)"
    );
}

#[test]
fn dot_contracting_sizes_and_ranges_are_typed() {
    let dims = xla_core::attrs::DotDims {
        lhs_batch_dims: vec![],
        lhs_contracting_dims: vec![1],
        rhs_batch_dims: vec![],
        rhs_contracting_dims: vec![0],
    };
    let dot = |dims: xla_core::attrs::DotDims| Op::Dot {
        dims,
        precision: Default::default(),
    };
    let e = infer(&dot(dims.clone()), &["f32[2,3]", "f32[4,5]"]);
    let want = ShapeRule::PairedSizes {
        kind: "contracting".into(),
        lhs: array("f32[2,3]"),
        lhs_dim: 1,
        lhs_size: 3,
        rhs: array("f32[4,5]"),
        rhs_dim: 0,
        rhs_size: 4,
    };
    assert_eq!(*e.rule, want);
    let out_of_range = xla_core::attrs::DotDims {
        lhs_contracting_dims: vec![2],
        ..dims
    };
    let e = infer(&dot(out_of_range), &["f32[2,3]", "f32[3]"]);
    let want = ShapeRule::DimensionsOutOfRange {
        what: "lhs_contracting_dims".into(),
        dims: vec![2],
        dimension: 2,
        rank: 2,
        of: "f32[2,3]".into(),
    };
    assert_eq!(*e.rule, want);
}

#[test]
fn binary_operands_of_different_types_are_typed() {
    let e = infer(&Op::Binary(B::Mul), &["f32[2]", "s32[2]"]);
    assert!(matches!(
        &*e.rule,
        ShapeRule::SameElementType { a, b, .. } if *a == array("f32[2]") && *b == array("s32[2]")
    ));
}

#[test]
fn broadcasting_mismatch_names_the_dimension_and_sizes() {
    let e = broadcast_plan("add", &sh("f32[2,3]"), &sh("f32[2,4]"), &[]).unwrap_err();
    let want = ShapeRule::Incompatible {
        lhs: array("f32[2,3]"),
        rhs: array("f32[2,4]"),
        dimension: 1,
        lhs_size: 3,
        rhs_size: 4,
    };
    assert_eq!(*e.rule, want);
    assert_eq!(
        e.to_string(),
        "add: incompatible shapes f32[2,3] and f32[2,4]: dimension 1 is 3 vs 4 (sizes must be equal or one of them 1)"
    );
}

#[test]
fn a_bad_permutation_is_typed() {
    let op = Op::Transpose {
        permutation: vec![0, 0],
    };
    let e = infer(&op, &["f32[2,3]"]);
    let ShapeRule::RepeatedDimension {
        dims, dimension, ..
    } = &*e.rule
    else {
        panic!("expected a repeated dimension, got {e}");
    };
    assert_eq!((dims.as_slice(), *dimension), (&[0, 0][..], 0));
    let short = Op::Transpose {
        permutation: vec![0],
    };
    let e = infer(&short, &["f32[2,3]"]);
    let want = ShapeRule::NotPermutation {
        what: "permutation".into(),
        dims: vec![0],
        shape: array("f32[2,3]"),
    };
    assert_eq!(*e.rule, want);
    assert_eq!(
        e.to_string(),
        "transpose: permutation {0} must be a permutation of the 2 dimensions of f32[2,3]"
    );
}

#[test]
fn operand_count_and_kind_are_typed() {
    let e = infer(&Op::Binary(B::Add), &["f32[2]"]);
    let want = ShapeRule::OperandCount {
        expected: 2,
        at_least: false,
        found: 1,
    };
    assert_eq!(*e.rule, want);
    assert_eq!(e.to_string(), "add: expects 2 operands, got 1");
    let e = infer(&Op::Binary(B::Add), &["(f32[2])", "f32[2]"]);
    assert_eq!(e.operand, Some(0));
    assert!(
        matches!(&*e.rule, ShapeRule::NotArray { what, found } if what == "lhs" && *found == sh("(f32[2])"))
    );
}
