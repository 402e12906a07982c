//! The public transformations: grad (w.r.t. chosen parameters, in order), value_and_grad,
//! vjp, jvp, grad of grad (Hessian-vector products), the rule table's coverage, and the
//! typed errors.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use xla_autodiff::{
    differentiability, grad_module, jvp_module, value_and_grad_module, vjp_module, AutodiffError,
    Differentiability,
};
use xla_core::ir::Opcode;
use xla_core::{Literal, Module, Shape};

const ADD: &str =
    "add { a = f64[] parameter(0)  b = f64[] parameter(1)  ROOT r = f64[] add(a, b) }\n";

fn module(body: &str) -> Module {
    let text = format!("HloModule m\n{ADD}\nENTRY main {{\n{body}\n}}\n");
    xla_core::text::parse_module(&text).unwrap()
}

fn run(m: &Module, args: &[Literal]) -> Vec<Vec<f64>> {
    xla_core::verify::verify_module(m).unwrap();
    let out = xla_cpu::Executable::compile(m)
        .unwrap()
        .execute(args)
        .unwrap();
    let mut leaves = Vec::new();
    flatten(&out, &mut leaves);
    leaves
}

fn flatten(l: &Literal, out: &mut Vec<Vec<f64>>) {
    match l.tuple_elements() {
        Some(t) => t.iter().for_each(|e| flatten(e, out)),
        None => out.push(l.data::<f64>().unwrap().to_vec()),
    }
}

fn vec1(v: &[f64]) -> Literal {
    Literal::vec1(v)
}

/// f(x, y) = sum(x² · y): ∂x = 2xy, ∂y = x².
const SUM_X2_Y: &str = "x = f64[3] parameter(0)\ny = f64[3] parameter(1)\nx2 = f64[3] multiply(x, x)\np = f64[3] multiply(x2, y)\nz = f64[] constant(0)\nROOT r = f64[] reduce(p, z), dimensions={0}, to_apply=add";

#[test]
fn grad_follows_the_wrt_order() {
    let m = module(SUM_X2_Y);
    let (x, y) = (vec1(&[1.0, 2.0, 3.0]), vec1(&[4.0, 5.0, 6.0]));
    let all = run(&grad_module(&m, None).unwrap(), &[x.clone(), y.clone()]);
    assert_eq!(all, vec![vec![8.0, 20.0, 36.0], vec![1.0, 4.0, 9.0]]);
    let swapped = run(
        &grad_module(&m, Some(&[1, 0])).unwrap(),
        &[x.clone(), y.clone()],
    );
    assert_eq!(swapped, vec![vec![1.0, 4.0, 9.0], vec![8.0, 20.0, 36.0]]);
    let only_y = run(&grad_module(&m, Some(&[1])).unwrap(), &[x, y]);
    assert_eq!(only_y, vec![vec![1.0, 4.0, 9.0]]);
}

#[test]
fn a_one_element_tuple_result_is_differentiated_like_its_scalar() {
    let m = module("x = f64[3] parameter(0)\nz = f64[] constant(0)\nr = f64[] reduce(x, z), dimensions={0}, to_apply=add\nROOT t = (f64[]) tuple(r)");
    let out = run(&grad_module(&m, None).unwrap(), &[vec1(&[1.0, 2.0, 3.0])]);
    assert_eq!(out, vec![vec![1.0; 3]]);
}

#[test]
fn value_and_grad_returns_the_value_first() {
    let m = module(SUM_X2_Y);
    let out = run(
        &value_and_grad_module(&m, Some(&[0])).unwrap(),
        &[vec1(&[1.0, 2.0, 3.0]), vec1(&[4.0, 5.0, 6.0])],
    );
    assert_eq!(out, vec![vec![4.0 + 20.0 + 54.0], vec![8.0, 20.0, 36.0]]);
}

#[test]
fn vjp_takes_the_cotangent_as_the_last_parameter() {
    // f(x) = x * x (elementwise): vjp(c) = 2 x c.
    let m = module("x = f64[3] parameter(0)\nROOT r = f64[3] multiply(x, x)");
    let v = vjp_module(&m, None).unwrap();
    assert_eq!(v.entry_computation().unwrap().parameter_shapes().len(), 2);
    let out = run(&v, &[vec1(&[1.0, 2.0, 3.0]), vec1(&[1.0, 0.5, -1.0])]);
    assert_eq!(out, vec![vec![2.0, 2.0, -6.0]]);
}

#[test]
fn jvp_returns_value_and_tangent() {
    // f(x) = x * x: jvp(v) = 2 x v.
    let m = module("x = f64[3] parameter(0)\nROOT r = f64[3] multiply(x, x)");
    let out = run(
        &jvp_module(&m, None).unwrap(),
        &[vec1(&[1.0, 2.0, 3.0]), vec1(&[1.0, 0.5, -1.0])],
    );
    assert_eq!(out, vec![vec![1.0, 4.0, 9.0], vec![2.0, 2.0, -6.0]]);
}

#[test]
fn hessian_vector_product_through_grad_of_grad() {
    // f(x) = sum(exp(x) * x): ∇f = exp(x)(1 + x), H = diag(exp(x)(2 + x)).
    let m = module("x = f64[3] parameter(0)\ne = f64[3] exponential(x)\np = f64[3] multiply(e, x)\nz = f64[] constant(0)\nROOT r = f64[] reduce(p, z), dimensions={0}, to_apply=add");
    let g = grad_module(&m, None).unwrap();
    let hv = jvp_module(&g, None).unwrap();
    let (x, v) = ([0.5, -1.0, 2.0], [1.0, 2.0, -0.5]);
    let out = run(&hv, &[vec1(&x), vec1(&v)]);
    for i in 0..3 {
        let want = x[i].exp() * (2.0 + x[i]) * v[i];
        assert!((out[1][i] - want).abs() < 1e-12, "{} vs {want}", out[1][i]);
    }
    // And as a gradient of the gradient's pairing with v, through grad_module twice.
    let pairing = module("x = f64[3] parameter(0)\nv = f64[3] parameter(1)\ne = f64[3] exponential(x)\none = f64[] constant(1)\nob = f64[3] broadcast(one), dimensions={}\nxp = f64[3] add(x, ob)\ng = f64[3] multiply(e, xp)\ngv = f64[3] multiply(g, v)\nz = f64[] constant(0)\nROOT r = f64[] reduce(gv, z), dimensions={0}, to_apply=add");
    let out = run(
        &grad_module(&pairing, Some(&[0])).unwrap(),
        &[vec1(&x), vec1(&v)],
    );
    for i in 0..3 {
        let want = x[i].exp() * (2.0 + x[i]) * v[i];
        assert!((out[0][i] - want).abs() < 1e-12);
    }
}

#[test]
fn grad_of_grad_of_a_module_built_by_grad() {
    // g = ∇ sum(sin(x)) = cos(x); sum(g) differentiated again: -sin(x).
    let m = module("x = f64[2] parameter(0)\ns = f64[2] sine(x)\nz = f64[] constant(0)\nROOT r = f64[] reduce(s, z), dimensions={0}, to_apply=add");
    let g = grad_module(&m, None).unwrap();
    let sum_g = {
        let b = xla_core::builder::XlaBuilder::new("sum_g");
        let x = b.parameter(0, Shape::array(xla_core::PrimitiveType::F64, [2]), "x");
        let gx = b.get_tuple_element(b.inline(&g, g.entry, &[x]), 0);
        let zero = b.constant_r0(0.0f64);
        let s = b.reduce(gx, zero, &[0], xla_core::builder::Combiner::Add);
        b.build_with_root(&s).unwrap()
    };
    let gg = grad_module(&sum_g, None).unwrap();
    let out = run(&gg, &[vec1(&[0.3, -1.2])]);
    assert!((out[0][0] + 0.3f64.sin()).abs() < 1e-12);
    assert!((out[0][1] + (-1.2f64).sin()).abs() < 1e-12);
}

#[test]
fn absent_cotangents_are_not_materialised() {
    // y does not reach the result: its gradient is the only zeros in the module.
    let m = module("x = f64[3] parameter(0)\ny = f64[3] parameter(1)\nz = f64[] constant(0)\nROOT r = f64[] reduce(x, z), dimensions={0}, to_apply=add");
    let g = grad_module(&m, None).unwrap();
    let out = run(&g, &[vec1(&[1.0, 2.0, 3.0]), vec1(&[4.0, 5.0, 6.0])]);
    assert_eq!(out, vec![vec![1.0; 3], vec![0.0; 3]]);
    let text = xla_core::text::print_module(&g);
    assert!(!text.contains("multiply"), "{text}");
}

#[test]
fn every_opcode_is_classified() {
    let mut rules = 0;
    for op in Opcode::all() {
        match differentiability(op) {
            Differentiability::Rule => rules += 1,
            Differentiability::NonDifferentiable(reason) => {
                assert!(!reason.is_empty(), "{}", op.name())
            }
        }
    }
    assert!(rules > 60, "{rules} opcodes with rules");
    for op in [
        "rng",
        "all-gather",
        "custom-call",
        "send",
        "infeed",
        "compare",
        "bitcast-convert",
    ] {
        let op = Opcode::from_name(op).unwrap();
        assert!(
            matches!(
                differentiability(op),
                Differentiability::NonDifferentiable(_)
            ),
            "{}",
            op.name()
        );
    }
}

/// `(module body, wrt, expected error substring)`.
const ERRORS: &[(&str, Option<&[usize]>, &str)] = &[
    ("x = f64[3] parameter(0)\nROOT r = f64[3] sine(x)", None, "scalar floating-point result, but the entry's result is f64[3]"),
    ("x = s32[] parameter(0)\nROOT r = s32[] add(x, x)", None, "result is s32[]"),
    ("x = f64[] parameter(0)\ni = s32[] parameter(1)\nROOT r = f64[] sine(x)", Some(&[1]), "parameter 1 is s32[]"),
    ("x = f64[] parameter(0)\nROOT r = f64[] sine(x)", Some(&[3]), "no parameter 3"),
    ("x = f64[] parameter(0)\nz = f64[] constant(0)\no = f64[] constant(1)\nu = f64[] rng(z, o), distribution=rng_uniform\nROOT r = f64[] multiply(x, u)", None, ""),
    ("x = f64[] parameter(0)\nROOT r = f64[] custom-call(x), custom_call_target=\"foo\"", None, "no gradient through `r` (custom-call): a custom call is opaque"),
    ("x = f64[] parameter(0)\ny = f64[] bitcast-convert(x)\nROOT r = f64[] sine(y)", None, "(bitcast-convert)"),
];

#[test]
fn errors_name_the_op_and_why() {
    for (body, wrt, want) in ERRORS {
        let m = module(body);
        match grad_module(&m, *wrt) {
            Err(e) => assert!(e.to_string().contains(want), "{body}: {e}"),
            Ok(_) if want.is_empty() => {} // rng is not on the path to the gradient
            Ok(_) => panic!("{body}: expected an error containing {want:?}"),
        }
    }
}

#[test]
fn a_while_with_unknown_trip_count_is_an_error() {
    let text = format!(
        "HloModule m\n{ADD}\ncond {{ s = (f64[], f64[]) parameter(0)  a = f64[] get-tuple-element(s), index=0  b = f64[] get-tuple-element(s), index=1  ROOT lt = pred[] compare(a, b), direction=LT }}\nbody {{ s = (f64[], f64[]) parameter(0)  a = f64[] get-tuple-element(s), index=0  b = f64[] get-tuple-element(s), index=1  d = f64[] add(a, a)  ROOT t = (f64[], f64[]) tuple(d, b) }}\nENTRY main {{\nx = f64[] parameter(0)\nn = f64[] constant(100)\ns = (f64[], f64[]) tuple(x, n)\nw = (f64[], f64[]) while(s), condition=cond, body=body\nROOT r = f64[] get-tuple-element(w), index=0\n}}\n"
    );
    let m = xla_core::text::parse_module(&text).unwrap();
    let e = grad_module(&m, None).unwrap_err();
    assert!(matches!(e, AutodiffError::NotDifferentiable { .. }), "{e}");
    assert!(
        e.to_string()
            .contains("(while): the loop's trip count is not known"),
        "{e}"
    );
}

/// A scatter combiner that is not separable per component (argmax-style, or subtract)
/// is an error that says why.
#[test]
fn scatters_without_a_rule_say_why() {
    let argmax = "argmax {\n  av = f64[] parameter(0)  ai = s32[] parameter(1)  bv = f64[] parameter(2)  bi = s32[] parameter(3)\n  gt = pred[] compare(av, bv), direction=GT\n  v = f64[] select(gt, av, bv)\n  i = s32[] select(gt, ai, bi)\n  ROOT t = (f64[], s32[]) tuple(v, i)\n}\nsub { a = f64[] parameter(0)  b = f64[] parameter(1)  ROOT r = f64[] subtract(a, b) }\n";
    let cases = [
        ("x = f64[4] parameter(0)\nn = s32[4] parameter(1)\ni = s32[2,1] parameter(2)\nu = f64[2] parameter(3)\nm = s32[2] parameter(4)\nt = (f64[4], s32[4]) scatter(x, n, i, u, m), update_window_dims={}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=argmax\nROOT r = f64[4] get-tuple-element(t), index=0",
         "(scatter): the combiner does not combine operand 0 with update 0 alone by add, multiply, maximum, minimum or replacement"),
        ("x = f64[4] parameter(0)\ni = s32[2,1] parameter(1)\nu = f64[2] parameter(2)\nROOT s = f64[4] scatter(x, i, u), update_window_dims={}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=sub",
         "(scatter): the combiner is not add, multiply, maximum, minimum or a replacement"),
    ];
    for (body, want) in cases {
        let text = format!("HloModule m\n{argmax}\nENTRY main {{\n{body}\n}}\n");
        let m = xla_core::text::parse_module(&text).unwrap();
        let e = vjp_module(&m, Some(&[0])).unwrap_err();
        assert!(matches!(e, AutodiffError::NotDifferentiable { .. }), "{e}");
        assert!(e.to_string().contains(want), "{e}");
    }
}

/// Select-and-scatter is differentiated only when its scatter computation adds.
#[test]
fn select_and_scatter_with_another_scatter_is_an_error() {
    let text = "HloModule m\nge { a = f64[] parameter(0)  b = f64[] parameter(1)  ROOT r = pred[] compare(a, b), direction=GE }\nmul { a = f64[] parameter(0)  b = f64[] parameter(1)  ROOT r = f64[] multiply(a, b) }\nENTRY main {\nx = f64[4] parameter(0)\ns = f64[2] parameter(1)\no = f64[] constant(1)\nROOT r = f64[4] select-and-scatter(x, s, o), window={size=2 stride=2}, select=ge, scatter=mul\n}\n";
    let m = xla_core::text::parse_module(text).unwrap();
    let e = vjp_module(&m, Some(&[1])).unwrap_err();
    assert!(
        e.to_string().contains(
            "(select-and-scatter): only select-and-scatter whose scatter computation adds"
        ),
        "{e}"
    );
}
