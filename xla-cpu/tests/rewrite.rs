//! The compile-time rewrites (transposes folded into dots, `transpose(dot)` computed as the
//! swapped dot, dead instructions skipped) keep every value: each module is checked against
//! products computed by hand here, including shapes where a fold must not fire.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use xla_core::text::parse_module;
use xla_core::Literal;
use xla_cpu::Executable;

/// `[r, c]` row-major matrix with entries `base + i·c + j` (small integers: exact in f32).
fn mat(r: usize, c: usize, base: f32) -> Vec<f32> {
    (0..r * c).map(|k| base + k as f32).collect()
}

fn lit(dims: &[i64], v: Vec<f32>) -> Literal {
    Literal::from_vec(dims, v).unwrap()
}

/// `a[m,k] · b[k,n]`.
fn matmul(a: &[f32], b: &[f32], m: usize, k: usize, n: usize) -> Vec<f32> {
    let mut out = vec![0.0; m * n];
    for i in 0..m {
        for j in 0..n {
            out[i * n + j] = (0..k).map(|t| a[i * k + t] * b[t * n + j]).sum();
        }
    }
    out
}

fn transpose(a: &[f32], r: usize, c: usize) -> Vec<f32> {
    (0..r * c).map(|k| a[(k % r) * c + k / r]).collect()
}

fn run(hlo: &str, args: &[Literal]) -> (Vec<f32>, Vec<String>) {
    let m = parse_module(hlo).unwrap();
    let mut exe = Executable::compile(&m).unwrap();
    exe.set_profiling(true);
    let out = exe.execute(args).unwrap();
    let ran = exe.profile().into_iter().map(|e| e.op).collect();
    (out.data::<f32>().unwrap().to_vec(), ran)
}

#[test]
fn transposed_operands_fold_into_the_dot() {
    // dot(transpose(a), transpose(b)) = aᵀ·bᵀ with a f32[3,2], b f32[4,3].
    let hlo = "HloModule m\n\nENTRY e {\n  a = f32[3,2] parameter(0)\n  b = f32[4,3] parameter(1)\n  ta = f32[2,3] transpose(a), dimensions={1,0}\n  tb = f32[3,4] transpose(b), dimensions={1,0}\n  ROOT d = f32[2,4] dot(ta, tb), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n}\n";
    let (a, b) = (mat(3, 2, 1.0), mat(4, 3, -5.0));
    let (got, ran) = run(hlo, &[lit(&[3, 2], a.clone()), lit(&[4, 3], b.clone())]);
    let want = matmul(&transpose(&a, 3, 2), &transpose(&b, 4, 3), 2, 3, 4);
    assert_eq!(got, want);
    assert!(!ran.iter().any(|op| op == "transpose"), "{ran:?}");
}

#[test]
fn a_transpose_that_reorders_free_dims_is_kept() {
    // lhs f32[2,3,5] transposed to [3,2,5], contracting dim 2: the free dims (3,2) would
    // come out as (2,3) if folded, so the transpose must stay.
    let hlo = "HloModule m\n\nENTRY e {\n  a = f32[2,3,5] parameter(0)\n  b = f32[5,4] parameter(1)\n  ta = f32[3,2,5] transpose(a), dimensions={1,0,2}\n  ROOT d = f32[3,2,4] dot(ta, b), lhs_contracting_dims={2}, rhs_contracting_dims={0}\n}\n";
    let (a, b) = (mat(6, 5, 0.0), mat(5, 4, 2.0));
    let (got, ran) = run(hlo, &[lit(&[2, 3, 5], a.clone()), lit(&[5, 4], b.clone())]);
    // Rows of ta in order (i, j) are rows (j, i) of a.
    let rows: Vec<f32> = (0..3)
        .flat_map(|i| (0..2).flat_map(move |j| (0..5).map(move |t| (j * 3 + i) * 5 + t)))
        .map(|k| a[k])
        .collect();
    assert_eq!(got, matmul(&rows, &b, 6, 5, 4));
    assert!(ran.iter().any(|op| op == "transpose"), "{ran:?}");
}

#[test]
fn batched_transposes_fold_and_keep_batch_order() {
    // a f32[2,4,3] -> [2,3,4] (batch 0 kept), contracting dim 2 of ta (= dim 1 of a).
    let hlo = "HloModule m\n\nENTRY e {\n  a = f32[2,4,3] parameter(0)\n  b = f32[2,4,5] parameter(1)\n  ta = f32[2,3,4] transpose(a), dimensions={0,2,1}\n  ROOT d = f32[2,3,5] dot(ta, b), lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={1}\n}\n";
    let (a, b) = (mat(8, 3, 1.0), mat(8, 5, -20.0));
    let (got, ran) = run(
        hlo,
        &[lit(&[2, 4, 3], a.clone()), lit(&[2, 4, 5], b.clone())],
    );
    let mut want = Vec::new();
    for bi in 0..2 {
        let ab = transpose(&a[bi * 12..(bi + 1) * 12], 4, 3);
        want.extend(matmul(&ab, &b[bi * 20..(bi + 1) * 20], 3, 4, 5));
    }
    assert_eq!(got, want);
    assert!(!ran.iter().any(|op| op == "transpose"), "{ran:?}");
}

#[test]
fn transpose_of_a_dot_is_the_swapped_dot() {
    let hlo = "HloModule m\n\nENTRY e {\n  a = f32[3,4] parameter(0)\n  b = f32[4,2] parameter(1)\n  d = f32[3,2] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n  ROOT t = f32[2,3] transpose(d), dimensions={1,0}\n}\n";
    let (a, b) = (mat(3, 4, -6.0), mat(4, 2, 1.0));
    let (got, ran) = run(hlo, &[lit(&[3, 4], a.clone()), lit(&[4, 2], b.clone())]);
    assert_eq!(got, transpose(&matmul(&a, &b, 3, 4, 2), 3, 2));
    assert_eq!(ran, ["dot"]);
}

#[test]
fn a_dot_read_elsewhere_is_not_swapped() {
    // d is read by the transpose and by the add: both must see the same product.
    let hlo = "HloModule m\n\nENTRY e {\n  a = f32[2,2] parameter(0)\n  b = f32[2,2] parameter(1)\n  d = f32[2,2] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n  t = f32[2,2] transpose(d), dimensions={1,0}\n  ROOT s = f32[2,2] add(d, t)\n}\n";
    let (a, b) = (vec![1.0, 2.0, 3.0, 4.0], vec![5.0, 6.0, 7.0, 8.0]);
    let (got, _) = run(hlo, &[lit(&[2, 2], a), lit(&[2, 2], b)]);
    // a·b = [[19, 22], [43, 50]]
    assert_eq!(got, vec![38.0, 65.0, 65.0, 100.0]);
}

#[test]
fn dead_instructions_do_not_run() {
    let hlo = "HloModule m\n\nENTRY e {\n  a = f32[64,64] parameter(0)\n  dead = f32[64,64] dot(a, a), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n  ROOT n = f32[64,64] negate(a)\n}\n";
    let (got, ran) = run(hlo, &[lit(&[64, 64], mat(64, 64, 0.0))]);
    assert_eq!(got[5], -5.0);
    assert!(!ran.iter().any(|op| op == "dot"), "{ran:?}");
}

#[test]
fn constant_subexpressions_are_folded_at_compile_time() {
    // d = c·c + c = [2, 6, 12] is known at compile time; only the add with x runs.
    let hlo = "HloModule m\n\nENTRY e {\n  x = f32[3] parameter(0)\n  c = f32[3] constant({1, 2, 3})\n  sq = f32[3] multiply(c, c)\n  d = f32[3] add(sq, c)\n  two = f32[] constant(2)\n  b = f32[3] broadcast(two), dimensions={}\n  h = f32[3] divide(d, b)\n  ROOT r = f32[3] add(x, h)\n}\n";
    let (got, ran) = run(hlo, &[lit(&[3], vec![10.0, 20.0, 30.0])]);
    assert_eq!(got, vec![11.0, 23.0, 36.0]);
    assert_eq!(ran.len(), 1, "{ran:?}");
    assert!(ran[0].contains("add"), "{ran:?}");
}

/// A solver's `2·I` built from two iotas, a compare and a convert (128 x 128, within the
/// folding limit) is folded: only the add with the parameter runs, and the diagonal is 2.
#[test]
fn an_identity_built_from_iotas_is_folded() {
    let hlo = "HloModule m\n\nENTRY e {\n  x = f32[128,128] parameter(0)\n  \
               r = s32[128,128] iota(), iota_dimension=0\n  \
               c = s32[128,128] iota(), iota_dimension=1\n  \
               eq = pred[128,128] compare(r, c), direction=EQ\n  \
               f = f32[128,128] convert(eq)\n  two = f32[] constant(2)\n  \
               b = f32[128,128] broadcast(two), dimensions={}\n  \
               i2 = f32[128,128] multiply(f, b)\n  ROOT s = f32[128,128] add(x, i2)\n}\n";
    let (got, ran) = run(hlo, &[lit(&[128, 128], vec![1.0; 128 * 128])]);
    for (k, v) in got.iter().enumerate() {
        let want = if k / 128 == k % 128 { 3.0 } else { 1.0 };
        assert_eq!(*v, want, "element {k}");
    }
    assert_eq!(ran.len(), 1, "{ran:?}");
    assert!(ran[0].contains("add"), "{ran:?}");
}

#[test]
fn random_numbers_are_not_folded() {
    let hlo = "HloModule m\n\nENTRY e {\n  x = f32[10000] parameter(0)\n  two = f32[] constant(2)\n  b = f32[10000] broadcast(two), dimensions={}\n  lo = f32[] constant(0)\n  hi = f32[] constant(1)\n  u = f32[10000] rng(lo, hi), distribution=rng_uniform\n  m = f32[10000] multiply(x, b)\n  ROOT r = f32[10000] add(m, u)\n}\n";
    let (got, ran) = run(hlo, &[lit(&[10000], vec![1.0; 10000])]);
    assert!(
        got.iter().all(|&v| (2.0..3.0).contains(&v)),
        "{:?}",
        &got[..4]
    );
    assert!(ran.iter().any(|op| op == "rng"), "{ran:?}");
}

#[test]
fn calls_are_inlined_and_fuse_with_the_caller() {
    // relu(x + y) and relu(-x) through a called computation (nested one level deeper):
    // each becomes one fused kernel with the caller's op, and no call runs.
    let hlo = "HloModule m\n\nzero_max {\n  a = f32[4] parameter(0)\n  z = f32[] constant(0)\n  zb = f32[4] broadcast(z), dimensions={}\n  ROOT r = f32[4] maximum(a, zb)\n}\n\nrelu {\n  p = f32[4] parameter(0)\n  ROOT c = f32[4] call(p), to_apply=zero_max\n}\n\nENTRY e {\n  x = f32[4] parameter(0)\n  y = f32[4] parameter(1)\n  s = f32[4] add(x, y)\n  r1 = f32[4] call(s), to_apply=relu\n  n = f32[4] negate(x)\n  r2 = f32[4] call(n), to_apply=relu\n  ROOT t = (f32[4], f32[4]) tuple(r1, r2)\n}\n";
    let m = parse_module(hlo).unwrap();
    let mut exe = Executable::compile(&m).unwrap();
    exe.set_profiling(true);
    let args = [
        lit(&[4], vec![1.0, -2.0, 3.0, -4.0]),
        lit(&[4], vec![0.5, 0.5, -4.0, 1.0]),
    ];
    let out = exe.execute(&args).unwrap();
    let t = out.tuple_elements().unwrap();
    assert_eq!(t[0].data::<f32>().unwrap(), &[1.5, 0.0, 0.0, 0.0]);
    assert_eq!(t[1].data::<f32>().unwrap(), &[0.0, 2.0, 0.0, 4.0]);
    let ran: Vec<String> = exe.profile().into_iter().map(|e| e.op).collect();
    assert!(!ran.iter().any(|op| op == "call"), "{ran:?}");
    assert_eq!(
        ran.iter().filter(|op| op.starts_with("fusion")).count(),
        2,
        "{ran:?}"
    );
}

/// Divisions by a broadcast are multiplications by the broadcast reciprocal, as XLA's
/// algebraic simplifier makes them: XLA's own results (`scripts/gen_divide_fixtures.py`)
/// for a row divisor in f32 and f64 and a scalar divisor, bit for bit, fused and unfused;
/// they differ from IEEE division in about a quarter of the elements. A full-shape
/// divisor stays a true division.
#[test]
fn division_by_a_broadcast_multiplies_by_the_reciprocal() {
    let root =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../testdata/xla_divide_broadcast");
    for (case, ty, d_shape, dims) in [
        ("row_f32", "f32", "f32[64]", "{0}"),
        ("scalar_f32", "f32", "f32[]", "{}"),
        ("row_f64", "f64", "f64[64]", "{0}"),
    ] {
        let read = |f: &str| Literal::read_npy(root.join(case).join(f)).unwrap();
        let (x, d, want) = (read("in0.npy"), read("in1.npy"), read("out0.npy"));
        let hlo = format!(
            "HloModule d
ENTRY main {{
  x = {ty}[64,300] parameter(0)
  d = {d_shape} parameter(1)
  bd = {ty}[64,300] broadcast(d), dimensions={dims}
  ROOT r = {ty}[64,300] divide(x, bd)
}}"
        );
        let exe = Executable::compile(&parse_module(&hlo).unwrap()).unwrap();
        let fused = exe.execute(&[x.clone(), d.clone()]).unwrap();
        let unfused = exe.execute_unfused(&[&x, &d]).unwrap();
        assert_eq!(fused, want, "{case}: fused");
        assert_eq!(unfused, want, "{case}: unfused");
    }

    let (rows, cols) = (37usize, 301usize);
    let a: Vec<f32> = (0..rows * cols)
        .map(|i| (i as f32 * 0.37).sin() * 9.0)
        .collect();
    let b: Vec<f32> = (0..rows).map(|i| 0.3 + i as f32 * 0.113).collect();
    let full = format!(
        "HloModule d
ENTRY main {{
  a = f32[{rows},{cols}] parameter(0)
  b = f32[{rows},{cols}] parameter(1)
  ROOT r = f32[{rows},{cols}] divide(a, b)
}}"
    );
    let d: Vec<f32> = (0..rows * cols).map(|i| b[i % rows] + 0.01).collect();
    let shape = [rows as i64, cols as i64];
    let (got, _) = run(&full, &[lit(&shape, a.clone()), lit(&shape, d.clone())]);
    for (i, &g) in got.iter().enumerate() {
        assert_eq!(g.to_bits(), (a[i] / d[i]).to_bits(), "element {i}");
    }
}

/// Runs `hlo` compiled with and without the rewrites (fused and reference paths) and
/// returns the rewritten executable's result and the ops it ran, with their call counts.
fn against_unrewritten(hlo: &str, args: &[Literal]) -> (Literal, Vec<(String, String, u64)>) {
    let m = parse_module(hlo).unwrap();
    let mut exe = Executable::compile(&m).unwrap();
    // Small loops would run as native code, which the profile sees as one instruction.
    exe.drop_native_loops();
    let plain = Executable::compile_without_rewrites(&m).unwrap();
    let refs: Vec<&Literal> = args.iter().collect();
    let want = plain.execute_unfused(&refs).unwrap();
    let bits = |l: &Literal| -> Vec<u32> {
        let mut v = Vec::new();
        for e in l.tuple_elements().unwrap_or(std::slice::from_ref(l)) {
            match e.data::<f32>() {
                Some(d) => v.extend(d.iter().map(|x| x.to_bits())),
                None => v.extend(e.data::<i32>().unwrap().iter().map(|&x| x as u32)),
            }
        }
        v
    };
    for got in [
        exe.execute(args).unwrap(),
        exe.execute_unfused(&refs).unwrap(),
        plain.execute(args).unwrap(),
    ] {
        assert_eq!(bits(&got), bits(&want));
    }
    exe.set_profiling(true);
    let out = exe.execute(args).unwrap();
    let ran = exe
        .profile()
        .into_iter()
        .map(|e| (e.instruction, e.op, e.calls))
        .collect();
    (out, ran)
}

/// A decoder-like loop: each step slices a layer's weights out of the state (invariant:
/// the state element passes through), transposes them and multiplies the carried vector.
const INVARIANT_LOOP: &str = r#"HloModule licm

cond {
  s = (s32[], f32[4], f32[2,4,4]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(5)
  ROOT lt = pred[] compare(i, n), direction=LT
}

body {
  s = (s32[], f32[4], f32[2,4,4]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  h = f32[4] get-tuple-element(s), index=1
  w = f32[2,4,4] get-tuple-element(s), index=2
  w1 = f32[1,4,4] slice(w), slice={[1:2], [0:4], [0:4]}
  m = f32[4,4] reshape(w1)
  mt = f32[4,4] transpose(m), dimensions={1,0}
  k = f32[4,4] constant({{1,0,0,0},{0,1,0,0},{0,0,1,0},{0,0,0,1}})
  a = f32[4,4] add(mt, k)
  h2 = f32[4] dot(a, h), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  t = f32[4] tanh(h2)
  one = s32[] constant(1)
  i2 = s32[] add(i, one)
  ROOT r = (s32[], f32[4], f32[2,4,4]) tuple(i2, t, w)
}

ENTRY main {
  h0 = f32[4] parameter(0)
  w = f32[2,4,4] parameter(1)
  z = s32[] constant(0)
  init = (s32[], f32[4], f32[2,4,4]) tuple(z, h0, w)
  loop = (s32[], f32[4], f32[2,4,4]) while(init), condition=cond, body=body
  ROOT out = f32[4] get-tuple-element(loop), index=1
}
"#;

#[test]
fn loop_invariants_run_once_before_the_loop() {
    let h0 = lit(&[4], vec![0.5, -0.25, f32::NAN, 0.0]);
    let w = lit(
        &[2, 4, 4],
        (0..32).map(|k| (k as f32 - 16.0) / 8.0).collect(),
    );
    let (_, ran) = against_unrewritten(INVARIANT_LOOP, &[h0.clone(), w.clone()]);
    // The slice, transpose and add ran once (hoisted); the dot ran every step.
    let calls = |name: &str| {
        ran.iter()
            .filter(|r| r.0.ends_with(name))
            .map(|r| r.2)
            .sum::<u64>()
    };
    assert_eq!(calls(".a"), 1, "{ran:?}");
    assert_eq!(calls("h2"), 5, "{ran:?}");
    let h1 = lit(&[4], vec![1.0, -0.0, f32::INFINITY, -2.0]);
    against_unrewritten(INVARIANT_LOOP, &[h1, w]);
}

#[test]
fn common_subexpressions_are_computed_once() {
    // The same dot twice (and its transposes), equal constants merged, but `0` and `-0`
    // constants are different values and must stay apart.
    let hlo = r#"HloModule cse

ENTRY main {
  a = f32[3,4] parameter(0)
  b = f32[4,2] parameter(1)
  d1 = f32[3,2] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  d2 = f32[3,2] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  pz = f32[] constant(0)
  nz = f32[] constant(-0)
  bp = f32[3,2] broadcast(pz), dimensions={}
  bn = f32[3,2] broadcast(nz), dimensions={}
  s1 = f32[3,2] multiply(d1, bp)
  s2 = f32[3,2] multiply(d2, bn)
  ROOT r = (f32[3,2], f32[3,2], f32[3,2]) tuple(s1, s2, d2)
}
"#;
    let a = lit(&[3, 4], mat(3, 4, -5.0));
    let b = lit(&[4, 2], mat(4, 2, -3.0));
    let (out, ran) = against_unrewritten(hlo, &[a, b]);
    let dots = ran
        .iter()
        .filter(|r| r.1 == "dot")
        .map(|r| r.2)
        .sum::<u64>();
    assert_eq!(dots, 1, "{ran:?}");
    // d·(+0) and d·(-0) differ in sign wherever d is non-zero.
    let t = out.tuple_elements().unwrap();
    let (s1, s2) = (t[0].data::<f32>().unwrap(), t[1].data::<f32>().unwrap());
    assert!(s1.iter().zip(s2).any(|(x, y)| x.to_bits() != y.to_bits()));
}

#[test]
fn broadcast_scalars_are_multiplied_first_as_xla_does() {
    // `scripts/gen_scalar_product_fixture.py` ran this product on jaxlib 0.10.2.
    let hlo = "HloModule m\n\nENTRY e {\n  h = f32[] parameter(0)\n  bh = f32[4] broadcast(h), dimensions={}\n  k = f32[4] parameter(1)\n  c = f32[] constant(0.2)\n  bc = f32[4] broadcast(c), dimensions={}\n  kc = f32[4] multiply(k, bc)\n  ROOT r = f32[4] multiply(bh, kc)\n}\n";
    let dir =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../testdata/xla_scalar_product");
    let read = |f: &str| Literal::read_npy(dir.join(f)).unwrap();
    let (h, k, want) = (read("in0.npy"), read("in1.npy"), read("out0.npy"));
    let (got, _) = run(hlo, &[h.clone(), k.clone()]);
    let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
    assert_eq!(bits(&got), bits(want.data::<f32>().unwrap()));
    // The written order would differ (the fixture is a case where it matters).
    let (h, k) = (h.data::<f32>().unwrap()[0], k.data::<f32>().unwrap());
    let written: Vec<f32> = k.iter().map(|&k| h * (k * 0.2f32)).collect();
    assert_ne!(bits(&written), bits(&got));
}

#[test]
fn products_xla_keeps_in_written_order_stay_so() {
    // From `scripts/gen_scalar_product_fixture.py` (jaxlib 0.10.2): with a parameter where
    // the constant was, or the constant outside, XLA multiplies in the written order.
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../testdata/xla_scalar_product/kept");
    let read = |f: &str| Literal::read_npy(dir.join(f)).unwrap();
    let (h, k, g) = (read("in0.npy"), read("in1.npy"), read("in2.npy"));
    let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
    let params = "HloModule m\n\nENTRY e {\n  h = f32[] parameter(0)\n  bh = f32[64] broadcast(h), dimensions={}\n  k = f32[64] parameter(1)\n  g = f32[] parameter(2)\n  bg = f32[64] broadcast(g), dimensions={}\n  kg = f32[64] multiply(k, bg)\n  ROOT r = f32[64] multiply(bh, kg)\n}\n";
    let (got, _) = run(params, &[h.clone(), k.clone(), g]);
    assert_eq!(bits(&got), bits(read("out0.npy").data::<f32>().unwrap()));
    let outside = "HloModule m\n\nENTRY e {\n  h = f32[] parameter(0)\n  bh = f32[64] broadcast(h), dimensions={}\n  k = f32[64] parameter(1)\n  kh = f32[64] multiply(k, bh)\n  c = f32[] constant(0.2)\n  bc = f32[64] broadcast(c), dimensions={}\n  ROOT r = f32[64] multiply(kh, bc)\n}\n";
    let (got, _) = run(outside, &[h, k]);
    assert_eq!(bits(&got), bits(read("out1.npy").data::<f32>().unwrap()));
}
