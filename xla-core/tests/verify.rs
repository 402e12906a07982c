//! Verifier tests: one negative test per check, each asserting that every planted problem is
//! reported (and nothing else), with the computation and instruction named.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use xla_core::attrs::{BinaryOp, UnaryOp};
use xla_core::ir::{CompId, Computation, InstrId, Module, Op};
use xla_core::shape::{ArrayShape, Layout, Shape};
use xla_core::types::PrimitiveType::*;
use xla_core::verify::{verify_module, VerifyProblem};

mod common;
use common::{arr, comp, ins, param};

/// `add(a, b)` on f32 scalars.
fn adder(name: &str) -> Computation {
    common::scalar_binary(name, Op::Binary(BinaryOp::Add), F32, F32)
}

/// A valid module: `main(x: f32[4]) = reduce(negate(x), 0) with add`.
fn valid() -> Module {
    let v = arr(F32, &[4]);
    let s = arr(F32, &[]);
    let zero = xla_core::Literal::scalar(0f32);
    let main = comp(
        "main",
        vec![
            param("x", 0, v.clone()),
            ins("n", Op::Unary(UnaryOp::Neg), &[0], v),
            ins("z", Op::Constant { literal: zero }, &[], s.clone()),
            ins(
                "r",
                Op::Reduce {
                    dimensions: vec![0],
                    to_apply: CompId(0),
                },
                &[1, 2],
                s,
            ),
        ],
        3,
    );
    Module {
        name: "m".into(),
        computations: vec![adder("add"), main],
        entry: CompId(1),
        config: Default::default(),
    }
}

/// The problems as (computation, instruction, message) for the assertions.
fn problems(m: &Module) -> Vec<VerifyProblem> {
    match verify_module(m) {
        Ok(()) => vec![],
        Err(e) => e.problems,
    }
}

/// Asserts that exactly the expected problems were reported: each `(computation,
/// instruction, fragment)` must match one problem whose message contains `fragment`.
fn expect(m: &Module, want: &[(&str, Option<&str>, &str)]) {
    let got = problems(m);
    let show = got
        .iter()
        .map(|p| p.to_string())
        .collect::<Vec<_>>()
        .join("\n");
    assert_eq!(
        got.len(),
        want.len(),
        "expected {} problems, got:\n{show}",
        want.len()
    );
    for (c, i, frag) in want {
        assert!(
            got.iter().any(|p| p.computation == *c
                && p.instruction.as_deref() == *i
                && p.message.contains(frag)),
            "no problem ({c}, {i:?}, ~{frag:?}) in:\n{show}"
        );
    }
}

#[test]
fn valid_module_passes() {
    assert_eq!(verify_module(&valid()), Ok(()));
}

#[test]
fn missing_entry() {
    let mut m = valid();
    m.entry = CompId(7);
    expect(&m, &[("", None, "entry computation id 7 does not exist")]);
}

#[test]
fn duplicate_computation_names() {
    let mut m = valid();
    m.computations.insert(1, adder("add"));
    m.entry = CompId(2);
    expect(&m, &[("add", None, "duplicate computation name")]);
}

#[test]
fn duplicate_and_empty_instruction_names() {
    let mut m = valid();
    m.computations[1].instructions[1].name = "x".into();
    m.computations[1].instructions[2].name = String::new();
    expect(
        &m,
        &[
            ("main", Some("x"), "duplicate instruction name"),
            ("main", Some(""), "instruction 2 has an empty name"),
        ],
    );
}

#[test]
fn operands_must_be_earlier_instructions() {
    let mut m = valid();
    let main = &mut m.computations[1];
    main.instructions[1].operands = vec![InstrId(3)]; // forward reference
    main.instructions[2] = ins("z", Op::Unary(UnaryOp::Neg), &[2], arr(F32, &[])); // itself
    main.instructions[3].operands = vec![InstrId(1), InstrId(9)]; // does not exist
    expect(
        &m,
        &[
            ("main", Some("n"), "operand 0 (r) is defined after its user"),
            (
                "main",
                Some("z"),
                "operand 0 refers to the instruction itself",
            ),
            (
                "main",
                Some("r"),
                "operand 1 refers to instruction id 9 which does not exist",
            ),
        ],
    );
}

#[test]
fn root_must_exist() {
    let mut m = valid();
    m.computations[1].root = InstrId(4);
    m.computations.push(comp("empty", vec![], 0));
    expect(
        &m,
        &[
            (
                "main",
                None,
                "root id 4 does not exist (the computation has 4 instructions)",
            ),
            ("empty", None, "computation has no instructions"),
        ],
    );
}

#[test]
fn parameters_numbered_without_gaps_or_duplicates() {
    let s = arr(F32, &[]);
    let gap = comp(
        "gap",
        vec![param("a", 0, s.clone()), param("b", 2, s.clone())],
        0,
    );
    let dup = comp(
        "dup",
        vec![param("c", 1, s.clone()), param("d", 1, s.clone())],
        0,
    );
    let neg = comp("neg", vec![param("e", -1, s.clone())], 0);
    let mut m = valid();
    m.computations.extend([gap, dup, neg]);
    expect(
        &m,
        &[
            ("gap", Some("b"), "parameter number 2 is out of range"),
            ("gap", None, "parameter numbers missing: 1"),
            (
                "dup",
                None,
                "parameter number 1 is used by 2 instructions: c, d",
            ),
            ("dup", None, "parameter numbers missing: 0"),
            ("neg", Some("e"), "parameter number -1 is out of range"),
            ("neg", None, "parameter numbers missing: 0"),
        ],
    );
}

#[test]
fn called_computations_must_exist() {
    let mut m = valid();
    m.computations[1].instructions[3].op = Op::Reduce {
        dimensions: vec![0],
        to_apply: CompId(5),
    };
    expect(
        &m,
        &[(
            "main",
            Some("r"),
            "reduce calls computation id 5 which does not exist",
        )],
    );
}

#[test]
fn recursion_is_reported() {
    let v = arr(F32, &[4]);
    let call = |to: usize| Op::Call {
        to_apply: CompId(to),
        composite: None,
    };
    let a = comp(
        "a",
        vec![
            param("pa", 0, v.clone()),
            ins("ca", call(1), &[0], v.clone()),
        ],
        1,
    );
    let b = comp(
        "b",
        vec![
            param("pb", 0, v.clone()),
            ins("cb", call(0), &[0], v.clone()),
        ],
        1,
    );
    let selfrec = comp(
        "s",
        vec![
            param("ps", 0, v.clone()),
            ins("cs", call(2), &[0], v.clone()),
        ],
        1,
    );
    let m = Module {
        name: "rec".into(),
        computations: vec![a, b, selfrec],
        entry: CompId(0),
        config: Default::default(),
    };
    expect(
        &m,
        &[
            ("b", Some("cb"), "recursive call: calls a"),
            ("s", Some("cs"), "recursive call: calls s"),
        ],
    );
}

#[test]
fn shapes_must_be_well_formed() {
    let mut m = valid();
    let main = &mut m.computations[1];
    main.instructions[0].shape = arr(Token, &[4]);
    main.instructions[1].shape = arr(F32, &[-4]);
    let mut bad_layout = arr(F32, &[]);
    if let Shape::Array(ArrayShape { layout, .. }) = &mut bad_layout {
        *layout = Some(Layout {
            minor_to_major: vec![0],
        });
    }
    main.instructions[2].shape = bad_layout;
    expect(
        &m,
        &[
            ("main", Some("x"), "token is not an array element type"),
            ("main", Some("n"), "dimension 0 has negative size -4"),
            (
                "main",
                Some("z"),
                "layout {0} is not a permutation of the 0 dimensions",
            ),
        ],
    );
}

#[test]
fn declared_shape_must_match_inference() {
    // n = negate(f32[4]) declared as f32[3]; r = reduce over dim 0 declared f32[4].
    let mut m = valid();
    let main = &mut m.computations[1];
    main.instructions[1].shape = arr(F32, &[3]);
    main.instructions[3].shape = arr(F32, &[4]);
    expect(
        &m,
        &[
            (
                "main",
                Some("n"),
                "declared shape f32[3] does not match the shape f32[4]",
            ),
            (
                "main",
                Some("r"),
                "declared shape f32[4] does not match the shape f32[]",
            ),
        ],
    );
}

#[test]
fn display_lists_every_problem_one_per_line() {
    let mut m = valid();
    m.entry = CompId(3);
    m.computations[1].instructions[1].name = "x".into();
    let err = verify_module(&m).unwrap_err();
    assert_eq!(
        err.to_string(),
        "module: entry computation id 3 does not exist (the module has 2 computations)\n\
         computation main, instruction x: duplicate instruction name in this computation"
    );
}
