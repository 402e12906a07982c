//! Independent heavy steps run side by side (`concurrent.rs`, `partner.rs`): they are
//! grouped in the plan, and the results are the reference path's and the same bits at 1,
//! 2, 3 and 8 threads, inside while loops and out, with NaN, ±inf and ±0 in the inputs.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use xla_core::literal::ArrayData;
use xla_core::{Literal, PrimitiveType, Shape};
use xla_cpu::Executable;

/// Three gate products of a recurrent cell per iteration: independent of each other, each
/// 16*128*128 multiply-adds (worth a thread, too small to split).
const GRU_LIKE: &str = r#"HloModule gru_like
body {
  p = (s32[], f32[16,128], f32[128,128], f32[128,128], f32[128,128]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  h = f32[16,128] get-tuple-element(p), index=1
  w1 = f32[128,128] get-tuple-element(p), index=2
  w2 = f32[128,128] get-tuple-element(p), index=3
  w3 = f32[128,128] get-tuple-element(p), index=4
  a = f32[16,128] dot(h, w1), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  b = f32[16,128] dot(h, w2), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  c = f32[16,128] dot(h, w3), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  s = f32[16,128] add(a, b)
  u = f32[16,128] multiply(s, c)
  h2 = f32[16,128] tanh(u)
  one = s32[] constant(1)
  i2 = s32[] add(i, one)
  ROOT t = (s32[], f32[16,128], f32[128,128], f32[128,128], f32[128,128]) tuple(i2, h2, w1, w2, w3)
}
cond {
  p = (s32[], f32[16,128], f32[128,128], f32[128,128], f32[128,128]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  n = s32[] constant(6)
  ROOT lt = pred[] compare(i, n), direction=LT
}
ENTRY main {
  h0 = f32[16,128] parameter(0)
  w1 = f32[128,128] parameter(1)
  w2 = f32[128,128] parameter(2)
  w3 = f32[128,128] parameter(3)
  zero = s32[] constant(0)
  t = (s32[], f32[16,128], f32[128,128], f32[128,128], f32[128,128]) tuple(zero, h0, w1, w2, w3)
  w = (s32[], f32[16,128], f32[128,128], f32[128,128], f32[128,128]) while(t), condition=cond, body=body
  h = f32[16,128] get-tuple-element(w), index=1
  g1 = f32[128,128] dot(h, h), lhs_contracting_dims={0}, rhs_contracting_dims={0}
  g2 = f32[16,16] dot(h, h), lhs_contracting_dims={1}, rhs_contracting_dims={1}
  x1 = f32[128,128] dot(w1, w2), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ROOT r = (f32[16,128], f32[128,128], f32[16,16], f32[128,128]) tuple(h, g1, g2, x1)
}"#;

/// Seeded values in [-0.2, 0.2), with NaN, ±inf, ±0 and a subnormal sprinkled in when
/// `specials` (a recurrence spreads one NaN to every element, so loops get none).
fn arg(dims: &[i64], seed: u64, specials: bool) -> Literal {
    let n = dims.iter().product::<i64>() as usize;
    let mut s = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    let odd = [f32::NAN, f32::INFINITY, f32::NEG_INFINITY, 0.0, -0.0, 1e-40];
    let v = (0..n)
        .map(|k| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            if specials && k % 97 == 13 {
                odd[(s % 6) as usize]
            } else {
                ((s >> 40) as f32 / (1u64 << 24) as f32 * 2.0 - 1.0) * 0.2
            }
        })
        .collect();
    Literal::from_array_data(
        Shape::array(PrimitiveType::F32, dims.to_vec()),
        ArrayData::F32(v),
    )
    .unwrap()
}

/// Equal to the reference within `1e-6` relative (any NaN matching any NaN), without
/// printing the arrays when not.
fn assert_close(got: &Literal, want: &Literal, what: &str) {
    for (k, (g, w)) in got
        .tuple_elements()
        .unwrap()
        .iter()
        .zip(want.tuple_elements().unwrap())
        .enumerate()
    {
        let (g, w) = (g.data::<f32>().unwrap(), w.data::<f32>().unwrap());
        for (i, (&a, &b)) in g.iter().zip(w).enumerate() {
            let ok = (a.is_nan() && b.is_nan()) || a == b || (a - b).abs() <= 1e-6 * b.abs();
            assert!(ok, "{what}: result {k}, element {i}: {a} vs reference {b}");
        }
    }
}

fn bits(l: &Literal) -> Vec<Vec<u32>> {
    l.tuple_elements()
        .unwrap()
        .iter()
        .map(|e| {
            e.data::<f32>()
                .unwrap()
                .iter()
                .map(|x| x.to_bits())
                .collect()
        })
        .collect()
}

/// The sizes of the groups of computation `c`'s plan (steps run alone left out).
fn groups(exe: &Executable, c: xla_core::CompId) -> Vec<usize> {
    exe.plan_steps(c)
        .iter()
        .map(|s| s.group)
        .filter(|&g| g > 1)
        .collect()
}

/// Four arguments: `x` of `xd` and three weights of `wd`, seeded from `seed`.
fn four(xd: &[i64], wd: &[i64], seed: u64, specials: bool) -> [Literal; 4] {
    [
        arg(xd, seed, specials),
        arg(wd, seed + 1, specials),
        arg(wd, seed + 2, specials),
        arg(wd, seed + 3, specials),
    ]
}

#[test]
fn independent_products_are_grouped_and_agree_bit_for_bit() {
    let m = xla_core::text::parse_module(GRU_LIKE).unwrap();
    let mut exe = Executable::compile(&m).unwrap();
    let body = exe
        .module()
        .computations
        .iter()
        .position(|c| c.name == "body")
        .unwrap();
    assert_eq!(
        groups(&exe, xla_core::CompId(body)),
        vec![3],
        "the three gate products form one group"
    );
    // After the loop: the two 128x128 products, and the f32[16,16] one (16*16*128
    // multiply-adds, not worth a thread of its own) as a filler taken by whichever
    // thread is free first.
    assert_eq!(
        groups(&exe, exe.module().entry),
        vec![3],
        "the two large products after the loop, and the small one"
    );

    let args = four(&[16, 128], &[128, 128], 1, false);
    agree(&mut exe, &args);
}

/// Runs at 1, 2, 3 and 8 threads, 5 times each: the reference path's values, and the
/// same bits every time.
fn agree(exe: &mut Executable, args: &[Literal]) {
    let refs: Vec<&Literal> = args.iter().collect();
    let want = exe.execute_unfused(&refs).unwrap();
    exe.set_threads(1);
    let first = exe.execute_borrowed(&refs).unwrap();
    assert_close(&first, &want, "fused vs reference");
    let first = bits(&first);
    for threads in [1, 2, 3, 8] {
        exe.set_threads(threads);
        for round in 0..5 {
            let got = bits(&exe.execute_borrowed(&refs).unwrap());
            assert!(
                got == first,
                "{threads} threads, round {round}: bits differ"
            );
        }
    }
}

/// Independent products outside a loop, on inputs with NaN, ±inf, ±0 and subnormals.
#[test]
fn grouped_products_keep_special_values() {
    let text = r#"HloModule three
ENTRY main {
  x = f32[32,128] parameter(0)
  w1 = f32[128,96] parameter(1)
  w2 = f32[128,96] parameter(2)
  w3 = f32[128,96] parameter(3)
  a = f32[32,96] dot(x, w1), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  b = f32[32,96] dot(x, w2), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  c = f32[32,96] dot(x, w3), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ROOT r = (f32[32,96], f32[32,96], f32[32,96]) tuple(a, b, c)
}"#;
    let mut exe = Executable::compile(&xla_core::text::parse_module(text).unwrap()).unwrap();
    assert_eq!(groups(&exe, exe.module().entry), vec![3]);
    let args = four(&[32, 128], &[128, 96], 5, true);
    agree(&mut exe, &args);
}

/// A step that reads a value computed between two candidates is not moved past it.
#[test]
fn dependent_products_stay_in_order() {
    let text = r#"HloModule chain
ENTRY main {
  x = f32[16,128] parameter(0)
  w = f32[128,128] parameter(1)
  a = f32[16,128] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  b = f32[16,128] dot(a, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  c = f32[16,128] dot(b, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ROOT r = (f32[16,128], f32[16,128]) tuple(a, c)
}"#;
    let exe = Executable::compile(&xla_core::text::parse_module(text).unwrap()).unwrap();
    let steps = exe.plan_steps(exe.module().entry);
    assert!(steps.iter().all(|s| s.group == 1), "{steps:?}");
}

/// Two large independent products of the same size run side by side, one thread each;
/// a third, four times larger, is left to split over the pool alone.
#[test]
fn large_products_of_similar_size_pair_up() {
    let text = r#"HloModule big
ENTRY main {
  x = f32[256,512] parameter(0)
  w1 = f32[512,256] parameter(1)
  w2 = f32[512,256] parameter(2)
  x2 = f32[1024,512] parameter(3)
  a = f32[256,256] dot(x, w1), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  c = f32[1024,256] dot(x2, w1), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  b = f32[256,256] dot(x, w2), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ROOT r = (f32[256,256], f32[1024,256], f32[256,256]) tuple(a, c, b)
}"#;
    let mut exe = Executable::compile(&xla_core::text::parse_module(text).unwrap()).unwrap();
    assert_eq!(groups(&exe, exe.module().entry), vec![2]);
    let args = [
        arg(&[256, 512], 7, true),
        arg(&[512, 256], 8, true),
        arg(&[512, 256], 9, true),
        arg(&[1024, 512], 10, true),
    ];
    agree(&mut exe, &args);
}

/// Heavy products and smaller independent kernels (a column sum, a short elementwise
/// chain) as fillers: one group, the reference path's values and the same bits at any
/// thread count, NaN, ±inf and ±0 included.
const FILLERS: &str = r#"HloModule fillers
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY main {
  x = f32[16,128] parameter(0)
  w1 = f32[128,128] parameter(1)
  w2 = f32[128,128] parameter(2)
  w3 = f32[128,128] parameter(3)
  y = f32[32,128] parameter(4)
  z = f32[16,128] parameter(5)
  zero = f32[] constant(0)
  a = f32[16,128] dot(x, w1), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  b = f32[16,128] dot(x, w2), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  yy = f32[32,128] multiply(y, y)
  s = f32[128] reduce(yy, zero), dimensions={0}, to_apply=add
  c = f32[16,128] dot(x, w3), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  zz = f32[16,128] multiply(z, z)
  zs = f32[16,128] add(zz, z)
  e = f32[16,128] tanh(zs)
  ROOT r = (f32[16,128], f32[16,128], f32[16,128], f32[128], f32[16,128]) tuple(a, b, c, s, e)
}"#;

#[test]
fn small_independent_kernels_fill_a_group() {
    let mut exe = Executable::compile(&xla_core::text::parse_module(FILLERS).unwrap()).unwrap();
    assert_eq!(groups(&exe, exe.module().entry), vec![5]);
    let [x, w1, w2, w3] = four(&[16, 128], &[128, 128], 11, true);
    let args = [
        x,
        w1,
        w2,
        w3,
        arg(&[32, 128], 15, true),
        arg(&[16, 128], 16, true),
    ];
    agree(&mut exe, &args);
}

/// With one heavy step only there is no group to fill: the small kernels stay in place.
#[test]
fn fillers_alone_with_one_heavy_step_stay_in_place() {
    let one = FILLERS
        .replace(
            "  b = f32[16,128] dot(x, w2), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n",
            "",
        )
        .replace(
            "  c = f32[16,128] dot(x, w3), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n",
            "",
        )
        .replace(
            "ROOT r = (f32[16,128], f32[16,128], f32[16,128], f32[128], f32[16,128]) tuple(a, b, c, s, e)",
            "ROOT r = (f32[16,128], f32[128], f32[16,128]) tuple(a, s, e)",
        );
    let mut exe = Executable::compile(&xla_core::text::parse_module(&one).unwrap()).unwrap();
    assert!(groups(&exe, exe.module().entry).is_empty(), "{one}");
    let [x, w1, w2, w3] = four(&[16, 128], &[128, 128], 21, true);
    let args = [
        x,
        w1,
        w2,
        w3,
        arg(&[32, 128], 25, true),
        arg(&[16, 128], 26, true),
    ];
    agree(&mut exe, &args);
}
