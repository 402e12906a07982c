//! `dynamic-slice`s read in place by fused kernels (`fusion/gather.rs`, `Starts::Slice`):
//! random slices of rank 1 to 3 (every dim sliced, the last at least 8 long so the slice
//! is read by rows), starts of s32, s64 and u32 out of range on both sides (clamped),
//! read by elementwise chains, a reduce, a select and a dot, at top level and inside a
//! scan-like `while` (the slice of a loop-carried stack at the loop index); inputs hold
//! NaN, ±inf and ±0. Each module runs fused at 1 and 2 threads and is compared bit for
//! bit with the same module compiled without rewrites and run one instruction at a time.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use xla_core::literal::ArrayData;
use xla_core::{Literal, PrimitiveType, Shape};

mod gen;
use gen::{f32s, fused_matches_reference, shape_text, Rng};

/// A scalar start index of type `ty` (s32, s64 or u32) holding `v` (u32 clamps at 0).
fn start(ty: &str, v: i64) -> Literal {
    let (t, data) = match ty {
        "s64" => (PrimitiveType::S64, ArrayData::S64(vec![v])),
        "u32" => (PrimitiveType::U32, ArrayData::U32(vec![v.max(0) as u32])),
        _ => (PrimitiveType::S32, ArrayData::S32(vec![v as i32])),
    };
    Literal::from_array_data(Shape::array(t, vec![]), data).unwrap()
}

/// A random top-level module: `x` sliced at parameter starts, the slice read by a chain
/// of `how` (0 elementwise, 1 reduce, 2 select, 3 also a dot, 4 returned negated).
fn random_module(rng: &mut Rng) -> (String, Vec<Literal>, bool) {
    let rank = rng.range(1, 3) as usize;
    let mut dims = Vec::new();
    let mut sizes = Vec::new();
    // Half the slices take whole trailing dims: their rows are one run of `x`, which
    // generated code reads in place (`gather::GatherRows::contiguous`).
    let whole_inner = rng.range(0, 1) == 0;
    for d in 0..rank {
        let last = d + 1 == rank;
        let n = if last {
            rng.pick(&[8i64, 9, 16, 33, 64, 130])
        } else {
            rng.range(1, 9)
        };
        dims.push(
            n + if d > 0 && whole_inner {
                0
            } else if last {
                rng.range(0, 20)
            } else {
                rng.range(0, 4)
            },
        );
        sizes.push(n);
    }
    let ty = rng.pick(&["s32", "s64", "u32"]);
    let mut args = vec![f32s(&dims, rng), f32s(&sizes, rng)];
    let mut body = vec![
        format!("x = {} parameter(0)", shape_text(&dims)),
        format!("w = {} parameter(1)", shape_text(&sizes)),
    ];
    let mut starts = Vec::new();
    for (d, (&n, &s)) in dims.iter().zip(&sizes).enumerate() {
        // Out of range on both sides now and then: the slice clamps its starts.
        args.push(start(ty, rng.range(-3, n - s + 3)));
        body.push(format!("s{d} = {ty}[] parameter({})", d + 2));
        starts.push(format!("s{d}"));
    }
    let ss = shape_text(&sizes);
    let size_list: Vec<String> = sizes.iter().map(i64::to_string).collect();
    body.push(format!(
        "g = {ss} dynamic-slice(x, {}), dynamic_slice_sizes={{{}}}",
        starts.join(", "),
        size_list.join(",")
    ));
    let how = rng.range(0, 4);
    let last = rank - 1;
    let root = match how {
        0 => {
            body.push(format!("a = {ss} multiply(g, w)"));
            body.push(format!("e = {ss} exponential(g)"));
            format!("ROOT r = {ss} add(a, e)")
        }
        1 => {
            let mut out = sizes.clone();
            out.remove(last);
            body.push("zero = f32[] constant(0)".into());
            body.push(format!("s = {ss} subtract(w, g)"));
            format!(
                "ROOT r = {} reduce(s, zero), dimensions={{{last}}}, to_apply=%add",
                shape_text(&out)
            )
        }
        2 => {
            let ps = gen::shape_of("pred", &sizes);
            body.push(format!("p = {ps} compare(g, w), direction=LT"));
            format!("ROOT r = {ss} select(p, g, w)")
        }
        3 => {
            // A dot reads the slice too: it is stored for the dot, read by the kernel.
            let n = sizes[last];
            args.push(f32s(&[n], rng));
            body.push(format!("v = f32[{n}] parameter({})", rank + 2));
            let mut out = sizes.clone();
            out.remove(last);
            body.push(format!(
                "d = {} dot(g, v), lhs_contracting_dims={{{last}}}, rhs_contracting_dims={{0}}",
                shape_text(&out)
            ));
            body.push(format!("t = {ss} tanh(g)"));
            let db = if rank == 1 {
                format!("db = {ss} broadcast(d), dimensions={{}}")
            } else {
                let keep: Vec<String> = (0..last).map(|i| i.to_string()).collect();
                format!("db = {ss} broadcast(d), dimensions={{{}}}", keep.join(","))
            };
            body.push(db);
            format!("ROOT r = {ss} add(t, db)")
        }
        _ => format!("ROOT r = {ss} negate(g)"),
    };
    body.push(root);
    let text = format!(
        "HloModule dslice\n\n%add (a: f32[], b: f32[]) -> f32[] {{\n  a = f32[] parameter(0)\n  \
         b = f32[] parameter(1)\n  ROOT r = f32[] add(a, b)\n}}\n\nENTRY %main {{\n  {}\n}}\n",
        body.join("\n  ")
    );
    (text, args, how != 3)
}

#[test]
fn random_dynamic_slices_read_in_place_match_the_reference() {
    let mut rng = Rng(0xd51c_e000_0000_0003);
    let cases = 200;
    let mut in_place = 0;
    for case in 0..cases {
        let (text, args, all_fused) = random_module(&mut rng);
        let ran = fused_matches_reference(case, &text, &args);
        let stored = ran.iter().any(|op| op == "dynamic-slice");
        if all_fused {
            assert!(
                !stored,
                "case {case}: the slice was stored: {ran:?}\n{text}"
            );
            in_place += 1;
        } else {
            assert!(
                stored,
                "case {case}: a dot reads the slice: {ran:?}\n{text}"
            );
        }
    }
    assert!(in_place > cases / 2, "only {in_place} slices read in place");
}

/// A scan's backward step: a `while` over `t` reads row `T - 1 - t` of a loop-carried
/// stack `f32[T,B,C]` (the saved activations) into gate-like elementwise kernels and a
/// reduce, and writes a row of another stack with `dynamic-update-slice`.
#[test]
fn scan_steps_reading_their_stack_in_place_match_the_reference() {
    let mut rng = Rng(0x5ca7_0000_0000_0005);
    for (t, b, c) in [(5i64, 3i64, 8i64), (7, 4, 33), (4, 16, 64)] {
        let st = shape_text(&[t, b, c]);
        let row = shape_text(&[1, b, c]);
        let m = shape_text(&[b, c]);
        let state = format!("(s32[], {st}, {st}, {m})");
        let text = format!(
            "HloModule scan_back\n\n\
             %add (a: f32[], b: f32[]) -> f32[] {{\n  a = f32[] parameter(0)\n  \
             b = f32[] parameter(1)\n  ROOT r = f32[] add(a, b)\n}}\n\n\
             %cond (p: {state}) -> pred[] {{\n  p = {state} parameter(0)\n  \
             i = s32[] get-tuple-element(p), index=0\n  n = s32[] constant({t})\n  \
             ROOT lt = pred[] compare(i, n), direction=LT\n}}\n\n\
             %body (p: {state}) -> {state} {{\n  p = {state} parameter(0)\n  \
             i = s32[] get-tuple-element(p), index=0\n  \
             xs = {st} get-tuple-element(p), index=1\n  \
             ys = {st} get-tuple-element(p), index=2\n  \
             h = {m} get-tuple-element(p), index=3\n  \
             last = s32[] constant({})\n  k = s32[] subtract(last, i)\n  \
             zero = s32[] constant(0)\n  \
             g = {row} dynamic-slice(xs, k, zero, zero), dynamic_slice_sizes={{1,{b},{c}}}\n  \
             gs = {m} reshape(g)\n  \
             e = {m} exponential(gs)\n  a = {m} multiply(e, h)\n  \
             one = f32[] constant(1)\n  ob = {m} broadcast(one), dimensions={{}}\n  \
             s = {m} subtract(ob, gs)\n  nh = {m} add(a, s)\n  \
             fz = f32[] constant(0)\n  \
             r = f32[{b}] reduce(gs, fz), dimensions={{1}}, to_apply=%add\n  \
             rb = {m} broadcast(r), dimensions={{0}}\n  nh2 = {m} add(nh, rb)\n  \
             u = {row} reshape(nh2)\n  \
             nys = {st} dynamic-update-slice(ys, u, k, zero, zero)\n  \
             one_i = s32[] constant(1)\n  ni = s32[] add(i, one_i)\n  \
             ROOT out = {state} tuple(ni, xs, nys, nh2)\n}}\n\n\
             ENTRY %main {{\n  xs = {st} parameter(0)\n  h0 = {m} parameter(1)\n  \
             z = f32[] constant(0)\n  ys0 = {st} broadcast(z), dimensions={{}}\n  \
             i0 = s32[] constant(0)\n  \
             init = {state} tuple(i0, xs, ys0, h0)\n  \
             w = {state} while(init), condition=%cond, body=%body\n  \
             ys = {st} get-tuple-element(w), index=2\n  \
             hT = {m} get-tuple-element(w), index=3\n  \
             ROOT res = ({st}, {m}) tuple(ys, hT)\n}}\n",
            t - 1
        );
        let args = [f32s(&[t, b, c], &mut rng), f32s(&[b, c], &mut rng)];
        let ran = fused_matches_reference(t as usize, &text, &args);
        assert!(
            !ran.iter().any(|op| op == "dynamic-slice"),
            "the stack's row was copied out: {ran:?}"
        );
    }
}
