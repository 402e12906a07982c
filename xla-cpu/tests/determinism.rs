//! Concurrency and determinism: one `Executable` run from 8 threads at once on different
//! inputs gives exactly (bit for bit) the sequential results, and every public
//! conformance case and benchmark module B1-B17 gives bit-identical results at 1, 2, 3 and
//! 8 kernel threads. The benchmark modules are large for a debug build: that test is
//! `#[ignore]`d and run in release by `scripts/determinism.sh`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod cases;

use cases::{flatten, read_numbered};
use std::path::{Path, PathBuf};
use std::time::Duration;
use xla_core::{Literal, PrimitiveType, Shape};
use xla_cpu::{Executable, ExecuteOptions};

const THREADS: [usize; 4] = [1, 2, 3, 8];

/// The exact bits of every leaf of `l` (dtype, shape and data as `.npy` bytes).
fn bits(l: Literal) -> Vec<Vec<u8>> {
    let mut leaves = Vec::new();
    flatten(l, &mut leaves);
    leaves.iter().map(|x| x.to_npy_bytes().unwrap()).collect()
}

/// Deterministic inputs for `shape`: values in [-2, 2) for floats, [0, 4) for integers.
fn input(shape: &Shape, seed: u64) -> Literal {
    let dims: Vec<i64> = shape.dims().to_vec();
    let n = shape.element_count().unwrap() as usize;
    let mut s = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    let mut next = move || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        s >> 40
    };
    let f = |x: u64| (x as f32 / (1u64 << 24) as f32) * 4.0 - 2.0;
    match shape.element_type() {
        PrimitiveType::F32 => Literal::from_vec(&dims, (0..n).map(|_| f(next())).collect()),
        PrimitiveType::F64 => {
            Literal::from_vec(&dims, (0..n).map(|_| f64::from(f(next()))).collect())
        }
        PrimitiveType::S32 => {
            Literal::from_vec(&dims, (0..n).map(|_| (next() % 4) as i32).collect())
        }
        PrimitiveType::Pred => Literal::from_vec(&dims, (0..n).map(|_| next() % 2 == 0).collect()),
        other => panic!("no input generator for {other}"),
    }
    .unwrap()
}

fn compile_text(text: &str) -> Executable {
    Executable::compile(&xla_core::text::parse_module(text).unwrap()).unwrap()
}

/// A module with a convolution, a dot, a reduction, a softmax-like row chain and a loop.
const MIXED: &str = r#"HloModule mixed

add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}

cond {
  s = (s32[], f32[24,40]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  three = s32[] constant(3)
  ROOT lt = pred[] compare(i, three), direction=LT
}

body {
  s = (s32[], f32[24,40]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  x = f32[24,40] get-tuple-element(s), index=1
  one = s32[] constant(1)
  j = s32[] add(i, one)
  y = f32[24,40] tanh(x)
  z = f32[24,40] multiply(y, x)
  ROOT r = (s32[], f32[24,40]) tuple(j, z)
}

ENTRY main {
  x = f32[2,8,12,12] parameter(0)
  w = f32[16,8,3,3] parameter(1)
  a = f32[24,96] parameter(2)
  b = f32[96,40] parameter(3)
  c = f32[2,16,12,12] convolution(x, w), window={size=3x3 pad=1_1x1_1}, dim_labels=bf01_oi01->bf01
  zero = f32[] constant(0)
  cs = f32[16] reduce(c, zero), dimensions={0,2,3}, to_apply=add
  d = f32[24,40] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  e = f32[24,40] exponential(d)
  rs = f32[24] reduce(e, zero), dimensions={1}, to_apply=add
  rb = f32[24,40] broadcast(rs), dimensions={0}
  sm = f32[24,40] divide(e, rb)
  i0 = s32[] constant(0)
  t = (s32[], f32[24,40]) tuple(i0, sm)
  l = (s32[], f32[24,40]) while(t), condition=cond, body=body
  lv = f32[24,40] get-tuple-element(l), index=1
  ROOT out = (f32[16], f32[24,40]) tuple(cs, lv)
}
"#;

fn args_for(exe: &Executable, seed: u64) -> Vec<Literal> {
    let entry = exe.module().entry_computation().unwrap();
    entry
        .parameters()
        .iter()
        .enumerate()
        .map(|(k, id)| input(&entry.instr(*id).shape, seed * 31 + k as u64))
        .collect()
}

#[test]
fn eight_threads_sharing_one_executable_match_the_sequential_results() {
    let exe = compile_text(MIXED);
    let inputs: Vec<Vec<Literal>> = (0..8).map(|s| args_for(&exe, s)).collect();
    let sequential: Vec<_> = inputs
        .iter()
        .map(|a| bits(exe.execute(a).unwrap()))
        .collect();
    // Inputs differ, so results do: the comparison below is not vacuous.
    assert_ne!(sequential[0], sequential[1]);
    for _round in 0..2 {
        let concurrent: Vec<_> = std::thread::scope(|s| {
            let handles: Vec<_> = inputs
                .iter()
                .map(|a| s.spawn(|| bits(exe.execute(a).unwrap())))
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        for (k, (c, q)) in concurrent.iter().zip(&sequential).enumerate() {
            assert!(
                c == q,
                "thread {k}: concurrent result differs from the sequential one"
            );
        }
    }
}

/// Runs `text` on `args` at every thread count of [`THREADS`] and checks the bits agree;
/// `Err` when it does not compile or run (not a determinism failure).
fn same_at_every_thread_count(
    name: &str,
    text: &str,
    args: Option<Vec<Literal>>,
) -> Result<(), String> {
    let module = xla_core::text::parse_module(text).map_err(|e| e.to_string())?;
    let mut exe = Executable::compile(&module).map_err(|e| e.to_string())?;
    let args = args.unwrap_or_else(|| args_for(&exe, 7));
    let refs: Vec<&Literal> = args.iter().collect();
    let mut first: Option<Vec<Vec<u8>>> = None;
    for n in THREADS {
        exe.set_threads(n);
        let opts = ExecuteOptions::new().with_timeout(Duration::from_secs(120));
        let got = bits(
            exe.execute_with_options(&refs, &opts)
                .map_err(|e| e.to_string())?,
        );
        match &first {
            None => first = Some(got),
            Some(f) => assert!(*f == got, "{name}: {n} threads differ from 1 thread"),
        }
    }
    Ok(())
}

fn case_dirs() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../testdata/conformance/public");
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(root)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("module.hlo").exists())
        .collect();
    dirs.sort();
    dirs
}

#[test]
fn every_public_conformance_case_is_bit_identical_at_1_2_3_8_threads() {
    let dirs = case_dirs();
    assert!(dirs.len() >= 420, "{} cases", dirs.len());
    let mut ran = 0;
    for dir in &dirs {
        let text = std::fs::read_to_string(dir.join("module.hlo")).unwrap();
        let args = read_numbered(dir, "in").unwrap();
        let name = dir.file_name().unwrap().to_string_lossy();
        if same_at_every_thread_count(&name, &text, Some(args)).is_ok() {
            ran += 1;
        }
    }
    // The conformance test requires 420 cases to pass; all of those ran here.
    assert!(ran >= 420, "only {ran} cases ran");
}

#[test]
#[ignore = "B1-B17 are large for a debug build; scripts/determinism.sh runs it in release"]
fn every_benchmark_module_is_bit_identical_at_1_2_3_8_threads() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../testdata/perf");
    let mut names: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            p.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with('B'))
        })
        .collect();
    names.sort();
    assert_eq!(names.len(), 18, "{names:?}");
    for path in names {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let text = std::fs::read_to_string(&path).unwrap();
        let t = std::time::Instant::now();
        same_at_every_thread_count(&name, &text, None).unwrap_or_else(|e| panic!("{name}: {e}"));
        eprintln!(
            "{name}: identical at {THREADS:?} threads ({:.1} s)",
            t.elapsed().as_secs_f64()
        );
    }
}
