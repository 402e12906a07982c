//! Unit tests of the parser on token streams.

#![allow(clippy::unwrap_used, clippy::panic)]

use super::*;
use std::str::FromStr;
use xla_core::PrimitiveType::*;

/// Parses `attr` and `item` and returns the AST and the error messages.
fn parse_src(attr: &str, item: &str) -> (Computation, Vec<String>) {
    let cx = Ctxt::new();
    let item: syn::ItemFn = syn::parse_str(item).unwrap();
    let attr = TokenStream::from_str(attr).unwrap();
    let c = parse(&cx, attr, item);
    (c, cx.into_errors().iter().map(|e| e.to_string()).collect())
}

fn parse_ty(src: &str) -> (Option<TypeSpec>, Vec<String>) {
    let cx = Ctxt::new();
    let ty: syn::Type = syn::parse_str(src).unwrap();
    let spec = parse_type(&cx, &ty);
    (
        spec,
        cx.into_errors().iter().map(|e| e.to_string()).collect(),
    )
}

fn tensor(spec: &Option<TypeSpec>) -> (PrimitiveType, Vec<i64>) {
    match spec {
        Some(TypeSpec::Tensor(t)) => (t.elem, t.dims.clone()),
        other => panic!("not a tensor type: {other:?}"),
    }
}

#[test]
fn tensor_types() {
    let cases: &[(&str, PrimitiveType, &[i64])] = &[
        ("Tensor<f32, 64, 784>", F32, &[64, 784]),
        ("Tensor<bf16, 128>", Bf16, &[128]),
        ("Tensor<f16, 1, 2, 3, 4>", F16, &[1, 2, 3, 4]),
        ("Tensor<i32, { 3 }>", S32, &[3]),
        ("Tensor<s32, 0>", S32, &[0]),
        ("Tensor<u8, 2>", U8, &[2]),
        ("Tensor<bool, 5>", Pred, &[5]),
        ("Tensor<pred, 5>", Pred, &[5]),
        ("Tensor<c64, 8>", C64, &[8]),
        ("Tensor<Complex64, 8>", C128, &[8]),
        ("Tensor<f64>", F64, &[]),
        ("f32", F32, &[]),
        ("i64", S64, &[]),
        ("xla::Tensor<f32, 2>", F32, &[2]),
        ("(Tensor<f32, 2>)", F32, &[2]),
    ];
    for &(src, elem, dims) in cases {
        let (spec, errors) = parse_ty(src);
        assert!(errors.is_empty(), "{src}: {errors:?}");
        assert_eq!(tensor(&spec), (elem, dims.to_vec()), "{src}");
    }
}

#[test]
fn every_array_element_type_has_a_name() {
    for &t in PrimitiveType::ALL.iter().filter(|t| t.is_array_type()) {
        let (spec, errors) = parse_ty(&format!("Tensor<{}, 2>", t.name()));
        assert!(errors.is_empty(), "{t}: {errors:?}");
        assert_eq!(tensor(&spec), (t, vec![2]));
    }
}

#[test]
fn tuple_results() {
    let (spec, errors) = parse_ty("(Tensor<f32, 64, 10>, f32)");
    assert!(errors.is_empty(), "{errors:?}");
    match spec {
        Some(TypeSpec::Tuple(elems)) => {
            assert_eq!(elems.len(), 2);
            assert_eq!(tensor(&Some(elems[0].clone())), (F32, vec![64, 10]));
            assert_eq!(tensor(&Some(elems[1].clone())), (F32, vec![]));
        }
        other => panic!("{other:?}"),
    }
}

/// A tuple of per-layer tuples (parameters, results and `let` annotations alike): its
/// leaves depth first and its nested tuple shape.
#[test]
fn nested_tuples() {
    let src =
        "((Tensor<f32, 3, 3, 1, 4>, Tensor<f32, 4>), (Tensor<f32, 36, 3>, Tensor<f32, 3>), f32)";
    let (spec, errors) = parse_ty(src);
    assert!(errors.is_empty(), "{errors:?}");
    let spec = spec.unwrap();
    let leaves: Vec<Vec<i64>> = spec.leaves().iter().map(|t| t.dims.clone()).collect();
    assert_eq!(
        leaves,
        [vec![3, 3, 1, 4], vec![4], vec![36, 3], vec![3], vec![]]
    );
    assert_eq!(
        spec.shape().to_string(),
        "((f32[3,3,1,4], f32[4]), (f32[36,3], f32[3]), f32[])"
    );
}

#[test]
fn bad_types() {
    let cases: &[(&str, &str)] = &[
        (
            "Tensor<f32, N>",
            "`N` is not a size parameter (declare it: `const N: usize`)",
        ),
        ("Tensor<float, 2>", "unknown element type `float`"),
        (
            "Tensor<2, 3>",
            "the first argument of `Tensor` is the element type",
        ),
        ("Tensor<>", "`Tensor` needs an element type"),
        ("Vec<f32>", "expected a tensor type"),
        ("String", "unknown element type `String`"),
        ("&Tensor<f32, 2>", "expected a tensor type"),
        ("((f32, String), f32)", "unknown element type `String`"),
        ("()", "expected a tensor type"),
        ("Tensor<tuple, 2>", "unknown element type `tuple`"),
    ];
    for &(src, expected) in cases {
        let (spec, errors) = parse_ty(src);
        assert!(spec.is_none(), "{src} parsed");
        assert_eq!(errors.len(), 1, "{src}: {errors:?}");
        assert!(errors[0].contains(expected), "{src}: {errors:?}");
    }
}

const DENSE: &str = "
    /// A dense layer.
    pub fn dense(x: Tensor<f32, 64, 784>, w: Tensor<f32, 784, 128>, b: Tensor<f32, 128>) -> Tensor<f32, 64, 128> {
        let h: Tensor<f32, 64, 128> = x.dot(w) + b;
        relu(h)
    }";

#[test]
fn dense_layer() {
    let (c, errors) = parse_src("", DENSE);
    assert!(errors.is_empty(), "{errors:?}");
    assert_eq!(c.name.to_string(), "dense");
    assert!(matches!(c.vis, syn::Visibility::Public(_)));
    assert_eq!(c.attrs.len(), 1, "the doc comment is kept");
    let params: Vec<(String, (PrimitiveType, Vec<i64>))> = c
        .params
        .iter()
        .map(|p| (p.name.to_string(), tensor(&p.ty)))
        .collect();
    assert_eq!(
        params,
        vec![
            ("x".to_string(), (F32, vec![64, 784])),
            ("w".to_string(), (F32, vec![784, 128])),
            ("b".to_string(), (F32, vec![128])),
        ]
    );
    assert_eq!(tensor(&c.result), (F32, vec![64, 128]));
    assert_eq!(c.body.stmts.len(), 1);
    let Stmt::Let {
        name,
        ty,
        init,
        mutable: false,
    } = &c.body.stmts[0]
    else {
        panic!()
    };
    assert_eq!(name.to_string(), "h");
    assert_eq!(tensor(ty), (F32, vec![64, 128]));
    let ExprKind::Binary(BinOp::Add, lhs, rhs) = &init.as_ref().unwrap().kind else {
        panic!("{init:?}")
    };
    let ExprKind::Method {
        recv,
        method,
        turbofish: None,
        args,
    } = &lhs.kind
    else {
        panic!("{lhs:?}")
    };
    assert!(matches!(&recv.kind, ExprKind::Var(v) if v == "x"));
    assert_eq!(method.to_string(), "dot");
    assert!(
        matches!(args.as_slice(), [Arg::Expr(Expr { kind: ExprKind::Var(v), .. })] if v == "w")
    );
    assert!(matches!(&rhs.kind, ExprKind::Var(v) if v == "b"));
    let tail = c.body.tail.as_ref().unwrap();
    let ExprKind::Call { func, args, .. } = &tail.kind else {
        panic!("{tail:?}")
    };
    assert_eq!(func.to_string(), "relu");
    assert_eq!(args.len(), 1);
}

fn tail_of(body: &str) -> ExprKind {
    let src = format!("fn f(x: Tensor<f32, 2, 3>) -> f32 {{ {body} }}");
    let (c, errors) = parse_src("", &src);
    assert!(errors.is_empty(), "{body}: {errors:?}");
    c.body.tail.unwrap().kind
}

#[test]
fn literals() {
    let cases: &[(&str, LitValue, Option<PrimitiveType>)] = &[
        ("1.5", LitValue::Float(1.5), None),
        ("-1.5", LitValue::Float(-1.5), None),
        ("2", LitValue::Int(2), None),
        ("-128i8", LitValue::Int(-128), Some(S8)),
        ("2.0f64", LitValue::Float(2.0), Some(F64)),
        ("3u8", LitValue::Int(3), Some(U8)),
        ("1e-3_f32", LitValue::Float(1e-3), Some(F32)),
        ("true", LitValue::Bool(true), Some(Pred)),
        ("(0.5)", LitValue::Float(0.5), None),
    ];
    for (src, value, ty) in cases {
        match tail_of(src) {
            ExprKind::Lit(lit) => assert_eq!(
                lit,
                Lit {
                    value: *value,
                    ty: *ty
                },
                "{src}"
            ),
            other => panic!("{src}: {other:?}"),
        }
    }
}

#[test]
fn operators() {
    let cases: &[(&str, BinOp)] = &[
        ("x + x", BinOp::Add),
        ("x - x", BinOp::Sub),
        ("x * x", BinOp::Mul),
        ("x / x", BinOp::Div),
        ("x % x", BinOp::Rem),
        ("x & x", BinOp::And),
        ("x && x", BinOp::And),
        ("x | x", BinOp::Or),
        ("x ^ x", BinOp::Xor),
        ("x << x", BinOp::Shl),
        ("x >> x", BinOp::Shr),
        ("x == x", BinOp::Eq),
        ("x != x", BinOp::Ne),
        ("x < x", BinOp::Lt),
        ("x <= x", BinOp::Le),
        ("x > x", BinOp::Gt),
        ("x >= x", BinOp::Ge),
    ];
    for (src, op) in cases {
        assert!(
            matches!(tail_of(src), ExprKind::Binary(o, _, _) if o == *op),
            "{src}"
        );
    }
    assert!(matches!(tail_of("-x"), ExprKind::Unary(UnOp::Neg, _)));
    assert!(matches!(tail_of("!x"), ExprKind::Unary(UnOp::Not, _)));
    // Precedence is Rust's: `x + x * x` adds a product.
    let ExprKind::Binary(BinOp::Add, _, rhs) = tail_of("x + x * x") else {
        panic!()
    };
    assert!(matches!(rhs.kind, ExprKind::Binary(BinOp::Mul, _, _)));
}

#[test]
fn method_arguments() {
    let ExprKind::Method { method, args, .. } = tail_of("x.transpose([1, 0])") else {
        panic!()
    };
    assert_eq!(method.to_string(), "transpose");
    assert!(matches!(args.as_slice(), [Arg::Ints(v, _)] if v == &[1, 0]));
    let ExprKind::Method { args, .. } = tail_of("x.broadcast_in_dim([4, 2, 3], [1, 2])") else {
        panic!()
    };
    assert!(
        matches!(args.as_slice(), [Arg::Ints(a, _), Arg::Ints(b, _)] if a == &[4, 2, 3] && b == &[1, 2])
    );
    let ExprKind::Method { args, .. } = tail_of("x.sum([])") else {
        panic!()
    };
    assert!(matches!(args.as_slice(), [Arg::Ints(v, _)] if v.is_empty()));
    let ExprKind::Method { turbofish, .. } = tail_of("x.convert::<f64>()") else {
        panic!()
    };
    assert_eq!(turbofish, Some(F64));
    let ExprKind::Method { recv, method, .. } = tail_of("x.exp().sum([1])") else {
        panic!()
    };
    assert_eq!(method.to_string(), "sum");
    assert!(matches!(recv.kind, ExprKind::Method { .. }));
}

#[test]
fn slices() {
    let spec = |start, end, step, index| SliceSpec {
        start,
        end,
        step,
        index,
    };
    let cases: &[(&str, &[SliceSpec])] = &[
        (
            "x.slice([.., 1..3])",
            &[spec(None, None, 1, false), spec(Some(1), Some(3), 1, false)],
        ),
        (
            "x[(.., 1..3)]",
            &[spec(None, None, 1, false), spec(Some(1), Some(3), 1, false)],
        ),
        ("x[2]", &[spec(Some(2), Some(3), 1, true)]),
        ("x[..4]", &[spec(None, Some(4), 1, false)]),
        (
            "x[(1.., (0..8).step_by(2))]",
            &[
                spec(Some(1), None, 1, false),
                spec(Some(0), Some(8), 2, false),
            ],
        ),
    ];
    for (src, expected) in cases {
        let ExprKind::Method { method, args, .. } = tail_of(src) else {
            panic!("{src}")
        };
        assert_eq!(method.to_string(), "slice", "{src}");
        match args.as_slice() {
            [Arg::Slices(specs, _)] => assert_eq!(specs, expected, "{src}"),
            other => panic!("{src}: {other:?}"),
        }
    }
}

/// Each source gives exactly the listed errors, in order.
#[test]
fn unsupported_constructs_are_reported_each_once() {
    let cases: &[(&str, &str, &[&str])] = &[
        (
            "",
            "fn f(x: f32) -> f32 { if x > 0.0 { x } }",
            &["an `if` needs an `else`"],
        ),
        (
            "",
            "fn f(x: f32) -> f32 { let y = |a| a; x }",
            &["closures"],
        ),
        (
            "",
            "fn f(x: Tensor<f32, 2>) -> f32 { x[y] }",
            &["an index is integer literals and ranges"],
        ),
        (
            "",
            "fn f(x: Tensor<f32, 2>) -> f32 { x[0..=1] }",
            &["an index is integer literals and ranges"],
        ),
        (
            "",
            "fn f(x: f32) -> f32 { x; }",
            &[
                "bind this value with `let`",
                "must end with the result expression",
            ],
        ),
        ("", "fn f(x: f32) -> f32 { return x }", &["`return`"]),
        (
            "",
            "fn f(x: f32) { x }",
            &["a computation must return a tensor"],
        ),
        (
            "",
            "fn f(x: f32) -> f32 { x.foo::<f32, f64>() }",
            &["expected one element type"],
        ),
        (
            "",
            "fn f(x: f32) -> f32 { x.convert::<float>() }",
            &["unknown element type `float`"],
        ),
        ("", "fn f(x: f32) -> f32 { x as f64 }", &["`as` casts"]),
        (
            "",
            "fn f(x: f32) -> f32 { std::f32::consts::PIE }",
            &["paths"],
        ),
        (
            "",
            "fn f(x: f32) -> f32 { let mut y = x; for i in 0..=3 { y = y * x; } y }",
            &["a loop runs over a range of integer literals"],
        ),
        ("", "fn f(mut x: f32) -> f32 { x }", &["cannot be `mut`"]),
        (
            "",
            "fn f((a, b): (f32, f32)) -> f32 { a }",
            &["a parameter must be a plain name"],
        ),
        (
            "",
            "fn f<T>(x: f32) -> f32 { x }",
            &["a computation is generic over sizes (`const N: usize`) and shapes (`S: Shape`, any rank) only"],
        ),
        (
            "",
            "async fn f(x: f32) -> f32 { x }",
            &["cannot be `async`"],
        ),
        (
            "",
            "#[inline] fn f(x: f32) -> f32 { x }",
            &["only doc comments"],
        ),
        (
            "",
            "fn f(x: f32) -> f32 { let y = x += 1.0; y }",
            &["compound assignment"],
        ),
        (
            "",
            "fn f(x: f32) -> f32 { 1.0u7 }",
            &["unknown literal suffix `u7`"],
        ),
        (
            "",
            "fn f(x: f32) -> f32 { \"a\" }",
            &["only number and boolean literals"],
        ),
        (
            "nope",
            "fn f(x: f32) -> f32 { x }",
            &["unknown option of #[computation]"],
        ),
        ("grad(1)", "fn f(x: f32) -> f32 { x }", &["expected ident"]),
        (
            "replicas = 0",
            "fn f(x: f32) -> f32 { x }",
            &["replicas: expected a count of at least 1"],
        ),
        ("replicas", "fn f(x: f32) -> f32 { x }", &["expected `=`"]),
        // Three mistakes, three errors, no cascade.
        (
            "",
            "fn f(x: Tensor<f32, N>) -> Tensor<g32, 2> { let a = x[z]; let b = loop {}; a + b }",
            &[
                "`N` is not a size parameter",
                "unknown element type `g32`",
                "an index is",
                "`loop` (use `while cond",
            ],
        ),
    ];
    for &(attr, src, expected) in cases {
        let (_, errors) = parse_src(attr, src);
        assert_eq!(errors.len(), expected.len(), "{src}: {errors:?}");
        for (e, want) in errors.iter().zip(expected) {
            assert!(e.contains(want), "{src}: `{e}` should contain `{want}`");
        }
    }
}

#[test]
fn control_flow() {
    let src = "fn f(x: f32) -> f32 {
        let mut acc = x;
        for i in 0..4 {
            acc = acc * x;
            acc += 1.0;
        }
        if acc > 0.0 { acc } else if acc < -1.0 { -acc } else { 0.0 }
    }";
    let (c, errors) = parse_src("", src);
    assert!(errors.is_empty(), "{errors:?}");
    assert!(matches!(&c.body.stmts[0], Stmt::Let { mutable: true, .. }));
    let Stmt::For {
        var,
        start: 0,
        end: 4,
        body,
        ..
    } = &c.body.stmts[1]
    else {
        panic!("{:?}", c.body.stmts[1])
    };
    assert_eq!(var.as_ref().unwrap().to_string(), "i");
    assert!(matches!(
        &body[..],
        [
            Stmt::Assign { .. },
            Stmt::Assign {
                value: Expr {
                    kind: ExprKind::Binary(BinOp::Add, _, _),
                    ..
                },
                ..
            }
        ]
    ));
    let ExprKind::If { els, .. } = &c.body.tail.as_ref().unwrap().kind else {
        panic!()
    };
    assert!(
        matches!(els.tail.as_ref().unwrap().kind, ExprKind::If { .. }),
        "else if nests"
    );
    let loop_errors: &[(&str, &str)] = &[
        (
            "for (a, b) in 0..2 {}",
            "the loop counter must be a plain name or `_`",
        ),
        (
            "for i in 0..n {}",
            "a loop runs over a range of integer literals",
        ),
        ("for i in 0..2 { x }", "a loop body has no value"),
        ("'outer: for i in 0..2 {}", "loop labels are not supported"),
        ("x.y = 2.0;", "only a `let mut` name can be assigned"),
    ];
    for (stmt, expected) in loop_errors {
        let (_, errors) = parse_src("", &format!("fn f(x: f32) -> f32 {{ {stmt} x }}"));
        assert_eq!(errors.len(), 1, "{stmt}: {errors:?}");
        assert!(errors[0].contains(expected), "{stmt}: {errors:?}");
    }
}

#[test]
fn a_let_whose_value_fails_still_binds_its_name() {
    let (c, errors) = parse_src("", "fn f(x: f32) -> f32 { let y = loop { break x; }; y }");
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(matches!(&c.body.stmts[..], [Stmt::Let { init: None, .. }]));
}

#[test]
fn grad_option() {
    let (c, errors) = parse_src("grad(w, b)", DENSE);
    assert!(errors.is_empty(), "{errors:?}");
    let (_, wrt) = c.options.grad.unwrap();
    assert_eq!(
        wrt.unwrap()
            .iter()
            .map(|i| i.to_string())
            .collect::<Vec<_>>(),
        ["w", "b"]
    );
    let (c, errors) = parse_src("grad", DENSE);
    assert!(errors.is_empty(), "{errors:?}");
    assert!(matches!(c.options.grad, Some((_, None))));
}
