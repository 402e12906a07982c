//! Products accumulated in place (`kernels/dot_add.rs`, `rewrite/dot_add.rs`):
//! `add(c, dot(a, b))` becomes one product added into `c`'s buffer. Random modules (batch
//! dims or none, either operand order of the add, operands stored row- or column-major,
//! contractions of every size up to the rewrite's limit, products large enough to be
//! shared with the partner thread, an accumulator read twice or once) at top level and in
//! a scan-like `while` accumulating three weight gradients per step (in place, side by
//! side, and as native code); inputs hold NaN, ±inf and ±0. Each result is compared bit
//! for bit with the same module compiled without rewrites and run one instruction at a
//! time (every NaN counted as one pattern).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use xla_core::Literal;

mod gen;
use gen::{bits, f32s, fused_matches_reference, shape_text, Rng};

/// The contraction sizes always tried, besides random ones: the rewrite's limits, each
/// side of a vector width, and sizes between.
const KS: [i64; 11] = [2, 3, 8, 15, 16, 17, 31, 64, 100, 255, 256];

/// A random `add(c, dot(a, b))` module; returns its text and arguments.
fn random_module(rng: &mut Rng, case: usize) -> (String, Vec<Literal>) {
    let k = if case < KS.len() {
        KS[case]
    } else {
        rng.range(2, 256)
    };
    let big = rng.next() % 4 == 0;
    let (m, n) = if big {
        (rng.pick(&[128i64, 256]), rng.pick(&[128i64, 256]))
    } else {
        (
            rng.pick(&[1i64, 2, 5, 16, 33, 64]),
            rng.pick(&[1i64, 2, 7, 16, 40, 130]),
        )
    };
    let batch = rng.pick(&[0i64, 0, 1, 3]);
    let lhs_t = rng.next().is_multiple_of(2); // lhs stored [k, m] (column-major product operand)
    let rhs_t = rng.next().is_multiple_of(2); // rhs stored [n, k]
    let dot_first = rng.next().is_multiple_of(2);
    let twice = rng.next() % 4 == 0; // the accumulator also read by a second product
    let lead = |v: Vec<i64>| {
        let mut d = if batch > 0 { vec![batch] } else { vec![] };
        d.extend(v);
        d
    };
    let (ld, rd) = (
        lead(if lhs_t { vec![k, m] } else { vec![m, k] }),
        lead(if rhs_t { vec![n, k] } else { vec![k, n] }),
    );
    let od = lead(vec![m, n]);
    let o = usize::from(batch > 0) as i64;
    let (lc, rc) = (if lhs_t { o } else { o + 1 }, if rhs_t { o + 1 } else { o });
    let bd = if batch > 0 {
        ", lhs_batch_dims={0}, rhs_batch_dims={0}"
    } else {
        ""
    };
    let dims = format!("lhs_contracting_dims={{{lc}}}, rhs_contracting_dims={{{rc}}}{bd}");
    let sum = |d: &str| match dot_first {
        true => format!("{d}, c"),
        false => format!("c, {d}"),
    };
    let mut body = vec![
        format!("a = {} parameter(0)", shape_text(&ld)),
        format!("b = {} parameter(1)", shape_text(&rd)),
        format!("c = {} parameter(2)", shape_text(&od)),
        format!("d = {} dot(a, b), {dims}", shape_text(&od)),
        format!("s = {} add({})", shape_text(&od), sum("d")),
    ];
    let root = if twice {
        body.push(format!("an = {} negate(a)", shape_text(&ld)));
        body.push(format!("g = {} dot(an, b), {dims}", shape_text(&od)));
        body.push(format!("t = {} add({})", shape_text(&od), sum("g")));
        format!("v = {} multiply(s, t)", shape_text(&od))
    } else {
        format!("v = {} multiply(s, s)", shape_text(&od))
    };
    let text = format!(
        "HloModule dot_add_{case}\n\nENTRY main {{\n  {}\n  ROOT {root}\n}}\n",
        body.join("\n  ")
    );
    let args = vec![f32s(&ld, rng), f32s(&rd, rng), f32s(&od, rng)];
    (text, args)
}

/// Random top-level products: the same bits as the dot and the add, and the add is
/// rewritten (the profile runs the accumulated product, `dot+add`, no separate add).
#[test]
fn accumulated_products_give_the_dot_and_add_bits() {
    let mut rng = Rng(0xd07_add);
    for case in 0..200 {
        let (text, args) = random_module(&mut rng, case);
        let ops = fused_matches_reference(case, &text, &args);
        assert!(
            ops.iter().any(|o| o == "dot+add"),
            "case {case}: not accumulated in place: {ops:?}\n{text}"
        );
    }
}

/// The same for f64 products: the module of each of a few random cases with every f32
/// made f64, against the unrewritten module run one instruction at a time.
#[test]
fn accumulated_f64_products_give_the_dot_and_add_bits() {
    use xla_core::literal::ArrayData;
    let f64_bits = |l: &Literal| -> Vec<u64> {
        l.data::<f64>()
            .unwrap()
            .iter()
            .map(|x| {
                if x.is_nan() {
                    0x7ff8 << 48
                } else {
                    x.to_bits()
                }
            })
            .collect()
    };
    let mut rng = Rng(0xf64);
    for case in 0..40 {
        let (text, args) = random_module(&mut rng, case);
        let text = text.replace("f32", "f64");
        let args: Vec<Literal> = args
            .iter()
            .map(|a| {
                let v = a
                    .data::<f32>()
                    .unwrap()
                    .iter()
                    .map(|&x| f64::from(x))
                    .collect();
                let shape =
                    xla_core::Shape::array(xla_core::PrimitiveType::F64, a.shape().dims().to_vec());
                Literal::from_array_data(shape, ArrayData::F64(v)).unwrap()
            })
            .collect();
        let m = xla_core::text::parse_module(&text).unwrap();
        let refs: Vec<&Literal> = args.iter().collect();
        let plain = xla_cpu::Executable::compile_without_rewrites(&m).unwrap();
        let want = f64_bits(&plain.execute_unfused(&refs).unwrap());
        let mut exe = xla_cpu::Executable::compile(&m).unwrap();
        for threads in [1, 2] {
            exe.set_threads(threads);
            let got = f64_bits(&exe.execute_borrowed(&refs).unwrap());
            assert!(got == want, "case {case}, {threads} threads\n{text}");
        }
    }
}

/// What the rewrite leaves alone: a contraction over the limit (257) or of one element
/// (which faer would round once with the accumulator), a product read twice, an
/// accumulator computed on the fly (a broadcast, fused with the add instead), a sum of two
/// products (which run side by side instead).
#[test]
fn other_adds_of_products_stay_adds() {
    let mut rng = Rng(7);
    let cases = [
        "a = f32[3,1,128] parameter(0)\n  b = f32[3,1,256] parameter(1)\n  \
         c = f32[3,128,256] parameter(2)\n  d = f32[3,128,256] dot(a, b), \
         lhs_contracting_dims={1}, rhs_contracting_dims={1}, lhs_batch_dims={0}, \
         rhs_batch_dims={0}\n  ROOT s = f32[3,128,256] add(d, c)",
        "a = f32[8,257] parameter(0)\n  b = f32[257,9] parameter(1)\n  c = f32[8,9] parameter(2)\n  \
         d = f32[8,9] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n  \
         ROOT s = f32[8,9] add(c, d)",
        "a = f32[8,16] parameter(0)\n  b = f32[16,9] parameter(1)\n  c = f32[8,9] parameter(2)\n  \
         d = f32[8,9] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n  \
         s = f32[8,9] add(c, d)\n  ROOT t = f32[8,9] multiply(s, d)",
        "a = f32[8,16] parameter(0)\n  b = f32[16,9] parameter(1)\n  x = f32[9] parameter(2)\n  \
         d = f32[8,9] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n  \
         c = f32[8,9] broadcast(x), dimensions={1}\n  ROOT s = f32[8,9] add(d, c)",
        "a = f32[8,16] parameter(0)\n  b = f32[16,9] parameter(1)\n  c = f32[16,9] parameter(2)\n  \
         d = f32[8,9] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n  \
         e = f32[8,9] dot(a, c), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n  \
         ROOT s = f32[8,9] add(d, e)",
    ];
    for (case, body) in cases.iter().enumerate() {
        let text = format!("HloModule keep_{case}\n\nENTRY main {{\n  {body}\n}}\n");
        let m = xla_core::text::parse_module(&text).unwrap();
        let args: Vec<Literal> = m
            .entry_computation()
            .unwrap()
            .parameter_shapes()
            .iter()
            .map(|s| f32s(s.dims(), &mut rng))
            .collect();
        let ops = fused_matches_reference(case, &text, &args);
        assert!(
            !ops.iter().any(|o| o == "dot+add"),
            "case {case} was rewritten: {ops:?}"
        );
    }
}

/// A scan accumulating three weight gradients `dW_i += x_tᵀ · δ_i` per step (a recurrent
/// cell's backward pass) from `f32[T,B,I]` and `f32[T,B,H]` stacks: the accumulators are
/// loop state, each dies at its accumulation, so the products add into them in place, the
/// three side by side at two threads. Interpreted and as native code, each against the
/// unrewritten module run one instruction at a time.
#[test]
fn scanned_gradient_accumulations_give_the_dot_and_add_bits() {
    let mut rng = Rng(0x5ca7);
    for (case, (t, b, i, h)) in [
        (5i64, 16i64, 64i64, 256i64),
        (4, 3, 7, 9),
        (3, 32, 128, 128),
    ]
    .into_iter()
    .enumerate()
    {
        let (x, d, w) = (
            shape_text(&[t, b, i]),
            shape_text(&[t, b, h]),
            shape_text(&[i, h]),
        );
        let (xs, ds) = (shape_text(&[1, b, i]), shape_text(&[1, b, h]));
        let (x2, d2) = (shape_text(&[b, i]), shape_text(&[b, h]));
        let state = format!("(s32[], {x}, {d}, {w}, {w}, {w})");
        let text = format!(
            "HloModule scan_{case}

body {{
  p = {state} parameter(0)
  k = s32[] get-tuple-element(p), index=0
  xs = {x} get-tuple-element(p), index=1
  ds = {d} get-tuple-element(p), index=2
  w0 = {w} get-tuple-element(p), index=3
  w1 = {w} get-tuple-element(p), index=4
  w2 = {w} get-tuple-element(p), index=5
  z = s32[] constant(0)
  xt = {xs} dynamic-slice(xs, k, z, z), dynamic_slice_sizes={{1,{b},{i}}}
  x1 = {x2} reshape(xt)
  dt = {ds} dynamic-slice(ds, k, z, z), dynamic_slice_sizes={{1,{b},{h}}}
  d1 = {d2} reshape(dt)
  d2 = {d2} multiply(d1, d1)
  d3 = {d2} negate(d1)
  g0 = {w} dot(x1, d1), lhs_contracting_dims={{0}}, rhs_contracting_dims={{0}}
  g1 = {w} dot(x1, d2), lhs_contracting_dims={{0}}, rhs_contracting_dims={{0}}
  g2 = {w} dot(x1, d3), lhs_contracting_dims={{0}}, rhs_contracting_dims={{0}}
  a0 = {w} add(w0, g0)
  a1 = {w} add(g1, w1)
  a2 = {w} add(w2, g2)
  one = s32[] constant(1)
  k1 = s32[] add(k, one)
  ROOT r = {state} tuple(k1, xs, ds, a0, a1, a2)
}}

cond {{
  p = {state} parameter(0)
  k = s32[] get-tuple-element(p), index=0
  n = s32[] constant({t})
  ROOT lt = pred[] compare(k, n), direction=LT
}}

ENTRY main {{
  xs = {x} parameter(0)
  ds = {d} parameter(1)
  w = {w} parameter(2)
  k = s32[] constant(0)
  init = {state} tuple(k, xs, ds, w, w, w)
  loop = {state} while(init), condition=cond, body=body
  a = {w} get-tuple-element(loop), index=3
  b = {w} get-tuple-element(loop), index=4
  c = {w} get-tuple-element(loop), index=5
  ROOT out = ({w}, {w}, {w}) tuple(a, b, c)
}}
"
        );
        let args = vec![
            f32s(&[t, b, i], &mut rng),
            f32s(&[t, b, h], &mut rng),
            f32s(&[i, h], &mut rng),
        ];
        fused_matches_reference(case, &text, &args);
        // As native code (the small case fits a native loop).
        let m = xla_core::text::parse_module(&text).unwrap();
        let refs: Vec<&Literal> = args.iter().collect();
        let plain = xla_cpu::Executable::compile_without_rewrites(&m).unwrap();
        let want = bits(&plain.execute_unfused(&refs).unwrap());
        let exe = xla_cpu::Executable::compile(&m).unwrap();
        if case == 1 {
            assert_eq!(exe.native_loop_count(), 1, "the small scan runs natively");
        }
        assert_eq!(
            bits(&exe.execute_borrowed(&refs).unwrap()),
            want,
            "case {case}"
        );
    }
}
