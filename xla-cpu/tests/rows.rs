//! Row chains (softmax, log-softmax, layer norm run tile by tile) give the unchained plan's
//! results bit for bit, with 1 and 2 threads, on random inputs with NaN, ±inf and ±0 in
//! some rows, for f32 and f64, row counts that are not a multiple of the tile, and rows
//! that are not a multiple of a vector block; and they agree with the reference
//! (one instruction at a time) to rounding.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use xla_core::literal::ArrayData;
use xla_core::{Literal, PrimitiveType, Shape};
use xla_cpu::Executable;

/// Seeded values in [-scale, scale), with NaN, ±inf and ±0 sprinkled over a few rows.
fn values(n: usize, cols: usize, seed: u64, scale: f64) -> Vec<f64> {
    let mut s = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    let mut v: Vec<f64> = (0..n)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            ((s >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0) * scale
        })
        .collect();
    let specials = [f64::NAN, f64::INFINITY, f64::NEG_INFINITY, 0.0, -0.0];
    for (k, x) in specials.iter().enumerate() {
        // Row 3k + 1 gets one special value, row 3k + 2 a whole run of it.
        if let Some(e) = v.get_mut((3 * k + 1) * cols + k) {
            *e = *x;
        }
        for c in 0..cols.min(5) {
            if let Some(e) = v.get_mut((3 * k + 2) * cols + c) {
                *e = *x;
            }
        }
    }
    v
}

fn arg(ty: PrimitiveType, dims: &[i64], seed: u64, scale: f64) -> Literal {
    let n = dims.iter().product::<i64>() as usize;
    let cols = *dims.last().unwrap() as usize;
    let v = values(n, cols, seed, scale);
    let data = match ty {
        PrimitiveType::F64 => ArrayData::F64(v),
        _ => ArrayData::F32(v.iter().map(|&x| x as f32).collect()),
    };
    Literal::from_array_data(Shape::array(ty, dims.to_vec()), data).unwrap()
}

/// Bit patterns of every leaf (NaNs compared as NaN, whatever their payload).
fn bits(l: &Literal) -> Vec<u64> {
    let leaves: Vec<Literal> = match l.tuple_elements() {
        Some(t) => t.to_vec(),
        None => vec![l.clone()],
    };
    let nan = |b: bool, x: u64| if b { u64::MAX } else { x };
    leaves
        .iter()
        .flat_map(|x| match (x.data::<f32>(), x.data::<f64>()) {
            (Some(v), _) => v
                .iter()
                .map(|y| nan(y.is_nan(), u64::from(y.to_bits())))
                .collect::<Vec<_>>(),
            (None, Some(v)) => v.iter().map(|y| nan(y.is_nan(), y.to_bits())).collect(),
            (None, None) => Vec::new(),
        })
        .collect()
}

/// Runs `text` chained (1 and 2 threads) and unchained; all three must agree bit for bit,
/// and the reference to `rtol` (relative to the value, or to 1 near 0: sums differ in order). Returns the chained run's step names.
fn check(text: &str, args: &[Literal], rtol: f64, what: &str) -> Vec<String> {
    let m = xla_core::text::parse_module(text).unwrap();
    let mut chained = Executable::compile(&m).unwrap();
    let mut plain = Executable::compile_without_row_chains(&m).unwrap();
    let refs: Vec<&Literal> = args.iter().collect();
    chained.set_threads(1);
    let one = chained.execute_borrowed(&refs).unwrap();
    chained.set_threads(2);
    chained.set_profiling(true);
    let two = chained.execute_borrowed(&refs).unwrap();
    plain.set_threads(2);
    let base = plain.execute_borrowed(&refs).unwrap();
    assert_eq!(bits(&one), bits(&two), "{what}: 1 vs 2 threads");
    assert_eq!(bits(&two), bits(&base), "{what}: chained vs unchained");
    let want = plain.execute_unfused(&refs).unwrap();
    let as64 = |l: &Literal| -> Vec<f64> {
        match (l.data::<f32>(), l.data::<f64>()) {
            (Some(v), _) => v.iter().map(|&x| f64::from(x)).collect(),
            (None, Some(v)) => v.to_vec(),
            (None, None) => Vec::new(),
        }
    };
    let leaves = |l: &Literal| match l.tuple_elements() {
        Some(t) => t.to_vec(),
        None => vec![l.clone()],
    };
    for (g, w) in leaves(&two).iter().zip(leaves(&want)) {
        for (i, (a, b)) in as64(g).into_iter().zip(as64(&w)).enumerate() {
            let ok =
                (a.is_nan() && b.is_nan()) || a == b || (a - b).abs() <= rtol * (b.abs() + 1.0);
            assert!(ok, "{what}: element {i}: chained {a} vs reference {b}");
        }
    }
    chained.profile().into_iter().map(|e| e.op).collect()
}

fn chained(steps: &[String]) -> bool {
    steps.iter().any(|s| s.starts_with("fusion[rows:"))
}

/// The chain's last step updates an earlier step's values in place in the output — which
/// it does exactly when the chain has generated code (f32 with AVX-512; else the update
/// would cost a copy more).
fn in_place(steps: &[String]) -> bool {
    steps
        .iter()
        .filter(|s| s.starts_with("fusion[rows:"))
        .all(|s| s.contains(",in-place") == s.contains(",code"))
}

#[test]
fn softmax_chains_match_the_unchained_plan() {
    for (ty, rows, cols, rtol) in [
        ("f32", 300, 1024, 1e-5),
        ("f32", 77, 1000, 1e-5),
        ("f32", 1031, 130, 1e-5),
        ("f64", 129, 520, 1e-12),
    ] {
        let text = common::softmax(ty, rows, cols);
        let t = if ty == "f64" {
            PrimitiveType::F64
        } else {
            PrimitiveType::F32
        };
        let x = arg(t, &[rows as i64, cols as i64], 7, 30.0);
        let steps = check(&text, &[x], rtol, &format!("softmax {ty}[{rows},{cols}]"));
        assert!(
            chained(&steps) && in_place(&steps),
            "softmax {ty}[{rows},{cols}] was not chained in place: {steps:?}"
        );
    }
}

/// JAX's softmax, with its keepdims reshapes and `max(m, -inf)` guard (the perf module B6).
const JAX_SOFTMAX: &str = "HloModule jax_softmax
region_0.1 { a = f32[] parameter(0)  b = f32[] parameter(1)  ROOT m = f32[] maximum(a, b) }
region_1.2 { a = f32[] parameter(0)  b = f32[] parameter(1)  ROOT s = f32[] add(a, b) }
ENTRY main.3 {
  x.1 = f32[600,384]{1,0} parameter(0)
  constant.5 = f32[] constant(-inf)
  reduce_max.7 = f32[600]{0} reduce(x.1, constant.5), dimensions={1}, to_apply=region_0.1
  constant.3 = f32[] constant(-inf)
  max.2 = f32[600]{0} broadcast(constant.3), dimensions={}
  max.3 = f32[600]{0} maximum(reduce_max.7, max.2)
  broadcast_in_dim.2 = f32[600,1]{1,0} reshape(max.3)
  sub.4 = f32[600,1]{1,0} broadcast(broadcast_in_dim.2), dimensions={0,1}
  sub.5 = f32[600]{0} reshape(sub.4)
  sub.6 = f32[600,384]{1,0} broadcast(sub.5), dimensions={0}
  sub.7 = f32[600,384]{1,0} subtract(x.1, sub.6)
  exp.1 = f32[600,384]{1,0} exponential(sub.7)
  constant.4 = f32[] constant(0)
  reduce_sum.7 = f32[600]{0} reduce(exp.1, constant.4), dimensions={1}, to_apply=region_1.2
  broadcast_in_dim.3 = f32[600,1]{1,0} reshape(reduce_sum.7)
  div.4 = f32[600,1]{1,0} broadcast(broadcast_in_dim.3), dimensions={0,1}
  div.5 = f32[600]{0} reshape(div.4)
  div.6 = f32[600,384]{1,0} broadcast(div.5), dimensions={0}
  ROOT div.7 = f32[600,384]{1,0} divide(exp.1, div.6)
}";

#[test]
fn jax_softmax_is_one_chain() {
    let x = arg(PrimitiveType::F32, &[600, 384], 3, 50.0);
    let steps = check(JAX_SOFTMAX, &[x], 1e-5, "jax softmax");
    let fused: Vec<&String> = steps.iter().filter(|s| s.starts_with("fusion")).collect();
    assert_eq!(fused.len(), 1, "one chained step: {steps:?}");
    assert!(chained(&steps) && in_place(&steps), "{steps:?}");
}

/// Layer norm over the last dim of `f32[8, 100, 256]`, scale and bias broadcast along rows.
const LAYER_NORM: &str = "HloModule ln
add { a = f32[] parameter(0)  b = f32[] parameter(1)  ROOT s = f32[] add(a, b) }
ENTRY main {
  x = f32[8,100,256] parameter(0)
  g = f32[256] parameter(1)
  b = f32[256] parameter(2)
  zero = f32[] constant(0)
  n = f32[] constant(256)
  s = f32[8,100] reduce(x, zero), dimensions={2}, to_apply=add
  nb = f32[8,100] broadcast(n), dimensions={}
  mean = f32[8,100] divide(s, nb)
  mb = f32[8,100,256] broadcast(mean), dimensions={0,1}
  d = f32[8,100,256] subtract(x, mb)
  d2 = f32[8,100,256] multiply(d, d)
  v = f32[8,100] reduce(d2, zero), dimensions={2}, to_apply=add
  var = f32[8,100] divide(v, nb)
  eps = f32[] constant(1e-5)
  epsb = f32[8,100] broadcast(eps), dimensions={}
  ve = f32[8,100] add(var, epsb)
  r = f32[8,100] rsqrt(ve)
  rb = f32[8,100,256] broadcast(r), dimensions={0,1}
  y = f32[8,100,256] multiply(d, rb)
  gb = f32[8,100,256] broadcast(g), dimensions={2}
  bb = f32[8,100,256] broadcast(b), dimensions={2}
  yg = f32[8,100,256] multiply(y, gb)
  ROOT out = f32[8,100,256] add(yg, bb)
}";

#[test]
fn layer_norm_chain_matches_the_unchained_plan() {
    let x = arg(PrimitiveType::F32, &[8, 100, 256], 11, 4.0);
    let g = arg(PrimitiveType::F32, &[256], 12, 1.0);
    let b = arg(PrimitiveType::F32, &[256], 13, 1.0);
    let steps = check(LAYER_NORM, &[x, g, b], 1e-4, "layer norm");
    // `x - mean` is one subtract: each step reading it computes it again from the tile of
    // `x` (cheaper than storing it), so nothing needs updating in place.
    assert!(chained(&steps) && !in_place(&steps), "{steps:?}");
}

/// Log-softmax, whose `log(sum)` is a per-row value and `x - max` is read by two steps.
const LOG_SOFTMAX: &str = "HloModule lsm
mx { a = f32[] parameter(0)  b = f32[] parameter(1)  ROOT m = f32[] maximum(a, b) }
add { a = f32[] parameter(0)  b = f32[] parameter(1)  ROOT s = f32[] add(a, b) }
ENTRY main {
  x = f32[257,300] parameter(0)
  ninf = f32[] constant(-inf)
  m = f32[257] reduce(x, ninf), dimensions={1}, to_apply=mx
  mb = f32[257,300] broadcast(m), dimensions={0}
  d = f32[257,300] subtract(x, mb)
  e = f32[257,300] exponential(d)
  zero = f32[] constant(0)
  s = f32[257] reduce(e, zero), dimensions={1}, to_apply=add
  l = f32[257] log(s)
  lb = f32[257,300] broadcast(l), dimensions={0}
  ROOT out = f32[257,300] subtract(d, lb)
}";

#[test]
fn log_softmax_chain_matches_the_unchained_plan() {
    let x = arg(PrimitiveType::F32, &[257, 300], 5, 20.0);
    let steps = check(LOG_SOFTMAX, &[x], 1e-5, "log softmax");
    // `x - max`, read by the exp step and by the last one, is one subtract: each computes
    // it again from the tile of `x` (the softmax tests cover the in-place output).
    assert!(chained(&steps) && !in_place(&steps), "{steps:?}");
}

#[test]
fn a_value_used_after_the_chain_stays_correct() {
    // The row max is also an output: it must be stored, so it cannot live in a tile.
    let text = common::softmax("f32", 300, 512).replace(
        "ROOT r = f32[300,512] divide(e, bs)",
        "r = f32[300,512] divide(e, bs)\n  ROOT t = (f32[300,512], f32[300]) tuple(r, m)",
    );
    let x = arg(PrimitiveType::F32, &[300, 512], 9, 10.0);
    check(&text, &[x], 1e-5, "softmax with its max as an output");
}

#[test]
fn reshape_and_degenerate_broadcast_chains_collapse_without_changing_values() {
    // broadcast(reshape(reshape(x))) with size-1 dims in between, and an identity broadcast.
    let text = "HloModule shapes
ENTRY main {
  x = f32[64,1,32] parameter(0)
  r1 = f32[64,32] reshape(x)
  r2 = f32[64,32,1] reshape(r1)
  b0 = f32[64,32,1] broadcast(r2), dimensions={0,1,2}
  r3 = f32[64,32] reshape(b0)
  b = f32[5,64,32] broadcast(r3), dimensions={1,2}
  ROOT o = f32[5,64,32] negate(b)
}";
    let m = xla_core::text::parse_module(text).unwrap();
    let x = arg(PrimitiveType::F32, &[64, 1, 32], 1, 3.0);
    let got = Executable::compile(&m)
        .unwrap()
        .execute(std::slice::from_ref(&x))
        .unwrap();
    let want = Executable::compile_without_rewrites(&m)
        .unwrap()
        .execute(std::slice::from_ref(&x))
        .unwrap();
    assert_eq!(bits(&got), bits(&want));
}
