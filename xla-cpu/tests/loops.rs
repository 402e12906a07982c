//! Loop state handed on in place (get-tuple-element moves, dynamic-update-slice into the
//! carried buffer, reshape/copy reusing their operand, the while state moved into the loop)
//! against the reference path, which copies every value: bit-identical results, on inputs
//! with NaN, ±inf and ±0, and the caller's arguments never modified.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use xla_core::literal::ArrayData;
use xla_core::{Literal, PrimitiveType, Shape};
use xla_cpu::Executable;

fn values(n: usize, seed: u64) -> Vec<f32> {
    const SPECIAL: [f32; 5] = [f32::NAN, f32::INFINITY, f32::NEG_INFINITY, 0.0, -0.0];
    let mut s = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    (0..n)
        .map(|i| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            if i % 11 == 5 {
                SPECIAL[(s >> 20) as usize % SPECIAL.len()]
            } else {
                (s >> 40) as f32 / (1u64 << 24) as f32 * 2.0 - 1.0
            }
        })
        .collect()
}

fn arg(dims: &[i64], seed: u64) -> Literal {
    let n = dims.iter().product::<i64>() as usize;
    let shape = Shape::array(PrimitiveType::F32, dims.to_vec());
    Literal::from_array_data(shape, ArrayData::F32(values(n, seed))).unwrap()
}

fn bits(l: &Literal, out: &mut Vec<u64>) {
    match l.tuple_elements() {
        Some(t) => t.iter().for_each(|e| bits(e, out)),
        None => match l.array_data().unwrap() {
            ArrayData::F32(v) => out.extend(v.iter().map(|x| u64::from(x.to_bits()))),
            ArrayData::S32(v) => out.extend(v.iter().map(|&x| x as u64)),
            d => panic!("unexpected {:?}", d.element_type()),
        },
    }
}

/// Runs `text` fused (buffers handed on) and on the reference path; checks the results
/// agree bit for bit and the arguments are unchanged.
fn same(text: &str, args: &[Literal]) -> Literal {
    let m = xla_core::text::parse_module(text).unwrap();
    let exe = Executable::compile(&m).unwrap();
    let before: Vec<Literal> = args.to_vec();
    let refs: Vec<&Literal> = args.iter().collect();
    let got = exe.execute_borrowed(&refs).unwrap();
    let want = exe.execute_unfused(&refs).unwrap();
    let (mut g, mut w) = (Vec::new(), Vec::new());
    bits(&got, &mut g);
    bits(&want, &mut w);
    assert_eq!(g, w);
    for (a, b) in args.iter().zip(&before) {
        let (mut x, mut y) = (Vec::new(), Vec::new());
        bits(a, &mut x);
        bits(b, &mut y);
        assert_eq!(x, y, "an argument was modified");
    }
    got
}

/// A scan: the carry is updated and every step's output is written into a stacked buffer
/// with dynamic-update-slice; one state element passes through unchanged, one is reshaped
/// there and back.
const SCAN: &str = r#"HloModule scan

cond {
  s = (s32[], f32[4,6], f32[8,4,6], f32[24], f32[2,3]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(8)
  ROOT lt = pred[] compare(i, n), direction=LT
}

body {
  s = (s32[], f32[4,6], f32[8,4,6], f32[24], f32[2,3]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  h = f32[4,6] get-tuple-element(s), index=1
  ys = f32[8,4,6] get-tuple-element(s), index=2
  w = f32[24] get-tuple-element(s), index=3
  k = f32[2,3] get-tuple-element(s), index=4
  w2 = f32[4,6] reshape(w)
  t = f32[4,6] tanh(h)
  h2 = f32[4,6] add(t, w2)
  y = f32[1,4,6] reshape(h2)
  z = s32[] constant(0)
  ys2 = f32[8,4,6] dynamic-update-slice(ys, y, i, z, z)
  w3 = f32[24] reshape(w2)
  one = s32[] constant(1)
  i2 = s32[] add(i, one)
  ROOT r = (s32[], f32[4,6], f32[8,4,6], f32[24], f32[2,3]) tuple(i2, h2, ys2, w3, k)
}

ENTRY main {
  h0 = f32[4,6] parameter(0)
  ys0 = f32[8,4,6] parameter(1)
  w = f32[24] parameter(2)
  k = f32[2,3] parameter(3)
  z = s32[] constant(0)
  init = (s32[], f32[4,6], f32[8,4,6], f32[24], f32[2,3]) tuple(z, h0, ys0, w, k)
  loop = (s32[], f32[4,6], f32[8,4,6], f32[24], f32[2,3]) while(init), condition=cond, body=body
  ys = f32[8,4,6] get-tuple-element(loop), index=2
  kk = f32[2,3] get-tuple-element(loop), index=4
  h = f32[4,6] get-tuple-element(loop), index=1
  again = f32[4,6] get-tuple-element(loop), index=1
  sum = f32[4,6] add(h, again)
  ROOT out = (f32[8,4,6], f32[2,3], f32[4,6], f32[4,6], f32[24]) tuple(ys, kk, sum, h0, w)
}
"#;

#[test]
fn scan_state_in_place_matches_the_reference() {
    let args = [
        arg(&[4, 6], 1),
        arg(&[8, 4, 6], 2),
        arg(&[24], 3),
        arg(&[2, 3], 4),
    ];
    let out = same(SCAN, &args);
    // The stacked outputs really are the steps' carries (row 7 is the last carry).
    let t = out.tuple_elements().unwrap();
    let ys = t[0].data::<f32>().unwrap();
    let h = t[2].data::<f32>().unwrap();
    for (j, (&y, &s)) in ys[7 * 24..].iter().zip(h).enumerate() {
        assert!(
            (y + y).to_bits() == s.to_bits() || (y.is_nan() && s.is_nan()),
            "{j}"
        );
    }
}

/// The while's init is also read by a get-tuple-element (which must not take its element
/// out, the loop still needs it), and the loop must work on a copy of it; a
/// dynamic-update-slice whose operand is read later must not write into it.
const SHARED: &str = r#"HloModule shared

cond {
  s = (s32[], f32[6]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(3)
  ROOT lt = pred[] compare(i, n), direction=LT
}

body {
  s = (s32[], f32[6]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  v = f32[6] get-tuple-element(s), index=1
  u = f32[2] constant({7, 8})
  v2 = f32[6] dynamic-update-slice(v, u, i)
  d = f32[6] add(v, v2)
  one = s32[] constant(1)
  i2 = s32[] add(i, one)
  ROOT r = (s32[], f32[6]) tuple(i2, d)
}

ENTRY main {
  x = f32[6] parameter(0)
  y = f32[6] negate(x)
  z = s32[] constant(0)
  init = (s32[], f32[6]) tuple(z, y)
  after = f32[6] get-tuple-element(init), index=1
  loop = (s32[], f32[6]) while(init), condition=cond, body=body
  res = f32[6] get-tuple-element(loop), index=1
  ROOT out = (f32[6], f32[6]) tuple(res, after)
}
"#;

#[test]
fn values_read_after_an_update_are_not_overwritten() {
    let x = Literal::vec1(&[1f32, -0.0, f32::NAN, 4.0, f32::INFINITY, 6.0]);
    let out = same(SHARED, &[x]);
    let after = out.tuple_elements().unwrap()[1].data::<f32>().unwrap();
    assert_eq!(after[0], -1.0);
    assert_eq!(after[5], -6.0);
}
