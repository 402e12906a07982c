//! The forms added to reach the rest of the spec's ops: keyword arguments, `match`,
//! `while`, tuples in the body, variadic reductions and collectives — their result shapes,
//! their HLO, and one error per mistake naming the rule.

#![allow(clippy::unwrap_used, clippy::panic)]

use super::*;
use crate::parse::parse;

/// Parses and checks `fn f(params) -> result { body }`: the result shape and the module's
/// HLO text, or the errors.
fn check_body(params: &str, result: &str, body: &str) -> Result<(String, String), Vec<String>> {
    let cx = Ctxt::new();
    let src = format!("fn f({params}) -> {result} {{ {body} }}");
    let item: syn::ItemFn = syn::parse_str(&src).unwrap();
    let c = parse(&cx, proc_macro2::TokenStream::new(), item);
    let checked = check(&cx, &c);
    let errors: Vec<String> = cx.into_errors().iter().map(|e| e.to_string()).collect();
    match checked {
        Some(ch) if errors.is_empty() => Ok((
            ch.result.to_string(),
            xla_core::text::print_module(&ch.module),
        )),
        _ => Err(errors),
    }
}

#[test]
fn new_forms_build_the_expected_ops() {
    let cases: &[(&str, &str, &str, &str, &[&str])] = &[
        (
            "x: Tensor<f32, 1, 5, 5, 3>, k: Tensor<f32, 3, 3, 3, 8>",
            "Tensor<f32, 1, 3, 3, 8>",
            r#"x.conv_general(k, strides = [2, 2], padding = SAME, dimension_numbers = "b01f_01io->b01f")"#,
            "f32[1,3,3,8]",
            &[
                "dim_labels=b01f_01io->b01f",
                "window={size=3x3 stride=2x2 pad=1_1x1_1}",
            ],
        ),
        (
            "i: i32, x: Tensor<f32, 2>",
            "Tensor<f32, 2>",
            "match i { 0 => x, 1 => x * 2.0, _ => 0.0 }",
            "f32[2]",
            &["conditional(", "branch_computations={branch_0"],
        ),
        (
            "x: f32",
            "f32",
            "let mut y = x; while y < 10.0 { y = y * 2.0; } y",
            "f32[]",
            &["while(", "condition=while_condition", "body=while_body"],
        ),
        (
            "x: Tensor<f32, 3>",
            "(Tensor<f32, 3>, f32)",
            "let t: (Tensor<f32, 3>, f32) = (x, x.sum()); t",
            "(f32[3], f32[])",
            &["tuple("],
        ),
        (
            "x: Tensor<f32, 2, 3>, y: Tensor<i32, 2, 3>",
            "(Tensor<f32, 2>, Tensor<i32, 2>)",
            "reduce_together([x, y], [0.0, 0], [1], |(a, b), (c, d)| (a + c, b + d))",
            "(f32[2], s32[2])",
            &["reduce(", "dimensions={1}"],
        ),
        (
            "x: Tensor<f32, 3>",
            "Tensor<u32>",
            "replica_id() + partition_id()",
            "u32[]",
            &["replica-id()", "partition-id()"],
        ),
    ];
    for (params, result, body, shape, hlo) in cases {
        let (got, text) =
            check_body(params, result, body).unwrap_or_else(|e| panic!("{body}: {e:?}"));
        assert_eq!(&got, shape, "{body}");
        for h in *hlo {
            assert!(text.contains(h), "{body}: `{h}` not in\n{text}");
        }
    }
}

#[test]
fn new_forms_report_one_error_naming_the_rule() {
    let x = "x: Tensor<f32, 1, 4, 4, 2>, k: Tensor<f32, 3, 3, 2, 5>";
    let conv = "Tensor<f32, 1, 2, 2, 5>";
    let cases: &[(&str, &str, &str, &str)] = &[
        (
            x,
            conv,
            r#"x.conv_general(k, dimension_numbers = "b01f_01io")"#,
            "missing '->'",
        ),
        (
            x,
            conv,
            r#"x.conv_general(k, dims = "b01f_01io->b01f")"#,
            "`conv_general` has no argument `dims`",
        ),
        (
            x,
            conv,
            "x.conv_general(k, strides = [1, 1], strides = [2, 2])",
            "argument `strides` is given twice",
        ),
        (
            x,
            conv,
            "x.conv_general(strides = [1, 1], k)",
            "a positional argument cannot follow a keyword argument",
        ),
        (
            x,
            conv,
            "x.conv_general(strides = [1, 1])",
            "missing argument `kernel`",
        ),
        (
            x,
            conv,
            "x.conv_general(k, dimension_numbers = 3)",
            "the dimension numbers",
        ),
        (
            x,
            conv,
            r#"x.conv_general(k, dimension_numbers = "b01f_01oi->b01f")"#,
            "convolution",
        ),
        (
            x,
            conv,
            "x.conv_general(k, k.strides = [1, 1])",
            "a keyword argument is `name = value`, with a plain name",
        ),
        (
            x,
            conv,
            "x.conv_general(k, strides = padding = [1, 1])",
            "one keyword per argument",
        ),
        (
            "x: f32",
            "f32",
            "let mut y = x; while let 1 = 1 { y = y * 2.0; } y",
            "`while let` is not supported",
        ),
        (
            "x: Tensor<f32, 2>",
            "Tensor<f32, 2>",
            "x.reshape(dims = [2])",
            "`reshape` takes no keyword arguments",
        ),
        (
            "x: Tensor<f32, 2>",
            "Tensor<f32, 2>",
            "concat([x], dim = 0)",
            "`concat` takes no keyword arguments",
        ),
        (
            "i: i32, x: f32",
            "f32",
            "match i { 0 => x, 1 => 2.0 }",
            "needs a final `_` arm",
        ),
        (
            "i: i32, x: f32",
            "f32",
            "match i { 0 => x, 2 => 1.0, _ => 2.0 }",
            "found `2` where `1` was expected",
        ),
        (
            "i: i32, x: f32",
            "f32",
            "match i { 0 => x, _ => 2.0, 1 => x }",
            "the `_` arm must be the last arm",
        ),
        (
            "i: i32, x: f32",
            "f32",
            "match i { n if n > 0 => x, _ => 2.0 }",
            "match guards are not supported",
        ),
        (
            "i: f32, x: f32",
            "f32",
            "match i { 0 => x, _ => 2.0 }",
            "the branch index must be an s32 scalar",
        ),
        (
            "i: i32, x: Tensor<f32, 2>",
            "Tensor<f32, 2>",
            "match i { 0 => x, _ => x.sum() }",
            "conditional",
        ),
        (
            "x: f32",
            "f32",
            "let mut y = x; while y { y = y * 2.0; } y",
            "the condition must be a scalar bool (pred[]), found f32[]",
        ),
        (
            "x: f32",
            "f32",
            "let y = x; while y < 1.0 { let z = y; } y",
            "must assign a `let mut` name",
        ),
        (
            "x: f32",
            "f32",
            "let mut y = x; while y < 1.0 { y = y.broadcast([2]); } y",
            "would change from f32[] to f32[2]",
        ),
        (
            "x: Tensor<f32, 3>",
            "Tensor<f32>",
            "let (a, b) = reduce_together([x, x], [0.0], [0], |(a, b), (c, d)| (a + c, b + d)); a",
            "2 operands but 1 initial values",
        ),
        (
            "x: Tensor<f32, 3>",
            "Tensor<f32>",
            "let (a, b) = reduce_together([x, x], [0.0, 0.0], [0], |a, c| a + c); a",
            "takes 4 parameters, found 2",
        ),
        (
            "x: Tensor<f32, 3>",
            "Tensor<f32, 3>",
            "map_together(x, |a| a)",
            "expected the operands as a list",
        ),
        (
            "x: Tensor<f32, 3>",
            "(Tensor<f32, 3>, f32)",
            "x",
            "the signature returns a tuple of 2 tensors (f32[3], f32[]) but the value is f32[3]",
        ),
        (
            "x: Tensor<f32, 3>",
            "f32",
            "let t: (f32, f32) = (x, 1.0); t.1",
            "`let t`: the annotation says (f32[], f32[]) but the value is (f32[3], f32[])",
        ),
        (
            "x: Tensor<f32, 3>",
            "Tensor<f32, 3>",
            "x.collective_permute([0, 0])",
            "(source, target)",
        ),
        (
            "x: Tensor<f32, 3>",
            "Tensor<f32, 3>",
            "rng_bernoulli(x, [3])",
            "the probability must be a scalar",
        ),
    ];
    for (params, result, body, expected) in cases {
        let errors = check_body(params, result, body).unwrap_err();
        assert_eq!(errors.len(), 1, "{body}: {errors:?}");
        assert!(errors[0].contains(expected), "{body}: {errors:?}");
    }
}
