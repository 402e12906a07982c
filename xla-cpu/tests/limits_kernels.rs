//! A deadline stops single long kernels from inside: a fused elementwise kernel and a fused
//! reduction, gather, scatter, an FFT, a batched Cholesky and an unblocked (complex) LU.
//! Each module runs its kernel for a second or more in a debug build; the run is given
//! 50 ms and must fail with the deadline's typed error naming the kernel's instruction
//! well before the kernel could have finished. The whole kernel is never run: its time is
//! estimated from the same module at a fraction of the size, so the tests stay quick.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use num_complex::Complex64;
use std::time::{Duration, Instant};
use xla_core::Literal;
use xla_cpu::Executable;

mod stop_common;
use stop_common::stopped_within;

/// A module and its arguments.
type Case = (String, Vec<Literal>);

fn compile(text: &str) -> Executable {
    Executable::compile(&xla_core::text::parse_module(text).unwrap()).unwrap()
}

/// Pseudo-random f64 values in [-0.5, 0.5).
fn noise(n: usize, seed: u64) -> Vec<f64> {
    let mut x = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 11) as f64 / (1u64 << 53) as f64 - 0.5
        })
        .collect()
}

/// Runs `case(big)` with a deadline: it fails with the deadline's typed error naming
/// `instr`, well before the whole run would have ended (timed first, without a
/// deadline): in under two thirds of it. The deadline is a tenth of the whole run, from 2
/// to 50 ms, so the test means the same on a slow machine and a fast one. What a kernel
/// does before its first poll (its output's allocation, its operand's conversion) is not
/// stopped: measured on a 2-core AMD EPYC VM, an f64[64,64,1024] FFT took 69 ms whole and
/// stopped after 39 ms with a 7 ms deadline; a batched Cholesky 19 ms whole, stopped
/// after 12 ms with a 2 ms deadline (now sized 8192).
fn stops_inside(case: impl Fn(usize) -> Case, big: usize, instr: &str) {
    let (text, args) = case(big);
    let exe = compile(&text);
    let refs: Vec<&Literal> = args.iter().collect();
    let t = Instant::now();
    exe.execute_borrowed(&refs).unwrap();
    let full = t.elapsed();
    let limit = (full / 10).clamp(Duration::from_millis(2), Duration::from_millis(50));
    let stopped = stopped_within(&exe, &refs, instr, limit);
    eprintln!(
        "{instr}: stopped after {stopped:?} (deadline {limit:?}); the whole run takes {full:?}"
    );
    assert!(
        stopped * 3 < full * 2,
        "stopped after {stopped:?}, whole run {full:?}"
    );
}

/// A chain of f64 elementwise ops over `f64[rows, 4096]`, each result used once: one
/// fused kernel (f64 kernels are interpreted, never generated code).
fn fused_chain(rows: usize) -> Case {
    let s = format!("f64[{rows},4096]");
    let text = format!(
        "HloModule fused\n\nENTRY main {{\n  x = {s} parameter(0)\n  a = {s} exponential(x)\n  \
         b = {s} multiply(a, x)\n  c = {s} add(b, x)\n  d = {s} tanh(c)\n  e = {s} multiply(d, x)\n  \
         f = {s} subtract(e, x)\n  g = {s} sine(f)\n  h = {s} multiply(g, x)\n  \
         ROOT chain = {s} add(h, x)\n}}\n"
    );
    let x = Literal::from_vec(&[rows as i64, 4096], noise(rows * 4096, 1)).unwrap();
    (text, vec![x])
}

#[test]
fn a_deadline_stops_a_fused_kernel_inside_it() {
    stops_inside(fused_chain, 2048, "chain");
}

/// `reduce(exp(x) * x)` over the rows of `f64[rows, 4096]` (a fused reduction whose
/// output columns each fold every row).
fn fused_column_sum(rows: usize) -> Case {
    let s = format!("f64[{rows},4096]");
    let text = format!(
        "HloModule colsum\n\nsum {{\n  a = f64[] parameter(0)\n  b = f64[] parameter(1)\n  \
         ROOT s = f64[] add(a, b)\n}}\n\nENTRY main {{\n  x = {s} parameter(0)\n  \
         e = {s} exponential(x)\n  m = {s} multiply(e, x)\n  t = {s} tanh(m)\n  \
         zero = f64[] constant(0)\n  ROOT colsum = f64[4096] reduce(t, zero), dimensions={{0}}, \
         to_apply=sum\n}}\n"
    );
    let x = Literal::from_vec(&[rows as i64, 4096], noise(rows * 4096, 2)).unwrap();
    (text, vec![x])
}

#[test]
fn a_deadline_stops_a_fused_reduction_inside_it() {
    stops_inside(fused_column_sum, 2048, "colsum");
}

/// `out[o, b] = x[o, idx[b]]` of `f32[n, n]`: the output's last dim is a batch dim, so
/// every output element reads its index vector.
fn gather_columns(n: usize) -> Case {
    let text = format!(
        "HloModule gather\n\nENTRY main {{\n  x = f32[{n},{n}] parameter(0)\n  \
         i = s32[{n},1] parameter(1)\n  ROOT g = f32[{n},{n}] gather(x, i), offset_dims={{0}}, \
         collapsed_slice_dims={{1}}, start_index_map={{1}}, index_vector_dim=1, \
         slice_sizes={{{n},1}}\n}}\n"
    );
    let x = noise(n * n, 3).into_iter().map(|v| v as f32).collect();
    let idx = (0..n).map(|b| ((b * 7919) % n) as i32).collect();
    let x = Literal::from_vec(&[n as i64, n as i64], x).unwrap();
    (
        text,
        vec![x, Literal::from_vec(&[n as i64, 1], idx).unwrap()],
    )
}

#[test]
fn a_deadline_stops_a_gather_inside_it() {
    stops_inside(gather_columns, 4096, "g");
}

/// `x[o, idx[b]] += u[o, b]` of `f32[n, n]`: the updates' last dim is a scatter dim, so
/// every update element reads its index vector.
fn scatter_columns(n: usize) -> Case {
    let text = format!(
        "HloModule scatter\n\nadd {{\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  \
         ROOT s = f32[] add(a, b)\n}}\n\nENTRY main {{\n  x = f32[{n},{n}] parameter(0)\n  \
         i = s32[{n},1] parameter(1)\n  u = f32[{n},{n}] parameter(2)\n  \
         ROOT sc = f32[{n},{n}] scatter(x, i, u), update_window_dims={{0}}, \
         inserted_window_dims={{1}}, scatter_dims_to_operand_dims={{1}}, index_vector_dim=1, \
         to_apply=add\n}}\n"
    );
    let f32s = |seed| noise(n * n, seed).into_iter().map(|v| v as f32).collect();
    let idx = (0..n).map(|b| ((b * 7919) % n) as i32).collect();
    let dims = [n as i64, n as i64];
    let args = vec![
        Literal::from_vec(&dims, f32s(4)).unwrap(),
        Literal::from_vec(&[n as i64, 1], idx).unwrap(),
        Literal::from_vec(&dims, f32s(5)).unwrap(),
    ];
    (text, args)
}

#[test]
fn a_deadline_stops_a_scatter_inside_it() {
    stops_inside(scatter_columns, 4096, "sc");
}

/// A 2-D real FFT of `f64[b, 64, 1024]` (lines along both the contiguous and a strided axis).
fn rfft_2d(b: usize) -> Case {
    let text = format!(
        "HloModule fft\n\nENTRY main {{\n  x = f64[{b},64,1024] parameter(0)\n  \
         ROOT spectrum = c128[{b},64,513] fft(x), fft_type=RFFT, fft_length={{64,1024}}\n}}\n"
    );
    let x = Literal::from_vec(&[b as i64, 64, 1024], noise(b * 64 * 1024, 6)).unwrap();
    (text, vec![x])
}

#[test]
fn a_deadline_stops_an_fft_inside_it() {
    stops_inside(rfft_2d, 64, "spectrum");
}

/// `b` symmetric positive definite `f64[32, 32]` matrices (noise plus 32 on the diagonal).
fn spd_batch(b: usize, seed: u64) -> Vec<f64> {
    let n = 32;
    let v = noise(b * n * n, seed);
    let mut a = vec![0.0; b * n * n];
    for k in 0..b {
        for i in 0..n {
            for j in 0..n {
                let (p, q) = (i.min(j), i.max(j));
                let s = v[k * n * n + p * n + q];
                a[k * n * n + i * n + j] = if i == j { 32.0 + s } else { s };
            }
        }
    }
    a
}

fn cholesky_batch(b: usize) -> Case {
    let text = format!(
        "HloModule chol\n\nENTRY main {{\n  a = f64[{b},32,32] parameter(0)\n  \
         ROOT factor = f64[{b},32,32] cholesky(a), lower=true\n}}\n"
    );
    let a = Literal::from_vec(&[b as i64, 32, 32], spd_batch(b, 7)).unwrap();
    (text, vec![a])
}

#[test]
fn a_deadline_stops_a_batched_cholesky_between_matrices() {
    stops_inside(cholesky_batch, 8192, "factor");
}

/// LAPACK's complex LU (`zgetrf`, the unblocked loop) of `b` matrices `c128[n, n]`.
fn zgetrf(b: usize) -> Case {
    let n = 256;
    let text = format!(
        "HloModule lu\n\nENTRY main {{\n  a = c128[{b},{n},{n}] parameter(0)\n  \
         ROOT lu = (c128[{b},{n},{n}], s32[{b},{n}], s32[{b}]) custom-call(a), \
         custom_call_target=\"lapack_zgetrf_ffi\", api_version=API_VERSION_TYPED_FFI\n}}\n"
    );
    let (re, im) = (noise(b * n * n, 8), noise(b * n * n, 9));
    let a = re.iter().zip(&im).map(|(&r, &i)| Complex64::new(r, i));
    let a = Literal::from_vec(&[b as i64, n as i64, n as i64], a.collect()).unwrap();
    (text, vec![a])
}

#[test]
fn a_deadline_stops_an_unblocked_lu_between_columns() {
    stops_inside(zgetrf, 8, "lu");
}

/// A stable sort of `s32[rows, 16384]` along its rows (keys, per-row permutations and the
/// final copy made in blocks, the rows sorted one by one).
fn sort_rows(rows: usize) -> Case {
    let text = format!(
        "HloModule sort\n\nlt {{\n  p = s32[] parameter(0)\n  q = s32[] parameter(1)\n  \
         ROOT c = pred[] compare(p, q), direction=LT\n}}\n\nENTRY main {{\n  \
         x = s32[{rows},16384] parameter(0)\n  \
         ROOT sorted = s32[{rows},16384] sort(x), dimensions={{1}}, to_apply=lt\n}}\n"
    );
    let v = (0..rows * 16384)
        .map(|i| (i as u32).wrapping_mul(2_654_435_761) as i32)
        .collect();
    (
        text,
        vec![Literal::from_vec(&[rows as i64, 16384], v).unwrap()],
    )
}

#[test]
fn a_deadline_stops_a_sort_in_its_set_up_or_between_rows() {
    stops_inside(sort_rows, 256, "sorted");
}

/// A run with options sorts one long slice in polled runs and merges: the same values and
/// the same stable order of ties (the payload is each key's position) as a plain run.
#[test]
fn options_do_not_change_a_long_sort() {
    let n = 300_000;
    let exe = compile(&format!(
        "HloModule sort\n\nlt {{\n  p0 = s32[] parameter(0)\n  q0 = s32[] parameter(1)\n  \
         p1 = s32[] parameter(2)\n  q1 = s32[] parameter(3)\n  \
         ROOT c = pred[] compare(p0, q0), direction=LT\n}}\n\nENTRY main {{\n  \
         k = s32[{n}] parameter(0)\n  v = s32[{n}] parameter(1)\n  \
         ROOT s = (s32[{n}], s32[{n}]) sort(k, v), dimensions={{0}}, to_apply=lt\n}}\n"
    ));
    let keys = (0..n as u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) % 1000) as i32)
        .collect();
    let k = Literal::from_vec(&[n as i64], keys).unwrap();
    let v = Literal::from_vec(&[n as i64], (0..n as i32).collect()).unwrap();
    let plain = exe.execute_borrowed(&[&k, &v]).unwrap();
    let opts = xla_cpu::ExecuteOptions::new().with_timeout(std::time::Duration::from_secs(600));
    let polled = exe.execute_with_options(&[&k, &v], &opts).unwrap();
    assert_eq!(plain, polled);
    let parts = polled.tuple_elements().unwrap();
    let (ks, vs) = (
        parts[0].data::<i32>().unwrap(),
        parts[1].data::<i32>().unwrap(),
    );
    assert!(ks.windows(2).all(|w| w[0] <= w[1]));
    assert!((1..n).all(|i| ks[i - 1] < ks[i] || vs[i - 1] < vs[i]));
}
