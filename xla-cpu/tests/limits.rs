//! Memory as a checked resource and stopping runaway executions: the static peak of the
//! buffer plan, the memory limit (refused before anything is allocated), fallible
//! allocation, and cancel tokens and deadlines stopping a `while` that never ends and a
//! single long kernel (one large `dot`, `convolution` or `sort`) inside it.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::time::{Duration, Instant};
use xla_core::Literal;
use xla_cpu::Executable;
use xla_cpu::{CancelToken, CpuError, ExecuteOptions, LimitSource, StopReason};

mod stop_common;
use stop_common::{innermost, stopped_inside};

fn compile(text: &str) -> Executable {
    Executable::compile(&xla_core::text::parse_module(text).unwrap()).unwrap()
}

const BIG_IOTA: &str = r#"HloModule big

ENTRY main {
  ROOT i = f32[1000000,1000000] iota(), iota_dimension=1
}
"#;

#[test]
fn the_peak_of_one_op_is_its_parameter_and_result() {
    // f32[1000] in, f32[1000] out: 4,000 + 4,000 bytes.
    let exe = compile(
        "HloModule m\n\nENTRY main {\n  p = f32[1000] parameter(0)\n  ROOT n = f32[1000] negate(p)\n}\n",
    );
    assert_eq!(exe.peak_bytes(), 8000);
    // 10^12 f32 elements: 4 * 10^12 bytes, no parameters.
    assert_eq!(compile(BIG_IOTA).peak_bytes(), 4_000_000_000_000);
}

#[test]
fn the_peak_counts_values_alive_together_and_callees() {
    // Two f64[1000] dots (8 KB each, not fused) both alive for the tuple: params 2*8000
    // + d1 + d2 + the tuple's copy of both = 16000 + 16000 + 16000 at the root.
    let exe = compile(
        r#"HloModule m

ENTRY main {
  a = f64[1000] parameter(0)
  b = f64[1000] parameter(1)
  c = f64[1000,1000] broadcast(a), dimensions={0}
  d1 = f64[1000] dot(c, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  d2 = f64[1000] dot(c, a), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ROOT t = (f64[1000], f64[1000]) tuple(d1, d2)
}
"#,
    );
    let peak = exe.peak_bytes();
    // The broadcast (8 MB) is alive while both dots run: at least params + c + d1 + d2.
    let lower = 16_000 + 8_000_000 + 16_000;
    assert!(peak >= lower, "{peak} < {lower}");
    // And never more than every value at once.
    let upper = 16_000 + 8_000_000 + 16_000 + 16_000;
    assert!(peak <= upper, "{peak} > {upper}");
}

#[test]
fn over_the_limit_is_refused_before_running() {
    let exe = compile(BIG_IOTA);
    let e = exe.execute(&[]).unwrap_err();
    match &e {
        CpuError::OutOfMemory { needed, limit } => {
            assert_eq!(*needed, 4_000_000_000_000);
            assert!(limit.bytes < *needed);
        }
        other => panic!("expected OutOfMemory, got {other}"),
    }
    let msg = e.to_string();
    assert!(
        msg.contains("3.6 TiB") && msg.contains("memory limit"),
        "{msg}"
    );
}

#[test]
fn an_explicit_limit_is_checked_exactly() {
    let exe = compile(
        "HloModule m\n\nENTRY main {\n  p = f32[1000] parameter(0)\n  ROOT n = f32[1000] negate(p)\n}\n",
    );
    let x = Literal::vec1(&vec![1f32; 1000]);
    exe.set_memory_limit(Some(7999));
    let limit = exe.memory_limit().unwrap();
    assert_eq!((limit.bytes, limit.source), (7999, LimitSource::Explicit));
    let e = exe.execute(std::slice::from_ref(&x)).unwrap_err();
    assert!(
        matches!(e, CpuError::OutOfMemory { needed: 8000, .. }),
        "{e}"
    );
    exe.set_memory_limit(Some(8000));
    assert_eq!(
        exe.execute(std::slice::from_ref(&x))
            .unwrap()
            .data::<f32>()
            .unwrap()[0],
        -1.0
    );
    exe.set_memory_limit(None);
    assert_ne!(
        exe.memory_limit().map(|l| l.source),
        Some(LimitSource::Explicit)
    );
}

#[test]
fn with_no_limit_a_huge_result_is_an_allocation_error_not_an_abort() {
    let exe = compile(BIG_IOTA);
    exe.set_memory_limit(Some(u64::MAX - 1));
    let e = exe.execute(&[]).unwrap_err();
    let msg = e.to_string();
    assert!(
        msg.contains("iota") && msg.contains("cannot allocate"),
        "{msg}"
    );
}

/// A loop whose condition is always true, counting its iterations.
const FOREVER: &str = r#"HloModule forever

cond {
  s = (s32[], f32[64]) parameter(0)
  ROOT t = pred[] constant(true)
}

body {
  s = (s32[], f32[64]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  x = f32[64] get-tuple-element(s), index=1
  one = s32[] constant(1)
  j = s32[] add(i, one)
  y = f32[64] add(x, x)
  ROOT r = (s32[], f32[64]) tuple(j, y)
}

ENTRY main {
  x = f32[64] parameter(0)
  zero = s32[] constant(0)
  init = (s32[], f32[64]) tuple(zero, x)
  ROOT forever.loop = (s32[], f32[64]) while(init), condition=cond, body=body
}
"#;

/// A scalar counter loop that never ends (runs as native code without options).
const FOREVER_SCALAR: &str = r#"HloModule forever_scalar

cond {
  s = s32[] parameter(0)
  ROOT t = pred[] constant(true)
}

body {
  s = s32[] parameter(0)
  one = s32[] constant(1)
  ROOT j = s32[] add(s, one)
}

ENTRY main {
  zero = s32[] constant(0)
  ROOT spin = s32[] while(zero), condition=cond, body=body
}
"#;

fn trips(e: &CpuError) -> u64 {
    match e {
        CpuError::Instruction { source, .. } => trips(source),
        CpuError::LoopStopped { trips, .. } => *trips,
        other => panic!("expected a stopped loop, got {other}"),
    }
}

#[test]
fn a_deadline_stops_an_endless_loop_naming_it() {
    let exe = compile(FOREVER);
    let x = Literal::vec1(&[1f32; 64]);
    let opts = ExecuteOptions::new().with_timeout(Duration::from_millis(150));
    let t = Instant::now();
    let e = exe.execute_with_options(&[&x], &opts).unwrap_err();
    let took = t.elapsed();
    assert!(
        took >= Duration::from_millis(150) && took < Duration::from_secs(5),
        "{took:?}"
    );
    assert!(e.is_stop());
    assert!(trips(&e) > 0, "{e}");
    let msg = e.to_string();
    assert!(
        msg.starts_with("forever.loop (while): stopped after"),
        "{msg}"
    );
    assert!(msg.contains("the deadline passed (0.150 s)"), "{msg}");
}

#[test]
fn a_token_from_another_thread_stops_an_endless_loop() {
    for text in [FOREVER, FOREVER_SCALAR] {
        let exe = compile(text);
        if text == FOREVER_SCALAR {
            // The loop runs as native code, which polls the token on its back edge.
            assert_eq!(exe.native_loop_count(), 1);
        }
        let x = Literal::vec1(&[1f32; 64]);
        let args: Vec<&Literal> = if text == FOREVER { vec![&x] } else { vec![] };
        let token = CancelToken::new();
        let remote = token.clone();
        let canceller = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(100));
            remote.cancel();
        });
        let opts = ExecuteOptions::new().with_cancel(token);
        let e = exe.execute_with_options(&args, &opts).unwrap_err();
        canceller.join().unwrap();
        assert!(trips(&e) > 0, "{e}");
        if text == FOREVER_SCALAR {
            // The native loop polls every 1,024 iterations.
            assert_eq!(trips(&e) % 1024, 0, "{e}");
        }
        let mut inner = &e;
        while let CpuError::Instruction { source, .. } | CpuError::LoopStopped { source, .. } =
            inner
        {
            inner = source;
        }
        assert!(
            matches!(
                inner,
                CpuError::Stopped {
                    reason: StopReason::Cancelled
                }
            ),
            "{e}"
        );
    }
}

#[test]
fn options_that_never_fire_give_the_plain_result() {
    let exe = compile(
        "HloModule m\n\nENTRY main {\n  p = f32[4] parameter(0)\n  ROOT n = f32[4] multiply(p, p)\n}\n",
    );
    let x = Literal::vec1(&[1f32, -2., 3., 0.5]);
    let opts = ExecuteOptions::new()
        .with_cancel(CancelToken::new())
        .with_timeout(Duration::from_secs(60));
    let got = exe.execute_with_options(&[&x], &opts).unwrap();
    assert_eq!(got.data::<f32>().unwrap(), &[1f32, 4., 9., 0.25]);
    // A token cancelled before the run stops it at once.
    let token = CancelToken::new();
    token.cancel();
    let e = exe
        .execute_with_options(&[&x], &ExecuteOptions::new().with_cancel(token))
        .unwrap_err();
    assert!(
        matches!(
            e,
            CpuError::Stopped {
                reason: StopReason::Cancelled
            }
        ),
        "{e}"
    );
}

/// Pseudo-random f32 values in [-0.5, 0.5).
fn noise(n: usize, seed: u32) -> Vec<f32> {
    let mut x = seed;
    (0..n)
        .map(|_| {
            x = x.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            (x >> 8) as f32 / (1 << 24) as f32 - 0.5
        })
        .collect()
}

/// Runs `text` (one long kernel, `instr`) on `args` with a 50 ms deadline, then to the end:
/// the stopped run fails with the deadline's typed error naming `instr`, in well under a
/// quarter of the whole run's time (without polling inside the kernel it would take all
/// of it). On a loaded machine the process may stall for 50 ms before the kernel starts
/// (the stop then names an earlier instruction): such attempts are retried, three at most.
fn stops_inside_the_kernel(text: &str, args: &[Literal], instr: &str) {
    let exe = compile(text);
    let refs: Vec<&Literal> = args.iter().collect();
    let stopped = stopped_inside(&exe, &refs, instr);
    let t = Instant::now();
    exe.execute_borrowed(&refs).unwrap();
    let full = t.elapsed();
    eprintln!("{instr}: stopped after {stopped:?}; the whole run takes {full:?}");
    assert!(
        stopped * 4 < full,
        "stopped after {stopped:?}, whole run {full:?}"
    );
}

#[test]
#[cfg_attr(debug_assertions, ignore = "seconds of work: run in release")]
fn a_deadline_stops_one_large_dot_inside_it() {
    let text = "HloModule m\n\nENTRY main {\n  a = f32[4096,4096] parameter(0)\n  \
                b = f32[4096,4096] parameter(1)\n  ROOT d = f32[4096,4096] dot(a, b), \
                lhs_contracting_dims={1}, rhs_contracting_dims={0}\n}\n";
    let n = 4096 * 4096;
    let a = Literal::from_vec(&[4096, 4096], noise(n, 1)).unwrap();
    let b = Literal::from_vec(&[4096, 4096], noise(n, 2)).unwrap();
    stops_inside_the_kernel(text, &[a, b], "d");
}

#[test]
#[cfg_attr(debug_assertions, ignore = "seconds of work: run in release")]
fn a_deadline_stops_one_large_convolution_inside_it() {
    let text = "HloModule m\n\nENTRY main {\n  x = f32[8,128,128,64] parameter(0)\n  \
                w = f32[3,3,64,256] parameter(1)\n  ROOT c = f32[8,128,128,256] \
                convolution(x, w), window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f\n}\n";
    let x = Literal::from_vec(&[8, 128, 128, 64], noise(8 * 128 * 128 * 64, 3)).unwrap();
    let w = Literal::from_vec(&[3, 3, 64, 256], noise(3 * 3 * 64 * 256, 4)).unwrap();
    stops_inside_the_kernel(text, &[x, w], "c");
}

#[test]
#[cfg_attr(debug_assertions, ignore = "seconds of work: run in release")]
fn a_deadline_stops_one_large_sort_inside_it() {
    let text = "HloModule m\n\nlt {\n  p = s32[] parameter(0)\n  q = s32[] parameter(1)\n  \
                ROOT c = pred[] compare(p, q), direction=LT\n}\n\nENTRY main {\n  \
                x = s32[16777216] parameter(0)\n  \
                ROOT s = s32[16777216] sort(x), dimensions={0}, to_apply=lt\n}\n";
    let n = 1 << 24;
    let v: Vec<i32> = (0..n as u32)
        .map(|i| i.wrapping_mul(2_654_435_761) as i32)
        .collect();
    stops_inside_the_kernel(text, &[Literal::from_vec(&[n], v).unwrap()], "s");
}

/// A token cancelled from another thread 50 ms into one large `dot` stops the run within
/// a fraction of the dot's time (about 5 s here, loaded); as above, a run stalled before the
/// dot started is stopped at an earlier instruction, which is just as good.
#[test]
#[cfg_attr(debug_assertions, ignore = "seconds of work: run in release")]
fn a_token_stops_one_large_dot_inside_it() {
    let exe = compile(
        "HloModule m\n\nENTRY main {\n  a = f32[4096,4096] parameter(0)\n  \
         ROOT d = f32[4096,4096] dot(a, a), lhs_contracting_dims={1}, rhs_contracting_dims={1}\n}\n",
    );
    let a = Literal::from_vec(&[4096, 4096], noise(4096 * 4096, 5)).unwrap();
    let token = CancelToken::new();
    let remote = token.clone();
    let canceller = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(50));
        remote.cancel();
    });
    let t = Instant::now();
    let e = exe
        .execute_with_options(&[&a], &ExecuteOptions::new().with_cancel(token))
        .unwrap_err();
    let took = t.elapsed();
    canceller.join().unwrap();
    eprintln!("cancelled dot: stopped after {took:?} ({e})");
    let (inner, _) = innermost(&e);
    assert!(
        matches!(
            inner,
            CpuError::Stopped {
                reason: StopReason::Cancelled
            }
        ),
        "{e}"
    );
    assert!(took < Duration::from_secs(2), "{took:?}");
}
