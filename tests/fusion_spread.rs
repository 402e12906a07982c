//! xla-cpu: a broadcast onto two runs of dimensions (a per-lane bias, `dimensions={0,2}`, as `vmap`
//! makes it) read in place by fused kernels (`fusion/spread.rs`): no broadcast step of its
//! own, and the values of the unfused reference path bit for bit, with generated code and
//! on the interpreter, with 1 and 2 threads, on random inputs with NaN, ±inf and ±0.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::sync::Mutex;
use xla::core::literal::ArrayData;
use xla::core::{Literal, PrimitiveType, Shape};
use xla::cpu::Executable;

/// `set_codegen` is process-wide: the tests that flip it run one at a time.
static CODEGEN: Mutex<()> = Mutex::new(());

/// Seeded values in [-2, 2) with every eleventh one special (NaN, ±inf, ±0 in turn).
fn values(n: usize, seed: u64) -> Vec<f32> {
    let special = [f32::NAN, f32::INFINITY, f32::NEG_INFINITY, 0.0, -0.0];
    let mut s = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    (0..n)
        .map(|i| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            if i % 11 == 5 {
                special[(i / 11) % special.len()]
            } else {
                ((s >> 40) as f32 / (1u64 << 24) as f32 * 2.0 - 1.0) * 2.0
            }
        })
        .collect()
}

fn arg(dims: &[i64], seed: u64) -> Literal {
    let n = dims.iter().product::<i64>() as usize;
    let shape = Shape::array(PrimitiveType::F32, dims.to_vec());
    Literal::from_array_data(shape, ArrayData::F32(values(n, seed))).unwrap()
}

fn bits(l: &Literal) -> Vec<Vec<u32>> {
    let one = |l: &Literal| -> Vec<u32> {
        l.data::<f32>()
            .unwrap()
            .iter()
            .map(|x| x.to_bits())
            .collect()
    };
    match l.tuple_elements() {
        Some(t) => t.iter().map(one).collect(),
        None => vec![one(l)],
    }
}

/// Compiles `text` with code generation `on`; checks the run is the reference bit for bit
/// with 1 and 2 threads, and that no `broadcast` ran as a step of its own.
fn check_with(text: &str, args: &[Literal], on: bool) {
    let m = xla::core::text::parse_module(text).unwrap();
    xla::cpu::set_codegen(on);
    let exe = Executable::compile(&m);
    xla::cpu::set_codegen(true);
    let mut exe = exe.unwrap();
    let refs: Vec<&Literal> = args.iter().collect();
    let want = bits(&exe.execute_unfused(&refs).unwrap());
    for threads in [1, 2] {
        exe.set_threads(threads);
        let got = bits(&exe.execute_borrowed(&refs).unwrap());
        assert_eq!(got, want, "codegen {on}, {threads} threads");
    }
    exe.set_profiling(true);
    exe.execute_borrowed(&refs).unwrap();
    let ops: Vec<String> = exe.profile().into_iter().map(|e| e.op).collect();
    assert!(
        !ops.iter().any(|o| o == "broadcast"),
        "the broadcast is read in place: {ops:?}"
    );
}

fn check(text: &str, args: &[Literal]) {
    let _one = CODEGEN.lock().unwrap_or_else(|e| e.into_inner());
    check_with(text, args, true);
    check_with(text, args, false);
}

/// The vmap bias: `f32[4,512] -> f32[4,96,512]` onto dims {0,2}, added to a batched
/// product and through ReLU (runs of 512 = 4 blocks of generated code per run).
#[test]
fn lane_bias_over_rows_matches_the_reference() {
    let text = "HloModule lane_bias
ENTRY main {
  x = f32[4,96,512] parameter(0)
  b = f32[4,512] parameter(1)
  bb = f32[4,96,512] broadcast(b), dimensions={0,2}
  s = f32[4,96,512] add(x, bb)
  zero = f32[] constant(0)
  z = f32[4,96,512] broadcast(zero), dimensions={}
  ROOT r = f32[4,96,512] maximum(s, z)
}";
    check(text, &[arg(&[4, 96, 512], 1), arg(&[4, 512], 2)]);
}

/// Runs that are not whole blocks (160 = 128 + 32: blocks cross runs and fall back to
/// the interpreter), leading dimensions outside both runs, runs of two dimensions, and
/// the same operand read twice.
#[test]
fn ragged_runs_and_leading_dims_match_the_reference() {
    let text = "HloModule ragged
ENTRY main {
  x = f32[2,3,7,4,40] parameter(0)
  b = f32[3,4,40] parameter(1)
  bb = f32[2,3,7,4,40] broadcast(b), dimensions={1,3,4}
  m = f32[2,3,7,4,40] multiply(x, bb)
  ROOT s = f32[2,3,7,4,40] subtract(m, bb)
}";
    check(text, &[arg(&[2, 3, 7, 4, 40], 3), arg(&[3, 4, 40], 4)]);
}

/// Short runs (10 < one block: the interpreter only), as in the logits' bias, feeding a
/// reduce over the last dimension, and a pred operand selecting.
#[test]
fn short_runs_into_a_reduce_match_the_reference() {
    let text = "HloModule short
sum {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY main {
  x = f32[4,33,10] parameter(0)
  b = f32[4,10] parameter(1)
  bb = f32[4,33,10] broadcast(b), dimensions={0,2}
  s = f32[4,33,10] add(x, bb)
  zero = f32[] constant(0)
  r = f32[4,33] reduce(s, zero), dimensions={2}, to_apply=sum
  p = pred[4,10] compare(b, b), direction=EQ
  pp = pred[4,33,10] broadcast(p), dimensions={0,2}
  sel = f32[4,33,10] select(pp, x, bb)
  ROOT t = (f32[4,33], f32[4,33,10]) tuple(r, sel)
}";
    check(text, &[arg(&[4, 33, 10], 5), arg(&[4, 10], 6)]);
}
