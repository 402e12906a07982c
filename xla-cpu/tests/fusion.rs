//! Fused kernels and fast window loops checked against the reference (unfused, one
//! instruction at a time) on seeded random inputs, and for bit-identical results with
//! thread pools of 1 and 2 threads.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use xla_core::{Literal, Shape};
use xla_cpu::Executable;

/// A seeded xorshift generator of f32 in [-scale, scale).
fn random(n: usize, seed: u64, scale: f32) -> Vec<f32> {
    let mut s = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    (0..n)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            ((s >> 40) as f32 / (1u64 << 24) as f32 * 2.0 - 1.0) * scale
        })
        .collect()
}

fn arg(dims: &[i64], seed: u64, scale: f32) -> Literal {
    let n = dims.iter().product::<i64>() as usize;
    let shape = Shape::array(xla_core::PrimitiveType::F32, dims.to_vec());
    Literal::from_array_data(
        shape,
        xla_core::literal::ArrayData::F32(random(n, seed, scale)),
    )
    .unwrap()
}

fn compile(text: &str) -> Executable {
    let m = xla_core::text::parse_module(text).unwrap();
    Executable::compile(&m).unwrap()
}

fn close(got: &Literal, want: &Literal, rtol: f32, atol: f32, what: &str) {
    assert_eq!(got.shape(), want.shape(), "{what}");
    if let (Some(g), Some(w)) = (got.data::<f32>(), want.data::<f32>()) {
        for (i, (&a, &b)) in g.iter().zip(w).enumerate() {
            let ok = (a.is_nan() && b.is_nan()) || a == b || (a - b).abs() <= atol + rtol * b.abs();
            assert!(ok, "{what}: element {i}: fused {a} vs reference {b}");
        }
    } else {
        assert_eq!(got, want, "{what}");
    }
}

/// Runs `f` with the executable set to `threads` threads.
fn in_pool<T>(exe: &mut Executable, threads: usize, f: impl FnOnce(&Executable) -> T) -> T {
    exe.set_threads(threads);
    f(exe)
}

/// Fused vs reference, and 1 vs 2 threads bit for bit.
fn check(text: &str, args: &[Literal], rtol: f32, what: &str) {
    let mut exe = compile(text);
    let refs: Vec<&Literal> = args.iter().collect();
    let want = exe.execute_unfused(&refs).unwrap();
    let one = in_pool(&mut exe, 1, |exe| exe.execute_borrowed(&refs).unwrap());
    let two = in_pool(&mut exe, 2, |exe| exe.execute_borrowed(&refs).unwrap());
    close(&two, &want, rtol, 1e-6, what);
    let bits = |l: &Literal| -> Vec<u32> {
        l.data::<f32>()
            .map(|v| v.iter().map(|x| x.to_bits()).collect())
            .unwrap_or_default()
    };
    assert_eq!(bits(&one), bits(&two), "{what}: 1 vs 2 threads");
    assert_eq!(one, two, "{what}: 1 vs 2 threads");
}

const GELU: &str = "HloModule g
ENTRY main {
  x = f32[100003] parameter(0)
  y = f32[100003] parameter(1)
  z = f32[100003] parameter(2)
  x2 = f32[100003] multiply(x, x)
  x3 = f32[100003] multiply(x2, x)
  c0 = f32[] constant(0.044715)
  b0 = f32[100003] broadcast(c0), dimensions={}
  m = f32[100003] multiply(x3, b0)
  a = f32[100003] add(x, m)
  c1 = f32[] constant(0.797884583)
  b1 = f32[100003] broadcast(c1), dimensions={}
  t = f32[100003] multiply(a, b1)
  th = f32[100003] tanh(t)
  c2 = f32[] constant(1)
  b2 = f32[100003] broadcast(c2), dimensions={}
  s = f32[100003] add(th, b2)
  g = f32[100003] multiply(x, s)
  gy = f32[100003] multiply(g, y)
  ROOT r = f32[100003] add(gy, z)
}";

const RELU_GRAD_BIAS: &str = "HloModule r
sum { a = f32[] parameter(0)  b = f32[] parameter(1)  ROOT s = f32[] add(a, b) }
ENTRY main {
  x = f32[256,300] parameter(0)
  g = f32[256,300] parameter(1)
  bias = f32[300] parameter(2)
  bb = f32[256,300] broadcast(bias), dimensions={1}
  h = f32[256,300] add(x, bb)
  zero = f32[] constant(0)
  z = f32[256,300] broadcast(zero), dimensions={}
  p = pred[256,300] compare(h, z), direction=GT
  gr = f32[256,300] select(p, g, z)
  db = f32[300] reduce(gr, zero), dimensions={0}, to_apply=sum
  relu = f32[256,300] maximum(h, z)
  ROOT t = (f32[300], f32[256,300], pred[256,300]) tuple(db, relu, p)
}";

const MIXED: &str = "HloModule m
mul { a = f32[] parameter(0)  b = f32[] parameter(1)  ROOT s = f32[] multiply(a, b) }
mn { a = f32[] parameter(0)  b = f32[] parameter(1)  ROOT s = f32[] minimum(a, b) }
sum { a = f32[] parameter(0)  b = f32[] parameter(1)  ROOT s = f32[] add(a, b) }
ENTRY main {
  x = f32[7,50,33] parameter(0)
  lo = f32[] constant(-0.5)
  hi = f32[] constant(0.75)
  c = f32[7,50,33] clamp(lo, x, hi)
  l = f32[7,50,33] logistic(x)
  ax = f32[7,50,33] abs(x)
  lg = f32[7,50,33] log(ax)
  e = f32[7,50,33] exponential(lg)
  s = f32[7,50,33] add(c, l)
  t = f32[7,50,33] add(s, e)
  one = f32[] constant(1)
  p = f32[7,33] reduce(l, one), dimensions={1}, to_apply=mul
  inf = f32[] constant(inf)
  q = f32[] reduce(t, inf), dimensions={0,1,2}, to_apply=mn
  zero = f32[] constant(0)
  big = f32[50] reduce(t, zero), dimensions={0,2}, to_apply=sum
  ROOT r = (f32[7,50,33], f32[7,33], f32[], f32[50]) tuple(t, p, q, big)
}";

#[test]
fn gelu_chain_matches_reference() {
    let args = [
        arg(&[100_003], 1, 6.0),
        arg(&[100_003], 2, 1.0),
        arg(&[100_003], 3, 1.0),
    ];
    check(GELU, &args, 1e-5, "gelu");
}

#[test]
fn softmax_matches_reference() {
    check(
        &common::softmax("f32", 300, 517),
        &[arg(&[300, 517], 4, 20.0)],
        1e-5,
        "softmax",
    );
}

#[test]
fn relu_grad_and_bias_reduce_match_reference() {
    let args = [
        arg(&[256, 300], 5, 1.0),
        arg(&[256, 300], 6, 1.0),
        arg(&[300], 7, 0.5),
    ];
    let mut exe = compile(RELU_GRAD_BIAS);
    let refs: Vec<&Literal> = args.iter().collect();
    let want = exe.execute_unfused(&refs).unwrap();
    let got = in_pool(&mut exe, 2, |exe| exe.execute_borrowed(&refs).unwrap());
    // Column reductions fold rows in the reference order: bit-identical.
    assert_eq!(got, want);
}

#[test]
fn mixed_ops_and_reduces_match_reference() {
    let mut exe = compile(MIXED);
    let args = [arg(&[7, 50, 33], 8, 3.0)];
    let refs: Vec<&Literal> = args.iter().collect();
    let want = exe.execute_unfused(&refs).unwrap();
    let one = in_pool(&mut exe, 1, |exe| exe.execute_borrowed(&refs).unwrap());
    let two = in_pool(&mut exe, 2, |exe| exe.execute_borrowed(&refs).unwrap());
    assert_eq!(one, two, "1 vs 2 threads");
    let (g, w) = (
        two.tuple_elements().unwrap(),
        want.tuple_elements().unwrap(),
    );
    for (k, (a, b)) in g.iter().zip(w).enumerate() {
        close(a, b, 1e-5, 1e-6, &format!("mixed output {k}"));
    }
}

#[test]
fn long_full_reduction_is_deterministic() {
    let text = "HloModule f
sum { a = f32[] parameter(0)  b = f32[] parameter(1)  ROOT s = f32[] add(a, b) }
ENTRY main {
  x = f32[1000,777] parameter(0)
  e = f32[1000,777] exponential(x)
  zero = f32[] constant(0)
  ROOT s = f32[] reduce(e, zero), dimensions={0,1}, to_apply=sum
}";
    check(text, &[arg(&[1000, 777], 9, 1.0)], 1e-4, "full sum");
}

#[test]
fn specials_flow_through_fused_kernels() {
    let text = "HloModule sp
ENTRY main {
  x = f32[8] parameter(0)
  e = f32[8] exponential(x)
  t = f32[8] tanh(x)
  l = f32[8] log(x)
  s = f32[8] add(e, t)
  ROOT r = (f32[8], f32[8]) tuple(s, l)
}";
    let x = Literal::vec1(&[
        0.0f32,
        -0.0,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        89.0,
        -104.0,
        1.0,
    ]);
    let exe = compile(text);
    let got = exe.execute(std::slice::from_ref(&x)).unwrap();
    let t = got.tuple_elements().unwrap();
    let s = t[0].data::<f32>().unwrap();
    let l = t[1].data::<f32>().unwrap();
    // exp + tanh, from the spec's definitions of the two functions.
    assert_eq!(s[0], 1.0);
    assert_eq!(s[1], 1.0);
    assert_eq!(s[2], f32::INFINITY);
    assert_eq!(s[3], -1.0);
    assert!(s[4].is_nan());
    assert_eq!(s[5], f32::INFINITY);
    assert_eq!(s[6], -1.0);
    assert!((s[7] - (std::f32::consts::E + 0.761_594_2)).abs() < 1e-6);
    assert_eq!(l[0], f32::NEG_INFINITY);
    assert_eq!(l[1], f32::NEG_INFINITY);
    assert_eq!(l[2], f32::INFINITY);
    assert!(l[3].is_nan() && l[4].is_nan());
    assert_eq!(l[7], 0.0);
}

/// Naive max-pool over the last two dims, padding skipped, window row-major.
fn naive_pool(
    x: &[f32],
    d: [usize; 4],
    k: usize,
    s: usize,
    pad: usize,
    out: [usize; 2],
) -> Vec<f32> {
    let mut r = Vec::new();
    for p in 0..d[0] * d[1] {
        for oh in 0..out[0] {
            for ow in 0..out[1] {
                let mut acc = f32::NEG_INFINITY;
                for kh in 0..k {
                    for kw in 0..k {
                        let (h, w) = (
                            (oh * s + kh) as i64 - pad as i64,
                            (ow * s + kw) as i64 - pad as i64,
                        );
                        if h >= 0 && w >= 0 && (h as usize) < d[2] && (w as usize) < d[3] {
                            acc = acc.max(x[p * d[2] * d[3] + h as usize * d[3] + w as usize]);
                        }
                    }
                }
                r.push(acc);
            }
        }
    }
    r
}

#[test]
fn pooling_matches_a_naive_loop() {
    // (size, stride, padding, out): 2x2/2 unpadded and 3x3/2 padded 1.
    for (k, s, pad, o) in [(2usize, 2usize, 0usize, 14usize), (3, 2, 1, 14)] {
        let text = format!(
            "HloModule p
mx {{ a = f32[] parameter(0)  b = f32[] parameter(1)  ROOT m = f32[] maximum(a, b) }}
ENTRY main {{
  x = f32[3,5,28,28] parameter(0)
  ninf = f32[] constant(-inf)
  ROOT r = f32[3,5,{o},{o}] reduce-window(x, ninf), window={{size=1x1x{k}x{k} stride=1x1x{s}x{s} pad=0_0x0_0x{pad}_{pad}x{pad}_{pad}}}, to_apply=mx
}}"
        );
        let x = arg(&[3, 5, 28, 28], 10, 1.0);
        let mut exe = compile(&text);
        let got = in_pool(&mut exe, 2, |exe| {
            exe.execute(std::slice::from_ref(&x)).unwrap()
        });
        let want = naive_pool(x.data::<f32>().unwrap(), [3, 5, 28, 28], k, s, pad, [o, o]);
        assert_eq!(
            got.data::<f32>().unwrap(),
            &want[..],
            "window {k} stride {s} pad {pad}"
        );
    }
}

#[test]
fn select_and_scatter_matches_a_naive_loop() {
    let text = "HloModule ss
ge { a = f32[] parameter(0)  b = f32[] parameter(1)  ROOT c = pred[] compare(a, b), direction=GE }
add { a = f32[] parameter(0)  b = f32[] parameter(1)  ROOT s = f32[] add(a, b) }
ENTRY main {
  x = f32[2,3,9,9] parameter(0)
  g = f32[2,3,4,4] parameter(1)
  zero = f32[] constant(0)
  ROOT r = f32[2,3,9,9] select-and-scatter(x, g, zero), window={size=1x1x3x3 stride=1x1x2x2}, select=ge, scatter=add
}";
    // Ties included: values on a coarse grid.
    let xv: Vec<f32> = random(2 * 3 * 81, 11, 3.0)
        .iter()
        .map(|v| v.round())
        .collect();
    let x = Literal::from_array_data(
        Shape::array(xla_core::PrimitiveType::F32, vec![2, 3, 9, 9]),
        xla_core::literal::ArrayData::F32(xv.clone()),
    )
    .unwrap();
    let g = arg(&[2, 3, 4, 4], 12, 1.0);
    let gv = g.data::<f32>().unwrap();
    let mut want = vec![0.0f32; xv.len()];
    for p in 0..6 {
        for oh in 0..4 {
            for ow in 0..4 {
                // The first maximum in window order (select is GE: keep the current one).
                let mut best = None::<(usize, f32)>;
                for kh in 0..3 {
                    for kw in 0..3 {
                        let i = p * 81 + (oh * 2 + kh) * 9 + ow * 2 + kw;
                        if best.is_none_or(|(_, b)| xv[i] > b) {
                            best = Some((i, xv[i]));
                        }
                    }
                }
                want[best.unwrap().0] += gv[p * 16 + oh * 4 + ow];
            }
        }
    }
    let mut exe = compile(text);
    let got = in_pool(&mut exe, 2, |exe| {
        exe.execute(&[x.clone(), g.clone()]).unwrap()
    });
    assert_eq!(got.data::<f32>().unwrap(), &want[..]);
}

#[test]
fn fast_2x2_max_pool_keeps_nan_and_positive_zero() {
    // One 4x4 plane: windows hold (NaN, 1, 2, 3), (-0, +0, -0, -0), (-inf, -inf, -inf, -inf)
    // and (5, -1, 7, 6); max-pooled: NaN, +0, -inf, 7 (min-pooled: NaN, -0, -inf, -1).
    let n = f32::NAN;
    let ni = f32::NEG_INFINITY;
    let x = vec![
        n, 1.0, -0.0, 0.0, //
        2.0, 3.0, -0.0, -0.0, //
        ni, ni, 5.0, -1.0, //
        ni, ni, 7.0, 6.0,
    ];
    for (op, init, want) in [
        ("maximum", "-inf", [n, 0.0, ni, 7.0]),
        ("minimum", "inf", [n, -0.0, ni, -1.0]),
    ] {
        let hlo = format!(
            "HloModule m\n\nc {{\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT r = f32[] {op}(a, b)\n}}\n\nENTRY e {{\n  x = f32[1,1,4,4] parameter(0)\n  i = f32[] constant({init})\n  ROOT w = f32[1,1,2,2] reduce-window(x, i), window={{size=1x1x2x2 stride=1x1x2x2}}, to_apply=c\n}}\n"
        );
        let out = compile(&hlo)
            .execute(&[Literal::from_vec(&[1, 1, 4, 4], x.clone()).unwrap()])
            .unwrap();
        let got = out.data::<f32>().unwrap();
        for (g, w) in got.iter().zip(want) {
            assert!(
                (g.is_nan() && w.is_nan()) || g.to_bits() == w.to_bits(),
                "{op}: {got:?}"
            );
        }
    }
}

/// `arg` as f64 (the same values, widened).
fn arg64(dims: &[i64], seed: u64, scale: f32) -> Literal {
    let v: Vec<f64> = arg(dims, seed, scale)
        .data::<f32>()
        .unwrap()
        .iter()
        .map(|&x| f64::from(x))
        .collect();
    let shape = Shape::array(xla_core::PrimitiveType::F64, dims.to_vec());
    Literal::from_array_data(shape, xla_core::literal::ArrayData::F64(v)).unwrap()
}

/// The steps a run executed, as `op` names (`fusion(root op)` for fused kernels).
fn steps(text: &str, args: &[Literal]) -> Vec<String> {
    let mut exe = compile(text);
    exe.set_profiling(true);
    exe.execute(args).unwrap();
    exe.profile().into_iter().map(|e| e.op).collect()
}

/// f64 chains fuse like f32 ones, and give the unfused kernels' results bit for bit
/// (the same scalar functions), with any number of threads.
fn check_f64(text: &str, args: &[Literal], what: &str) {
    let mut exe = compile(text);
    let refs: Vec<&Literal> = args.iter().collect();
    let want = exe.execute_unfused(&refs).unwrap();
    let one = in_pool(&mut exe, 1, |exe| exe.execute_borrowed(&refs).unwrap());
    let two = in_pool(&mut exe, 2, |exe| exe.execute_borrowed(&refs).unwrap());
    let bits = |l: &Literal| -> Vec<u64> {
        l.data::<f64>()
            .unwrap()
            .iter()
            .map(|x| x.to_bits())
            .collect()
    };
    assert_eq!(bits(&one), bits(&two), "{what}: 1 vs 2 threads");
    let (got, want) = (two.data::<f64>().unwrap(), want.data::<f64>().unwrap());
    for (i, (&a, &b)) in got.iter().zip(want).enumerate() {
        let ok = a.to_bits() == b.to_bits() || (a - b).abs() <= 1e-12 * b.abs().max(1e-300);
        assert!(ok, "{what}: element {i}: fused {a} vs reference {b}");
    }
}

#[test]
fn f64_gelu_chain_is_one_kernel_and_matches_reference() {
    let text = GELU.replace("f32", "f64");
    let args = [
        arg64(&[100_003], 1, 6.0),
        arg64(&[100_003], 2, 1.0),
        arg64(&[100_003], 3, 1.0),
    ];
    check_f64(&text, &args, "f64 gelu");
    let s = steps(&text, &args);
    assert_eq!(
        s.iter().filter(|o| o.starts_with("fusion")).count(),
        1,
        "{s:?}"
    );
    assert!(!s.iter().any(|o| o == "tanh" || o == "multiply"), "{s:?}");
}

#[test]
fn f64_softmax_fuses_its_reduces_and_matches_reference() {
    let text = common::softmax("f64", 300, 517);
    let args = [arg64(&[300, 517], 4, 20.0)];
    check_f64(&text, &args, "f64 softmax");
    // Max, `exp(x - max)`, sum, the reciprocal of the sum (the quotient multiplies by it,
    // as in XLA) and the quotient: five fused kernels run as one row chain (f64 has no
    // generated code, so the quotient is not computed in place).
    let s = steps(&text, &args);
    assert_eq!(s, ["fusion[rows:5](multiply)"], "{s:?}");
}

/// A compare of f32 values feeding an f64 select, and an f64 compare feeding an f32
/// select: each kernel computes in one type, and the predicate crosses as a stored pred.
#[test]
fn mixed_f32_and_f64_chains_split_at_the_type_boundary() {
    let text = "HloModule m
ENTRY main {
  a = f32[5000] parameter(0)
  b = f32[5000] parameter(1)
  x = f64[5000] parameter(2)
  y = f64[5000] parameter(3)
  ea = f32[5000] exponential(a)
  p = pred[5000] compare(ea, b), direction=GT
  sx = f64[5000] sine(x)
  s64 = f64[5000] select(p, sx, y)
  q = pred[5000] compare(sx, y), direction=LT
  s32 = f32[5000] select(q, a, ea)
  c = f64[5000] convert(s32)
  ROOT r = f64[5000] add(s64, c)
}";
    let args = [
        arg(&[5000], 5, 2.0),
        arg(&[5000], 6, 2.0),
        arg64(&[5000], 7, 2.0),
        arg64(&[5000], 8, 2.0),
    ];
    check_f64(text, &args, "mixed");
    let s = steps(text, &args);
    assert!(s.iter().any(|o| o.starts_with("fusion")), "{s:?}");
}

/// A rewrite that orphans an instruction must not keep its operand out of a kernel: XLA's
/// scalar combining turns `(|m| * 0.01) * 0.9` into `|m| * (0.01 * 0.9)`, leaving the inner
/// multiply dead. `abs(m)` then has one live reader and is computed inside the one kernel
/// (an optax Adam update had it as a kernel of its own, one extra pass over every moment).
#[test]
fn a_reader_left_dead_by_a_rewrite_does_not_split_a_kernel() {
    let text = r#"HloModule adam_like
ENTRY main {
  m = f32[4096] parameter(0)
  g = f32[4096] parameter(1)
  a = f32[4096] abs(m)
  c1 = f32[] constant(0.01)
  b1 = f32[4096] broadcast(c1), dimensions={}
  m1 = f32[4096] multiply(a, b1)
  c2 = f32[] constant(0.9)
  b2 = f32[4096] broadcast(c2), dimensions={}
  m2 = f32[4096] multiply(m1, b2)
  ROOT r = f32[4096] add(g, m2)
}"#;
    let exe = compile(text);
    let entry = exe.module().entry;
    let steps: Vec<_> = exe
        .plan_steps(entry)
        .into_iter()
        .filter(|s| s.fusion.is_some() || !s.members.is_empty())
        .collect();
    assert_eq!(steps.len(), 1, "one kernel: {steps:?}");
    let comp = exe.module().get(entry).unwrap();
    let abs = comp
        .instructions
        .iter()
        .position(|i| i.name == "a")
        .unwrap();
    assert!(steps[0].members.contains(&abs), "abs inside: {steps:?}");
    let args = [arg(&[4096], 7, 3.0), arg(&[4096], 8, 3.0)];
    check(text, &args, 0.0, "adam-like update");
}

/// Reductions over rows shorter than the fold's 64 lanes (a pairwise distance's
/// coordinates) fold many rows per kernel block, and broadcasts read as short cyclic runs
/// fill by doubling copies: both against the reference (max and min exactly), with NaN,
/// ±inf and ±0 in the operand, for every combiner and row lengths from 1 to 63; 1 vs 2
/// threads bit for bit.
#[test]
fn short_rows_and_cyclic_broadcasts_match_reference() {
    for (op, init, square) in [
        ("add", "0", true),
        ("multiply", "1", false),
        ("maximum", "-inf", false),
        ("minimum", "inf", false),
    ] {
        for r in [1i64, 3, 4, 17, 63] {
            let text = format!(
                "HloModule s
c {{ a = f32[] parameter(0)  b = f32[] parameter(1)  ROOT s = f32[] {op}(a, b) }}
ENTRY main {{
  x = f32[200,{r}] parameter(0)
  w = f32[40,{r}] parameter(1)
  bx = f32[200,40,{r}] broadcast(x), dimensions={{0,2}}
  bw = f32[200,40,{r}] broadcast(w), dimensions={{1,2}}
  s = f32[200,40,{r}] subtract(bx, bw)
  m = f32[200,40,{r}] {kernel}
  i = f32[] constant({init})
  ROOT red = f32[200,40] reduce(m, i), dimensions={{2}}, to_apply=c
}}",
                kernel = if square {
                    "multiply(s, s)"
                } else {
                    "multiply(s, bw)"
                },
            );
            let mut v = random(200 * r as usize, 11, 2.0);
            let specials = [f32::NAN, f32::INFINITY, f32::NEG_INFINITY, 0.0, -0.0];
            for (k, s) in specials.iter().enumerate() {
                let at = (k * 37 * r as usize + k) % v.len();
                v[at] = *s;
            }
            let x = Literal::from_vec(&[200, r], v).unwrap();
            let w = arg(&[40, r], 12, 1.5);
            // Sums and products round in the fold's order, not the reference's.
            let rtol = if square || op == "multiply" {
                1e-5
            } else {
                0.0
            };
            check(&text, &[x, w], rtol, &format!("{op} over rows of {r}"));
        }
    }
}

/// Reductions large enough to split, one per way they split (column blocks of several
/// outer rows, long rows cut into chunks, many short rows, everything to one value), and
/// column sums over whole rows (several rows per call of the generated code), with
/// NaN, ±inf and ±0 among the inputs: at two threads their tasks are shared with the
/// partner thread; the values equal one thread's bit for bit and the reference's. (One
/// module each: side by side in one module, some would run as a group, each on a thread.)
#[test]
fn reductions_shared_with_the_partner_match_one_thread() {
    let cases: [(&[i64], &str, &str, &str, &str); 6] = [
        (&[6, 40, 2500], "exponential", "{1}", "f32[6,2500]", "add"),
        // Whole rows of 64 and 96 columns: many rows per call of the code, then folded.
        (&[2, 5000, 64], "exponential", "{1}", "f32[2,64]", "add"),
        (&[3001, 96], "tanh", "{0}", "f32[96]", "maximum"),
        (&[3, 120000], "tanh", "{1}", "f32[3]", "maximum"),
        (&[60000, 5], "abs", "{1}", "f32[60000]", "add"),
        (&[400000], "negate", "{0}", "f32[]", "minimum"),
    ];
    for (case, (dims, op, red, out, comb)) in cases.into_iter().enumerate() {
        let x = format!("f32{dims:?}").replace(' ', "");
        let text = format!(
            "HloModule r
comb {{ a = f32[] parameter(0)  b = f32[] parameter(1)  ROOT s = f32[] {comb}(a, b) }}
ENTRY main {{
  x = {x} parameter(0)
  init = f32[] constant(0)
  e = {x} {op}(x)
  ROOT r = {out} reduce(e, init), dimensions={red}, to_apply=comb
}}"
        );
        let mut v = random(dims.iter().product::<i64>() as usize, 21 + case as u64, 2.0);
        let n = v.len();
        for (k, s) in [f32::NAN, f32::INFINITY, f32::NEG_INFINITY, 0.0, -0.0]
            .into_iter()
            .enumerate()
        {
            v[(k * 7919 + 13) % n] = s;
        }
        let args = [Literal::from_vec(dims, v).unwrap()];
        let mut exe = compile(&text);
        let refs: Vec<&Literal> = args.iter().collect();
        let want = exe.execute_unfused(&refs).unwrap();
        let one = in_pool(&mut exe, 1, |exe| exe.execute_borrowed(&refs).unwrap());
        for _ in 0..20 {
            let two = in_pool(&mut exe, 2, |exe| exe.execute_borrowed(&refs).unwrap());
            assert_eq!(two, one, "case {case}: 1 vs 2 threads");
        }
        close(&one, &want, 1e-4, 1e-6, &format!("case {case}"));
    }
}
