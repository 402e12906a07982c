//! The checker end to end on source text: result shapes, the graph built, and the errors

#![allow(clippy::unwrap_used, clippy::panic)]
//! (one per mistake, naming the op, the shapes and the rule).

use super::*;
use crate::parse::parse;
use xla_core::ir::{Op, Opcode};

/// Parses and checks `item`; the result shape and the entry's opcodes, or the errors.
fn check_src(attr: &str, item: &str) -> Result<(String, Vec<&'static str>, Module), Vec<String>> {
    let cx = Ctxt::new();
    let item: syn::ItemFn = syn::parse_str(item).unwrap();
    let attr: proc_macro2::TokenStream = attr.parse().unwrap();
    let c = parse(&cx, attr, item);
    let checked = check(&cx, &c);
    let errors: Vec<String> = cx.into_errors().iter().map(|e| e.to_string()).collect();
    match checked {
        Some(ch) if errors.is_empty() => {
            let entry = ch.module.entry_computation().unwrap();
            let ops = entry.instructions.iter().map(|i| i.op.name()).collect();
            Ok((ch.result.to_string(), ops, ch.module))
        }
        _ => Err(errors),
    }
}

fn result_of(params: &str, result: &str, body: &str) -> Result<String, Vec<String>> {
    check_src("", &format!("fn f({params}) -> {result} {{ {body} }}")).map(|(r, _, _)| r)
}

const DENSE: &str = "fn dense(x: Tensor<f32, 64, 784>, w: Tensor<f32, 784, 128>, b: Tensor<f32, 128>) -> Tensor<f32, 64, 128> {
    relu(x.dot(w) + b)
}";

#[test]
fn dense_layer_graph() {
    let (result, ops, module) = check_src("", DENSE).unwrap();
    assert_eq!(result, "f32[64,128]");
    // b is broadcast along the trailing dim; relu is max(h, 0) with 0 broadcast.
    assert_eq!(
        ops,
        [
            "parameter",
            "parameter",
            "parameter",
            "dot",
            "broadcast",
            "add",
            "constant",
            "broadcast",
            "maximum"
        ]
    );
    let entry = module.entry_computation().unwrap();
    assert_eq!(
        entry.instructions[4].op,
        Op::Broadcast {
            dimensions: vec![1]
        }
    );
    assert_eq!(entry.instructions[4].shape.to_string(), "f32[64,128]");
    assert_eq!(
        entry.instructions[7].op,
        Op::Broadcast { dimensions: vec![] }
    );
    assert_eq!(
        entry
            .parameter_shapes()
            .iter()
            .map(|s| s.to_string())
            .collect::<Vec<_>>(),
        ["f32[64,784]", "f32[784,128]", "f32[128]"]
    );
    let hlo = xla_core::text::print_module(&module);
    assert!(hlo.contains("dot("), "{hlo}");
    assert!(hlo.contains("lhs_contracting_dims={1}"), "{hlo}");
}

#[test]
fn result_shapes() {
    let x = "x: Tensor<f32, 2, 3>";
    let cases: &[(&str, &str, &str, &str)] = &[
        // elementwise, with weak literals taking the tensor's type
        (x, "Tensor<f32, 2, 3>", "x * 2 + 1.5", "f32[2,3]"),
        (x, "Tensor<f32, 2, 3>", "-x.exp().tanh()", "f32[2,3]"),
        (x, "Tensor<f32, 2, 3>", "x.max(0.0).min(x)", "f32[2,3]"),
        (x, "Tensor<bool, 2, 3>", "x.lt(1.0)", "pred[2,3]"),
        (x, "Tensor<bool, 2, 3>", "x >= x", "pred[2,3]"),
        (
            x,
            "Tensor<f32, 2, 3>",
            "(x > 0.0).select(x, 0.0)",
            "f32[2,3]",
        ),
        (x, "Tensor<f32, 2, 3>", "x.clamp(-1.0, 1.0)", "f32[2,3]"),
        (x, "Tensor<f64, 2, 3>", "x.convert::<f64>()", "f64[2,3]"),
        (x, "Tensor<bf16, 2, 3>", "x.cast::<bf16>()", "bf16[2,3]"),
        (
            "x: Tensor<i32, 4>",
            "Tensor<i32, 4>",
            "(x << 2) >> 1",
            "s32[4]",
        ),
        (
            "x: Tensor<f32, 3>, y: Tensor<f32, 2, 3>",
            "Tensor<f32, 2, 3>",
            "x + y",
            "f32[2,3]",
        ),
        (
            "x: Tensor<f32, 2, 1>, y: Tensor<f32, 2, 3>",
            "Tensor<f32, 2, 3>",
            "x * y",
            "f32[2,3]",
        ),
        ("x: f32", "f32", "x * x", "f32[]"),
        ("", "f64", "2.0f64", "f64[]"),
        ("", "Tensor<f32, 3>", "1.0", "f32[3]"),
        // structural
        (x, "Tensor<f32, 3, 2>", "x.reshape([3, 2])", "f32[3,2]"),
        (x, "Tensor<f32, 6>", "x.reshape([6])", "f32[6]"),
        (x, "Tensor<f32, 3, 2>", "x.transpose([1, 0])", "f32[3,2]"),
        (x, "Tensor<f32, 3, 2>", "x.t()", "f32[3,2]"),
        (x, "Tensor<f32, 4, 2, 3>", "x.broadcast([4])", "f32[4,2,3]"),
        (
            x,
            "Tensor<f32, 2, 5, 3>",
            "x.broadcast_in_dim([2, 5, 3], [0, 2])",
            "f32[2,5,3]",
        ),
        (x, "Tensor<f32, 2, 3>", "x.rev([0, 1])", "f32[2,3]"),
        (x, "Tensor<f32, 2, 2>", "x.slice([.., 1..3])", "f32[2,2]"),
        (x, "Tensor<f32, 2, 2>", "x[(.., 1..)]", "f32[2,2]"),
        (x, "Tensor<f32, 3>", "x[1]", "f32[3]"),
        (x, "Tensor<f32, 2>", "x[(.., 0)]", "f32[2]"),
        (x, "Tensor<f32, 1, 3>", "x[..1]", "f32[1,3]"),
        (
            x,
            "Tensor<f32, 2, 2>",
            "x[(.., (0..3).step_by(2))]",
            "f32[2,2]",
        ),
        (x, "f32", "x.slice([1, 2])", "f32[]"),
        (
            x,
            "Tensor<f32, 5, 5>",
            "x.pad(0.0, [(1, 2), (0, 0, 1)])",
            "f32[5,5]",
        ),
        (
            x,
            "Tensor<f32, 2, 1>",
            "x.pad(0.0, [(0, 0), (-1, -1)])",
            "f32[2,1]",
        ),
        (x, "Tensor<f32, 4, 3>", "concat([x, x], 0)", "f32[4,3]"),
        (
            x,
            "Tensor<f32, 2, 6>",
            "concat([x, x.exp()], 1)",
            "f32[2,6]",
        ),
        (
            "",
            "Tensor<f32, 2, 3>",
            "iota::<f32>([2, 3], 1)",
            "f32[2,3]",
        ),
        ("", "Tensor<i32, 4>", "iota([4], 0)", "s32[4]"),
        // contraction
        (
            "a: Tensor<f32, 3>, b: Tensor<f32, 3>",
            "f32",
            "a.dot(b)",
            "f32[]",
        ),
        (
            "a: Tensor<f32, 2, 3>, b: Tensor<f32, 3>",
            "Tensor<f32, 2>",
            "a.dot(b)",
            "f32[2]",
        ),
        (
            "a: Tensor<f32, 3>, b: Tensor<f32, 3, 4>",
            "Tensor<f32, 4>",
            "a.dot(b)",
            "f32[4]",
        ),
        (
            "a: Tensor<f32, 5, 2, 3>, b: Tensor<f32, 5, 3, 4>",
            "Tensor<f32, 5, 2, 4>",
            "a.matmul(b)",
            "f32[5,2,4]",
        ),
        // reductions
        (x, "Tensor<f32, 2>", "x.sum([1])", "f32[2]"),
        (x, "Tensor<f32, 3>", "x.max([0])", "f32[3]"),
        (x, "f32", "x.sum()", "f32[]"),
        (x, "f32", "x.prod([0, 1])", "f32[]"),
        (x, "Tensor<f32, 2>", "x.mean([1])", "f32[2]"),
        (
            "x: Tensor<i32, 2, 3>",
            "Tensor<i32, 2>",
            "x.min([1])",
            "s32[2]",
        ),
        // closures
        (
            x,
            "Tensor<f32, 2>",
            "x.reduce(0.0, [1], |a, b| a + b * b)",
            "f32[2]",
        ),
        (
            x,
            "f32",
            "x.reduce(1.0, [0, 1], |acc, v| { let m = acc.max(v); m })",
            "f32[]",
        ),
        (
            x,
            "Tensor<f32, 2, 3>",
            "x.map(|v| v.exp() + 1.0)",
            "f32[2,3]",
        ),
        (x, "Tensor<f32, 2, 3>", "x.sort(1)", "f32[2,3]"),
        (
            x,
            "Tensor<f32, 2, 3>",
            "x.sort(0, |a, b| a.gt(b))",
            "f32[2,3]",
        ),
        // control flow
        (x, "Tensor<f32, 2, 3>", "if x.sum() > 0.0 { x } else { -x }", "f32[2,3]"),
        (x, "Tensor<f32, 2, 3>", "let c = x.max() > 1.0; if c { 1.0 } else { x * 2.0 }", "f32[2,3]"),
        ("p: bool", "f64", "if p { 1.0f64 } else if !p { 2.0f64 } else { 3.0 }", "f64[]"),
        (x, "Tensor<f32, 2, 3>", "let mut acc = x; for _ in 0..3 { acc = acc * 2.0; } acc", "f32[2,3]"),
        ("", "f32", "let mut s: f32 = 0.0; for i in 0..4 { s += i.convert::<f32>(); } s", "f32[]"),
        (x, "Tensor<f32, 3>", "let mut a = x[0]; let mut b = x[1]; for _ in 0..2 { let t = a; a = b; b = t + b; } a + b", "f32[3]"),
        // windows, convolution, linear algebra, transforms, rng
        ("x: Tensor<f32, 1, 1, 4, 4>", "Tensor<f32, 1, 1, 2, 2>", "x.max_pool([1, 1, 2, 2], [1, 1, 2, 2])", "f32[1,1,2,2]"),
        ("x: Tensor<f32, 1, 1, 4, 4>", "Tensor<f32, 1, 1, 4, 4>", "x.avg_pool([1, 1, 3, 3], [1, 1, 1, 1], SAME)", "f32[1,1,4,4]"),
        ("x: Tensor<f32, 1, 1, 4, 4>", "Tensor<f32, 1, 1, 5, 5>", "x.max_pool([1, 1, 2, 2], [1, 1, 1, 1], [(0, 0), (0, 0), (1, 1), (1, 1)])", "f32[1,1,5,5]"),
        ("x: Tensor<f32, 6>", "Tensor<f32, 3>", "x.reduce_window(0.0, [2], [2], |a, b| a + b)", "f32[3]"),
        ("x: Tensor<f32, 1, 1, 4, 4>, k: Tensor<f32, 2, 1, 3, 3>", "Tensor<f32, 1, 2, 2, 2>", "x.conv(k, [1, 1])", "f32[1,2,2,2]"),
        ("x: Tensor<f32, 1, 1, 4, 4>, k: Tensor<f32, 2, 1, 3, 3>", "Tensor<f32, 1, 2, 4, 4>", "x.conv(k, [1, 1], SAME)", "f32[1,2,4,4]"),
        ("a: Tensor<f32, 5, 2, 3>, b: Tensor<f32, 5, 3, 4>", "Tensor<f32, 5, 2, 4>", "a.dot_general(b, [2], [1], [0], [0])", "f32[5,2,4]"),
        ("a: Tensor<f32, 3, 3>", "Tensor<f32, 3, 3>", "a.cholesky()", "f32[3,3]"),
        ("a: Tensor<f32, 3, 3>, b: Tensor<f32, 3, 2>", "Tensor<f32, 3, 2>", "a.solve_lower(b)", "f32[3,2]"),
        ("x: Tensor<c64, 8>", "Tensor<c64, 8>", "x.fft([8])", "c64[8]"),
        ("x: Tensor<f32, 8>", "Tensor<c64, 5>", "x.rfft([8])", "c64[5]"),
        ("x: Tensor<f32, 2, 3>, s: Tensor<f32, 3>", "Tensor<f32, 2, 3>", "x.batch_norm_inference(s, s, s, s, 0.001, 1)", "f32[2,3]"),
        ("x: Tensor<f32, 2, 3>, s: Tensor<f32, 3>", "Tensor<f32, 3>", "let bn = x.batch_norm_training(s, s, 0.001, 1); bn.1", "f32[3]"),
        ("x: Tensor<f32, 2, 5>", "Tensor<i32, 2, 2>", "x.top_k(2).1", "s32[2,2]"),
        ("", "Tensor<f32, 3>", "rng_uniform::<f32>(0.0, 1.0, [3])", "f32[3]"),
        ("", "Tensor<f64, 2, 2>", "rng_normal::<f64>(0.0, 1.0, [2, 2])", "f64[2,2]"),
        // indexing along an axis
        ("t: Tensor<f32, 5, 3>, ids: Tensor<i32, 4>", "Tensor<f32, 4, 3>", "t.take(ids, 0)", "f32[4,3]"),
        ("t: Tensor<f32, 5, 3>, ids: Tensor<i32, 2, 2>", "Tensor<f32, 5, 2, 2>", "t.take(ids, 1)", "f32[5,2,2]"),
        ("t: Tensor<f32, 5, 3>, ids: Tensor<i32, 4>, u: Tensor<f32, 4, 3>", "Tensor<f32, 5, 3>", "t.scatter_add(ids, u, 0)", "f32[5,3]"),
        ("t: Tensor<f32, 5, 3>, ids: Tensor<i32, 4>, u: Tensor<f32, 4, 3>", "Tensor<f32, 5, 3>", "t.scatter(ids, u, 0, |old, new| old.max(new))", "f32[5,3]"),
        ("x: Tensor<f32, 2, 5>", "Tensor<i32, 2, 5>", "x.argsort(1)", "s32[2,5]"),
        ("x: Tensor<f32, 4, 3>, i: i32", "Tensor<f32, 1, 3>", "x.dynamic_slice([i, 0], [1, 3])", "f32[1,3]"),
        ("x: Tensor<f32, 4, 3>, u: Tensor<f32, 1, 3>", "Tensor<f32, 4, 3>", "x.dynamic_update_slice(u, [2, 0])", "f32[4,3]"),
        // tuple destructuring
        ("x: Tensor<f32, 2, 5>", "Tensor<i32, 2, 2>", "let (_, i) = x.top_k(2); i", "s32[2,2]"),
        ("x: Tensor<f32, 2, 3>, s: Tensor<f32, 3>", "Tensor<f32, 2, 3>", "let (y, m, v) = x.batch_norm_training(s, s, 0.001, 1); y + m - v", "f32[2,3]"),
        // let bindings, annotated or not
        (
            x,
            "Tensor<f32, 2>",
            "let y: Tensor<f32, 2, 3> = x.exp(); let s = y.sum([1]); s / 3",
            "f32[2]",
        ),
        ("", "f64", "let c: f64 = 2.0; c * c", "f64[]"),
    ];
    for &(params, result, body, expected) in cases {
        assert_eq!(
            result_of(params, result, body).as_deref(),
            Ok(expected),
            "{body}"
        );
    }
}

#[test]
fn tuple_result() {
    let r = result_of(
        "x: Tensor<f32, 2, 3>",
        "(Tensor<f32, 2>, f32)",
        "(x.sum([1]), x.max())",
    );
    assert_eq!(r.as_deref(), Ok("(f32[2], f32[])"));
}

/// A tuple of per-layer tuples as a parameter (one tuple-shaped HLO parameter), read by a
/// nested `let` pattern, and nested tuples in the result, element by element.
#[test]
fn nested_tuple_parameters_and_results() {
    const P: &str =
        "p: ((Tensor<f32, 2, 3>, Tensor<f32, 3>), Tensor<f32, 3, 1>), x: Tensor<f32, 4, 2>";
    let body =
        "let ((w1, b1), w2) = p; let h = relu(x.dot(w1) + b1); ((h.dot(w2), (b1 * 2.0, b1)), p)";
    let r = result_of(P, "((Tensor<f32, 4, 1>, (Tensor<f32, 3>, Tensor<f32, 3>)), ((Tensor<f32, 2, 3>, Tensor<f32, 3>), Tensor<f32, 3, 1>))", body);
    assert_eq!(
        r.unwrap(),
        "((f32[4,1], (f32[3], f32[3])), ((f32[2,3], f32[3]), f32[3,1]))"
    );
    let (_, ops, module) = check_src("", &format!("fn f({P}) -> f32 {{ p.1.sum() }}")).unwrap();
    assert_eq!(ops[0], "parameter");
    let entry = module.entry_computation().unwrap();
    assert_eq!(
        entry.parameter_shapes()[0].to_string(),
        "((f32[2,3], f32[3]), f32[3,1])"
    );
    // A leaf of the wrong shape is named by its place; a tuple value of another structure
    // by its shapes; `_` skips an element at any depth.
    let cases: &[(&str, &str, &str)] = &[
        (
            "((Tensor<f32, 3>, Tensor<f32, 2>), f32)",
            "let ((_, b1), _) = p; ((b1, b1), 0.0)",
            "result 0.1 shape mismatch: the signature says f32[2] but the value is f32[3]",
        ),
        (
            "((Tensor<f32, 3>, Tensor<f32, 3>), f32)",
            "(p.0, 0.0)",
            "result 0: the signature says a tuple of 2 tensors (f32[3], f32[3]) but the value is (f32[2,3], f32[3])",
        ),
        (
            "f32",
            "let (a, (b, c)) = p; c.sum()",
            "operand must be a tuple, got f32[3,1]",
        ),
    ];
    for (result, body, want) in cases {
        match result_of(P, result, body) {
            Err(errors) => assert!(
                errors.iter().any(|e| e.contains(want)),
                "{body}: {errors:?}"
            ),
            Ok(_) => panic!("{body}: accepted"),
        }
    }
}

#[test]
fn reductions_call_one_scalar_computation_per_op_and_type() {
    let (_, _, module) = check_src(
        "",
        "fn f(x: Tensor<f32, 2, 3>) -> f32 { x.sum([0]).sum([0]) + x.max() }",
    )
    .unwrap();
    let names: Vec<&str> = module
        .computations
        .iter()
        .map(|c| c.name.split('.').next().unwrap())
        .collect();
    // The builder names computations `<name>.<unique id>`.
    assert_eq!(names, ["add_F32", "max_F32", "f"]);
    let max_init = module
        .entry_computation()
        .unwrap()
        .instructions
        .iter()
        .filter(|i| i.op.opcode() == Opcode::Constant)
        .nth(2)
        .unwrap();
    match &max_init.op {
        Op::Constant { literal } => {
            assert_eq!(literal.data::<f32>(), Some(&[f32::NEG_INFINITY][..]))
        }
        other => panic!("{other:?}"),
    }
}

/// Each body gives exactly one error per mistake (`count`), containing the substrings.
#[test]
fn errors() {
    let cases: &[(&str, &[&str])] = &[
        (
            "fn f(x: Tensor<f32, 64, 784>, w2: Tensor<f32, 128, 10>) -> Tensor<f32, 64, 10> { x.dot(w2) }",
            &["dot: contracting dimension sizes differ: lhs f32[64,784] dim 1 is 784, rhs f32[128,10] dim 0 is 128"],
        ),
        ("fn f(x: Tensor<f32, 2, 3>) -> Tensor<f32, 3, 2> { x }", &["result shape mismatch: the signature says f32[3,2] but the value is f32[2,3]"]),
        ("fn f(x: Tensor<f32, 2, 3>, y: Tensor<f64, 2, 3>) -> Tensor<f32, 2, 3> { x + y }", &["add", "f32[2,3]", "f64[2,3]"]),
        ("fn f(x: Tensor<f32, 2, 3>, y: Tensor<f32, 4>) -> Tensor<f32, 2, 3> { x + y }", &["add"]),
        ("fn f(x: Tensor<f32, 2, 3>) -> Tensor<f32, 7> { x.reshape([7]) }", &["reshape"]),
        ("fn f(x: Tensor<f32, 2, 3>) -> Tensor<f32, 5, 3> { x.slice([0..5, ..]) }", &["slice", "f32[2,3]"]),
        ("fn f(x: Tensor<f32, 2, 3>) -> Tensor<f32, 2, 3> { x[(.., .., ..)] }", &["slice: 3 ranges for f32[2,3] (rank 2)"]),
        ("fn f(x: Tensor<f32, 2, 3>, y: Tensor<f32, 3, 3>) -> Tensor<f32, 5, 3> { concat([x, y], 1) }", &["concatenate"]),
        ("fn f(x: Tensor<f32, 2, 3>) -> Tensor<f32, 2, 3> { x.pad(0.0, [(1, 1)]) }", &["pad"]),
        ("fn f(x: Tensor<f32, 2, 3>) -> Tensor<f32, 2, 3> { x.pad(0.0, [1, 1]) }", &["expected one `(low, high)` or `(low, high, interior)` padding per dimension, found a list of integers"]),
        ("fn f(x: Tensor<f32, 2, 3>) -> Tensor<f32, 2> { let w = x * 2.0; x.reduce(0.0, [1], |a, b| a + w) }", &["`w` is defined outside the closure"]),
        ("fn f(x: Tensor<f32, 2, 3>) -> Tensor<f32, 2, 3> { x.map(|a, b| a) }", &["the closure of `map` takes 1 parameter, found 2"]),
        ("fn f(x: Tensor<f32, 2, 3>) -> Tensor<f32, 2> { x.reduce(0.0, [1], |a, b| a.lt(b)) }", &["reduce"]),
        ("fn f(x: Tensor<f32, 2, 3>) -> Tensor<f32, 2, 3> { x.sort(0, |a, b| a - b) }", &["sort"]),
        ("fn f(x: Tensor<f32, 2, 3>) -> Tensor<f32, 2> { x.reduce(0.0, [1], 3) }", &["expected a closure such as `|a, b| a + b`"]),
        ("fn f(x: Tensor<f32, 2, 3>) -> Tensor<f32, 2, 3> { if x > 0.0 { x } else { -x } }", &["if: the condition must be a scalar bool (pred[]), found pred[2,3]"]),
        ("fn f(x: Tensor<f32, 2, 3>, p: bool) -> Tensor<f32, 2, 3> { if p { x } else { x.t() } }", &["conditional"]),
        ("fn f(x: Tensor<f32, 2, 3>) -> Tensor<f32, 2, 3> { let y = x; for _ in 0..2 { y = y + 1.0; } y }", &["cannot assign to `y`"]),
        ("fn f(x: Tensor<f32, 2, 3>) -> Tensor<f32, 2, 3> { let mut a = x; for _ in 0..2 { a = a.sum([0]); } a }", &["`a` would change from f32[2,3] to f32[3]"]),
        ("fn f(x: Tensor<f32, 1, 1, 4, 4>, k: Tensor<f32, 2, 3, 3, 3>) -> Tensor<f32, 1, 2, 2, 2> { x.conv(k, [1, 1]) }", &["convolution"]),
        ("fn f(x: Tensor<f32, 4, 4>) -> Tensor<f32, 2, 2> { x.max_pool([2, 2], [2, 2], FULL) }", &["expected the padding: `SAME`, `VALID` or `[(low, high), ...]`"]),
        ("fn f(x: Tensor<f32, 4, 4>) -> Tensor<f32, 2, 2> { x.max_pool([2], [2]) }", &["reduce-window"]),
        ("fn f(a: Tensor<f32, 3, 2>) -> Tensor<f32, 3, 2> { a.cholesky() }", &["cholesky"]),
        ("fn f(t: Tensor<f32, 5, 3>, ids: Tensor<i32, 4>) -> Tensor<f32, 4, 3> { t.take(ids, 2) }", &["take: axis 2 is out of range for f32[5,3] (rank 2)"]),
        ("fn f(t: Tensor<f32, 5, 3>, ids: Tensor<i32, 4>, u: Tensor<f32, 4, 2>) -> Tensor<f32, 5, 3> { t.scatter_add(ids, u, 0) }", &["scatter_add: the updates must be shaped like `x.take(indices, 0)`, f32[4,3]; found f32[4,2]"]),
        ("fn f(x: Tensor<f32, 2>) -> Tensor<f32, 2> { x.reshape([a, 2]) }", &["expected the new dims as a list of integer literals, e.g. `[1, 0]`, found a list of tensors"]),
        ("fn f(x: Tensor<f32, 2, 3>) -> Tensor<f32, 4, 3> { concat([x, x], x) }", &["expected the dimension as an integer literal, found a tensor expression"]),
        ("fn f(x: Tensor<f32, 2, 3>) -> Tensor<f32, 2, 3> { x.transpose([0, 0]) }", &["transpose"]),
        ("fn f(x: Tensor<f32, 2, 3>) -> Tensor<f32, 2> { x.sum([2]) }", &["reduce"]),
        ("fn f(x: Tensor<i32, 2, 3>) -> Tensor<i32, 2> { x.mean([1]) }", &["mean: needs a floating-point tensor, found s32[2,3]"]),
        ("fn f(x: Tensor<i32, 2>) -> Tensor<i32, 2> { x * 2.5 }", &["float literal 2.5 cannot be a s32 value"]),
        ("fn f(x: Tensor<u8, 2>) -> Tensor<u8, 2> { x + 300 }", &["literal 300 is out of range for u8"]),
        ("fn f(x: Tensor<f32, 2, 3, 4>) -> Tensor<f32, 2> { x.t() }", &["t: expects a matrix (rank 2), found f32[2,3,4]"]),
        ("fn f(x: Tensor<f32, 2>) -> Tensor<f32, 2> { x.frobnicate() }", &["unknown operation `frobnicate`"]),
        ("fn f(x: Tensor<f32, 2>) -> Tensor<f32, 2> { x.relux() }", &["unknown operation `relux`; did you mean `relu`?"]),
        ("fn f(x: Tensor<f32, 2>) -> Tensor<f32, 2> { x.sofplus() }", &["unknown operation `sofplus`; the supported"]),
        ("fn f(x: Tensor<f64, 2>) -> Tensor<f64> { x.reduce(f32::NEG_INFINITY, [0], |a, b| a.max(b)) }", &["reduce"]),
        ("fn f(x: Tensor<f32, 2>) -> Tensor<f32, 2> { x * f32::PI }", &["paths: name a parameter, a `let` binding or one of Rust's numeric constants"]),
        ("fn f(x: Tensor<f32, 2>) -> Tensor<f32, 2> { helper(x) }", &["unknown function `helper`"]),
        ("fn f(x: Tensor<f32, 2>) -> Tensor<f32, 2> { y }", &["unknown name `y`"]),
        ("fn f(x: Tensor<f32, 2>) -> Tensor<f32, 2> { x.exp(1) }", &["`exp` takes no arguments, found 1"]),
        ("fn f(x: Tensor<f32, 2>) -> Tensor<f32, 2> { x.dot() }", &["`dot` takes 1 (rhs), found 0"]),
        ("fn f(x: Tensor<f32, 2>) -> Tensor<f32, 2> { x.convert() }", &["needs the target element type"]),
        ("fn f(x: Tensor<f32, 2>) -> Tensor<f32, 2> { x.exp::<f64>() }", &["takes no type argument"]),
        ("fn f(x: Tensor<f32, 2>) -> Tensor<f32, 2> { x.reshape(x) }", &["expected the new dims as a list of integer literals"]),
        ("fn f(x: Tensor<f32, 2>) -> (f32, f32) { x }", &["returns a tuple of 2 tensors"]),
        ("fn f(x: Tensor<f32, 2>, x: Tensor<f32, 2>) -> Tensor<f32, 2> { x }", &["parameter `x` is declared twice"]),
        ("fn f(x: Tensor<f32, 2>) -> Tensor<f32, 2> { let y: Tensor<f32, 3> = x; y }", &["`let y`: the annotation says f32[3] but the value is f32[2]"]),
        // No cascade: a poisoned binding is silent where it is used.
        (
            "fn f(x: Tensor<f32, 64, 784>, w: Tensor<f32, 128, 10>) -> Tensor<f32, 64, 10> {
                let a = x.dot(w);
                let b = x.reshape([5]);
                let c = a + b;
                c.exp()
            }",
            &["dot: contracting dimension sizes differ", "reshape"],
        ),
    ];
    for &(src, expected) in cases {
        let Err(errors) = check_src("", src) else {
            panic!("{src}: no error")
        };
        let mistakes = if src.contains("let c = a + b") { 2 } else { 1 };
        assert_eq!(errors.len(), mistakes, "{src}: {errors:?}");
        let joined = errors.join("\n");
        for want in expected {
            assert!(
                joined.contains(want),
                "{src}: `{joined}` should contain `{want}`"
            );
        }
    }
}

#[test]
fn grad_names_must_be_parameters() {
    // The rest (types, result, rules) is checked by xla-autodiff in `grad.rs`.
    assert!(check_src("grad(w)", DENSE).is_ok());
    assert!(check_src("grad", DENSE).is_ok());
    let errors = check_src("grad(w, q)", DENSE)
        .map(|(r, _, _)| r)
        .unwrap_err();
    assert_eq!(errors, ["grad: `q` is not a parameter of `dense`"]);
    let errors = check_src("grad(w, w)", DENSE)
        .map(|(r, _, _)| r)
        .unwrap_err();
    assert_eq!(errors, ["grad: `w` is listed twice"]);
}

#[test]
fn misc_ops_errors_name_the_rule() {
    let cases = [
        (
            "a: Tensor<f32, 2, 2>, b: Tensor<f32, 2, 1>",
            "Tensor<f32, 2, 1>",
            "a.triangular_solve(b, DOWN)",
            "expected an option word",
        ),
        (
            "x: Tensor<u8, 3>",
            "Tensor<f32>",
            "x.bitcast::<f32>()",
            "needs a last dimension equal to the width ratio 4",
        ),
        (
            "x: Tensor<f32, 2, 3, 4>",
            "Tensor<f32, 8, 3>",
            "x.collapse([0, 2])",
            "must be consecutive",
        ),
        (
            "x: Tensor<f32, 3, 3>, i: Tensor<i32, 2, 2>",
            "Tensor<f32, 2>",
            "x.gather_general(i, [], [0, 1], [0, 1], 1, [1])",
            "slice_sizes",
        ),
        (
            "k: Tensor<i32, 4>, v: Tensor<f32, 4>",
            "Tensor<i32, 4>",
            "let (a, _) = sort_together([k, v], 0, |a, b| a.lt(b)); a",
            "4 parameters",
        ),
    ];
    for (params, result, body, expected) in cases {
        let errors = result_of(params, result, body).unwrap_err();
        println!("{body}: {errors:?}");
        assert_eq!(errors.len(), 1, "{errors:?}");
        assert!(errors[0].contains(expected), "{body}: {errors:?}");
    }
}

/// `replicas = 4`: the group size sets the collectives' shapes, and the groups, pairs and
/// option are checked (one error each, naming the rule).
#[test]
fn collectives_over_replicas() {
    let ok = |body: &str, result: &str| {
        let item = format!("fn f(x: Tensor<f32, 8>) -> {result} {{ {body} }}");
        check_src("replicas = 4", &item)
    };
    let (r, _, module) = ok("x.all_gather(0)", "Tensor<f32, 32>").unwrap();
    assert_eq!(r, "f32[32]");
    assert_eq!(module.config.replica_count, 4);
    let groups = "x.all_gather(0, groups = [[0, 1], [2, 3]])";
    assert_eq!(ok(groups, "Tensor<f32, 16>").unwrap().0, "f32[16]");
    let scatter = "x.reduce_scatter(0, |a, b| a + b, groups = [[3, 2, 1, 0]])";
    assert_eq!(ok(scatter, "Tensor<f32, 2>").unwrap().0, "f32[2]");
    let uneven = "x.all_reduce(|a, b| a + b, groups = [[0], [1, 2, 3]])";
    assert_eq!(ok(uneven, "Tensor<f32, 8>").unwrap().0, "f32[8]");
    let bad = [
        (
            "x.all_gather(0, groups = [[0, 1], [2]])",
            "Tensor<f32, 16>",
            "replica 3 is in none",
        ),
        (
            "x.all_gather(0, groups = [[0], [1, 2, 3]])",
            "Tensor<f32, 8>",
            "the same size",
        ),
        (
            "x.all_reduce(|a, b| a + b, groups = [[0, 1, 2, 4]])",
            "Tensor<f32, 8>",
            "replica 4 is out of range (replicas = 4: ids 0..4)",
        ),
        (
            "x.all_reduce(|a, b| a + b, groups = [0, 1, 2, 3])",
            "Tensor<f32, 8>",
            "expected `groups = [[0, 1], [2, 3]]`",
        ),
        (
            "x.collective_permute([(0, 1), (0, 2)])",
            "Tensor<f32, 8>",
            "source 0 appears twice, in (0, 1) and (0, 2)",
        ),
        (
            "x.collective_permute([(0, 1), (2, 1)])",
            "Tensor<f32, 8>",
            "target 1 appears twice",
        ),
        (
            "x.all_to_all(0, 0, grups = [[0, 1, 2, 3]])",
            "Tensor<f32, 8>",
            "has no argument `grups`",
        ),
    ];
    for (body, result, want) in bad {
        let errors = ok(body, result).unwrap_err();
        assert_eq!(errors.len(), 1, "{body}: {errors:?}");
        assert!(errors[0].contains(want), "{body}: {errors:?}");
    }
    // One replica: a group naming replica 1 points at the option.
    let one = "fn f(x: Tensor<f32, 8>) -> Tensor<f32, 8> { x.all_reduce(|a, b| a + b, groups = [[0, 1]]) }";
    let errors = check_src("", one).unwrap_err();
    assert!(
        errors[0].contains("#[computation(replicas = N)]"),
        "{errors:?}"
    );
}

/// `replicas = 2, partitions = 4`: `over = ...` sets the ids the groups name, the shard
/// count (the group size in devices) and the attributes; bad combinations are one error
/// each, naming the op and the rule.
#[test]
fn collectives_over_partitions() {
    let ok = |body: &str, result: &str| {
        let item = format!("fn f(x: Tensor<f32, 8>) -> {result} {{ {body} }}");
        check_src("replicas = 2, partitions = 4", &item)
    };
    let (r, _, module) = ok("x.all_gather(0, over = partitions)", "Tensor<f32, 32>").unwrap();
    assert_eq!(r, "f32[32]");
    assert_eq!(
        (module.config.replica_count, module.config.num_partitions),
        (2, 4)
    );
    let text = xla_core::text::print_module(&module);
    assert!(text.contains("replica_count=2, num_partitions=4"), "{text}");
    // The per-device program, as XLA's SPMD partitioner must leave it.
    let lines: Vec<&str> = text.lines().filter(|l| l.contains(" = ")).collect();
    assert!(!lines.is_empty(), "{text}");
    assert!(
        lines.iter().all(|l| l.ends_with(", sharding={manual}")),
        "{text}"
    );
    assert!(
        text.contains("channel_id=1, replica_groups={{0,1,2,3},{4,5,6,7}}"),
        "{text}"
    );
    let shapes = [
        ("x.all_gather(0)", "Tensor<f32, 16>"),
        ("x.all_gather(0, over = devices)", "Tensor<f32, 64>"),
        (
            "x.all_gather(0, over = replicas_and_partitions)",
            "Tensor<f32, 64>",
        ),
        (
            "x.all_gather(0, groups = [[0], [1]], over = replicas_and_partitions)",
            "Tensor<f32, 32>",
        ),
        (
            "x.reduce_scatter(0, |a, b| a + b, groups = [[0, 1], [2, 3]], over = partitions)",
            "Tensor<f32, 4>",
        ),
        (
            "x.all_to_all(0, 0, groups = [[0, 1], [2, 3]], over = partitions)",
            "Tensor<f32, 8>",
        ),
        (
            "x.collective_permute([(0, 3), (3, 0)], over = partitions)",
            "Tensor<f32, 8>",
        ),
        ("x * partition_id().convert::<f32>()", "Tensor<f32, 8>"),
    ];
    for (body, result) in shapes {
        assert!(
            ok(body, result).is_ok(),
            "{body}: {:?}",
            ok(body, result).err()
        );
    }
    let bad = [
        ("x.all_reduce(|a, b| a + b, groups = [[0, 1, 2]], over = partitions)", "Tensor<f32, 8>", "all_reduce: the groups must partition the partitions (partitions = 4: ids 0..4), but partition 3 is in none"),
        ("x.all_gather(0, groups = [[0, 8]], over = devices)", "Tensor<f32, 16>", "device 8 is out of range (replicas × partitions = 2 × 4: device ids 0..8)"),
        ("x.reduce_scatter(0, |a, b| a + b, groups = [[0, 1, 2], [3]], over = partitions)", "Tensor<f32, 8>", "reduce_scatter: every group must have the same size (the shard count), but the group sizes are [3, 1]"),
        ("x.all_to_all(0, 0, over = devices)", "Tensor<f32, 8>", "all_to_all: `over = devices` cannot be expressed for all_to_all"),
        ("x.collective_permute([(0, 1)], over = replicas_and_partitions)", "Tensor<f32, 8>", "collective_permute: `over = replicas_and_partitions` cannot be expressed"),
        ("x.collective_permute([(0, 4)], over = partitions)", "Tensor<f32, 8>", "target 4 of pair (0, 4) is out of range (partitions = 4: ids 0..4)"),
        ("x.all_reduce(|a, b| a + b, over = rows)", "Tensor<f32, 8>", "all_reduce: expected `over = replicas`, `partitions`, `devices` or `replicas_and_partitions`"),
        ("x.slice([0..6]).reduce_scatter(0, |a, b| a + b, over = partitions)", "Tensor<f32, 1>", "must be divisible by the shard count 4"),
    ];
    for (body, result, want) in bad {
        let errors = ok(body, result).unwrap_err();
        assert_eq!(errors.len(), 1, "{body}: {errors:?}");
        assert!(errors[0].contains(want), "{body}: {errors:?}");
    }
    // One partition: a group naming partition 1 points at the option.
    let one = "fn f(x: Tensor<f32, 8>) -> Tensor<f32, 8> { x.all_reduce(|a, b| a + b, groups = [[0, 1]], over = partitions) }";
    let errors = check_src("replicas = 2", one).unwrap_err();
    assert!(
        errors[0].contains("#[computation(partitions = N)]"),
        "{errors:?}"
    );
    let errors = check_src(
        "replicas = 2048, partitions = 1024",
        "fn f(x: f32) -> f32 { x }",
    )
    .unwrap_err();
    assert!(errors[0].contains("at most 2^20"), "{errors:?}");
}
