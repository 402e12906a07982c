//! The run-time memory check (`limits/budget.rs`): each result is admitted against the
//! memory limit, with the values held, and against the allocator before its kernel
//! allocates it, so what the static buffer plan cannot foresee is a typed error, never
//! an abort of the process.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use xla_core::{Literal, Shape};
use xla_cpu::{CpuError, Executable};

fn compile(text: &str) -> Executable {
    Executable::compile(&xla_core::text::parse_module(text).unwrap()).unwrap()
}

/// The innermost error of a chain of `Instruction` wrappers, and the instructions on the way.
fn innermost(e: &CpuError) -> (Vec<String>, &CpuError) {
    match e {
        CpuError::Instruction {
            instruction,
            source,
            ..
        } => {
            let (mut path, inner) = innermost(source);
            path.insert(0, instruction.clone());
            (path, inner)
        }
        CpuError::CustomCall {
            failure: xla_cpu::CustomCallFailure::BuiltIn(source),
            ..
        } => innermost(source),
        other => (Vec::new(), other),
    }
}

/// `map` of `x*x + x` over f32[N]: the static plan counts the parameter, the result and
/// the scalar computation, but the computation runs vectorised on N argument sets, so it
/// holds two more f32[N] arrays at run time.
const MAP: &str = r#"HloModule m

f {
  x = f32[] parameter(0)
  sq = f32[] multiply(x, x)
  ROOT r = f32[] add(sq, x)
}

ENTRY main {
  p = f32[1000] parameter(0)
  ROOT m = f32[1000] map(p), dimensions={0}, to_apply=f
}
"#;

#[test]
fn a_vectorised_run_over_the_limit_is_refused_at_run_time() {
    let exe = compile(MAP);
    let x = Literal::vec1(&(0..1000).map(|i| i as f32).collect::<Vec<_>>());
    // The static check passes at exactly the plan's peak...
    exe.set_memory_limit(Some(exe.peak_bytes()));
    let e = exe.execute(std::slice::from_ref(&x)).unwrap_err();
    // ...but the vectorised `add` would hold p, sq and its own f32[1000] at once.
    let (path, inner) = innermost(&e);
    assert_eq!(path, ["m", "r"], "{e}");
    match inner {
        CpuError::OverBudget {
            what, bytes, live, ..
        } => {
            assert_eq!((*what, *bytes), ("add", 4000));
            assert!(*live >= 8000, "{live}");
        }
        other => panic!("expected OverBudget, got {other}"),
    }
    let msg = e.to_string();
    assert!(
        msg.starts_with("m (map): r (add): the result of add needs"),
        "{msg}"
    );
    // With room for it, the same run gives x*x + x.
    exe.set_memory_limit(Some(4 * exe.peak_bytes()));
    let y = exe.execute(std::slice::from_ref(&x)).unwrap();
    let y = y.data::<f32>().unwrap();
    assert_eq!((y[0], y[3], y[999]), (0.0, 12.0, 999.0 * 999.0 + 999.0));
}

/// A loop running a map of `x*x + (x+1)*(2x)` three times: run vectorised, the mapped
/// computation holds four f32[1000] arrays at once, where the plan counts scalars.
const LOOP: &str = r#"HloModule l

f {
  x = f32[] parameter(0)
  a = f32[] multiply(x, x)
  one = f32[] constant(1)
  b = f32[] add(x, one)
  two = f32[] constant(2)
  c = f32[] multiply(x, two)
  d = f32[] multiply(b, c)
  ROOT r = f32[] add(a, d)
}

cond {
  s = (s32[], f32[1000]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  three = s32[] constant(3)
  ROOT lt = pred[] compare(i, three), direction=LT
}

body {
  s = (s32[], f32[1000]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  x = f32[1000] get-tuple-element(s), index=1
  one = s32[] constant(1)
  j = s32[] add(i, one)
  y = f32[1000] map(x), dimensions={0}, to_apply=f
  ROOT t = (s32[], f32[1000]) tuple(j, y)
}

ENTRY main {
  p = f32[1000] parameter(0)
  zero = s32[] constant(0)
  init = (s32[], f32[1000]) tuple(zero, p)
  ROOT w = (s32[], f32[1000]) while(init), condition=cond, body=body
}
"#;

#[test]
fn a_loop_growing_past_the_limit_is_a_typed_error_naming_the_loop() {
    let exe = compile(LOOP);
    let x = Literal::vec1(&[0.5f32; 1000]);
    let mut want = 0.5f32;
    for _ in 0..3 {
        want = want * want + (want + 1.0) * (want * 2.0);
    }
    let second = |r: Literal| r.tuple_elements().unwrap()[1].data::<f32>().unwrap()[0];
    exe.set_memory_limit(Some(exe.peak_bytes()));
    // The fused path and the reference path (which never reuses buffers in place).
    for e in [
        exe.execute(std::slice::from_ref(&x)).unwrap_err(),
        exe.execute_unfused(&[&x]).unwrap_err(),
    ] {
        let (path, inner) = innermost(&e);
        // The loop, the map, then an instruction of the mapped computation.
        assert_eq!(path.len(), 3, "{e}");
        assert_eq!(path[..2], ["w", "y"], "{e}");
        assert!(
            matches!(inner, CpuError::OverBudget { bytes: 4000, .. }),
            "{e}"
        );
    }
    // Under a limit too low for the loop's state itself, nothing runs.
    exe.set_memory_limit(Some(4000));
    let e = exe.execute(std::slice::from_ref(&x)).unwrap_err();
    assert!(matches!(e, CpuError::OutOfMemory { .. }), "{e}");
    // With room for the vectorised run, both paths compute it.
    exe.set_memory_limit(Some(4 * exe.peak_bytes()));
    for r in [
        exe.execute(std::slice::from_ref(&x)).unwrap(),
        exe.execute_unfused(&[&x]).unwrap(),
    ] {
        let y = second(r);
        assert!((y - want).abs() <= 1e-6 * want, "{y} vs {want}");
    }
}

/// Results of 4 * 10^12 bytes: no limit stops them, the allocator does.
const HUGE_BROADCAST: &str = r#"HloModule b

ENTRY main {
  p = f32[1000] parameter(0)
  ROOT b = f32[1000000000,1000] broadcast(p), dimensions={1}
}
"#;

#[test]
fn with_no_limit_a_refused_allocation_is_an_error_on_both_paths() {
    let exe = compile(HUGE_BROADCAST);
    exe.set_memory_limit(Some(u64::MAX - 1));
    let x = Literal::vec1(&[1f32; 1000]);
    for e in [
        exe.execute(std::slice::from_ref(&x)).unwrap_err(),
        exe.execute_unfused(&[&x]).unwrap_err(),
    ] {
        let (path, inner) = innermost(&e);
        assert_eq!(path, ["b"], "{e}");
        assert!(
            matches!(
                inner,
                CpuError::Allocation {
                    what: "broadcast",
                    bytes: 4_000_000_000_000
                }
            ),
            "{e}"
        );
        assert_eq!(
            e.to_string(),
            "b (broadcast): cannot allocate 3.6 TiB (4000000000000 bytes) for the result of broadcast"
        );
    }
}

/// A custom call declaring a huge result, inside a loop: refused before the host
/// function runs.
const HUGE_CALL: &str = r#"HloModule c

cond {
  s = (s32[], f32[4]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  two = s32[] constant(2)
  ROOT lt = pred[] compare(i, two), direction=LT
}

body {
  s = (s32[], f32[4]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  x = f32[4] get-tuple-element(s), index=1
  one = s32[] constant(1)
  j = s32[] add(i, one)
  big = f32[1000000,1000000] custom-call(x), custom_call_target="grow"
  y = f32[1,4] slice(big), slice={[0:1], [0:4]}
  z = f32[4] reshape(y)
  ROOT t = (s32[], f32[4]) tuple(j, z)
}

ENTRY main {
  p = f32[4] parameter(0)
  zero = s32[] constant(0)
  init = (s32[], f32[4]) tuple(zero, p)
  ROOT w = (s32[], f32[4]) while(init), condition=cond, body=body
}
"#;

#[test]
fn a_custom_call_result_past_the_allocator_is_refused_before_it_runs() {
    let mut exe = compile(HUGE_CALL);
    let called = Arc::new(AtomicBool::new(false));
    let flag = called.clone();
    exe.register_custom_call("grow", move |_, _, _| {
        flag.store(true, Ordering::SeqCst);
        Err("must not run".into())
    });
    exe.set_memory_limit(Some(u64::MAX - 1));
    let e = exe
        .execute(&[Literal::vec1(&[1f32, 2.0, 3.0, 4.0])])
        .unwrap_err();
    let (path, inner) = innermost(&e);
    assert_eq!(path, ["w", "big"], "{e}");
    assert!(
        matches!(
            inner,
            CpuError::Allocation {
                what: "custom-call",
                ..
            }
        ),
        "{e}"
    );
    assert!(!called.load(Ordering::SeqCst));
}

/// A sort of f32[1000] by a plain comparator: its result is 4 KB, its permutation scratch
/// (offsets and their map) 16 KB.
const SORT: &str = r#"HloModule s

less {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT lt = pred[] compare(a, b), direction=LT
}

ENTRY main {
  p = f32[1000] parameter(0)
  ROOT s = f32[1000] sort(p), dimensions={0}, to_apply=less
}
"#;

#[test]
fn a_kernels_scratch_past_the_limit_is_a_typed_error() {
    let exe = compile(SORT);
    let xs: Vec<f32> = (0..1000).map(|i| ((i * 7919) % 1000) as f32).collect();
    let x = Literal::vec1(&xs);
    // The plan's peak (the parameter and the result) fits; the permutation does not.
    exe.set_memory_limit(Some(exe.peak_bytes() + 1000));
    let e = exe.execute(std::slice::from_ref(&x)).unwrap_err();
    let (path, inner) = innermost(&e);
    assert_eq!(path, ["s"], "{e}");
    match inner {
        CpuError::ScratchOverBudget {
            what, bytes, held, ..
        } => {
            assert_eq!(*what, "sort (permutation)");
            assert!(*bytes >= 16_000, "{e}");
            assert_eq!(*held, 8000, "the parameter and the result: {e}");
        }
        other => panic!("expected ScratchOverBudget, got {other:?}"),
    }
    let msg = e.to_string();
    assert!(
        msg.contains("sort (permutation) needs") && msg.contains("scratch memory"),
        "{msg}"
    );
    // With room for the scratch, the same executable sorts.
    exe.set_memory_limit(Some(exe.peak_bytes() + 20_000));
    let out = exe.execute(std::slice::from_ref(&x)).unwrap();
    let mut want = xs.clone();
    want.sort_by(f32::total_cmp);
    assert_eq!(out.data::<f32>().unwrap(), &want[..]);
}

#[test]
fn a_convolution_without_room_for_its_columns_takes_the_direct_loops() {
    // f32[1,1,32,32] by an 8x8 window of ones: 625 output positions, whose im2col columns
    // (625 x 64 floats, 160 KB) are 40 times the input.
    let hlo = "HloModule c\nENTRY main {\n  x = f32[1,1,32,32] parameter(0)\n  k = f32[1,1,8,8] parameter(1)\n  ROOT c = f32[1,1,25,25] convolution(x, k), window={size=8x8}, dim_labels=bf01_oi01->bf01\n}\n";
    let exe = compile(hlo);
    let xs: Vec<f32> = (0..1024).map(|i| (i % 13) as f32).collect();
    let x = Literal::vec1(&xs).reshape(&[1, 1, 32, 32]).unwrap();
    let k = Literal::vec1(&[1f32; 64]).reshape(&[1, 1, 8, 8]).unwrap();
    exe.set_memory_limit(Some(exe.peak_bytes() + 4096));
    let out = exe.execute(&[x, k]).unwrap();
    let got = out.data::<f32>().unwrap();
    for i in 0..25 {
        for j in 0..25 {
            let want: f32 = (0..8)
                .flat_map(|a| (0..8).map(move |b| (a, b)))
                .map(|(a, b)| xs[(i + a) * 32 + j + b])
                .sum();
            assert_eq!(got[i * 25 + j], want, "({i}, {j})");
        }
    }
}

// Kernels' scratch by family: LAPACK workspaces (cholesky, getrf), a dot's operand
// transpose, the FFT's working copy and line buffers. The limit is set just above the
// buffer plan's peak (the parameters and the result), so the plan fits and the kernel's
// scratch does not: a typed error naming the instruction and the buffer, never an abort.
// With the limit lifted, each module runs.

/// Runs `text` on `args` with the limit 64 bytes above the plan's peak and checks that
/// instruction `at` fails for lack of room for scratch `what` of at least `min_bytes`;
/// then runs it without a limit.
fn scratch_refused(text: &str, args: &[Literal], at: &str, what: &str, min_bytes: u64) {
    let exe = compile(text);
    exe.set_memory_limit(Some(exe.peak_bytes() + 64));
    let e = exe.execute(args).unwrap_err();
    let (path, inner) = innermost(&e);
    assert_eq!(path.last().map(String::as_str), Some(at), "{e}");
    match inner {
        CpuError::ScratchOverBudget {
            what: w,
            bytes,
            held,
            ..
        } => {
            assert_eq!(*w, what, "{e}");
            assert!(*bytes >= min_bytes, "{bytes} < {min_bytes}: {e}");
            assert!(*held <= exe.peak_bytes(), "{e}");
        }
        other => panic!("expected ScratchOverBudget, got {other:?}"),
    }
    let msg = e.to_string();
    assert!(msg.contains(what) && msg.contains("memory limit"), "{msg}");
    exe.set_memory_limit(None);
    exe.execute(args).unwrap();
}

/// A symmetric positive definite `n`×`n` matrix (diagonally dominant).
fn spd(n: usize) -> Vec<f32> {
    (0..n * n)
        .map(|k| {
            let (i, j) = (k / n, k % n);
            if i == j {
                n as f32 + 1.0
            } else {
                1.0 / (1 + i + j) as f32
            }
        })
        .collect()
}

fn matrix(v: &[f32], n: usize) -> Literal {
    Literal::vec1(v).reshape(&[n as i64, n as i64]).unwrap()
}

#[test]
fn cholesky_workspace_is_admitted() {
    let text = r#"HloModule c
ENTRY main {
  p = f32[16,16] parameter(0)
  ROOT c = f32[16,16] cholesky(p), lower=true
}
"#;
    // The copy of the triangle alone is 16*16*4 bytes.
    let a = matrix(&spd(16), 16);
    scratch_refused(
        text,
        &[a],
        "c",
        "cholesky (factor copy, LAPACK workspace)",
        1024,
    );
}

#[test]
fn getrf_workspace_is_admitted() {
    let n = 64;
    let text = r#"HloModule g
ENTRY main {
  p = f32[64,64] parameter(0)
  ROOT lu = (f32[64,64], s32[64], s32[]) custom-call(p), custom_call_target="lapack_sgetrf_ffi", api_version=API_VERSION_TYPED_FFI
}
"#;
    // The two row permutations alone are 2*64*8 bytes.
    let a = matrix(&spd(n), n);
    scratch_refused(
        text,
        &[a],
        "lu",
        "getrf (LAPACK workspace, row permutations)",
        1024,
    );
}

#[test]
fn a_dots_operand_transpose_is_admitted() {
    // lhs free dims {0,2} around contracting dim 1: the lhs is copied to [free, contracting].
    let text = r#"HloModule d
ENTRY main {
  l = s32[3,4,5] parameter(0)
  r = s32[4,2] parameter(1)
  ROOT d = s32[3,5,2] dot(l, r), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}
"#;
    let l = Literal::vec1(&(0..60).collect::<Vec<i32>>())
        .reshape(&[3, 4, 5])
        .unwrap();
    let r = Literal::vec1(&(0..8).collect::<Vec<i32>>())
        .reshape(&[4, 2])
        .unwrap();
    scratch_refused(text, &[l, r], "d", "dot (operand transpose)", 240);
}

#[test]
fn fft_working_copy_is_admitted() {
    let text = r#"HloModule f
ENTRY main {
  p = c64[4,16] parameter(0)
  ROOT f = c64[4,16] fft(p), fft_type=FFT, fft_length={16}
}
"#;
    let shape: Shape = xla_core::text::parse_shape("c64[4,16]").unwrap();
    let x = Literal::zeros(&shape).unwrap();
    // c64 transforms run in f32: the working copy and the result are 64*8 bytes each.
    scratch_refused(text, &[x], "f", "fft (working copy, line buffers)", 1024);
}

#[test]
fn argument_shape_errors_carry_shapes() {
    let exe = compile(
        "HloModule a\nENTRY main {\n  p = f32[4] parameter(0)\n  ROOT n = f32[4] negate(p)\n}\n",
    );
    let e = exe.execute(&[Literal::vec1(&[1i32, 2, 3, 4])]).unwrap_err();
    match &e {
        CpuError::ArgumentShape {
            number,
            expected,
            found,
            ..
        } => {
            assert_eq!(*number, 0);
            assert_eq!(expected.to_string(), "f32[4]");
            assert_eq!(found.to_string(), "s32[4]");
        }
        other => panic!("expected ArgumentShape, got {other:?}"),
    }
    assert_eq!(
        e.to_string(),
        "execute: parameter 0 (p) has shape f32[4] but the argument is s32[4]"
    );
}

/// A module running LAPACK target `target` on an f32[16,16] parameter, with result `out`
/// and `backend_config` `config`.
fn lapack_module(target: &str, out: &str, config: &str) -> String {
    format!(
        "HloModule l\nENTRY main {{\n  p = f32[16,16] parameter(0)\n  ROOT r = {out} \
         custom-call(p), custom_call_target=\"{target}\", api_version=API_VERSION_TYPED_FFI, \
         backend_config={{{config}}}\n}}\n"
    )
}

#[test]
fn eigen_svd_schur_and_qr_workspaces_are_admitted() {
    let a = matrix(&spd(16), 16);
    // (target, result, backend_config, the scratch's name, bytes it is at least: the two
    // 16x16 matrices each kernel copies or allocates alone)
    let cases = [
        (
            "lapack_ssyevd_ffi",
            "(f32[16,16], f32[16], s32[])",
            "mode = 86 : ui8, uplo = 76 : ui8",
            "syevd (eigenvectors, their copy, faer workspace)",
            2048,
        ),
        (
            "lapack_sgesdd_ffi",
            "(f32[16,16], f32[16], f32[16,16], f32[16,16], s32[])",
            "mode = 65 : ui8",
            "gesdd (singular vectors, their copies, faer workspace)",
            4096,
        ),
        (
            "lapack_sgeev_ffi",
            "(f32[16], f32[16], c64[16,16], c64[16,16], s32[])",
            "compute_left = 86 : ui8, compute_right = 86 : ui8",
            "geev (eigenvectors, faer workspace)",
            4096,
        ),
        (
            "lapack_sgees_ffi",
            "(f32[16,16], f32[16,16], f32[16], f32[16], s32[], s32[])",
            "mode = 86 : ui8, sort = 78 : ui8",
            "gees (Hessenberg copy, Schur vectors)",
            2048,
        ),
        (
            "lapack_sgeqrf_ffi",
            "(f32[16,16], f32[16])",
            "",
            "geqrf (working copy, tau)",
            1024,
        ),
    ];
    for (target, out, config, what, min_bytes) in cases {
        let text = lapack_module(target, out, config);
        scratch_refused(&text, std::slice::from_ref(&a), "r", what, min_bytes);
    }
}

#[test]
fn a_convolution_without_room_for_its_input_relayout_reads_the_operand_in_place() {
    // NCHW input of 4 features: the row-product form wants the features innermost and
    // copies the input (4 KB) when the budget has room; with the limit just above the plan's
    // peak it has neither that nor the im2col columns, and convolves from the operand's own
    // layout. Integer values keep every sum exact, so both runs equal the direct sum.
    let hlo = "HloModule c\nENTRY main {\n  x = f32[1,4,16,16] parameter(0)\n  k = f32[8,4,3,3] parameter(1)\n  ROOT c = f32[1,8,14,14] convolution(x, k), window={size=3x3}, dim_labels=bf01_oi01->bf01\n}\n";
    let exe = compile(hlo);
    let xs: Vec<f32> = (0..1024).map(|i| ((i * 5) % 7) as f32 - 3.0).collect();
    let ks: Vec<f32> = (0..288).map(|i| ((i * 3) % 5) as f32 - 2.0).collect();
    let x = Literal::vec1(&xs).reshape(&[1, 4, 16, 16]).unwrap();
    let k = Literal::vec1(&ks).reshape(&[8, 4, 3, 3]).unwrap();
    let args = [x, k];
    let mut want = vec![0f32; 8 * 14 * 14];
    for o in 0..8 {
        for (i, j) in (0..14).flat_map(|i| (0..14).map(move |j| (i, j))) {
            let mut s = 0f32;
            for (f, a, b) in
                (0..4).flat_map(|f| (0..3).flat_map(move |a| (0..3).map(move |b| (f, a, b))))
            {
                s += xs[f * 256 + (i + a) * 16 + j + b] * ks[((o * 4 + f) * 3 + a) * 3 + b];
            }
            want[(o * 14 + i) * 14 + j] = s;
        }
    }
    exe.set_memory_limit(Some(exe.peak_bytes() + 64));
    let low = exe.execute(&args).unwrap();
    assert_eq!(low.data::<f32>().unwrap(), &want[..], "under the low limit");
    exe.set_memory_limit(None);
    let free = exe.execute(&args).unwrap();
    assert_eq!(free.data::<f32>().unwrap(), &want[..], "without a limit");
}
