//! Generated machine code for fused f32 kernels (AVX-512 or AVX2 CPUs) against the block
//! interpreter: the same values, bit for bit, for every op the generator emits, on inputs
//! full of specials (NaN, ±inf, ±0, subnormals, huge and tiny values), with tails shorter
//! than a block, and with per-row broadcasts and reductions.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::sync::Mutex;
use xla_core::{Literal, Shape};
use xla_cpu::Executable;

/// `set_codegen` is process-wide: tests that flip it run one at a time.
static FLIP: Mutex<()> = Mutex::new(());

/// Seeded values with specials mixed in.
fn values(n: usize, seed: u64, scale: f32) -> Vec<f32> {
    const SPECIAL: [f32; 12] = [
        f32::NAN,
        f32::INFINITY,
        f32::NEG_INFINITY,
        0.0,
        -0.0,
        1.0e-40,
        -1.0e-40,
        f32::MAX,
        f32::MIN_POSITIVE,
        88.7,
        -88.5,
        0.0003,
    ];
    let mut s = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    (0..n)
        .map(|i| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            if i % 7 == 3 {
                SPECIAL[(s >> 20) as usize % SPECIAL.len()]
            } else {
                ((s >> 40) as f32 / (1u64 << 24) as f32 * 2.0 - 1.0) * scale
            }
        })
        .collect()
}

fn arg(dims: &[i64], seed: u64, scale: f32) -> Literal {
    let n = dims.iter().product::<i64>() as usize;
    let shape = Shape::array(xla_core::PrimitiveType::F32, dims.to_vec());
    let data = xla_core::literal::ArrayData::F32(values(n, seed, scale));
    Literal::from_array_data(shape, data).unwrap()
}

fn compile(text: &str, codegen: bool) -> Executable {
    xla_cpu::set_codegen(codegen);
    let m = xla_core::text::parse_module(text).unwrap();
    let exe = Executable::compile(&m).unwrap();
    xla_cpu::set_codegen(true);
    exe
}

fn ops_of(exe: &mut Executable, args: &[Literal]) -> Vec<String> {
    exe.set_profiling(true);
    exe.execute(args).unwrap();
    let ops = exe.profile().into_iter().map(|e| e.op).collect();
    exe.set_profiling(false);
    ops
}

/// Whether this process generates code: AVX-512 (F/BW/DQ/VL), or AVX2 with FMA, allowed
/// by `XLA_CPU_ISA` and not turned off.
fn codegen_cpu() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        let isa = std::env::var("XLA_CPU_ISA");
        let avx512 = is_x86_feature_detected!("avx512f")
            && is_x86_feature_detected!("avx512bw")
            && is_x86_feature_detected!("avx512dq")
            && is_x86_feature_detected!("avx512vl")
            && !matches!(isa.as_deref(), Ok("avx2"));
        let avx2 = is_x86_feature_detected!("avx2") && is_x86_feature_detected!("fma");
        (avx512 || avx2)
            && std::env::var_os("XLA_CPU_NO_JIT").is_none()
            && std::env::var_os("XLA_CPU_NO_SIMD").is_none()
            && !matches!(isa.as_deref(), Ok("baseline"))
    }
    #[cfg(not(target_arch = "x86_64"))]
    false
}

/// Runs `text` with and without generated code; the results must agree bit for bit,
/// and where this process generates code it must really have run.
fn same(text: &str, args: &[Literal], what: &str) {
    let _guard = FLIP.lock().unwrap_or_else(|e| e.into_inner());
    let mut on = compile(text, true);
    let off = compile(text, false);
    let got = on.execute(args).unwrap();
    let want = off.execute(args).unwrap();
    let bits = |l: &Literal| -> Vec<u32> {
        if let Some(v) = l.data::<f32>() {
            v.iter().map(|x| x.to_bits()).collect()
        } else {
            l.data::<bool>()
                .unwrap()
                .iter()
                .map(|&b| u32::from(b))
                .collect()
        }
    };
    let (g, w) = (bits(&got), bits(&want));
    assert_eq!(g.len(), w.len(), "{what}");
    for (i, (a, b)) in g.iter().zip(&w).enumerate() {
        // NaN where NaN; its sign and payload are not a value (XLA does not define them,
        // and which operand's NaN an x86 add returns depends on operand order the compiler
        // is free to swap).
        let nan = |x: u32| f32::from_bits(x).is_nan();
        if nan(*a) && nan(*b) {
            continue;
        }
        assert_eq!(
            a,
            b,
            "{what}: element {i}: code {} vs interpreter {}",
            f32::from_bits(*a),
            f32::from_bits(*b)
        );
    }
    if codegen_cpu() {
        let ops = ops_of(&mut on, args);
        assert!(
            ops.iter().any(|o| o.starts_with("fusion[code")
                || o.starts_with("fusion[rows:") && o.contains(",code")),
            "{what}: {ops:?}"
        );
    }
}

/// A module computing `expr` (in terms of `x`, `y`, `z`, f32[n]) elementwise.
fn module(n: usize, body: &str) -> String {
    format!(
        "HloModule m
ENTRY main {{
  x = f32[{n}] parameter(0)
  y = f32[{n}] parameter(1)
  z = f32[{n}] parameter(2)
  one = f32[] constant(1)
  b1 = f32[{n}] broadcast(one), dimensions={{}}
{body}
}}"
    )
}

fn args3(n: usize) -> Vec<Literal> {
    vec![
        arg(&[n as i64], 1, 4.0),
        arg(&[n as i64], 2, 4.0),
        arg(&[n as i64], 3, 100.0),
    ]
}

#[test]
fn every_unary_op_matches_the_interpreter() {
    let n = 4099;
    for op in [
        "negate",
        "abs",
        "sqrt",
        "rsqrt",
        "floor",
        "ceil",
        "round-nearest-even",
        "exponential",
        "tanh",
        "logistic",
        "log",
        "log-plus-one",
    ] {
        let body = format!(
            "  a = f32[{n}] add(x, b1)\n  u = f32[{n}] {op}(a)\n  ROOT r = f32[{n}] multiply(u, y)"
        );
        same(&module(n, &body), &args3(n), op);
    }
}

/// The logarithms on their own inputs, not shifted: subnormals, ±0, negatives, ±inf and
/// NaN, values near 1 and across the exponent range (log1p's two branches).
#[test]
fn logarithms_match_the_interpreter_across_their_range() {
    let n = 4099;
    for scale in [1.0e-3, 0.5, 3.0, 1.0e30] {
        let args = vec![
            arg(&[n as i64], 7, scale),
            arg(&[n as i64], 8, 1.0),
            arg(&[n as i64], 9, 1.0),
        ];
        for op in ["log", "log-plus-one"] {
            let body = format!("  u = f32[{n}] {op}(x)\n  ROOT r = f32[{n}] multiply(u, y)");
            same(&module(n, &body), &args, &format!("{op} at scale {scale}"));
        }
    }
}

#[test]
fn every_binary_op_and_compare_matches_the_interpreter() {
    let n = 4099;
    for op in [
        "add", "subtract", "multiply", "divide", "maximum", "minimum",
    ] {
        let body = format!(
            "  a = f32[{n}] {op}(x, z)\n  b = f32[{n}] {op}(y, a)\n  ROOT r = f32[{n}] add(b, b1)"
        );
        same(&module(n, &body), &args3(n), op);
    }
    for dir in ["EQ", "NE", "GE", "GT", "LE", "LT"] {
        let body = format!(
            "  a = f32[{n}] multiply(x, b1)\n  p = pred[{n}] compare(a, y), direction={dir}\n  ROOT r = f32[{n}] select(p, a, z)"
        );
        same(&module(n, &body), &args3(n), dir);
    }
    // ±0 ties of max/min and the clamp built on them.
    let body = format!(
        "  a = f32[{n}] negate(x)\n  m = f32[{n}] maximum(a, x)\n  c = f32[{n}] clamp(y, m, z)\n  ROOT r = f32[{n}] minimum(c, a)"
    );
    same(&module(n, &body), &args3(n), "ties and clamp");
}

/// An output too large for the last-level cache is written with non-temporal stores
/// (`fusion[code,streamed]`): the same bits as the interpreter, the length not a multiple
/// of a block (the tail runs on the interpreter), NaN, infinities and signed zeros.
#[test]
fn streamed_outputs_match_the_interpreter() {
    // 32 MiB out of three 32 MiB inputs: more than any last-level cache up to 128 MiB.
    let n = (8 << 20) + 37;
    let body = format!(
        "  x2 = f32[{n}] multiply(x, x)
  t = f32[{n}] tanh(x2)
  s = f32[{n}] add(t, b1)
  g = f32[{n}] multiply(s, y)
  ROOT r = f32[{n}] add(g, z)"
    );
    let text = module(n, &body);
    let args = args3(n);
    same(&text, &args, "streamed");
    // Streamed only where the step outgrows the last-level cache (the largest level sysfs
    // lists; this test's 128 MiB exceeds any up to that size).
    let llc = (0..8)
        .filter_map(|i| {
            let s = std::fs::read_to_string(format!(
                "/sys/devices/system/cpu/cpu0/cache/index{i}/size"
            ))
            .ok()?;
            let s = s.trim();
            let (num, mul) = match s.strip_suffix('K') {
                Some(k) => (k, 1usize << 10),
                None => (s.strip_suffix('M').unwrap_or(s), 1 << 20),
            };
            num.parse::<usize>().ok().map(|v| v * mul)
        })
        .max()
        .unwrap_or(32 << 20);
    if codegen_cpu() && llc < 128 << 20 {
        let _guard = FLIP.lock().unwrap_or_else(|e| e.into_inner());
        let ops = ops_of(&mut compile(&text, true), &args);
        assert!(
            ops.iter().any(|o| o == "fusion[code,streamed](add)"),
            "{ops:?}"
        );
    }
}

#[test]
fn gelu_and_softmax_match_the_interpreter() {
    let n = 100_003;
    let body = format!(
        "  x2 = f32[{n}] multiply(x, x)
  x3 = f32[{n}] multiply(x2, x)
  c0 = f32[] constant(0.044715)
  b0 = f32[{n}] broadcast(c0), dimensions={{}}
  m = f32[{n}] multiply(x3, b0)
  a = f32[{n}] add(x, m)
  t = f32[{n}] tanh(a)
  s = f32[{n}] add(t, b1)
  g = f32[{n}] multiply(x, s)
  gy = f32[{n}] multiply(g, y)
  ROOT r = f32[{n}] add(gy, z)"
    );
    same(&module(n, &body), &args3(n), "gelu");
    let softmax = common::softmax("f32", 300, 1024);
    same(&softmax, &[arg(&[300, 1024], 4, 30.0)], "softmax");
    // Rows shorter than a block: the kernels reading a per-row value get no code (the
    // value would change inside every block) and run on the interpreter; the max fold
    // still runs as code. The same results either way.
    let short = common::softmax("f32", 300, 100);
    same(&short, &[arg(&[300, 100], 5, 30.0)], "softmax, short rows");
}

#[test]
fn folded_reductions_match_the_interpreter() {
    for (name, op, init) in [
        ("add", "add", "0"),
        ("mul", "multiply", "1"),
        ("max", "maximum", "-inf"),
        ("min", "minimum", "inf"),
    ] {
        let text = format!(
            "HloModule r
c {{ a = f32[] parameter(0)  b = f32[] parameter(1)  ROOT r = f32[] {op}(a, b) }}
ENTRY main {{
  x = f32[37,300] parameter(0)
  y = f32[37,300] parameter(1)
  e = f32[37,300] multiply(x, y)
  i = f32[] constant({init})
  ROOT r = f32[37] reduce(e, i), dimensions={{1}}, to_apply=c
}}"
        );
        let args = [arg(&[37, 300], 6, 3.0), arg(&[37, 300], 7, 1.5)];
        same(&text, &args, name);
        // A plain read folded (no op in the kernel).
        let plain = text.replace(
            "ROOT r = f32[37] reduce(e, i)",
            "ROOT r = f32[37] reduce(x, i)",
        );
        same(&plain, &args, &format!("{name} of an input"));
    }
}

/// A bias broadcast over rows (`broadcast(b), dimensions={1}`) is read as a run of the
/// bias per block; blocks that would wrap around the bias fall back to the interpreter.
#[test]
fn row_broadcasts_match_the_interpreter() {
    let text = "HloModule b
add { a = f32[] parameter(0)  b = f32[] parameter(1)  ROOT s = f32[] add(a, b) }
ENTRY main {
  x = f32[37,300] parameter(0)
  w = f32[300] parameter(1)
  bw = f32[37,300] broadcast(w), dimensions={1}
  h = f32[37,300] add(x, bw)
  zero = f32[] constant(0)
  z = f32[37,300] broadcast(zero), dimensions={}
  r = f32[37,300] maximum(h, z)
  m = f32[37,300] multiply(r, bw)
  s = f32[37] reduce(m, zero), dimensions={1}, to_apply=add
  ROOT t = (f32[37,300], f32[37]) tuple(m, s)
}";
    let args = [arg(&[37, 300], 8, 3.0), arg(&[300], 9, 2.0)];
    let _guard = FLIP.lock().unwrap_or_else(|e| e.into_inner());
    let on = compile(text, true);
    let off = compile(text, false);
    let (got, want) = (on.execute(&args).unwrap(), off.execute(&args).unwrap());
    let bits = |l: &Literal| -> Vec<u32> {
        let parts = l.clone().decompose_tuple().unwrap();
        parts
            .iter()
            .flat_map(|p| {
                p.data::<f32>()
                    .unwrap()
                    .iter()
                    .map(|x| x.to_bits())
                    .collect::<Vec<_>>()
            })
            .collect()
    };
    assert_eq!(bits(&got), bits(&want));
}

/// Two copies of the loop body run interleaved per step (16 lanes each) while two steps
/// remain, then one: every length, odd step counts and lengths that are not a multiple
/// of 16 included, agrees with the interpreter; so does a body too wide for a copy's
/// registers (it runs as one copy with all of them).
#[test]
fn interleaved_copies_match_the_interpreter_at_every_length() {
    let softplus = |n: usize| {
        format!(
            "  ne = pred[{n}] compare(x, x), direction=NE
  zero = f32[] constant(0)
  zs = f32[{n}] broadcast(zero), dimensions={{}}
  m = f32[{n}] maximum(x, zs)
  a = f32[{n}] abs(x)
  na = f32[{n}] negate(a)
  e = f32[{n}] exponential(na)
  l = f32[{n}] log-plus-one(e)
  s = f32[{n}] add(m, l)
  sel = f32[{n}] select(ne, x, s)
  t = f32[{n}] tanh(sel)
  ROOT r = f32[{n}] multiply(t, y)"
        )
    };
    // Twelve values live at once: more than a copy's eight registers.
    let wide = |n: usize| {
        let mut b = String::new();
        for i in 0..12 {
            b += &format!("  p{i} = f32[{n}] multiply(x, b1)\n  q{i} = f32[{n}] add(p{i}, y)\n");
            b += &format!("  e{i} = f32[{n}] exponential(q{i})\n");
        }
        let mut acc = "e0".to_string();
        for i in 1..12 {
            b += &format!("  s{i} = f32[{n}] add({acc}, e{i})\n");
            acc = format!("s{i}");
        }
        b + &format!("  ROOT r = f32[{n}] multiply({acc}, z)")
    };
    for n in [
        16,
        17,
        31,
        32,
        33,
        48,
        49,
        80,
        1000,
        1040,
        4099,
        16 * 257 + 5,
    ] {
        let args = args3(n);
        same(
            &module(n, &softplus(n)),
            &args,
            &format!("softplus chain, n = {n}"),
        );
        same(&module(n, &wide(n)), &args, &format!("wide body, n = {n}"));
    }
}

/// The AVX2 generator on a CPU with AVX-512: this file's tests again in a child process
/// with `XLA_CPU_ISA=avx2` (the level is fixed once per process), so both generators are
/// checked against the interpreter on one machine.
#[test]
fn the_avx2_code_matches_the_interpreter_too() {
    #[cfg(target_arch = "x86_64")]
    {
        let avx2 = is_x86_feature_detected!("avx2") && is_x86_feature_detected!("fma");
        if std::env::var_os("XLA_CPU_ISA").is_some() || !codegen_cpu() || !avx2 {
            return;
        }
        let out = std::process::Command::new(std::env::current_exe().unwrap())
            .env("XLA_CPU_ISA", "avx2")
            .args(["--skip", "the_avx2_code", "--test-threads", "1"])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(String::from_utf8_lossy(&out.stdout).contains("test result: ok"));
    }
}
