//! One row per differentiable op: the vjp built by `vjp_module` (run on xla-cpu) against
//! central finite differences of `⟨f(x), c⟩` in f64, on seeded random inputs and a random
//! cotangent `c`. The forward modules are HLO text, so each row reads like the op it checks.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::needless_range_loop
)]

use xla_autodiff::{differentiability, jvp_module, vjp_module, Differentiability};
use xla_core::{Literal, Module, PrimitiveType};

/// Computations the rows share.
const PRELUDE: &str = r#"
add { a = f64[] parameter(0)  b = f64[] parameter(1)  ROOT r = f64[] add(a, b) }
mul { a = f64[] parameter(0)  b = f64[] parameter(1)  ROOT r = f64[] multiply(a, b) }
max { a = f64[] parameter(0)  b = f64[] parameter(1)  ROOT r = f64[] maximum(a, b) }
min { a = f64[] parameter(0)  b = f64[] parameter(1)  ROOT r = f64[] minimum(a, b) }
replace { a = f64[] parameter(0)  ROOT b = f64[] parameter(1) }
ge { a = f64[] parameter(0)  b = f64[] parameter(1)  ROOT r = pred[] compare(a, b), direction=GE }
lt { a = f64[] parameter(0)  b = f64[] parameter(1)  ROOT r = pred[] compare(a, b), direction=LT }
lt2 {
  a = f64[] parameter(0)  b = f64[] parameter(1)  c = f64[] parameter(2)  d = f64[] parameter(3)
  ROOT r = pred[] compare(a, b), direction=LT
}
argmax {
  av = f64[] parameter(0)  ai = s32[] parameter(1)  bv = f64[] parameter(2)  bi = s32[] parameter(3)
  gt = pred[] compare(av, bv), direction=GT
  eq = pred[] compare(av, bv), direction=EQ
  li = pred[] compare(ai, bi), direction=LT
  tie = pred[] and(eq, li)
  keep = pred[] or(gt, tie)
  v = f64[] select(keep, av, bv)
  i = s32[] select(keep, ai, bi)
  ROOT t = (f64[], s32[]) tuple(v, i)
}
summax {
  a0 = f64[] parameter(0)  a1 = f64[] parameter(1)  b0 = f64[] parameter(2)  b1 = f64[] parameter(3)
  s = f64[] add(a0, b0)  m = f64[] maximum(b1, a1)
  ROOT t = (f64[], f64[]) tuple(s, m)
}
mul_replace {
  a0 = f64[] parameter(0)  a1 = f64[] parameter(1)  b0 = f64[] parameter(2)  b1 = f64[] parameter(3)
  m = f64[] multiply(b0, a0)  c = f64[] copy(b1)
  ROOT t = (f64[], f64[]) tuple(m, c)
}
min_addi {
  a0 = f64[] parameter(0)  a1 = s32[] parameter(1)  b0 = f64[] parameter(2)  b1 = s32[] parameter(3)
  m = f64[] minimum(a0, b0)  s = s32[] add(a1, b1)
  ROOT t = (f64[], s32[]) tuple(m, s)
}
pickmax {
  a0 = f64[] parameter(0)  a1 = f64[] parameter(1)  b0 = f64[] parameter(2)  b1 = f64[] parameter(3)
  p = pred[] compare(a0, b0), direction=GE
  s0 = f64[] select(p, a0, b0)  s1 = f64[] select(p, a1, b1)
  ROOT t = (f64[], f64[]) tuple(s0, s1)
}
picklt {
  a0 = f64[] parameter(0)  a1 = f64[] parameter(1)  b0 = f64[] parameter(2)  b1 = f64[] parameter(3)
  p = pred[] compare(a0, b0), direction=LT
  s0 = f64[] select(p, a0, b0)  s1 = f64[] select(p, a1, b1)
  ROOT t = (f64[], f64[]) tuple(s0, s1)
}
addf32_max {
  a0 = f32[] parameter(0)  a1 = f64[] parameter(1)  b0 = f32[] parameter(2)  b1 = f64[] parameter(3)
  s = f32[] add(a0, b0)  m = f64[] maximum(a1, b1)
  ROOT t = (f32[], f64[]) tuple(s, m)
}
cmul { a = c128[] parameter(0)  b = c128[] parameter(1)  ROOT r = c128[] multiply(a, b) }
scalar_fn { x = f64[] parameter(0)  y = f64[] parameter(1)  s = f64[] sine(y)  ROOT r = f64[] multiply(x, s) }
callee { x = f64[4] parameter(0)  y = f64[4] parameter(1)  e = f64[4] exponential(x)  ROOT r = f64[4] multiply(e, y) }
branch0 { x = f64[4] parameter(0)  ROOT r = f64[4] multiply(x, x) }
branch1 { x = f64[4] parameter(0)  ROOT r = f64[4] sine(x) }
loop_cond { s = (s32[], f64[3], f64[3,3]) parameter(0)  i = s32[] get-tuple-element(s), index=0  n = s32[] constant(3)  ROOT lt = pred[] compare(i, n), direction=LT }
loop_cond_ge { s = (s32[], f64[3], f64[3,3]) parameter(0)  i = s32[] get-tuple-element(s), index=0  n = s32[] constant(4)  ROOT ge = pred[] compare(n, i), direction=GE }
tuple_branch0 { t = (f64[3], s32[]) parameter(0)  x = f64[3] get-tuple-element(t), index=0  ROOT r = f64[3] exponential(x) }
tuple_branch1 { t = (f64[3], f64[3]) parameter(0)  x = f64[3] get-tuple-element(t), index=0  y = f64[3] get-tuple-element(t), index=1  ROOT r = f64[3] multiply(x, y) }
loop_body {
  s = (s32[], f64[3], f64[3,3]) parameter(0)
  i = s32[] get-tuple-element(s), index=0  h = f64[3] get-tuple-element(s), index=1  w = f64[3,3] get-tuple-element(s), index=2
  one = s32[] constant(1)  i1 = s32[] add(i, one)
  d = f64[3] dot(h, w), lhs_contracting_dims={0}, rhs_contracting_dims={0}
  t = f64[3] tanh(d)
  ROOT r = (s32[], f64[3], f64[3,3]) tuple(i1, t, w)
}
"#;

/// An input: a random f64 array in `[lo, hi)` or fixed integers.
enum In {
    F(&'static [i64], f64, f64),
    /// Fixed f64 values (for exact zeros).
    FX(&'static [i64], &'static [f64]),
    S32(&'static [i64], &'static [i32]),
}

struct Row {
    name: &'static str,
    body: &'static str,
    inputs: Vec<In>,
}

fn row(name: &'static str, inputs: Vec<In>, body: &'static str) -> Row {
    Row { name, body, inputs }
}

use In::{F, FX, S32};

fn rows() -> Vec<Row> {
    let mut r = elementwise_rows();
    r.extend(structural_rows());
    r.extend(scatter_rows());
    r.extend(contraction_rows());
    r.extend(window_rows());
    r.extend(linalg_rows());
    r.extend(complex_trsm_rows());
    r.extend(control_rows());
    r
}

fn unary(name: &'static str, lo: f64, hi: f64, body: &'static str) -> Row {
    row(name, vec![F(&[2, 3], lo, hi)], body)
}

fn elementwise_rows() -> Vec<Row> {
    const X: &str = "x = f64[2,3] parameter(0)\n";
    let _ = X;
    vec![
        unary("abs", -2.0, 2.0, "x = f64[2,3] parameter(0)\nROOT r = f64[2,3] abs(x)"),
        unary("cbrt", 0.5, 2.0, "x = f64[2,3] parameter(0)\nROOT r = f64[2,3] cbrt(x)"),
        unary("cosine", -2.0, 2.0, "x = f64[2,3] parameter(0)\nROOT r = f64[2,3] cosine(x)"),
        unary("erf", -1.5, 1.5, "x = f64[2,3] parameter(0)\nROOT r = f64[2,3] erf(x)"),
        unary("exponential", -1.0, 1.0, "x = f64[2,3] parameter(0)\nROOT r = f64[2,3] exponential(x)"),
        unary("exponential-minus-one", -1.0, 1.0, "x = f64[2,3] parameter(0)\nROOT r = f64[2,3] exponential-minus-one(x)"),
        unary("log", 0.5, 2.0, "x = f64[2,3] parameter(0)\nROOT r = f64[2,3] log(x)"),
        unary("log-plus-one", -0.5, 2.0, "x = f64[2,3] parameter(0)\nROOT r = f64[2,3] log-plus-one(x)"),
        unary("logistic", -2.0, 2.0, "x = f64[2,3] parameter(0)\nROOT r = f64[2,3] logistic(x)"),
        unary("negate", -2.0, 2.0, "x = f64[2,3] parameter(0)\nROOT r = f64[2,3] negate(x)"),
        unary("rsqrt", 0.5, 2.0, "x = f64[2,3] parameter(0)\nROOT r = f64[2,3] rsqrt(x)"),
        unary("sine", -2.0, 2.0, "x = f64[2,3] parameter(0)\nROOT r = f64[2,3] sine(x)"),
        unary("sqrt", 0.5, 2.0, "x = f64[2,3] parameter(0)\nROOT r = f64[2,3] sqrt(x)"),
        unary("tan", -1.0, 1.0, "x = f64[2,3] parameter(0)\nROOT r = f64[2,3] tan(x)"),
        unary("tanh", -2.0, 2.0, "x = f64[2,3] parameter(0)\nROOT r = f64[2,3] tanh(x)"),
        unary("floor", 0.1, 0.9, "x = f64[2,3] parameter(0)\nf = f64[2,3] floor(x)\nROOT r = f64[2,3] add(f, x)"),
        unary("ceil", 0.1, 0.9, "x = f64[2,3] parameter(0)\nf = f64[2,3] ceil(x)\nROOT r = f64[2,3] add(f, x)"),
        unary("sign", 0.1, 0.9, "x = f64[2,3] parameter(0)\nf = f64[2,3] sign(x)\nROOT r = f64[2,3] multiply(f, x)"),
        unary("round-nearest-even", 0.1, 0.4, "x = f64[2,3] parameter(0)\nf = f64[2,3] round-nearest-even(x)\nROOT r = f64[2,3] add(f, x)"),
        unary("round-nearest-afz", 0.1, 0.4, "x = f64[2,3] parameter(0)\nf = f64[2,3] round-nearest-afz(x)\nROOT r = f64[2,3] add(f, x)"),
        binary("add", "add"),
        binary("subtract", "subtract"),
        binary("multiply", "multiply"),
        binary("divide", "divide"),
        binary("power", "power"),
        binary("remainder", "remainder"),
        binary("maximum", "maximum"),
        binary("minimum", "minimum"),
        binary("atan2", "atan2"),
        row("complex/real/imag", vec![F(&[4], -1.0, 1.0), F(&[4], -1.0, 1.0)],
            "x = f64[4] parameter(0)\ny = f64[4] parameter(1)\nc = c128[4] complex(x, y)\nm = c128[4] multiply(c, c)\ne = c128[4] exponential(m)\nre = f64[4] real(e)\nim = f64[4] imag(m)\nab = f64[4] abs(m)\ns = f64[4] add(re, im)\nROOT r = f64[4] add(s, ab)"),
        row("select", vec![F(&[2, 3], -1.0, 1.0), F(&[2, 3], -1.0, 1.0)],
            "x = f64[2,3] parameter(0)\ny = f64[2,3] parameter(1)\np = pred[2,3] compare(x, y), direction=GT\nROOT r = f64[2,3] select(p, x, y)"),
        row("select-scalar-pred", vec![F(&[], 0.1, 0.9), F(&[2, 3], -1.0, 1.0), F(&[2, 3], -1.0, 1.0)],
            "p = f64[] parameter(0)\nx = f64[2,3] parameter(1)\ny = f64[2,3] parameter(2)\nh = f64[] constant(0.5)\nc = pred[] compare(p, h), direction=GT\ns = f64[2,3] select(c, x, y)\nROOT r = f64[2,3] multiply(s, x)"),
        row("clamp", vec![F(&[], -0.5, -0.4), F(&[2, 3], -1.0, 1.0), F(&[2, 3], 0.3, 0.6)],
            "lo = f64[] parameter(0)\nx = f64[2,3] parameter(1)\nhi = f64[2,3] parameter(2)\nROOT r = f64[2,3] clamp(lo, x, hi)"),
        row("convert", vec![F(&[2, 3], -1.0, 1.0)],
            "x = f64[2,3] parameter(0)\ns = f32[2,3] convert(x)\nq = f32[2,3] multiply(s, s)\nROOT r = f64[2,3] convert(q)"),
        row("map", vec![F(&[2, 3], -1.0, 1.0), F(&[2, 3], -1.0, 1.0)],
            "x = f64[2,3] parameter(0)\ny = f64[2,3] parameter(1)\nROOT r = f64[2,3] map(x, y), dimensions={0,1}, to_apply=scalar_fn"),
    ]
}

fn binary(name: &'static str, op: &'static str) -> Row {
    let body: &'static str = Box::leak(
        format!(
            "x = f64[2,3] parameter(0)\ny = f64[2,3] parameter(1)\nROOT r = f64[2,3] {op}(x, y)"
        )
        .into_boxed_str(),
    );
    row(name, vec![F(&[2, 3], 0.5, 2.0), F(&[2, 3], 0.5, 2.0)], body)
}

fn structural_rows() -> Vec<Row> {
    vec![
        row("broadcast", vec![F(&[3, 1], -1.0, 1.0)],
            "x = f64[3,1] parameter(0)\nROOT r = f64[2,4,3] broadcast(x), dimensions={2,1}"),
        row("broadcast-permuted", vec![F(&[2, 3], -1.0, 1.0)],
            "x = f64[2,3] parameter(0)\nROOT r = f64[3,4,2] broadcast(x), dimensions={2,0}"),
        row("reshape", vec![F(&[2, 3], -1.0, 1.0)], "x = f64[2,3] parameter(0)\nROOT r = f64[3,2] reshape(x)"),
        row("transpose", vec![F(&[2, 3, 4], -1.0, 1.0)],
            "x = f64[2,3,4] parameter(0)\nROOT r = f64[4,2,3] transpose(x), dimensions={2,0,1}"),
        row("reverse", vec![F(&[2, 3], -1.0, 1.0)], "x = f64[2,3] parameter(0)\nROOT r = f64[2,3] reverse(x), dimensions={1}"),
        row("slice", vec![F(&[5, 6], -1.0, 1.0)],
            "x = f64[5,6] parameter(0)\nROOT r = f64[2,2] slice(x), slice={[1:5:2], [0:5:3]}"),
        row("pad", vec![F(&[3, 4], -1.0, 1.0), F(&[], -1.0, 1.0)],
            "x = f64[3,4] parameter(0)\nv = f64[] parameter(1)\nROOT r = f64[6,4] pad(x, v), padding=1_0_1x-1_1_0"),
        row("concatenate", vec![F(&[2, 3], -1.0, 1.0), F(&[2, 1], -1.0, 1.0)],
            "x = f64[2,3] parameter(0)\ny = f64[2,1] parameter(1)\nROOT r = f64[2,4] concatenate(x, y), dimensions={1}"),
        row("dynamic-slice", vec![F(&[4, 5], -1.0, 1.0), S32(&[], &[3])],
            "x = f64[4,5] parameter(0)\ni = s32[] parameter(1)\nz = s32[] constant(1)\nROOT r = f64[2,3] dynamic-slice(x, i, z), dynamic_slice_sizes={2,3}"),
        row("dynamic-update-slice", vec![F(&[4, 5], -1.0, 1.0), F(&[2, 2], -1.0, 1.0), S32(&[], &[1])],
            "x = f64[4,5] parameter(0)\nu = f64[2,2] parameter(1)\ni = s32[] parameter(2)\nROOT r = f64[4,5] dynamic-update-slice(x, u, i, i)"),
        row("copy/tuple/get-tuple-element", vec![F(&[3], -1.0, 1.0), F(&[3], -1.0, 1.0)],
            "x = f64[3] parameter(0)\ny = f64[3] parameter(1)\nc = f64[3] copy(x)\nt = (f64[3], f64[3]) tuple(c, y)\na = f64[3] get-tuple-element(t), index=0\nb = f64[3] get-tuple-element(t), index=1\nROOT r = f64[3] multiply(a, b)"),
        row("gather", vec![F(&[5, 3], -1.0, 1.0), S32(&[4, 1], &[1, 3, 1, 7])],
            "x = f64[5,3] parameter(0)\ni = s32[4,1] parameter(1)\nROOT r = f64[4,3] gather(x, i), offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1, slice_sizes={1,3}"),
        row("scatter", vec![F(&[5, 3], -1.0, 1.0), S32(&[3, 1], &[1, 3, 1]), F(&[3, 3], -1.0, 1.0)],
            "x = f64[5,3] parameter(0)\ni = s32[3,1] parameter(1)\nu = f64[3,3] parameter(2)\ns = f64[5,3] scatter(x, i, u), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add\nROOT r = f64[5,3] multiply(s, s)"),
        row("scatter-out-of-bounds", vec![F(&[5, 3], -1.0, 1.0), S32(&[4, 1], &[1, 7, 4, -1]), F(&[4, 3], -1.0, 1.0)],
            "x = f64[5,3] parameter(0)\ni = s32[4,1] parameter(1)\nu = f64[4,3] parameter(2)\ns = f64[5,3] scatter(x, i, u), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add\nROOT r = f64[5,3] multiply(s, s)"),
        row("scatter-replace", vec![F(&[5, 3], -1.0, 1.0), S32(&[4, 1], &[1, 3, 9, 2]), F(&[4, 3], -1.0, 1.0)],
            "x = f64[5,3] parameter(0)\ni = s32[4,1] parameter(1)\nu = f64[4,3] parameter(2)\ns = f64[5,3] scatter(x, i, u), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=replace\nROOT r = f64[5,3] multiply(s, s)"),
        row("scatter-replace-windows", vec![F(&[4, 5], -1.0, 1.0), S32(&[2, 2], &[0, 1, 2, 3]), F(&[2, 2, 2], -1.0, 1.0)],
            "x = f64[4,5] parameter(0)\ni = s32[2,2] parameter(1)\nu = f64[2,2,2] parameter(2)\ns = f64[4,5] scatter(x, i, u), update_window_dims={1,2}, inserted_window_dims={}, scatter_dims_to_operand_dims={0,1}, index_vector_dim=1, to_apply=replace\nROOT r = f64[4,5] sine(s)"),
        row("gather-batching-dims", vec![F(&[3, 5], -1.0, 1.0), S32(&[3, 4, 1], &[0, 4, 2, 2, 1, 1, 3, 0, 4, 4, 4, 9])],
            "x = f64[3,5] parameter(0)\ni = s32[3,4,1] parameter(1)\nROOT r = f64[3,4] gather(x, i), offset_dims={}, collapsed_slice_dims={1}, start_index_map={1}, operand_batching_dims={0}, start_indices_batching_dims={0}, index_vector_dim=2, slice_sizes={1,1}"),
        row("gather-2d-windows", vec![F(&[4, 5], -1.0, 1.0), S32(&[2, 3], &[0, 1, 2, 3, 0, 9])],
            "x = f64[4,5] parameter(0)\ni = s32[2,3] parameter(1)\nROOT r = f64[3,2,3] gather(x, i), offset_dims={1,2}, collapsed_slice_dims={}, start_index_map={0,1}, index_vector_dim=0, slice_sizes={2,3}"),
        row("scatter-batching-dims", vec![F(&[3, 5], -1.0, 1.0), S32(&[3, 2, 1], &[0, 4, 2, 2, 1, 3]), F(&[3, 2], -1.0, 1.0)],
            "x = f64[3,5] parameter(0)\ni = s32[3,2,1] parameter(1)\nu = f64[3,2] parameter(2)\ns = f64[3,5] scatter(x, i, u), update_window_dims={}, inserted_window_dims={1}, scatter_dims_to_operand_dims={1}, input_batching_dims={0}, scatter_indices_batching_dims={0}, index_vector_dim=2, to_apply=add\nROOT r = f64[3,5] multiply(s, x)"),
        row("dynamic-slice-clamped", vec![F(&[4, 5], -1.0, 1.0), S32(&[], &[-2]), S32(&[], &[7])],
            "x = f64[4,5] parameter(0)\ni = s32[] parameter(1)\nj = s32[] parameter(2)\nROOT r = f64[2,3] dynamic-slice(x, i, j), dynamic_slice_sizes={2,3}"),
        row("dynamic-update-slice-clamped", vec![F(&[4, 5], -1.0, 1.0), F(&[2, 3], -1.0, 1.0), S32(&[], &[9])],
            "x = f64[4,5] parameter(0)\nu = f64[2,3] parameter(1)\ni = s32[] parameter(2)\nd = f64[4,5] dynamic-update-slice(x, u, i, i)\nROOT r = f64[4,5] multiply(d, d)"),
        row("bitcast", vec![F(&[2, 3], -1.0, 1.0)],
            "x = f64[2,3] parameter(0)\ny = f64[3,2] bitcast(x)\nROOT r = f64[3,2] sine(y)"),
        row("opt-barrier/add-dependency", vec![F(&[3], -1.0, 1.0), F(&[3], -1.0, 1.0)],
            "x = f64[3] parameter(0)\ny = f64[3] parameter(1)\nt = (f64[3], f64[3]) tuple(x, y)\nb = (f64[3], f64[3]) opt-barrier(t)\nx1 = f64[3] get-tuple-element(b), index=0\ny1 = f64[3] get-tuple-element(b), index=1\ntok = token[] after-all()\nd = f64[3] add-dependency(x1, tok)\nROOT r = f64[3] multiply(d, y1)"),
        row("broadcast-scalar", vec![F(&[], -1.0, 1.0)],
            "x = f64[] parameter(0)\nROOT r = f64[2,3] broadcast(x), dimensions={}"),
        row("pad-negative-both", vec![F(&[6], -1.0, 1.0), F(&[], -1.0, 1.0)],
            "x = f64[6] parameter(0)\nv = f64[] parameter(1)\nROOT r = f64[13] pad(x, v), padding=-2_-1_2"),
        row("slice-reverse-concat", vec![F(&[4, 3], -1.0, 1.0)],
            "x = f64[4,3] parameter(0)\na = f64[2,3] slice(x), slice={[0:2], [0:3]}\nb = f64[4,3] reverse(x), dimensions={0,1}\nROOT r = f64[6,3] concatenate(a, b), dimensions={0}"),
    ]
}

/// `f64[5,3]` operand, `s32[k,1]` row indices and `f64[k,3]` updates, combined by `comb`.
fn scatter_rows_of(name: &'static str, comb: &str, idx: &'static [i32], x: In, u: In) -> Row {
    let k = idx.len();
    let body = format!(
        "x = f64[5,3] parameter(0)\ni = s32[{k},1] parameter(1)\nu = f64[{k},3] parameter(2)\ns = f64[5,3] scatter(x, i, u), update_window_dims={{1}}, inserted_window_dims={{0}}, scatter_dims_to_operand_dims={{0}}, index_vector_dim=1, to_apply={comb}\nROOT r = f64[5,3] sine(s)"
    );
    let idx_dims: &'static [i64] = Box::leak(vec![k as i64, 1].into_boxed_slice());
    row(
        name,
        vec![x, S32(idx_dims, idx), u],
        Box::leak(body.into_boxed_str()),
    )
}

/// `f64[4]` operand, `s32[7,1]` indices (duplicates, one out of bounds) and `f64[7]`
/// updates with exact two-way ties: operand and update at element 0 and 1, two updates
/// at element 3, and an out-of-bounds update equal to the result it would be clamped to.
fn scatter_ties(name: &'static str, comb: &str, sign: f64) -> Row {
    let body = format!(
        "x = f64[4] parameter(0)\ni = s32[7,1] parameter(1)\nu = f64[7] parameter(2)\nROOT s = f64[4] scatter(x, i, u), update_window_dims={{}}, inserted_window_dims={{0}}, scatter_dims_to_operand_dims={{0}}, index_vector_dim=1, to_apply={comb}"
    );
    let flip = |v: [f64; 7]| -> &'static [f64] {
        Box::leak(v.map(|a| a * sign).to_vec().into_boxed_slice())
    };
    let x = flip([0.5, 0.2, -0.3, 0.9, 0.0, 0.0, 0.0]);
    let u = flip([0.5, 0.1, 0.4, 0.2, 1.1, 1.1, 1.1]);
    row(
        name,
        vec![
            FX(&[4], &x[..4]),
            S32(&[7, 1], &[0, 0, 2, 1, 3, 3, 4]),
            FX(&[7], u),
        ],
        Box::leak(body.into_boxed_str()),
    )
}

/// Scatter with multiply, maximum and minimum combiners, and variadic scatter.
fn scatter_rows() -> Vec<Row> {
    let windows = |comb: &str| {
        format!("x = f64[4,5] parameter(0)\ni = s32[3,2] parameter(1)\nu = f64[3,2,2] parameter(2)\ns = f64[4,5] scatter(x, i, u), update_window_dims={{1,2}}, inserted_window_dims={{}}, scatter_dims_to_operand_dims={{0,1}}, index_vector_dim=1, to_apply={comb}\nROOT r = f64[4,5] multiply(s, x)")
    };
    let win = |name: &'static str, comb: &str, lo: f64| {
        let body: &'static str = Box::leak(windows(comb).into_boxed_str());
        row(
            name,
            vec![
                F(&[4, 5], lo, 1.5),
                S32(&[3, 2], &[0, 1, 1, 2, 3, 3]),
                F(&[3, 2, 2], lo, 1.5),
            ],
            body,
        )
    };
    vec![
        scatter_rows_of("scatter-mul", "mul", &[1, 3, 1, 7, -1], F(&[5, 3], 0.5, 1.5), F(&[5, 3], 0.5, 1.5)),
        scatter_rows_of("scatter-mul-zero-updates", "mul", &[1, 1, 3, 3, 0], F(&[5, 3], -1.0, 1.0),
            FX(&[5, 3], &[0.0, 2.0, 0.3, 1.5, 0.5, 0.0, 0.0, 0.7, 0.0, 0.0, 1.2, 0.0, 0.0, -0.3, 0.8])),
        win("scatter-mul-windows", "mul", 0.5),
        scatter_rows_of("scatter-max", "max", &[1, 3, 1, 7, -1, 3], F(&[5, 3], -1.0, 1.0), F(&[6, 3], -1.0, 1.0)),
        scatter_rows_of("scatter-min", "min", &[4, 0, 4, 5, 2], F(&[5, 3], -1.0, 1.0), F(&[5, 3], -1.0, 1.0)),
        win("scatter-max-windows", "max", -1.0),
        win("scatter-min-windows", "min", -1.0),
        scatter_ties("scatter-max-ties", "max", 1.0),
        scatter_ties("scatter-min-ties", "min", -1.0),
        row("scatter-variadic-add-max", vec![F(&[5, 3], -1.0, 1.0), F(&[5, 3], -1.0, 1.0), S32(&[4, 1], &[1, 3, 1, 7]), F(&[4, 3], -1.0, 1.0), F(&[4, 3], -1.0, 1.0)],
            "x = f64[5,3] parameter(0)\ny = f64[5,3] parameter(1)\ni = s32[4,1] parameter(2)\nu = f64[4,3] parameter(3)\nv = f64[4,3] parameter(4)\nt = (f64[5,3], f64[5,3]) scatter(x, y, i, u, v), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=summax\na = f64[5,3] get-tuple-element(t), index=0\nb = f64[5,3] get-tuple-element(t), index=1\nROOT r = f64[5,3] multiply(a, b)"),
        row("scatter-variadic-mul-replace", vec![F(&[5, 3], -1.0, 1.0), F(&[5, 3], -1.0, 1.0), S32(&[4, 1], &[2, 0, 2, 5]), F(&[4, 3], -1.0, 1.0), F(&[4, 3], -1.0, 1.0)],
            "x = f64[5,3] parameter(0)\ny = f64[5,3] parameter(1)\ni = s32[4,1] parameter(2)\nu = f64[4,3] parameter(3)\nv = f64[4,3] parameter(4)\nt = (f64[5,3], f64[5,3]) scatter(x, y, i, u, v), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=mul_replace\na = f64[5,3] get-tuple-element(t), index=0\nb = f64[5,3] get-tuple-element(t), index=1\nc = f64[5,3] sine(b)\nROOT r = f64[5,3] add(a, c)"),
        row("scatter-variadic-integer-component", vec![F(&[5], -1.0, 1.0), S32(&[5], &[1, 2, 3, 4, 5]), S32(&[3, 1], &[4, 0, 4]), F(&[3], -1.0, 1.0), S32(&[3], &[7, 8, 9])],
            "x = f64[5] parameter(0)\nn = s32[5] parameter(1)\ni = s32[3,1] parameter(2)\nu = f64[3] parameter(3)\nm = s32[3] parameter(4)\nt = (f64[5], s32[5]) scatter(x, n, i, u, m), update_window_dims={}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=min_addi\na = f64[5] get-tuple-element(t), index=0\nb = s32[5] get-tuple-element(t), index=1\nc = f64[5] convert(b)\nROOT r = f64[5] multiply(a, c)"),
        row("scatter-variadic-mixed-types", vec![F(&[5], -1.0, 1.0), S32(&[3, 1], &[4, 0, 4]), F(&[3], -1.0, 1.0)],
            "y = f64[5] parameter(0)\ni = s32[3,1] parameter(1)\nv = f64[3] parameter(2)\nx = f32[5] iota(), iota_dimension=0\nu = f32[3] iota(), iota_dimension=0\nt = (f32[5], f64[5]) scatter(x, y, i, u, v), update_window_dims={}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=addf32_max\na = f32[5] get-tuple-element(t), index=0\nb = f64[5] get-tuple-element(t), index=1\nc = f64[5] convert(a)\nROOT r = f64[5] multiply(b, c)"),
        row("scatter-mul-complex", vec![F(&[4], -1.0, 1.0), F(&[4], -1.0, 1.0), S32(&[3, 1], &[1, 3, 1]), F(&[3], -1.0, 1.0), F(&[3], -1.0, 1.0)],
            "a = f64[4] parameter(0)\nb = f64[4] parameter(1)\ni = s32[3,1] parameter(2)\nc = f64[3] parameter(3)\nd = f64[3] parameter(4)\nx = c128[4] complex(a, b)\nu = c128[3] complex(c, d)\ns = c128[4] scatter(x, i, u), update_window_dims={}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=cmul\nre = f64[4] real(s)\nim = f64[4] imag(s)\nROOT r = f64[8] concatenate(re, im), dimensions={0}"),
    ]
}

fn contraction_rows() -> Vec<Row> {
    vec![
        row("dot", vec![F(&[2, 3], -1.0, 1.0), F(&[3, 4], -1.0, 1.0)],
            "x = f64[2,3] parameter(0)\ny = f64[3,4] parameter(1)\nROOT r = f64[2,4] dot(x, y), lhs_contracting_dims={1}, rhs_contracting_dims={0}"),
        row("dot-general", vec![F(&[3, 2, 4], -1.0, 1.0), F(&[4, 5, 2], -1.0, 1.0)],
            "x = f64[3,2,4] parameter(0)\ny = f64[4,5,2] parameter(1)\nROOT r = f64[2,3,5] dot(x, y), lhs_batch_dims={1}, lhs_contracting_dims={2}, rhs_batch_dims={2}, rhs_contracting_dims={0}"),
        row("convolution", vec![F(&[2, 3, 7, 6], -1.0, 1.0), F(&[4, 3, 3, 2], -1.0, 1.0)],
            "x = f64[2,3,7,6] parameter(0)\nw = f64[4,3,3,2] parameter(1)\nROOT r = f64[2,4,4,5] convolution(x, w), window={size=3x2 stride=2x1 pad=1_2x0_1 rhs_dilate=1x2}, dim_labels=bf01_oi01->bf01"),
        row("convolution-window-reversal", vec![F(&[2, 3, 7, 6], -1.0, 1.0), F(&[4, 3, 3, 2], -1.0, 1.0)],
            "x = f64[2,3,7,6] parameter(0)\nw = f64[4,3,3,2] parameter(1)\nROOT r = f64[2,4,4,5] convolution(x, w), window={size=3x2 stride=2x1 pad=1_2x0_1 rhs_dilate=1x2 rhs_reversal=1x0}, dim_labels=bf01_oi01->bf01"),
        row("convolution-window-reversal-nhwc", vec![F(&[1, 5, 4, 2], -1.0, 1.0), F(&[3, 2, 2, 3], -1.0, 1.0)],
            "x = f64[1,5,4,2] parameter(0)\nw = f64[3,2,2,3] parameter(1)\nROOT r = f64[1,3,3,3] convolution(x, w), window={size=3x2 rhs_reversal=1x1}, dim_labels=b01f_01io->b01f"),
        row("convolution-lhs-dilated", vec![F(&[1, 5, 2], -1.0, 1.0), F(&[3, 2, 2], -1.0, 1.0)],
            "x = f64[1,5,2] parameter(0)\nw = f64[3,2,2] parameter(1)\nROOT r = f64[1,8,2] convolution(x, w), window={size=3 pad=1_0 lhs_dilate=2}, dim_labels=b0f_0io->b0f"),
        row("convolution-feature-groups", vec![F(&[2, 4, 5], -1.0, 1.0), F(&[6, 2, 3], -1.0, 1.0)],
            "x = f64[2,4,5] parameter(0)\nw = f64[6,2,3] parameter(1)\nROOT r = f64[2,6,3] convolution(x, w), window={size=3}, dim_labels=bf0_oi0->bf0, feature_group_count=2"),
        row("convolution-batch-groups", vec![F(&[4, 3, 5], -1.0, 1.0), F(&[2, 3, 3], -1.0, 1.0)],
            "x = f64[4,3,5] parameter(0)\nw = f64[2,3,3] parameter(1)\nROOT r = f64[2,2,3] convolution(x, w), window={size=3}, dim_labels=bf0_oi0->bf0, batch_group_count=2"),
        row("convert-dot-preferred-type", vec![F(&[2, 3], -1.0, 1.0), F(&[3, 4], -1.0, 1.0)],
            "x = f64[2,3] parameter(0)\ny = f64[3,4] parameter(1)\nxf = f32[2,3] convert(x)\nyf = f32[3,4] convert(y)\nROOT r = f64[2,4] dot(xf, yf), lhs_contracting_dims={1}, rhs_contracting_dims={0}"),
        row("convert-convolution-preferred-type", vec![F(&[1, 2, 5], -1.0, 1.0), F(&[2, 2, 3], -1.0, 1.0)],
            "x = f64[1,2,5] parameter(0)\nw = f64[2,2,3] parameter(1)\nxf = f32[1,2,5] convert(x)\nwf = f32[2,2,3] convert(w)\nROOT r = f64[1,2,3] convolution(xf, wf), window={size=3}, dim_labels=bf0_oi0->bf0"),
        row("dot-transposed", vec![F(&[3, 2], -1.0, 1.0), F(&[4, 3], -1.0, 1.0)],
            "x = f64[3,2] parameter(0)\ny = f64[4,3] parameter(1)\nROOT r = f64[2,4] dot(x, y), lhs_contracting_dims={0}, rhs_contracting_dims={1}"),
        row("dot-vector", vec![F(&[3], -1.0, 1.0), F(&[3, 2], -1.0, 1.0)],
            "x = f64[3] parameter(0)\ny = f64[3,2] parameter(1)\nROOT r = f64[2] dot(x, y), lhs_contracting_dims={0}, rhs_contracting_dims={0}"),
        row("dot-two-contracting", vec![F(&[2, 3, 4], -1.0, 1.0), F(&[4, 5, 3], -1.0, 1.0)],
            "x = f64[2,3,4] parameter(0)\ny = f64[4,5,3] parameter(1)\nROOT r = f64[2,5] dot(x, y), lhs_contracting_dims={2,1}, rhs_contracting_dims={0,2}"),
        row("convolution-nhwc-same", vec![F(&[1, 5, 5, 2], -1.0, 1.0), F(&[3, 3, 2, 3], -1.0, 1.0)],
            "x = f64[1,5,5,2] parameter(0)\nw = f64[3,3,2,3] parameter(1)\nROOT r = f64[1,3,3,3] convolution(x, w), window={size=3x3 stride=2x2 pad=1_1x1_1}, dim_labels=b01f_01io->b01f"),
        row("convolution-depthwise", vec![F(&[1, 6, 4, 3], -1.0, 1.0), F(&[2, 2, 1, 6], -1.0, 1.0)],
            "x = f64[1,6,4,3] parameter(0)\nw = f64[2,2,1,6] parameter(1)\nROOT r = f64[1,3,3,6] convolution(x, w), window={size=2x2 stride=2x1 lhs_dilate=1x1 rhs_dilate=1x1}, dim_labels=b01f_01io->b01f, feature_group_count=3"),
        row("convolution-negative-padding", vec![F(&[1, 2, 8], -1.0, 1.0), F(&[2, 2, 3], -1.0, 1.0)],
            "x = f64[1,2,8] parameter(0)\nw = f64[2,2,3] parameter(1)\nROOT r = f64[1,2,3] convolution(x, w), window={size=3 stride=2 pad=-1_0}, dim_labels=bf0_oi0->bf0"),
    ]
}

fn window_rows() -> Vec<Row> {
    vec![
        // One replica: the adding all-reduce is the identity, and so is its transpose.
        row("all-reduce-add", vec![F(&[2, 3], -1.0, 1.0)],
            "x = f64[2,3] parameter(0)\ns = f64[2,3] all-reduce(x), to_apply=add\nROOT r = f64[2,3] multiply(s, x)"),
        row("reduce-add", vec![F(&[3, 4], -1.0, 1.0)],
            "x = f64[3,4] parameter(0)\nz = f64[] constant(0)\nROOT r = f64[4] reduce(x, z), dimensions={0}, to_apply=add"),
        row("reduce-mul", vec![F(&[3, 4], 0.5, 1.5)],
            "x = f64[3,4] parameter(0)\nz = f64[] constant(1)\nROOT r = f64[3] reduce(x, z), dimensions={1}, to_apply=mul"),
        row("reduce-mul-with-zero", vec![F(&[2, 3, 4], 0.5, 1.5)],
            "x = f64[2,3,4] parameter(0)\ni = s32[2,3,4] iota(), iota_dimension=2\nj = s32[2,3,4] iota(), iota_dimension=1\nk = s32[] constant(2)\nkb = s32[2,3,4] broadcast(k), dimensions={}\nsel = pred[2,3,4] compare(i, kb), direction=EQ\nsel2 = pred[2,3,4] compare(j, kb), direction=EQ\nboth = pred[2,3,4] and(sel, sel2)\nz0 = f64[] constant(0)\nzb = f64[2,3,4] broadcast(z0), dimensions={}\nxz = f64[2,3,4] select(both, zb, x)\no = f64[] constant(1)\nROOT r = f64[3] reduce(xz, o), dimensions={0,2}, to_apply=mul"),
        row("reduce-mul-one-zero", vec![FX(&[2, 3], &[0.5, 0.0, 1.5, 0.0, 0.0, 2.0])],
            "x = f64[2,3] parameter(0)\no = f64[] constant(1)\nROOT r = f64[2] reduce(x, o), dimensions={1}, to_apply=mul"),
        row("reduce-max", vec![F(&[3, 4], -1.0, 1.0)],
            "x = f64[3,4] parameter(0)\nz = f64[] constant(-inf)\nROOT r = f64[3] reduce(x, z), dimensions={1}, to_apply=max"),
        row("reduce-min", vec![F(&[3, 4], -1.0, 1.0)],
            "x = f64[3,4] parameter(0)\nz = f64[] constant(inf)\nROOT r = f64[4] reduce(x, z), dimensions={0}, to_apply=min"),
        row("reduce-argmax", vec![F(&[3, 4], -1.0, 1.0)],
            "x = f64[3,4] parameter(0)\ni = s32[3,4] iota(), iota_dimension=1\nz = f64[] constant(-inf)\nzi = s32[] constant(0)\nt = (f64[3], s32[3]) reduce(x, i, z, zi), dimensions={1}, to_apply=argmax\nROOT r = f64[3] get-tuple-element(t), index=0"),
        row("reduce-variadic-sum-max", vec![F(&[3, 4], -1.0, 1.0), F(&[3, 4], -1.0, 1.0)],
            "x = f64[3,4] parameter(0)\ny = f64[3,4] parameter(1)\nz = f64[] constant(0)\nm = f64[] constant(-inf)\nt = (f64[4], f64[4]) reduce(x, y, z, m), dimensions={0}, to_apply=summax\na = f64[4] get-tuple-element(t), index=0\nb = f64[4] get-tuple-element(t), index=1\nROOT r = f64[4] multiply(a, b)"),
        row("reduce-window-add", vec![F(&[1, 5, 6], -1.0, 1.0)],
            "x = f64[1,5,6] parameter(0)\nz = f64[] constant(0)\nROOT r = f64[1,3,3] reduce-window(x, z), window={size=1x3x2 stride=1x2x2 pad=0_0x1_1x0_0}, to_apply=add"),
        row("reduce-window-max", vec![F(&[1, 5, 6], -1.0, 1.0)],
            "x = f64[1,5,6] parameter(0)\nz = f64[] constant(-inf)\nROOT r = f64[1,3,3] reduce-window(x, z), window={size=1x3x3 stride=1x2x2 pad=0_0x1_1x1_0}, to_apply=max"),
        row("select-and-scatter", vec![F(&[4, 6], -1.0, 1.0), F(&[2, 3], -1.0, 1.0)],
            "x = f64[4,6] parameter(0)\ns = f64[2,3] parameter(1)\nz = f64[] constant(0)\nROOT r = f64[4,6] select-and-scatter(x, s, z), window={size=2x2 stride=2x2}, select=ge, scatter=add"),
        row("reduce-window-add-dilated", vec![F(&[7, 4], -1.0, 1.0)],
            "x = f64[7,4] parameter(0)\nz = f64[] constant(0)\nROOT r = f64[3,7] reduce-window(x, z), window={size=2x2 stride=2x1 pad=0_1x1_0 lhs_dilate=1x2 rhs_dilate=2x1}, to_apply=add"),
        row("reduce-window-max-dilated", vec![F(&[7, 6], -1.0, 1.0)],
            "x = f64[7,6] parameter(0)\nz = f64[] constant(-inf)\nROOT r = f64[7,3] reduce-window(x, z), window={size=2x3 stride=2x1 pad=1_0x0_1 lhs_dilate=2x1 rhs_dilate=1x2}, to_apply=max"),
        row("reduce-window-min-dilated", vec![F(&[5, 6], -1.0, 1.0)],
            "x = f64[5,6] parameter(0)\nz = f64[] constant(inf)\nROOT r = f64[4,4] reduce-window(x, z), window={size=2x2 rhs_dilate=1x2}, to_apply=min"),
        row("reduce-window-max-dilated-init-wins", vec![F(&[7, 6], -1.0, 0.15)],
            "x = f64[7,6] parameter(0)\nz = f64[] constant(0)\nROOT r = f64[7,3] reduce-window(x, z), window={size=2x3 stride=2x1 pad=1_0x0_1 lhs_dilate=2x1 rhs_dilate=1x2}, to_apply=max"),
        row("reduce-window-max-init-wins", vec![F(&[4, 6], -1.0, 0.15)],
            "x = f64[4,6] parameter(0)\nz = f64[] constant(0)\nROOT r = f64[2,3] reduce-window(x, z), window={size=2x2 stride=2x2}, to_apply=max"),
        row("reduce-mul-init", vec![F(&[3, 4], 0.5, 1.5), F(&[], 0.5, 1.5)],
            "x = f64[3,4] parameter(0)\nz = f64[] parameter(1)\nROOT r = f64[3] reduce(x, z), dimensions={1}, to_apply=mul"),
        row("reduce-mul-constant-init", vec![F(&[3, 4], 0.5, 1.5)],
            "x = f64[3,4] parameter(0)\nz = f64[] constant(-2.5)\nROOT r = f64[3] reduce(x, z), dimensions={1}, to_apply=mul"),
        row("reduce-max-init", vec![F(&[3, 4], -1.0, 1.0), F(&[], 0.0, 0.5)],
            "x = f64[3,4] parameter(0)\nz = f64[] parameter(1)\nROOT r = f64[4] reduce(x, z), dimensions={0}, to_apply=max"),
        row("reduce-min-init-ties", vec![FX(&[2, 3], &[0.5, -0.25, 0.75, 0.25, 0.125, 0.375]), FX(&[], &[0.125])],
            "x = f64[2,3] parameter(0)\nz = f64[] parameter(1)\nROOT r = f64[2] reduce(x, z), dimensions={1}, to_apply=min"),
        row("reduce-window-max-init", vec![F(&[4, 6], -1.0, 0.15), F(&[], -0.2, 0.0)],
            "x = f64[4,6] parameter(0)\nz = f64[] parameter(1)\nROOT r = f64[2,3] reduce-window(x, z), window={size=2x2 stride=2x2}, to_apply=max"),
        row("reduce-window-min-dilated-init", vec![F(&[5, 6], -0.15, 1.0), F(&[], 0.0, 0.2)],
            "x = f64[5,6] parameter(0)\nz = f64[] parameter(1)\nROOT r = f64[4,4] reduce-window(x, z), window={size=2x2 rhs_dilate=1x2}, to_apply=min"),
        row("reduce-window-selecting", vec![F(&[4, 6], -1.0, 1.0), F(&[4, 6], -1.0, 1.0)],
            "x = f64[4,6] parameter(0)\nv = f64[4,6] parameter(1)\nz = f64[] constant(-inf)\nzv = f64[] constant(0)\nt = (f64[2,3], f64[2,3]) reduce-window(x, v, z, zv), window={size=2x2 stride=2x2}, to_apply=pickmax\na = f64[2,3] get-tuple-element(t), index=0\nb = f64[2,3] get-tuple-element(t), index=1\nROOT r = f64[2,3] multiply(a, b)"),
        row("reduce-window-selecting-dilated-min", vec![F(&[7, 6], -1.0, 1.0), F(&[7, 6], -1.0, 1.0)],
            "x = f64[7,6] parameter(0)\nv = f64[7,6] parameter(1)\nz = f64[] constant(inf)\nzv = f64[] constant(0)\nt = (f64[7,3], f64[7,3]) reduce-window(x, v, z, zv), window={size=2x3 stride=2x1 pad=1_0x0_1 lhs_dilate=2x1 rhs_dilate=1x2}, to_apply=picklt\na = f64[7,3] get-tuple-element(t), index=0\nb = f64[7,3] get-tuple-element(t), index=1\nROOT r = f64[7,3] multiply(a, b)"),
        row("reduce-window-selecting-init", vec![F(&[4, 6], -1.0, 0.15), F(&[4, 6], -1.0, 1.0), F(&[], -0.3, -0.1), F(&[], -1.0, 1.0)],
            "x = f64[4,6] parameter(0)\nv = f64[4,6] parameter(1)\nz = f64[] parameter(2)\nzv = f64[] parameter(3)\nt = (f64[2,4], f64[2,4]) reduce-window(x, v, z, zv), window={size=2x2 stride=2x2 pad=0_0x1_1}, to_apply=pickmax\na = f64[2,4] get-tuple-element(t), index=0\nb = f64[2,4] get-tuple-element(t), index=1\nc = f64[2,4] sine(b)\nROOT r = f64[2,4] multiply(a, c)"),
        row("reduce-window-min", vec![F(&[6], -1.0, 1.0)],
            "x = f64[6] parameter(0)\nz = f64[] constant(inf)\nROOT r = f64[5] reduce-window(x, z), window={size=3 stride=1 pad=1_0}, to_apply=min"),
        row("reduce-add-init", vec![F(&[3, 4], -1.0, 1.0), F(&[], -1.0, 1.0)],
            "x = f64[3,4] parameter(0)\nz = f64[] parameter(1)\nROOT r = f64[3] reduce(x, z), dimensions={1}, to_apply=add"),
    ]
}

fn linalg_rows() -> Vec<Row> {
    vec![
        row("batch-norm-training", vec![F(&[4, 3], -1.0, 1.0), F(&[3], 0.5, 1.5), F(&[3], -1.0, 1.0)],
            "x = f64[4,3] parameter(0)\ns = f64[3] parameter(1)\no = f64[3] parameter(2)\nt = (f64[4,3], f64[3], f64[3]) batch-norm-training(x, s, o), epsilon=0.01, feature_index=1\ny = f64[4,3] get-tuple-element(t), index=0\nm = f64[3] get-tuple-element(t), index=1\nv = f64[3] get-tuple-element(t), index=2\nmv = f64[3] multiply(m, v)\nb = f64[4,3] broadcast(mv), dimensions={1}\nROOT r = f64[4,3] add(y, b)"),
        row("batch-norm-inference", vec![F(&[2, 3, 2], -1.0, 1.0), F(&[3], 0.5, 1.5), F(&[3], -1.0, 1.0), F(&[3], -1.0, 1.0), F(&[3], 0.5, 1.5)],
            "x = f64[2,3,2] parameter(0)\ns = f64[3] parameter(1)\no = f64[3] parameter(2)\nm = f64[3] parameter(3)\nv = f64[3] parameter(4)\nROOT r = f64[2,3,2] batch-norm-inference(x, s, o, m, v), epsilon=0.01, feature_index=1"),
        row("batch-norm-grad", vec![F(&[4, 3], -1.0, 1.0), F(&[3], 0.5, 1.5), F(&[3], -0.2, 0.2), F(&[3], 0.5, 1.5), F(&[4, 3], -1.0, 1.0)],
            "x = f64[4,3] parameter(0)\ns = f64[3] parameter(1)\nm = f64[3] parameter(2)\nv = f64[3] parameter(3)\ndy = f64[4,3] parameter(4)\nt = (f64[4,3], f64[3], f64[3]) batch-norm-grad(x, s, m, v, dy), epsilon=0.01, feature_index=1\ndx = f64[4,3] get-tuple-element(t), index=0\ndg = f64[3] get-tuple-element(t), index=1\ndb = f64[3] get-tuple-element(t), index=2\ngb = f64[3] multiply(dg, db)\nb = f64[4,3] broadcast(gb), dimensions={1}\nROOT r = f64[4,3] add(dx, b)"),
        row("cholesky", vec![F(&[3, 3], -0.3, 0.3)],
            "a = f64[3,3] parameter(0)\nt = f64[3,3] transpose(a), dimensions={1,0}\ns = f64[3,3] add(a, t)\ni0 = s32[3,3] iota(), iota_dimension=0\ni1 = s32[3,3] iota(), iota_dimension=1\ne = pred[3,3] compare(i0, i1), direction=EQ\nk = f64[] constant(3)\nkb = f64[3,3] broadcast(k), dimensions={}\nz0 = f64[] constant(0)\nzb = f64[3,3] broadcast(z0), dimensions={}\nd = f64[3,3] select(e, kb, zb)\nspd = f64[3,3] add(a, d)\nROOT r = f64[3,3] cholesky(spd), lower=true"),
        row("cholesky-upper", vec![F(&[3, 3], -0.3, 0.3)],
            "a = f64[3,3] parameter(0)\ni0 = s32[3,3] iota(), iota_dimension=0\ni1 = s32[3,3] iota(), iota_dimension=1\ne = pred[3,3] compare(i0, i1), direction=EQ\nk = f64[] constant(3)\nkb = f64[3,3] broadcast(k), dimensions={}\nz0 = f64[] constant(0)\nzb = f64[3,3] broadcast(z0), dimensions={}\nd = f64[3,3] select(e, kb, zb)\nspd = f64[3,3] add(a, d)\nROOT r = f64[3,3] cholesky(spd), lower=false"),
        row("cholesky-batched", vec![F(&[2, 3, 3], -0.3, 0.3)],
            "a = f64[2,3,3] parameter(0)\ni0 = s32[2,3,3] iota(), iota_dimension=1\ni1 = s32[2,3,3] iota(), iota_dimension=2\ne = pred[2,3,3] compare(i0, i1), direction=EQ\nk = f64[] constant(3)\nkb = f64[2,3,3] broadcast(k), dimensions={}\nz0 = f64[] constant(0)\nzb = f64[2,3,3] broadcast(z0), dimensions={}\nd = f64[2,3,3] select(e, kb, zb)\nspd = f64[2,3,3] add(a, d)\nROOT r = f64[2,3,3] cholesky(spd), lower=true"),
        row("triangular-solve-batched", vec![F(&[2, 3, 3], -0.3, 0.3), F(&[2, 3, 2], -1.0, 1.0)],
            "p = f64[2,3,3] parameter(0)\nb = f64[2,3,2] parameter(1)\ni0 = s32[2,3,3] iota(), iota_dimension=1\ni1 = s32[2,3,3] iota(), iota_dimension=2\ne = pred[2,3,3] compare(i0, i1), direction=EQ\nk = f64[] constant(2)\nkb = f64[2,3,3] broadcast(k), dimensions={}\nz0 = f64[] constant(0)\nzb = f64[2,3,3] broadcast(z0), dimensions={}\nd = f64[2,3,3] select(e, kb, zb)\na = f64[2,3,3] add(p, d)\nROOT r = f64[2,3,2] triangular-solve(a, b), left_side=true, lower=false, transpose_a=TRANSPOSE"),
        trsm("triangular-solve-left-lower", "left_side=true, lower=true, transpose_a=NO_TRANSPOSE", &[3, 2]),
        trsm("triangular-solve-left-upper-transposed", "left_side=true, lower=false, transpose_a=TRANSPOSE", &[3, 2]),
        trsm("triangular-solve-right-lower-unit", "lower=true, unit_diagonal=true, transpose_a=NO_TRANSPOSE", &[2, 3]),
        trsm("triangular-solve-right-upper-transposed", "lower=false, transpose_a=TRANSPOSE", &[2, 3]),
        row("fft", vec![F(&[2, 4], -1.0, 1.0), F(&[2, 4], -1.0, 1.0)],
            "x = f64[2,4] parameter(0)\ny = f64[2,4] parameter(1)\nc = c128[2,4] complex(x, y)\nf = c128[2,4] fft(c), fft_type=FFT, fft_length={4}\ng = c128[2,4] fft(f), fft_type=IFFT, fft_length={4}\nh = c128[2,4] multiply(g, f)\nre = f64[2,4] real(h)\nim = f64[2,4] imag(h)\nROOT r = f64[2,4] add(re, im)"),
        row("rfft", vec![F(&[2, 6], -1.0, 1.0)],
            "x = f64[2,6] parameter(0)\nf = c128[2,4] fft(x), fft_type=RFFT, fft_length={6}\nm = c128[2,4] multiply(f, f)\nre = f64[2,4] real(m)\nim = f64[2,4] imag(m)\nROOT r = f64[2,4] add(re, im)"),
        row("irfft", vec![F(&[2, 4], -1.0, 1.0), F(&[2, 4], -1.0, 1.0)],
            "x = f64[2,4] parameter(0)\ny = f64[2,4] parameter(1)\nc = c128[2,4] complex(x, y)\nROOT r = f64[2,7] fft(c), fft_type=IRFFT, fft_length={7}"),
        row("sort", vec![F(&[2, 5], -1.0, 1.0), F(&[2, 5], -1.0, 1.0)],
            "x = f64[2,5] parameter(0)\ny = f64[2,5] parameter(1)\nt = (f64[2,5], f64[2,5]) sort(x, y), dimensions={1}, is_stable=true, to_apply=lt2\na = f64[2,5] get-tuple-element(t), index=0\nb = f64[2,5] get-tuple-element(t), index=1\nROOT r = f64[2,5] multiply(a, b)"),
        row("topk", vec![F(&[2, 5], -1.0, 1.0)],
            "x = f64[2,5] parameter(0)\nt = (f64[2,2], s32[2,2]) topk(x), k=2, largest=true\nROOT r = f64[2,2] get-tuple-element(t), index=0"),
        row("topk-smallest", vec![F(&[3, 4], -1.0, 1.0)],
            "x = f64[3,4] parameter(0)\nt = (f64[3,3], s32[3,3]) topk(x), k=3, largest=false\nROOT r = f64[3,3] get-tuple-element(t), index=0"),
        row("sort-descending", vec![F(&[6], -1.0, 1.0)],
            "x = f64[6] parameter(0)\ns = f64[6] sort(x), dimensions={0}, is_stable=true, to_apply=lt\nROOT r = f64[6] reverse(s), dimensions={0}"),
        row("reduce-precision", vec![F(&[4], -1.0, 1.0)],
            "x = f64[4] parameter(0)\np = f64[4] reduce-precision(x), exponent_bits=11, mantissa_bits=52\nROOT r = f64[4] multiply(p, x)"),
    ]
}

fn trsm(name: &'static str, opts: &'static str, bdims: &'static [i64]) -> Row {
    let body = format!(
        "p = f64[3,3] parameter(0)\nb = f64{bdims:?} parameter(1)\ni0 = s32[3,3] iota(), iota_dimension=0\ni1 = s32[3,3] iota(), iota_dimension=1\ne = pred[3,3] compare(i0, i1), direction=EQ\nk = f64[] constant(2)\nkb = f64[3,3] broadcast(k), dimensions={{}}\nz0 = f64[] constant(0)\nzb = f64[3,3] broadcast(z0), dimensions={{}}\nd = f64[3,3] select(e, kb, zb)\na = f64[3,3] add(p, d)\nROOT r = f64{bdims:?} triangular-solve(a, b), {opts}"
    );
    row(
        name,
        vec![F(&[3, 3], -0.5, 0.5), F(bdims, -1.0, 1.0)],
        Box::leak(body.into_boxed_str()),
    )
}

/// A complex triangular solve: `a = complex(p + 2I, q)`, `b = complex(c, d)`; the result's
/// real and imaginary parts concatenated, so finite differences see both.
fn ctrsm(name: &'static str, opts: &'static str, bdims: &'static [i64]) -> Row {
    let cat = [2 * bdims[0], bdims[1]];
    let body = format!(
        "p = f64[3,3] parameter(0)\nq = f64[3,3] parameter(1)\nc = f64{bdims:?} parameter(2)\nd = f64{bdims:?} parameter(3)\ni0 = s32[3,3] iota(), iota_dimension=0\ni1 = s32[3,3] iota(), iota_dimension=1\ne = pred[3,3] compare(i0, i1), direction=EQ\nk = f64[] constant(2)\nkb = f64[3,3] broadcast(k), dimensions={{}}\nz0 = f64[] constant(0)\nzb = f64[3,3] broadcast(z0), dimensions={{}}\ndg = f64[3,3] select(e, kb, zb)\nre = f64[3,3] add(p, dg)\na = c128[3,3] complex(re, q)\nb = c128{bdims:?} complex(c, d)\nx = c128{bdims:?} triangular-solve(a, b), {opts}\nxr = f64{bdims:?} real(x)\nxi = f64{bdims:?} imag(x)\nROOT r = f64{cat:?} concatenate(xr, xi), dimensions={{0}}"
    );
    let inputs = vec![
        F(&[3, 3], -0.5, 0.5),
        F(&[3, 3], -0.5, 0.5),
        F(bdims, -1.0, 1.0),
        F(bdims, -1.0, 1.0),
    ];
    row(name, inputs, Box::leak(body.into_boxed_str()))
}

/// Complex triangular solves, every transpose mode.
fn complex_trsm_rows() -> Vec<Row> {
    vec![
        ctrsm(
            "triangular-solve-complex-left-lower-adjoint",
            "left_side=true, lower=true, transpose_a=ADJOINT",
            &[3, 2],
        ),
        ctrsm(
            "triangular-solve-complex-left-upper-adjoint",
            "left_side=true, lower=false, transpose_a=ADJOINT",
            &[3, 2],
        ),
        ctrsm(
            "triangular-solve-complex-right-upper-adjoint-unit",
            "lower=false, unit_diagonal=true, transpose_a=ADJOINT",
            &[2, 3],
        ),
        ctrsm(
            "triangular-solve-complex-right-lower-adjoint",
            "lower=true, transpose_a=ADJOINT",
            &[2, 3],
        ),
        ctrsm(
            "triangular-solve-complex-left-upper-transpose",
            "left_side=true, lower=false, transpose_a=TRANSPOSE",
            &[3, 2],
        ),
        ctrsm(
            "triangular-solve-complex-right-lower-no-transpose",
            "lower=true, transpose_a=NO_TRANSPOSE",
            &[2, 3],
        ),
    ]
}

fn control_rows() -> Vec<Row> {
    vec![
        row("call", vec![F(&[4], -1.0, 1.0), F(&[4], -1.0, 1.0)],
            "x = f64[4] parameter(0)\ny = f64[4] parameter(1)\nROOT r = f64[4] call(x, y), to_apply=callee"),
        row("conditional-true", vec![S32(&[], &[0]), F(&[4], -1.0, 1.0), F(&[4], -1.0, 1.0)],
            "i = s32[] parameter(0)\nx = f64[4] parameter(1)\ny = f64[4] parameter(2)\nROOT r = f64[4] conditional(i, x, y), branch_computations={branch0, branch1}"),
        row("conditional-false", vec![S32(&[], &[1]), F(&[4], -1.0, 1.0), F(&[4], -1.0, 1.0)],
            "i = s32[] parameter(0)\nx = f64[4] parameter(1)\ny = f64[4] parameter(2)\nROOT r = f64[4] conditional(i, x, y), branch_computations={branch0, branch1}"),
        row("while-fori", vec![F(&[3], -1.0, 1.0), F(&[3, 3], -1.0, 1.0)],
            "h = f64[3] parameter(0)\nw = f64[3,3] parameter(1)\nz = s32[] constant(0)\ns = (s32[], f64[3], f64[3,3]) tuple(z, h, w)\nl = (s32[], f64[3], f64[3,3]) while(s), condition=loop_cond, body=loop_body\nROOT r = f64[3] get-tuple-element(l), index=1"),
        row("while-fori-ge-from-2", vec![F(&[3], -1.0, 1.0), F(&[3, 3], -1.0, 1.0)],
            "h = f64[3] parameter(0)\nw = f64[3,3] parameter(1)\nz = s32[] constant(2)\ns = (s32[], f64[3], f64[3,3]) tuple(z, h, w)\nl = (s32[], f64[3], f64[3,3]) while(s), condition=loop_cond_ge, body=loop_body\nROOT r = f64[3] get-tuple-element(l), index=1"),
        row("while-fori-40-steps-as-a-loop", vec![F(&[3], -1.0, 1.0), F(&[3, 3], -0.5, 0.5)],
            "h = f64[3] parameter(0)\nw = f64[3,3] parameter(1)\nz = s32[] constant(-37)\ns = (s32[], f64[3], f64[3,3]) tuple(z, h, w)\nl = (s32[], f64[3], f64[3,3]) while(s), condition=loop_cond, body=loop_body\nROOT r = f64[3] get-tuple-element(l), index=1"),
        row("conditional-tuple-operands", vec![S32(&[], &[1]), F(&[3], -1.0, 1.0), F(&[3], -1.0, 1.0)],
            "k = s32[] parameter(0)\nx = f64[3] parameter(1)\ny = f64[3] parameter(2)\nj = s32[] constant(5)\na = (f64[3], s32[]) tuple(x, j)\nb = (f64[3], f64[3]) tuple(y, x)\nROOT r = f64[3] conditional(k, a, b), branch_computations={tuple_branch0, tuple_branch1}"),
        row("conditional-pred", vec![F(&[], 0.5, 1.0), F(&[4], -1.0, 1.0)],
            "p = f64[] parameter(0)\nx = f64[4] parameter(1)\nz = f64[] constant(0)\nc = pred[] compare(p, z), direction=GT\nROOT r = f64[4] conditional(c, x, x), true_computation=branch0, false_computation=branch1"),
    ]
}

/// A small seeded generator (xorshift64*).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> f64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 11) as f64 / (1u64 << 53) as f64
    }

    fn array(&mut self, dims: &[i64], lo: f64, hi: f64) -> Literal {
        let n: i64 = dims.iter().product();
        let v: Vec<f64> = (0..n).map(|_| lo + (hi - lo) * self.next()).collect();
        Literal::from_vec(dims, v).unwrap()
    }
}

fn module_of(r: &Row) -> Module {
    let text = format!("HloModule m\n{PRELUDE}\nENTRY main {{\n{}\n}}\n", r.body);
    xla_core::text::parse_module(&text).unwrap_or_else(|e| panic!("{}: parse: {e}", r.name))
}

fn inputs_of(r: &Row, rng: &mut Rng) -> Vec<Literal> {
    r.inputs
        .iter()
        .map(|i| match i {
            F(d, lo, hi) => rng.array(d, *lo, *hi),
            S32(d, v) => Literal::from_vec(d, v.to_vec()).unwrap(),
            FX(d, v) => Literal::from_vec(d, v.to_vec()).unwrap(),
        })
        .collect()
}

fn run(m: &Module, args: &[Literal]) -> Vec<Literal> {
    let exe = xla_cpu::Executable::compile(m).unwrap();
    let out = exe.execute(args).unwrap();
    match out.tuple_elements() {
        Some(t) => t.to_vec(),
        None => vec![out],
    }
}

fn f64s(l: &Literal) -> Vec<f64> {
    l.data::<f64>().unwrap().to_vec()
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// With `XLA_DUMP=DIR`, writes each differentiated module (HLO text), its inputs and our
/// executor's outputs as a conformance case, so real XLA can be run on them.
fn dump(row: &str, what: &str, m: &Module, args: &[Literal], outs: &[Literal]) {
    let Ok(dir) = std::env::var("XLA_DUMP") else {
        return;
    };
    let dir = std::path::Path::new(&dir).join(format!("{}_{what}", row.replace('/', "_")));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("module.hlo"), xla_core::text::print_module(m)).unwrap();
    for (i, a) in args.iter().enumerate() {
        a.write_npy(dir.join(format!("in{i}.npy"))).unwrap();
    }
    for (i, o) in outs.iter().enumerate() {
        o.write_npy(dir.join(format!("out{i}.npy"))).unwrap();
    }
    // Rows computing in f32 agree with XLA to f32 precision only.
    let tol = if row.starts_with("convert") {
        1e-5
    } else {
        1e-9
    };
    let meta = format!(
        r#"{{"op": "grad", "rtol": {tol}, "atol": {tol}, "note": "autodiff rule row", "source": "hand", "group": "autodiff"}}"#
    );
    std::fs::write(dir.join("meta.json"), meta).unwrap();
}

/// `⟨f(args), c⟩` for the forward module.
fn pairing(exe: &xla_cpu::Executable, args: &[Literal], c: &[f64]) -> f64 {
    dot(&f64s(&exe.execute(args).unwrap()), c)
}

/// The finite-difference step and relative tolerance of a row: rows computing in f32
/// (`convert`) need a larger step.
fn step(name: &str) -> (f64, f64) {
    if name.starts_with("convert") {
        (1e-2, 1e-4)
    } else {
        (1e-6, 1e-5)
    }
}

fn close(got: f64, want: f64, rtol: f64) -> bool {
    (got - want).abs() <= 1e-6 + rtol * want.abs()
}

fn check_vjp(r: &Row, seed: u64) -> Result<(), String> {
    let m = module_of(r);
    let mut rng = Rng(seed);
    let args = inputs_of(r, &mut rng);
    let result = m
        .entry_computation()
        .unwrap()
        .result_shape()
        .unwrap()
        .clone();
    let c = rng.array(result.dims(), -1.0, 1.0);
    let vjp = vjp_module(&m, None).map_err(|e| e.to_string())?;
    xla_core::verify::verify_module(&vjp).map_err(|e| format!("verify: {e:?}"))?;
    let mut vargs = args.clone();
    vargs.push(c.clone());
    let grads = run(&vjp, &vargs);
    dump(r.name, "vjp", &vjp, &vargs, &grads);
    let exe = xla_cpu::Executable::compile(&m).unwrap();
    let cv = f64s(&c);
    let (eps, rtol) = step(r.name);
    let wrt: Vec<usize> = (0..args.len())
        .filter(|&i| args[i].shape().element_type() == PrimitiveType::F64)
        .collect();
    for (k, &p) in wrt.iter().enumerate() {
        let g = f64s(&grads[k]);
        for e in 0..g.len() {
            let mut plus = args.clone();
            plus[p].typed_data_mut::<f64>().unwrap()[e] += eps;
            let mut minus = args.clone();
            minus[p].typed_data_mut::<f64>().unwrap()[e] -= eps;
            let fd = (pairing(&exe, &plus, &cv) - pairing(&exe, &minus, &cv)) / (2.0 * eps);
            if !close(g[e], fd, rtol) {
                return Err(format!(
                    "parameter {p} element {e}: vjp {} vs finite difference {fd}",
                    g[e]
                ));
            }
        }
    }
    Ok(())
}

#[test]
fn every_rule_matches_finite_differences() {
    let filter = std::env::var("RULE").unwrap_or_default();
    let mut failures = Vec::new();
    let mut n = 0;
    for (i, r) in rows()
        .iter()
        .enumerate()
        .filter(|(_, r)| r.name.contains(&filter))
    {
        n += 1;
        match std::panic::catch_unwind(|| check_vjp(r, 0x9E37_79B9_7F4A_7C15 ^ (i as u64 + 1))) {
            Ok(Ok(())) => {}
            Ok(Err(e)) => failures.push(format!("{}: {e}", r.name)),
            Err(_) => failures.push(format!("{}: panic", r.name)),
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {n} rows fail:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

fn check_jvp(r: &Row, seed: u64) -> Result<(), String> {
    let m = module_of(r);
    let mut rng = Rng(seed);
    let args = inputs_of(r, &mut rng);
    let wrt: Vec<usize> = (0..args.len())
        .filter(|&i| args[i].shape().element_type() == PrimitiveType::F64)
        .collect();
    let tangents: Vec<Literal> = wrt
        .iter()
        .map(|&i| rng.array(args[i].shape().dims(), -1.0, 1.0))
        .collect();
    let jvp = jvp_module(&m, None).map_err(|e| e.to_string())?;
    let mut jargs = args.clone();
    jargs.extend(tangents.iter().cloned());
    let out = run(&jvp, &jargs);
    dump(r.name, "jvp", &jvp, &jargs, &out);
    let exe = xla_cpu::Executable::compile(&m).unwrap();
    let shift = |s: f64| {
        let mut a = args.clone();
        for (k, &p) in wrt.iter().enumerate() {
            let t = f64s(&tangents[k]);
            a[p].typed_data_mut::<f64>()
                .unwrap()
                .iter_mut()
                .zip(&t)
                .for_each(|(x, d)| *x += s * d);
        }
        f64s(&exe.execute(&a).unwrap())
    };
    let (eps, rtol) = step(r.name);
    let (up, down) = (shift(eps), shift(-eps));
    let jt = f64s(&out[1]);
    for e in 0..jt.len() {
        let fd = (up[e] - down[e]) / (2.0 * eps);
        if !close(jt[e], fd, rtol) {
            return Err(format!(
                "element {e}: jvp {} vs finite difference {fd}",
                jt[e]
            ));
        }
    }
    Ok(())
}

/// Forward mode through the double-vjp construction, on every row whose backward graph
/// is itself differentiable.
#[test]
fn jvp_matches_finite_differences() {
    let filter = std::env::var("RULE").unwrap_or_default();
    let mut failures = Vec::new();
    for (i, r) in rows()
        .iter()
        .enumerate()
        .filter(|(_, r)| r.name.contains(&filter))
    {
        match std::panic::catch_unwind(|| check_jvp(r, 0x51_7CC1_B727_220A ^ (i as u64 + 1))) {
            Ok(Ok(())) => {}
            Ok(Err(e)) => failures.push(format!("{}: {e}", r.name)),
            Err(_) => failures.push(format!("{}: panic", r.name)),
        }
    }
    assert!(
        failures.is_empty(),
        "{} rows fail:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// Every opcode with a gradient rule is exercised by at least one row (its HLO name is
/// called in a row's body or in a computation the rows call).
#[test]
fn rows_cover_the_rule_table() {
    let all = rows();
    assert!(all.len() >= 60, "{} rows", all.len());
    let texts: Vec<String> = all
        .iter()
        .map(|r| format!("{PRELUDE}\n{}", r.body))
        .collect();
    let missing: Vec<&str> = xla_core::ir::Opcode::all()
        .into_iter()
        .filter(|&op| differentiability(op) == Differentiability::Rule)
        .map(|op| op.name())
        .filter(|name| {
            let call = format!(" {name}(");
            !texts.iter().any(|t| t.contains(&call))
        })
        .collect();
    assert!(missing.is_empty(), "no row exercises {missing:?}");
}
