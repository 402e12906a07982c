//! Control-flow rules: call, conditional (pred and index forms), while, custom-call.

use crate::util::*;
use xla_core::attrs::CustomCallConfig;
use xla_core::ir::{CompId, Op};

fn cond(n: usize) -> Op {
    Op::Conditional {
        branches: (0..n).map(CompId).collect(),
    }
}

#[test]
fn call_conditional_while() {
    let call = Op::Call {
        to_apply: C0,
        composite: None,
    };
    let wl = Op::While {
        condition: C0,
        body: C1,
    };
    let state = "(s32[], f32[10])";
    run(vec![
        ok(
            "call returns the callee's result",
            call.clone(),
            &["f32[2]", "s32[]"],
            "(f32[2], s32[])",
        )
        .called(&["(f32[2], s32[]) -> (f32[2], s32[])"]),
        ok("call with no arguments", call.clone(), &[], "f32[]").called(&["() -> f32[]"]),
        err(
            "call arity",
            call.clone(),
            &["f32[2]"],
            "takes 2 parameters but 1 arguments",
        )
        .called(&["(f32[2], s32[]) -> f32[]"]),
        err(
            "call argument shape",
            call.clone(),
            &["f32[3]"],
            "argument 0 f32[3] does not match parameter f32[2]",
        )
        .called(&["(f32[2]) -> f32[]"]),
        err(
            "call without a computation",
            call,
            &["f32[2]"],
            "expects 1 called computation, got 0",
        ),
        ok(
            "pred conditional",
            cond(2),
            &["pred[]", "f32[2]", "s32[]"],
            "f32[2]",
        )
        .called(&["(f32[2]) -> f32[2]", "(s32[]) -> f32[2]"]),
        ok(
            "indexed conditional",
            cond(3),
            &["s32[]", "f32[]", "f32[]", "f32[]"],
            "(f32[])",
        )
        .called(&[
            "(f32[]) -> (f32[])",
            "(f32[]) -> (f32[])",
            "(f32[]) -> (f32[])",
        ]),
        ok(
            "indexed conditional with one branch",
            cond(1),
            &["s32[]", "f32[]"],
            "f32[]",
        )
        .called(&["(f32[]) -> f32[]"]),
        err(
            "pred conditional with three branches",
            cond(3),
            &["pred[]", "f32[]", "f32[]", "f32[]"],
            "exactly 2 branches",
        )
        .called(&["(f32[]) -> f32[]", "(f32[]) -> f32[]", "(f32[]) -> f32[]"]),
        err(
            "selector type",
            cond(2),
            &["s64[]", "f32[]", "f32[]"],
            "selector must be pred[] or s32[]",
        )
        .called(&["(f32[]) -> f32[]", "(f32[]) -> f32[]"]),
        err(
            "selector not scalar",
            cond(2),
            &["pred[2]", "f32[]", "f32[]"],
            "selector must be a scalar",
        )
        .called(&["(f32[]) -> f32[]", "(f32[]) -> f32[]"]),
        err(
            "branch results differ",
            cond(2),
            &["pred[]", "f32[]", "f32[]"],
            "branch 1 returns s32[] but branch 0 returns f32[]",
        )
        .called(&["(f32[]) -> f32[]", "(f32[]) -> s32[]"]),
        err(
            "branch parameter",
            cond(2),
            &["pred[]", "f32[]", "f32[]"],
            "branch 1",
        )
        .called(&["(f32[]) -> f32[]", "(s32[]) -> f32[]"]),
        err(
            "branch with two parameters",
            cond(2),
            &["pred[]", "f32[]", "f32[]"],
            "exactly one parameter",
        )
        .called(&["(f32[]) -> f32[]", "(f32[], f32[]) -> f32[]"]),
        err(
            "operands per branch",
            cond(2),
            &["pred[]", "f32[]"],
            "one operand per branch",
        )
        .called(&["(f32[]) -> f32[]", "(f32[]) -> f32[]"]),
        err(
            "conditional without operands",
            cond(0),
            &[],
            "got 0 operands",
        ),
        // Spec, While: init is (int32 counter, float[10] accumulator).
        ok("while loop", wl.clone(), &[state], state).called(&[
            "((s32[], f32[10])) -> pred[]",
            "((s32[], f32[10])) -> (s32[], f32[10])",
        ]),
        err(
            "condition result",
            wl.clone(),
            &[state],
            "condition must return pred[]",
        )
        .called(&[
            "((s32[], f32[10])) -> s32[]",
            "((s32[], f32[10])) -> (s32[], f32[10])",
        ]),
        err("condition parameter", wl.clone(), &[state], "condition").called(&[
            "(s32[]) -> pred[]",
            "((s32[], f32[10])) -> (s32[], f32[10])",
        ]),
        err("body result", wl.clone(), &[state], "body").called(&[
            "((s32[], f32[10])) -> pred[]",
            "((s32[], f32[10])) -> (s32[], f32[9])",
        ]),
        err(
            "while needs two computations",
            wl,
            &[state],
            "expects 2 called computations, got 1",
        )
        .called(&["((s32[], f32[10])) -> pred[]"]),
    ]);
}

#[test]
fn custom_call() {
    let cc = Op::CustomCall {
        config: CustomCallConfig {
            target: "myfunc".into(),
            ..CustomCallConfig::default()
        },
        called: Vec::new(),
    };
    run(vec![
        // Spec, CustomCall("myfunc", {x, y}, f32[3x3]).
        ok(
            "custom-call takes the declared shape",
            cc.clone(),
            &["f32[2]", "f32[2,3]"],
            "f32[3,3]",
        )
        .declared("f32[3,3]"),
        err(
            "custom-call needs a declared shape",
            cc,
            &["f32[2]"],
            "result shape must be given",
        ),
    ]);
}

#[test]
fn more_control_rules() {
    run(vec![
        err(
            "indexed conditional with no branch",
            cond(0),
            &["s32[]"],
            "needs at least one branch",
        ),
        err(
            "pred conditional with one branch",
            cond(1),
            &["pred[]", "f32[]"],
            "exactly 2 branches",
        )
        .called(&["(f32[]) -> f32[]"]),
        err(
            "while init mismatch",
            Op::While {
                condition: C0,
                body: C1,
            },
            &["f32[]"],
            "condition",
        )
        .called(&["(s32[]) -> pred[]", "(s32[]) -> s32[]"]),
        err(
            "while operand count",
            Op::While {
                condition: C0,
                body: C1,
            },
            &["f32[]", "f32[]"],
            "expects 1 operand, got 2",
        )
        .called(&["(f32[]) -> pred[]", "(f32[]) -> f32[]"]),
    ]);
}
