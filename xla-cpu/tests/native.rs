//! `while` loops compiled to native code (Cranelift) against the interpreter: the same
//! bits for every supported op family on inputs full of specials (NaN, ±inf, ±0,
//! subnormals), for the B16/B17 benchmark loops, and a fallback for unsupported ops.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use xla_core::literal::ArrayData;
use xla_core::{Literal, PrimitiveType, Shape};
use xla_cpu::Executable;

/// Seeded values, roughly normal, with specials mixed in.
fn values(n: usize, seed: u64) -> Vec<f32> {
    const SPECIAL: [f32; 10] = [
        f32::NAN,
        f32::INFINITY,
        f32::NEG_INFINITY,
        0.0,
        -0.0,
        1.0e-40,
        -1.0e-40,
        f32::MIN_POSITIVE,
        3.0e38,
        -1.5,
    ];
    let mut s = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    let mut next = move || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        (s >> 40) as f32 / (1u64 << 24) as f32
    };
    (0..n)
        .map(|i| {
            let u = next();
            if seed % 2 == 1 && i % 5 == 2 {
                SPECIAL[(u * 10.0) as usize % SPECIAL.len()]
            } else {
                // Sum of four uniforms: close enough to a normal for test data.
                (u + next() + next() + next() - 2.0) * 1.7
            }
        })
        .collect()
}

/// A literal of `shape` with seeded values (f32), small integers (s32) or alternating
/// truth values (pred).
fn arg(shape: &Shape, seed: u64) -> Literal {
    match shape {
        Shape::Tuple(t) => Literal::tuple(
            t.iter()
                .enumerate()
                .map(|(k, s)| arg(s, seed + k as u64))
                .collect(),
        ),
        Shape::Array(a) => {
            let n = a.dims.iter().product::<i64>() as usize;
            let v = values(n, seed);
            let data = match a.ty {
                PrimitiveType::F32 => ArrayData::F32(v),
                PrimitiveType::F64 => ArrayData::F64(v.iter().map(|&x| f64::from(x)).collect()),
                PrimitiveType::S32 => ArrayData::S32(
                    v.iter()
                        .map(|&x| {
                            if x.is_finite() {
                                (x * 1000.0) as i32
                            } else {
                                -7
                            }
                        })
                        .collect(),
                ),
                PrimitiveType::Pred => ArrayData::Pred(v.iter().map(|&x| x > 0.0).collect()),
                other => panic!("no test data for {other}"),
            };
            Literal::from_array_data(shape.without_layout(), data).unwrap()
        }
        Shape::Token => Literal::token(),
    }
}

/// Bit-identical, except that two NaNs count as equal: which NaN an add or multiply of
/// two different NaNs returns is not fixed even between the interpreter's own paths
/// (it depends on the operand order the compiler picked for each kernel and length).
fn same(a: &Literal, b: &Literal) -> bool {
    match (a.tuple_elements(), b.tuple_elements()) {
        (Some(x), Some(y)) => x.len() == y.len() && x.iter().zip(y).all(|(a, b)| same(a, b)),
        (None, None) => match (a.data::<f32>(), b.data::<f32>()) {
            (Some(x), Some(y)) => {
                x.len() == y.len()
                    && x.iter()
                        .zip(y)
                        .all(|(p, q)| p.to_bits() == q.to_bits() || (p.is_nan() && q.is_nan()))
            }
            _ => bits_eq(a, b),
        },
        _ => false,
    }
}

fn bits_eq(a: &Literal, b: &Literal) -> bool {
    match (a.tuple_elements(), b.tuple_elements()) {
        (Some(x), Some(y)) => x.len() == y.len() && x.iter().zip(y).all(|(a, b)| bits_eq(a, b)),
        (None, None) => match (a.array_data(), b.array_data()) {
            (Some(x), Some(y)) => a.shape() == b.shape() && x.bitwise_eq(y),
            _ => false,
        },
        _ => false,
    }
}

/// The first differing f32 element of two results, as bits, for failure messages.
fn first_diff(a: &Literal, b: &Literal) -> String {
    if let (Some(x), Some(y)) = (a.tuple_elements(), b.tuple_elements()) {
        return x
            .iter()
            .zip(y)
            .map(|(a, b)| first_diff(a, b))
            .collect::<Vec<_>>()
            .join(" ");
    }
    match (a.data::<f32>(), b.data::<f32>()) {
        (Some(x), Some(y)) => x
            .iter()
            .zip(y)
            .enumerate()
            .find(|(_, (p, q))| p.to_bits() != q.to_bits())
            .map(|(i, (p, q))| format!("[{i}] {:#x} vs {:#x}", p.to_bits(), q.to_bits()))
            .unwrap_or_default(),
        _ => String::new(),
    }
}

fn native_on() -> bool {
    std::env::var_os("XLA_CPU_NO_JIT").is_none()
}

/// Runs `text` natively and on the interpreter (fused and unfused) on arguments of each
/// seed (with specials when the seed is odd); asserts the results agree (bit for bit when
/// `strict`, else up to which NaN, see [`same`]) and that `loops` loops ran natively.
fn check(text: &str, loops: usize, seeds: std::ops::Range<u64>, strict: bool) {
    check_with(text, loops, seeds, strict, true);
}

/// [`check`], comparing with the unfused interpreter too when `unfused`.
fn check_with(text: &str, loops: usize, seeds: std::ops::Range<u64>, strict: bool, unfused: bool) {
    let cmp = if strict { bits_eq } else { same };
    let m = xla_core::text::parse_module(text).unwrap();
    let exe = Executable::compile(&m).unwrap();
    let mut reference = Executable::compile(&m).unwrap();
    reference.drop_native_loops();
    if native_on() {
        assert_eq!(exe.native_loop_count(), loops, "native loops of {}", m.name);
    }
    let entry = m.entry_computation().unwrap();
    for seed in seeds {
        let args: Vec<Literal> = entry
            .parameters()
            .iter()
            .enumerate()
            .map(|(k, id)| arg(&entry.instr(*id).shape, seed * 31 + k as u64))
            .collect();
        let got = exe.execute(&args).unwrap();
        let want = reference.execute(&args).unwrap();
        let why = first_diff(&got, &want);
        assert!(
            cmp(&got, &want),
            "{} seed {seed}: native vs interpreter: {why}",
            m.name
        );
        if !unfused {
            continue;
        }
        let refs: Vec<&Literal> = args.iter().collect();
        let unfused = reference.execute_unfused(&refs).unwrap();
        let why = first_diff(&got, &unfused);
        assert!(
            cmp(&got, &unfused),
            "{} seed {seed}: native vs unfused: {why}",
            m.name
        );
    }
}

fn bench_module(name: &str) -> String {
    let path = format!("{}/../testdata/perf/{name}.hlo", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(path).unwrap()
}

#[test]
fn b16_rk45_adaptive_matches_the_interpreter() {
    let text = bench_module("B16_rk45_adaptive");
    // Seed 0: normal values, bit for bit; seed 1: specials too.
    check(&text, 1, 0..1, true);
    check(&text, 1, 1..2, false);
}

#[test]
fn b17_hmc_leapfrog_matches_the_interpreter() {
    let text = bench_module("B17_hmc_leapfrog");
    // On these random inputs the trajectory overflows to NaN: equal up to which NaN (its
    // sign is not a value, and the interpreter's own fused and unfused paths differ in it).
    check(&text, 1, 0..2, false);
}

/// An f32 sum combiner, `add_f`.
const ADD_F: &str = "add_f {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}";

/// The body and condition (`{prefix}body`, `{prefix}cond`) of a loop that runs
/// `body_ops` (HLO lines reading `x`, `y` (f32[N]), `i` (s32[]) and defining `nx`, `ny`)
/// `trips` times on state `(s32[], f32[N], f32[N])`.
fn loop_comps(prefix: &str, n: usize, trips: usize, body_ops: &str) -> String {
    format!(
        r#"{prefix}body {{
  st = (s32[], f32[{n}], f32[{n}]) parameter(0)
  i = s32[] get-tuple-element(st), index=0
  x = f32[{n}] get-tuple-element(st), index=1
  y = f32[{n}] get-tuple-element(st), index=2
  one = s32[] constant(1)
  ni = s32[] add(i, one)
{body_ops}
  ROOT r = (s32[], f32[{n}], f32[{n}]) tuple(ni, nx, ny)
}}

{prefix}cond {{
  st = (s32[], f32[{n}], f32[{n}]) parameter(0)
  i = s32[] get-tuple-element(st), index=0
  trips = s32[] constant({trips})
  ROOT lt = pred[] compare(i, trips), direction=LT
}}"#
    )
}

/// A module whose loop runs `body_ops` (see [`loop_comps`]) three times.
fn loop_module(name: &str, n: usize, helpers: &str, body_ops: &str) -> String {
    let comps = loop_comps("", n, 3, body_ops);
    format!(
        r#"HloModule {name}

{helpers}

{comps}

ENTRY main {{
  a = f32[{n}] parameter(0)
  b = f32[{n}] parameter(1)
  zero = s32[] constant(0)
  t = (s32[], f32[{n}], f32[{n}]) tuple(zero, a, b)
  ROOT w = (s32[], f32[{n}], f32[{n}]) while(t), condition=cond, body=body
}}
"#
    )
}

/// Runs `body_ops` (with `#` for the state length `n`, `@` for `n - 3`) at lengths that unroll (5) and that
/// loop (37), on several seeds.
fn check_ops(name: &str, helpers: &str, body_ops: &str) {
    check_ops_sized(name, helpers, body_ops, &[5, 37]);
}

/// [`check_ops`] with `#` each of `sizes`.
fn check_ops_sized(name: &str, helpers: &str, body_ops: &str, sizes: &[usize]) {
    for &n in sizes {
        let ops = body_ops
            .replace('#', &n.to_string())
            .replace('@', &(n - 3).to_string());
        let helpers = helpers.replace('#', &n.to_string());
        let text = loop_module(name, n, &helpers, &ops);
        check(&text, 1, 0..3, false);
    }
}

#[test]
fn float_arithmetic_max_min() {
    check_ops(
        "arith",
        "",
        "  s = f32[#] add(x, y)
  d = f32[#] subtract(s, y)
  m = f32[#] multiply(d, x)
  q = f32[#] divide(m, y)
  mx = f32[#] maximum(q, x)
  mn = f32[#] minimum(mx, y)
  ab = f32[#] abs(mn)
  ng = f32[#] negate(ab)
  nx = f32[#] maximum(ng, mn)
  ny = f32[#] minimum(y, q)",
    );
}

/// The vector forms (add, subtract, multiply, divide, negate, abs, sqrt, maximum and
/// minimum four f32 lanes at a time, a one-element operand broadcast; max/min of -x and x
/// for the ±0 cases) give the interpreter's bits, ±0 included:
/// lengths at the vector threshold (33: shorter ones are unrolled per element), whole
/// vectors, and vectors plus a tail, on seeds with
/// specials and with the NaNs of inf - inf, 0 * inf and sqrt(-x). A NaN equals any NaN:
/// the sign of a NaN the hardware makes is not a value, and the interpreter's own paths
/// differ in it.
#[test]
fn vector_arithmetic_is_bit_identical() {
    // Short slots (unrolled, vectors kept in registers) and long ones (vector loops).
    for n in [4, 6, 8, 11, 33, 36, 37, 130] {
        let ops = "  c0 = f32[] constant(-2.5)
  c = f32[#] broadcast(c0), dimensions={}
  inf0 = f32[] constant(inf)
  inf = f32[#] broadcast(inf0), dimensions={}
  s = f32[#] add(x, y)
  d = f32[#] subtract(s, y)
  m = f32[#] multiply(d, c)
  q = f32[#] divide(m, y)
  z = f32[#] multiply(q, inf)
  w = f32[#] subtract(z, z)
  ab = f32[#] abs(w)
  ng = f32[#] negate(q)
  rt = f32[#] sqrt(ng)
  u = f32[#] add(rt, ab)
  v = f32[#] divide(c, u)
  mx = f32[#] maximum(v, x)
  mn = f32[#] minimum(w, y)
  zm = f32[#] maximum(ng, q)
  zn = f32[#] minimum(q, ng)
  nx = f32[#] add(mx, zm)
  ny = f32[#] multiply(mn, zn)"
            .replace('#', &n.to_string());
        let text = loop_module("vec", n, "", &ops);
        check(&text, 1, 0..4, false);
    }
}

#[test]
fn short_vectors_mix_with_element_code() {
    // Vector results read element by element (slices at every offset, pads, a reduce, a
    // select, a dynamic slice), vectors put together from elements just written one by
    // one, and f64 and s32 vectors, carried from one trip to the next.
    let helpers = ADD_F;
    let body = "  s = f32[#] add(x, y)
  m = f32[#] multiply(s, x)
  sl = f32[@] slice(m), slice={[3:#]}
  z = f32[] constant(0)
  p3 = f32[#] pad(sl, z), padding=2_1
  sh = f32[@] slice(s), slice={[0:@]}
  p1 = f32[#] pad(sh, z), padding=1_2
  q = f32[#] divide(p3, p1)
  red = f32[] reduce(q, z), dimensions={0}, to_apply=add_f
  rb = f32[#] broadcast(red), dimensions={}
  gt = pred[#] compare(q, x), direction=GT
  sel = f32[#] select(gt, q, rb)
  d = f32[#] convert(x)
  dd = f64[#] convert(sel)
  dy = f64[#] convert(y)
  dm = f64[#] multiply(dd, dy)
  ds = f64[#] subtract(dm, dd)
  back = f32[#] convert(ds)
  ix = s32[#] convert(m)
  ij = s32[#] multiply(ix, ix)
  ik = s32[#] add(ij, ix)
  fi = f32[#] convert(ik)
  k = s32[] constant(1)
  dyn = f32[2] dynamic-slice(back, i), dynamic_slice_sizes={2}
  up = f32[#] dynamic-update-slice(d, dyn, k)
  nx = f32[#] add(back, up)
  ny = f32[#] subtract(fi, sel)";
    check_ops_sized("mix", helpers, body, &[4, 8, 10, 16, 40]);
}

#[test]
fn float_functions() {
    check_ops(
        "funcs",
        "",
        "  e = f32[#] exponential(x)
  l = f32[#] log(y)
  t = f32[#] tanh(e)
  g = f32[#] logistic(l)
  p = f32[#] power(x, y)
  sq = f32[#] sqrt(y)
  rs = f32[#] rsqrt(x)
  sn = f32[#] sine(t)
  cs = f32[#] cosine(g)
  fl = f32[#] floor(p)
  ce = f32[#] ceil(sq)
  rn = f32[#] round-nearest-even(rs)
  ra = f32[#] round-nearest-afz(x)
  sg = f32[#] sign(y)
  er = f32[#] erf(x)
  e1 = f32[#] exponential-minus-one(y)
  l1 = f32[#] log-plus-one(x)
  cb = f32[#] cbrt(y)
  rm = f32[#] remainder(x, y)
  at = f32[#] atan2(x, y)
  a1 = f32[#] add(sn, cs)
  a2 = f32[#] add(fl, ce)
  a3 = f32[#] add(rn, ra)
  a4 = f32[#] add(sg, er)
  a5 = f32[#] add(e1, l1)
  a6 = f32[#] add(cb, rm)
  b1 = f32[#] add(a1, a2)
  b2 = f32[#] add(a3, a4)
  b3 = f32[#] add(a5, a6)
  c1 = f32[#] add(b1, b2)
  nx = f32[#] add(c1, b3)
  ny = f32[#] add(at, sq)",
    );
}

#[test]
fn compare_select_clamp_convert_and_integers() {
    check_ops(
        "logic",
        "",
        "  lt = pred[#] compare(x, y), direction=LT
  ne = pred[#] compare(x, y), direction=NE
  ge = pred[#] compare(y, x), direction=GE
  eq = pred[#] compare(x, x), direction=EQ
  a = pred[#] and(lt, ne)
  o = pred[#] or(a, ge)
  nt = pred[#] not(o)
  xo = pred[#] xor(nt, eq)
  s = f32[#] select(xo, x, y)
  lo = f32[] constant(-1.5)
  hi = f32[] constant(2)
  c = f32[#] clamp(lo, s, hi)
  k = s32[#] convert(x)
  k2 = s32[#] multiply(k, k)
  k3 = s32[#] add(k2, k)
  k4 = s32[#] maximum(k3, k)
  k5 = s32[#] minimum(k4, k2)
  k6 = s32[#] xor(k5, k)
  k7 = s32[#] negate(k6)
  kc = pred[#] compare(k7, k), direction=GT
  kf = f32[#] convert(k7)
  pf = f32[#] convert(kc)
  d = f64[#] convert(y)
  d2 = f64[#] multiply(d, d)
  df = f32[#] convert(d2)
  nb = pred[#] convert(y)
  nbf = f32[#] convert(nb)
  nx = f32[#] add(c, kf)
  t1 = f32[#] add(pf, df)
  ny = f32[#] add(t1, nbf)",
    );
}

/// Integer shifts with amounts below 0, within the width and from it up (0, or the sign
/// for an arithmetic right shift), on s32, u32 and s8, as the interpreter computes them.
#[test]
fn integer_shifts_at_and_past_the_width() {
    check_ops(
        "shifts",
        "",
        "  k = s32[#] convert(x)
  m = s32[#] convert(y)
  c63 = s32[] constant(63)
  r63 = s32[#] broadcast(c63), dimensions={}
  c12 = s32[] constant(12)
  r12 = s32[#] broadcast(c12), dimensions={}
  m63 = s32[#] and(m, r63)
  amt = s32[#] subtract(m63, r12)
  l = s32[#] shift-left(k, amt)
  ra = s32[#] shift-right-arithmetic(k, amt)
  rl = s32[#] shift-right-logical(k, amt)
  u = u32[#] convert(k)
  ua = u32[#] convert(amt)
  ul = u32[#] shift-left(u, ua)
  ur = u32[#] shift-right-logical(u, ua)
  us = u32[#] shift-right-arithmetic(u, ua)
  b = s8[#] convert(k)
  ba = s8[#] convert(amt)
  bl = s8[#] shift-left(b, ba)
  br = s8[#] shift-right-arithmetic(b, ba)
  bq = s8[#] shift-right-logical(b, ba)
  x1 = s32[#] xor(l, ra)
  x2 = s32[#] xor(x1, rl)
  u1 = u32[#] xor(ul, ur)
  u2 = u32[#] or(u1, us)
  b1 = s8[#] xor(bl, br)
  b2 = s8[#] and(b1, bq)
  fu = f32[#] convert(u2)
  fb = f32[#] convert(b2)
  fx = f32[#] convert(x2)
  nx = f32[#] add(fx, fu)
  ny = f32[#] add(fb, y)",
    );
}

#[test]
fn shifts_by_broadcast_amounts() {
    // One amount for every lane (a broadcast scalar, so the shifts have a vector form):
    // amounts c, c + 13 and c + 26 over the trips, past the width and negative among them,
    // of small integers of both signs (from `y`, which the loop keeps); each trip adds the
    // 16-bit halves of the results to `x`, so every bit counts and every sum is exact.
    for c in [0, 5, 19, 31, 32, 33, -1, -40] {
        let body = format!(
            "  k = s32[#] convert(y)
  c = s32[] constant({c})
  t = s32[] constant(13)
  it = s32[] multiply(i, t)
  a = s32[] add(c, it)
  amt = s32[#] broadcast(a), dimensions={{}}
  l = s32[#] shift-left(k, amt)
  ra = s32[#] shift-right-arithmetic(k, amt)
  rl = s32[#] shift-right-logical(k, amt)
  u = u32[#] convert(k)
  ua = u32[] convert(a)
  uamt = u32[#] broadcast(ua), dimensions={{}}
  ul = u32[#] shift-left(u, uamt)
  ur = u32[#] shift-right-logical(u, uamt)
  us = u32[#] shift-right-arithmetic(u, uamt)
  x1 = s32[#] xor(l, ra)
  x2 = s32[#] xor(x1, rl)
  u1 = u32[#] xor(ul, ur)
  u2 = u32[#] xor(u1, us)
  m0 = s32[] constant(65535)
  m = s32[#] broadcast(m0), dimensions={{}}
  h0 = s32[] constant(16)
  h = s32[#] broadcast(h0), dimensions={{}}
  xl = s32[#] and(x2, m)
  xh = s32[#] shift-right-logical(x2, h)
  um = u32[#] convert(m)
  uh = u32[#] convert(h)
  ul2 = u32[#] and(u2, um)
  uh2 = u32[#] shift-right-logical(u2, uh)
  f1 = f32[#] convert(xl)
  f2 = f32[#] convert(xh)
  f3 = f32[#] convert(ul2)
  f4 = f32[#] convert(uh2)
  s1 = f32[#] add(f1, f2)
  s2 = f32[#] add(f3, f4)
  s3 = f32[#] add(s1, s2)
  nx = f32[#] add(x, s3)
  ny = f32[#] copy(y)"
        );
        check_ops_sized("bshift", "", &body, &[5, 8, 37, 130]);
    }
}

/// The vector compares and selects (`masks.rs`): every direction on f32 (NaN, ±0, ±inf
/// among the inputs), s32 and u32, selects by a full and by a one-element predicate, at
/// lengths with and without a tail.
#[test]
fn vector_compares_and_selects() {
    for n in [33, 36, 37, 130] {
        let ops = "  lt = pred[#] compare(x, y), direction=LT
  le = pred[#] compare(x, y), direction=LE
  gt = pred[#] compare(x, y), direction=GT
  ge = pred[#] compare(x, y), direction=GE
  eq = pred[#] compare(x, x), direction=EQ
  ne = pred[#] compare(x, y), direction=NE
  k = s32[#] convert(x)
  m = s32[#] convert(y)
  kl = pred[#] compare(k, m), direction=LT
  u = u32[#] convert(k)
  w = u32[#] convert(m)
  ug = pred[#] compare(u, w), direction=GT
  s1 = f32[#] select(lt, x, y)
  s2 = f32[#] select(le, s1, x)
  s3 = f32[#] select(gt, y, s2)
  s4 = f32[#] select(ge, s3, x)
  s5 = f32[#] select(eq, s4, y)
  s6 = f32[#] select(ne, s5, x)
  ks = s32[#] select(kl, k, m)
  us = u32[#] select(ug, u, w)
  p0 = pred[] constant(true)
  sp = f32[#] select(p0, s6, y)
  kf = f32[#] convert(ks)
  uf = f32[#] convert(us)
  a1 = f32[#] add(sp, kf)
  nx = f32[#] add(a1, uf)
  ny = f32[#] select(ug, y, x)"
            .replace('#', &n.to_string());
        let text = loop_module("masks", n, "", &ops);
        check(&text, 1, 0..4, false);
    }
}

/// Compares of a long slot against one value for every lane (a broadcast scalar read as
/// the scalar, `scalars.rs`), either way round: the vector compare splats the scalar. The
/// scalar is an element of `y` (NaN, ±0, ±inf among the seeds), as f32, s32 and u32.
#[test]
fn vector_compares_with_a_broadcast_scalar() {
    for n in [33, 36, 37, 130] {
        let ops = "  h = f32[1] slice(y), slice={[3:4]}
  c = f32[] reshape(h)
  cb = f32[#] broadcast(c), dimensions={}
  lt = pred[#] compare(x, cb), direction=LT
  le = pred[#] compare(cb, x), direction=LE
  gt = pred[#] compare(x, cb), direction=GT
  ge = pred[#] compare(cb, x), direction=GE
  eq = pred[#] compare(x, cb), direction=EQ
  ne = pred[#] compare(cb, y), direction=NE
  k = s32[#] convert(x)
  kc = s32[] convert(c)
  kb = s32[#] broadcast(kc), dimensions={}
  kl = pred[#] compare(kb, k), direction=LT
  u = u32[#] convert(k)
  uc = u32[] convert(kc)
  ub = u32[#] broadcast(uc), dimensions={}
  ug = pred[#] compare(u, ub), direction=GT
  s1 = f32[#] select(lt, x, y)
  s2 = f32[#] select(le, s1, x)
  s3 = f32[#] select(gt, y, s2)
  s4 = f32[#] select(ge, s3, x)
  s5 = f32[#] select(eq, s4, y)
  s6 = f32[#] select(ne, s5, x)
  s7 = f32[#] select(kl, s6, y)
  nx = f32[#] select(ug, s7, x)
  ny = f32[#] select(kl, y, x)"
            .replace('#', &n.to_string());
        let text = loop_module("bcmp", n, "", &ops);
        check(&text, 1, 0..4, false);
    }
}

#[test]
fn structural_moves() {
    check_ops(
        "moves",
        "",
        "  sl = f32[3] slice(x), slice={[1:4]}
  sx = f32[2] slice(x), slice={[0:4:3]}
  rv = f32[#] reverse(y), dimensions={0}
  bc = f32[3,#] broadcast(x), dimensions={1}
  tr = f32[#,3] transpose(bc), dimensions={1,0}
  rs = f32[3,#] reshape(tr)
  row = f32[1,#] slice(rs), slice={[2:3], [0:#]}
  r1 = f32[#] reshape(row)
  ct = f32[5] concatenate(sl, sx), dimensions={0}
  zero = f32[] constant(0)
  pd = f32[#] pad(y, zero), padding=1_-1
  io = s32[#] iota(), iota_dimension=0
  iof = f32[#] convert(io)
  head = f32[1] slice(ct), slice={[4:5]}
  hs = f32[] reshape(head)
  hb = f32[#] broadcast(hs), dimensions={}
  a1 = f32[#] add(rv, r1)
  nx = f32[#] add(a1, hb)
  a2 = f32[#] add(pd, iof)
  ny = f32[#] multiply(a2, y)",
    );
}

#[test]
fn reductions_in_both_orders() {
    // Rows of 4, 37, 64 and 100 (the reference fold switches to 16 partials at 32, the
    // fused one to a pairwise tree of its 64 lanes at 64), columns, all dims; fused (fed
    // by an elementwise op) and unfused (fed by a parameter).
    let helpers = "add_f {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT r = f32[] add(a, b)
}

max_f {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT r = f32[] maximum(a, b)
}

min_f {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT r = f32[] minimum(b, a)
}

mul_f {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT r = f32[] multiply(a, b)
}";
    check_ops_sized(
        "reduce",
        helpers,
        "  z = f32[] constant(0)
  ninf = f32[] constant(-inf)
  pinf = f32[] constant(inf)
  o = f32[] constant(1)
  sq = f32[#] multiply(x, x)
  s1 = f32[] reduce(sq, z), dimensions={0}, to_apply=add_f
  s2 = f32[] reduce(y, z), dimensions={0}, to_apply=add_f
  m1 = f32[] reduce(x, ninf), dimensions={0}, to_apply=max_f
  m2 = f32[] reduce(sq, ninf), dimensions={0}, to_apply=max_f
  n1 = f32[] reduce(y, pinf), dimensions={0}, to_apply=min_f
  p1 = f32[] reduce(x, o), dimensions={0}, to_apply=mul_f
  bx = f32[3,#] broadcast(x), dimensions={1}
  by = f32[3,#] broadcast(y), dimensions={1}
  g = f32[3,#] multiply(bx, by)
  rows = f32[3] reduce(g, z), dimensions={1}, to_apply=add_f
  cols = f32[#] reduce(g, ninf), dimensions={0}, to_apply=max_f
  cols2 = f32[#] reduce(bx, z), dimensions={0}, to_apply=add_f
  all = f32[] reduce(by, z), dimensions={0,1}, to_apply=add_f
  r0 = f32[1] slice(rows), slice={[2:3]}
  r0s = f32[] reshape(r0)
  t1 = f32[] add(s1, s2)
  t2 = f32[] add(m1, m2)
  t3 = f32[] add(n1, p1)
  t4 = f32[] add(all, r0s)
  u1 = f32[] add(t1, t2)
  u2 = f32[] add(t3, t4)
  u = f32[] add(u1, u2)
  ub = f32[#] broadcast(u), dimensions={}
  nx = f32[#] add(cols, ub)
  ny = f32[#] add(cols2, y)",
        &[5, 37, 64, 100],
    );
}

#[test]
fn dots_and_calls() {
    let helpers = "twice {
  a = f32[#] parameter(0)
  b = f32[#] parameter(1)
  s = f32[#] add(a, b)
  ROOT t = (f32[#], f32[#]) tuple(s, a)
}";
    check_ops(
        "dots",
        helpers,
        "  bx = f32[3,#] broadcast(x), dimensions={1}
  by = f32[#,3] broadcast(y), dimensions={0}
  mm = f32[3,3] dot(bx, by), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  mt = f32[3,3] dot(bx, bx), lhs_contracting_dims={1}, rhs_contracting_dims={1}
  mv = f32[3] dot(bx, y), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  vm = f32[#] dot(mv, bx), lhs_contracting_dims={0}, rhs_contracting_dims={0}
  tr = f32[#,3] transpose(bx), dimensions={1,0}
  tv = f32[3] dot(tr, x), lhs_contracting_dims={0}, rhs_contracting_dims={0}
  vv = f32[] dot(x, y), lhs_contracting_dims={0}, rhs_contracting_dims={0}
  b3 = f32[2,3,#] broadcast(bx), dimensions={1,2}
  bb = f32[2,3,3] dot(b3, b3), lhs_batch_dims={0}, rhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_contracting_dims={2}
  c = (f32[#], f32[#]) call(vm, x), to_apply=twice
  c0 = f32[#] get-tuple-element(c), index=0
  vb = f32[#] broadcast(vv), dimensions={}
  s1 = f32[9] reshape(mm)
  s2 = f32[9] reshape(mt)
  s3 = f32[18] reshape(bb)
  s4 = f32[9] slice(s3), slice={[9:18]}
  s5 = f32[9] add(s1, s2)
  s6 = f32[9] add(s5, s4)
  h = f32[3] slice(s6), slice={[0:3]}
  h2 = f32[3] add(h, tv)
  z = f32[] constant(0)
  hp = f32[#] pad(h2, z), padding=0_@
  hq = f32[#] slice(hp), slice={[0:#]}
  nx = f32[#] add(c0, vb)
  ny = f32[#] add(hq, y)",
    );
}

#[test]
fn dynamic_slices_with_clamped_starts() {
    // Starts i*3-2 run below 0 and past the end, so clamping is exercised.
    check_ops(
        "dynamic",
        "",
        "  three = s32[] constant(3)
  two = s32[] constant(2)
  i3 = s32[] multiply(i, three)
  k = s32[] subtract(i3, two)
  big = s32[] constant(1000)
  ds = f32[3] dynamic-slice(x, k), dynamic_slice_sizes={3}
  dm = f32[3] multiply(ds, ds)
  du = f32[#] dynamic-update-slice(y, dm, k)
  db = f32[#] dynamic-update-slice(du, ds, big)
  bx = f32[2,#] broadcast(x), dimensions={1}
  z = s32[] constant(0)
  d2 = f32[1,2] dynamic-slice(bx, i, k), dynamic_slice_sizes={1,2}
  r2 = f32[2] reshape(d2)
  u2 = f32[2,#] dynamic-update-slice(bx, d2, z, k)
  row = f32[1,#] slice(u2), slice={[1:2], [0:#]}
  rr = f32[#] reshape(row)
  nx = f32[#] add(db, rr)
  ny = f32[#] dynamic-update-slice(y, r2, z)",
    );
}

#[test]
fn swapped_state_and_constant_results() {
    // The body returns the state permuted (x and y swap, through temporaries) and a
    // constant, so the carry must not overwrite a slot it still reads.
    for n in [5, 37] {
        let vals = (0..n)
            .map(|k| format!("{}.5", k))
            .collect::<Vec<_>>()
            .join(", ");
        let ops = format!("  c = f32[{n}] constant({{{vals}}})\n  nx = f32[{n}] copy(y)\n  ny = f32[{n}] add(x, c)");
        check(&loop_module("swap", n, "", &ops), 1, 0..2, false);
        let ops = format!("  c = f32[{n}] constant({{{vals}}})\n  nx = f32[{n}] reshape(y)\n  ny = f32[{n}] copy(c)");
        check(&loop_module("swap2", n, "", &ops), 1, 0..2, true);
    }
}

#[test]
fn nested_loops_run_natively() {
    let text = "HloModule nested
ibody {
  s = (s32[], f32[5]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  x = f32[5] get-tuple-element(s), index=1
  one = s32[] constant(1)
  j = s32[] add(i, one)
  y = f32[5] multiply(x, x)
  ROOT t = (s32[], f32[5]) tuple(j, y)
}
icond {
  s = (s32[], f32[5]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(2)
  ROOT lt = pred[] compare(i, n), direction=LT
}
obody {
  s = (s32[], f32[5]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  x = f32[5] get-tuple-element(s), index=1
  one = s32[] constant(1)
  j = s32[] add(i, one)
  z = s32[] constant(0)
  t0 = (s32[], f32[5]) tuple(z, x)
  w = (s32[], f32[5]) while(t0), condition=icond, body=ibody
  y = f32[5] get-tuple-element(w), index=1
  h = f32[5] constant({0.5, 0.5, 0.5, 0.5, 0.5})
  y2 = f32[5] multiply(y, h)
  ROOT t = (s32[], f32[5]) tuple(j, y2)
}
ocond {
  s = (s32[], f32[5]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(3)
  ROOT lt = pred[] compare(i, n), direction=LT
}
ENTRY main {
  x = f32[5] parameter(0)
  z = s32[] constant(0)
  t = (s32[], f32[5]) tuple(z, x)
  ROOT w = (s32[], f32[5]) while(t), condition=ocond, body=obody
}
";
    // Two: the outer loop (with the inner one inlined) and the inner one on its own.
    check(text, 2, 0..3, false);
}

/// An outer loop of three trips whose body runs an inner loop of four trips on the same
/// state; `inner_ops` (as in [`loop_comps`], `#` for N) is the inner body.
fn nested_module(n: usize, inner_ops: &str) -> String {
    let inner = loop_comps("i", n, 4, &inner_ops.replace('#', &n.to_string()));
    let helpers = format!("{ADD_F}\n\n{inner}");
    let outer = format!(
        "  z = s32[] constant(0)
  t0 = (s32[], f32[{n}], f32[{n}]) tuple(z, x, y)
  w = (s32[], f32[{n}], f32[{n}]) while(t0), condition=icond, body=ibody
  wx = f32[{n}] get-tuple-element(w), index=1
  ny = f32[{n}] get-tuple-element(w), index=2
  nx = f32[{n}] add(wx, y)"
    );
    loop_module("nested_updates", n, &helpers, &outer)
}

#[test]
fn nested_loop_updates_match_the_interpreter() {
    // Updates of a nested loop's state: read before the update (may run in place), read
    // after it (must not), updated twice, and a scatter; short slots (unrolled) and long
    // ones (copied 16 bytes at a time when not in place).
    let bodies = [
        "  x2 = f32[#] multiply(x, x)
  v = f32[2] slice(x2), slice={[1:3]}
  nx = f32[#] dynamic-update-slice(x, v, i)
  ny = f32[#] add(y, x2)",
        "  v = f32[2] slice(y), slice={[0:2]}
  nx = f32[#] dynamic-update-slice(x, v, i)
  yx = f32[#] add(y, x)
  ny = f32[#] dynamic-update-slice(yx, v, ni)",
        "  v = f32[2] slice(y), slice={[2:4]}
  u = f32[#] dynamic-update-slice(x, v, i)
  two = s32[] constant(2)
  k = s32[] multiply(i, two)
  v2 = f32[1] slice(u), slice={[0:1]}
  nx = f32[#] dynamic-update-slice(u, v2, k)
  ny = f32[#] subtract(y, nx)",
        "  idx = s32[2,1] constant({{1}, {3}})
  v = f32[2] slice(y), slice={[1:3]}
  nx = f32[#] scatter(x, idx, v), update_window_dims={}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add_f
  ny = f32[#] multiply(y, y)",
    ];
    for body in bodies {
        for n in [5, 40] {
            check(&nested_module(n, body), 2, 0..3, true);
        }
    }
}

#[test]
fn conditionals_by_pred_and_by_index() {
    // The index runs -1, 0, 1, 2 over the iterations (and the loop passes 3 once more):
    // below and past the range it takes the last branch, as the interpreter does.
    let helpers = "br0 {
  p = (f32[#], f32[#]) parameter(0)
  a = f32[#] get-tuple-element(p), index=0
  b = f32[#] get-tuple-element(p), index=1
  ROOT r = f32[#] add(a, b)
}

br1 {
  p = (f32[#], f32[#]) parameter(0)
  a = f32[#] get-tuple-element(p), index=0
  ROOT r = f32[#] multiply(a, a)
}

br2 {
  p = f32[#] parameter(0)
  ROOT r = f32[#] negate(p)
}

tb {
  p = f32[#] parameter(0)
  ROOT r = f32[#] exponential(p)
}

fb {
  p = f32[#] parameter(0)
  ROOT r = f32[#] sine(p)
}";
    check_ops(
        "cond",
        helpers,
        "  m1 = s32[] constant(-1)
  k = s32[] add(i, m1)
  pr = (f32[#], f32[#]) tuple(x, y)
  c = f32[#] conditional(k, pr, pr, y), branch_computations={br0, br1, br2}
  z = s32[] constant(1)
  p = pred[] compare(i, z), direction=LT
  d = f32[#] conditional(p, c, x), true_computation=tb, false_computation=fb
  nx = f32[#] add(c, d)
  ny = f32[#] subtract(y, d)",
    );
}

#[test]
fn gathers_with_clamped_starts() {
    // Row lookups (an embedding), and 2-d starts that run below 0 and past the end.
    check_ops(
        "gather",
        "",
        "  bx = f32[4,#] broadcast(x), dimensions={1}
  iv = s32[3] constant({2, -1, 7})
  ia = s32[3] broadcast(i), dimensions={}
  ix = s32[3] add(iv, ia)
  ixr = s32[3,1] reshape(ix)
  rows = f32[3,#] gather(bx, ixr), offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1, slice_sizes={1,#}
  two = s32[2,2] constant({{-3, 1}, {2, 40}})
  ib = s32[2,2] broadcast(i), dimensions={}
  i2 = s32[2,2] add(two, ib)
  win = f32[2,2,2] gather(bx, i2), offset_dims={1,2}, collapsed_slice_dims={}, start_index_map={0,1}, index_vector_dim=1, slice_sizes={2,2}
  w0 = f32[1,1,2] slice(win), slice={[1:2], [1:2], [0:2]}
  w1 = f32[2] reshape(w0)
  r0 = f32[1,#] slice(rows), slice={[2:3], [0:#]}
  r1 = f32[#] reshape(r0)
  nx = f32[#] add(r1, y)
  pz = f32[] constant(0)
  wp = f32[#] pad(w1, pz), padding=1_@
  ny = f32[#] multiply(y, wp)",
    );
}

#[test]
fn scatters_set_add_and_skipped_windows() {
    // Duplicate targets (applied in update order), windows past either end (skipped),
    // the implicit index vector dim, set and add combiners.
    let helpers = "add_f {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT r = f32[] add(a, b)
}

set_f {
  a = f32[] parameter(0)
  ROOT b = f32[] parameter(1)
}";
    check_ops(
        "scatter",
        helpers,
        "  iv = s32[4] constant({1, 1, -1, 3})
  ia = s32[4] broadcast(i), dimensions={}
  ix = s32[4] add(iv, ia)
  u = f32[4] slice(x), slice={[0:4]}
  sa = f32[#] scatter(y, ix, u), update_window_dims={}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add_f
  ss = f32[#] scatter(sa, ix, u), update_window_dims={}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=set_f
  bx = f32[3,#] broadcast(x), dimensions={1}
  rq = s32[] constant(1)
  rr = s32[] add(rq, i)
  row = f32[#] multiply(y, y)
  rw = f32[1,#] reshape(row)
  s2 = f32[3,#] scatter(bx, rr, rw), update_window_dims={0,1}, inserted_window_dims={}, scatter_dims_to_operand_dims={0}, index_vector_dim=0, to_apply=set_f
  s3 = f32[3,#] scatter(s2, rr, row), update_window_dims={0}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=0, to_apply=add_f
  l0 = f32[1,#] slice(s3), slice={[2:3], [0:#]}
  l = f32[#] reshape(l0)
  nx = f32[#] add(ss, l)
  ny = f32[#] subtract(y, l)",
    );
}

fn real_program(name: &str) -> String {
    let path = format!(
        "{}/../benches/real/hlo/{name}.hlo",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read_to_string(path).unwrap()
}

#[test]
fn ecosystem_loops_match_the_interpreter() {
    // Every while loop of these runs natively: CG and BiCGSTAB (a 256x256 and a 128x128
    // matrix in the state), BFGS with its line-search loops nested inside, odeint and its
    // adjoint (nested loops, scatters into the stage matrix), a scanned GRU at batch 1, a
    // Kalman filter (LAPACK getrf/trsm custom calls inside the scan) and eight-schools HMC.
    for (name, loops) in [
        ("E1_cg_solve", 1),
        ("E2_bicgstab", 1),
        ("E3_bfgs_logreg", 4),
        ("E4_odeint_grad", 7),
        ("E5_gru_scan_b1", 1),
        ("E7_kalman_scan", 2),
        ("E8_eight_schools_hmc", 1),
    ] {
        // Against the interpreter's own plan: its fused and unfused paths sum in different
        // orders, and BFGS and odeint amplify that difference.
        check_with(&real_program(name), loops, 0..1, false, false);
    }
}

#[test]
fn f64_loops() {
    let helpers = "add_d {
  a = f64[] parameter(0)
  b = f64[] parameter(1)
  ROOT r = f64[] add(a, b)
}

max_d {
  a = f64[] parameter(0)
  b = f64[] parameter(1)
  ROOT r = f64[] maximum(a, b)
}";
    check_ops(
        "f64",
        helpers,
        "  a = f64[#] convert(x)
  b = f64[#] convert(y)
  e = f64[#] exponential(a)
  l = f64[#] log(b)
  t = f64[#] tanh(e)
  g = f64[#] logistic(l)
  p = f64[#] power(a, b)
  m = f64[#] maximum(t, g)
  n = f64[#] minimum(p, a)
  d = f64[#] divide(m, n)
  s = f64[#] sine(d)
  z = f64[] constant(0)
  ninf = f64[] constant(-inf)
  r1 = f64[] reduce(d, z), dimensions={0}, to_apply=add_d
  r2 = f64[] reduce(b, ninf), dimensions={0}, to_apply=max_d
  ba = f64[3,#] broadcast(a), dimensions={1}
  mv = f64[3] dot(ba, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  mv0 = f64[1] slice(mv), slice={[1:2]}
  mvs = f64[] reshape(mv0)
  rs = f64[] add(r1, r2)
  rr = f64[] add(rs, mvs)
  rb = f64[#] broadcast(rr), dimensions={}
  o = f64[#] add(s, rb)
  nx = f32[#] convert(o)
  k = s64[#] convert(b)
  kf = f32[#] convert(k)
  ny = f32[#] add(kf, y)",
    );
}

#[test]
fn unsupported_ops_fall_back() {
    // `sort` has no native form: the loop runs on the interpreter, with the same result.
    let helpers = "lt_f {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT r = pred[] compare(a, b), direction=LT
}";
    for n in [5, 37] {
        let ops = "  s = f32[#] sort(x), dimensions={0}, to_apply=lt_f\n  nx = f32[#] add(s, y)\n  ny = f32[#] multiply(y, y)"
            .replace('#', &n.to_string());
        let text = loop_module("fallback", n, helpers, &ops);
        check(&text, 0, 2..4, true);
    }
}

/// Timings of the benchmark loops, native against the interpreter, on the inputs the
/// benchmarks use (`/tmp/inputs`, see the perf notes): `cargo test --release --test native
/// -- --ignored --nocapture`.
#[test]
#[ignore = "timing, not a check"]
fn time_benchmark_loops() {
    for name in ["B16_rk45_adaptive", "B17_hmc_leapfrog"] {
        let m = xla_core::text::parse_module(&bench_module(name)).unwrap();
        let t0 = std::time::Instant::now();
        let exe = Executable::compile(&m).unwrap();
        let compile = t0.elapsed();
        let mut interp = Executable::compile(&m).unwrap();
        interp.drop_native_loops();
        let n = m.entry_computation().unwrap().parameters().len();
        let args: Vec<Literal> = (0..n)
            .map(|k| Literal::read_npy(format!("/tmp/inputs/{name}/in{k}.npy")).unwrap())
            .collect();
        let median = |e: &Executable| {
            let mut t: Vec<f64> = (0..200)
                .map(|_| {
                    let s = std::time::Instant::now();
                    e.execute(&args).unwrap();
                    s.elapsed().as_secs_f64()
                })
                .collect();
            t.sort_by(f64::total_cmp);
            t[t.len() / 2]
        };
        println!(
            "{name}: compile {:.1} ms, native {:.1} us, interpreter {:.1} us",
            compile.as_secs_f64() * 1e3,
            median(&exe) * 1e6,
            median(&interp) * 1e6
        );
    }
    // Fixed cost per iteration: a loop that only counts to a million.
    let text = "HloModule count
body {
  s = (s32[], f32[]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  x = f32[] get-tuple-element(s), index=1
  one = s32[] constant(1)
  j = s32[] add(i, one)
  ROOT t = (s32[], f32[]) tuple(j, x)
}
cond {
  s = (s32[], f32[]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(1000000)
  ROOT lt = pred[] compare(i, n), direction=LT
}
ENTRY main {
  x = f32[] parameter(0)
  z = s32[] constant(0)
  t = (s32[], f32[]) tuple(z, x)
  ROOT w = (s32[], f32[]) while(t), condition=cond, body=body
}
";
    let m = xla_core::text::parse_module(text).unwrap();
    let exe = Executable::compile(&m).unwrap();
    let s = std::time::Instant::now();
    exe.execute(&[Literal::scalar(1f32)]).unwrap();
    println!(
        "empty loop: {:.2} ns per iteration",
        s.elapsed().as_secs_f64() * 1e9 / 1e6
    );
}
