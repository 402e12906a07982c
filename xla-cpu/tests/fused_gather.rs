//! Gathers read in place by fused kernels and scatters whose updates are fused kernels
//! (`fusion/gather.rs`, `fusion/scatter.rs`): random segment-sum and message-passing
//! modules (a GNN's), on inputs holding NaN, ±inf and ±0 with indices out of range on
//! both sides (clamped by a gather, skipped by a scatter), every native combiner, rows
//! of 8 to 130 features, are run fused and compared bit for bit with the same module
//! compiled without rewrites and run one instruction at a time, at 1 and 2 threads.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use xla_core::literal::ArrayData;
use xla_core::{Literal, PrimitiveType, Shape};

mod gen;
use gen::{f32s, fused_matches_reference, values, Rng};
use xla_cpu::Executable;

const COMBINERS: [(&str, &str); 5] = [
    ("add", "add(a, b)"),
    ("maximum", "maximum(a, b)"),
    ("minimum", "minimum(a, b)"),
    ("multiply", "multiply(a, b)"),
    ("replace", "copy(b)"),
];

fn combiner(name: &str, body: &str, ty: &str) -> String {
    let root = match body {
        // Scatter-set: the root is the update parameter itself.
        "copy(b)" => format!("ROOT b = {ty}[] parameter(1)"),
        _ => format!("b = {ty}[] parameter(1)\n  ROOT r = {ty}[] {body}"),
    };
    format!(
        "%{name} (a: {ty}[], b: {ty}[]) -> {ty}[] {{\n  a = {ty}[] parameter(0)\n  {root}\n}}\n"
    )
}

/// `gather(x, idx)` rows of `c` from an operand of `rows` rows, the indices `s32[e,1]`
/// (or `s32[1,e]` with the index vector leading, `lead`).
fn gather(name: &str, x: &str, idx: &str, (e, c): (i64, i64), lead: bool) -> String {
    let ivd = if lead { 0 } else { 1 };
    format!(
        "{name} = f32[{e},{c}] gather({x}, {idx}), offset_dims={{1}}, \
         collapsed_slice_dims={{0}}, start_index_map={{0}}, index_vector_dim={ivd}, \
         slice_sizes={{1,{c}}}"
    )
}

fn indices(e: i64, hi: i64, rng: &mut Rng) -> Literal {
    // A few out of range on each side: a gather clamps them, a scatter skips them.
    let v: Vec<i32> = (0..e).map(|_| rng.range(-2, hi + 1) as i32).collect();
    Literal::from_array_data(
        Shape::array(PrimitiveType::S32, vec![e, 1]),
        ArrayData::S32(v),
    )
    .unwrap()
}

fn preds(n: i64, rng: &mut Rng) -> Literal {
    let v = (0..n).map(|_| !rng.next().is_multiple_of(3)).collect();
    Literal::from_array_data(
        Shape::array(PrimitiveType::Pred, vec![n]),
        ArrayData::Pred(v),
    )
    .unwrap()
}

/// A random module: messages gathered from node features, masked or combined
/// elementwise, then scattered into segment totals (or returned). Returns the text, the
/// arguments.
fn random_module(rng: &mut Rng) -> (String, Vec<Literal>) {
    let c = rng.pick(&[8i64, 16, 17, 64, 100, 130]);
    let n = rng.range(1, 40);
    let e = rng.range(1, 300);
    let segs = rng.range(1, 40);
    let (cname, cbody) = rng.pick(&COMBINERS);
    let scatter = !rng.next().is_multiple_of(4);
    // The index vector leading (`s32[1,e]`) reaches the gather's general row path.
    let lead = rng.next().is_multiple_of(8);
    let mut args = vec![
        f32s(&[n, c], rng),
        indices(e, n - 1, rng),
        indices(e, n - 1, rng),
        preds(e, rng),
        f32s(&[e, c], rng),
        f32s(&[segs, c], rng),
        indices(e, segs - 1, rng),
    ];
    if lead {
        for k in [1, 2] {
            let l = args[k].clone();
            let v = l.data::<i32>().unwrap().to_vec();
            args[k] = Literal::from_array_data(
                Shape::array(PrimitiveType::S32, vec![1, e]),
                ArrayData::S32(v),
            )
            .unwrap();
        }
    }
    let ishape = if lead {
        format!("s32[1,{e}]")
    } else {
        format!("s32[{e},1]")
    };
    let mut body = vec![
        format!("x = f32[{n},{c}] parameter(0)"),
        format!("i = {ishape} parameter(1)"),
        format!("j = {ishape} parameter(2)"),
        format!("m = pred[{e}] parameter(3)"),
        format!("w = f32[{e},{c}] parameter(4)"),
        format!("init = f32[{segs},{c}] parameter(5)"),
        format!("t = s32[{e},1] parameter(6)"),
        gather("g", "x", "i", (e, c), lead),
    ];
    let upd = match rng.next() % 5 {
        0 => "g".to_string(),
        1 => {
            body.push(format!("mb = pred[{e},{c}] broadcast(m), dimensions={{0}}"));
            body.push("zero = f32[] constant(0)".to_string());
            body.push(format!("z = f32[{e},{c}] broadcast(zero), dimensions={{}}"));
            body.push(format!("u = f32[{e},{c}] select(mb, g, z)"));
            "u".to_string()
        }
        2 => {
            body.push(gather("h", "x", "j", (e, c), lead));
            body.push(format!("u = f32[{e},{c}] multiply(g, h)"));
            "u".to_string()
        }
        3 => {
            body.push(format!("u = f32[{e},{c}] add(g, w)"));
            "u".to_string()
        }
        _ => {
            body.push(format!("s = f32[{e},{c}] subtract(w, g)"));
            body.push(format!("u = f32[{e},{c}] exponential(s)"));
            "u".to_string()
        }
    };
    let root = if scatter {
        body.push(format!(
            "ROOT out = f32[{segs},{c}] scatter(init, t, {upd}), update_window_dims={{1}}, \
             inserted_window_dims={{0}}, scatter_dims_to_operand_dims={{0}}, \
             index_vector_dim=1, to_apply=%{cname}"
        ));
        combiner(cname, cbody, "f32")
    } else {
        body.push(format!("ROOT out = f32[{e},{c}] negate({upd})"));
        String::new()
    };
    let text = format!(
        "HloModule gnn\n\n{root}\nENTRY %main {{\n  {}\n}}\n",
        body.join("\n  ")
    );
    (text, args)
}

#[test]
fn random_gathers_and_scatters_fused_match_the_reference() {
    let mut rng = Rng(0x6a7e_5ca7_7e20_0001);
    let (mut scatters, mut gathers) = (0, 0);
    let cases = 160;
    for case in 0..cases {
        let (text, args) = random_module(&mut rng);
        let ran = fused_matches_reference(case, &text, &args);
        if ran.iter().any(|op| op.starts_with("fusion[scatter")) {
            scatters += 1;
        }
        if !ran.iter().any(|op| op == "gather") {
            gathers += 1;
        }
    }
    // Every gather here is read in place (a lone gather returned by `negate` too), and
    // every scatter's updates are a kernel.
    assert_eq!(gathers, cases, "gathers stored");
    assert!(scatters > cases / 2, "only {scatters} fused scatters");
}

/// An f64 segment sum of masked messages: the fused scatter's values are the unfused
/// scatter's, bit for bit.
#[test]
fn an_f64_segment_sum_fused_matches_the_reference() {
    let text = format!(
        "HloModule seg64\n\n{}\nENTRY %main {{\n  x = f64[7,9] parameter(0)\n  \
         i = s32[40,1] parameter(1)\n  m = pred[40] parameter(2)\n  \
         t = s32[40,1] parameter(3)\n  {}\n  mb = pred[40,9] broadcast(m), dimensions={{0}}\n  \
         zero = f64[] constant(0)\n  z = f64[40,9] broadcast(zero), dimensions={{}}\n  \
         u = f64[40,9] select(mb, g, z)\n  init = f64[5,9] broadcast(zero), dimensions={{}}\n  \
         ROOT out = f64[5,9] scatter(init, t, u), update_window_dims={{1}}, \
         inserted_window_dims={{0}}, scatter_dims_to_operand_dims={{0}}, \
         index_vector_dim=1, to_apply=%add\n}}\n",
        combiner("add", "add(a, b)", "f64"),
        gather("g", "x", "i", (40, 9), false).replace("f32", "f64"),
    );
    let mut rng = Rng(0x6464_6464);
    let x: Vec<f64> = values(63, &mut rng)
        .iter()
        .map(|&v| f64::from(v) * 1e-3)
        .collect();
    let args = [
        Literal::from_array_data(
            Shape::array(PrimitiveType::F64, vec![7, 9]),
            ArrayData::F64(x),
        )
        .unwrap(),
        indices(40, 6, &mut rng),
        preds(40, &mut rng),
        indices(40, 4, &mut rng),
    ];
    let m = xla_core::text::parse_module(&text).unwrap();
    let refs: Vec<&Literal> = args.iter().collect();
    let plain = Executable::compile_without_rewrites(&m).unwrap();
    let want = plain.execute_unfused(&refs).unwrap();
    let mut exe = Executable::compile(&m).unwrap();
    exe.set_profiling(true);
    let got = exe.execute_borrowed(&refs).unwrap();
    let b = |l: &Literal| -> Vec<u64> {
        l.data::<f64>()
            .unwrap()
            .iter()
            .map(|v| if v.is_nan() { u64::MAX } else { v.to_bits() })
            .collect()
    };
    assert_eq!(b(&got), b(&want));
    let ops: Vec<String> = exe.profile().into_iter().map(|e| e.op).collect();
    assert!(
        ops.iter().any(|o| o.starts_with("fusion[scatter")),
        "{ops:?}"
    );
}

/// A gather in JAX's fill mode, `select(broadcast(mask), gather, broadcast(c))` (either
/// way round), read as the gather with a fill row (`fusion/gather.rs`): rows of 2- and
/// 3-dimensional gathers, a mask per gathered row or per index, fill constants ±0, NaN,
/// -inf and 1.5, returned alone, negated, or scattered with every native combiner.
#[test]
fn random_fill_mode_gathers_match_the_reference() {
    let mut rng = Rng(0xf111_9a7e_0000_0002);
    let cases = 120;
    for case in 0..cases {
        let c = rng.pick(&[8i64, 16, 33, 64]);
        let k = rng.pick(&[1i64, 3]);
        let (n, e, segs) = (rng.range(1, 30), rng.range(1, 200), rng.range(1, 30));
        let (cname, cbody) = rng.pick(&COMBINERS);
        let fill = rng.pick(&["0", "-0", "1.5", "nan", "-inf"]);
        let per_row = k > 1 && rng.next().is_multiple_of(2);
        let swapped = rng.next().is_multiple_of(2);
        let lead = rng.next().is_multiple_of(6);
        let (out, x, slice, offset) = if k == 1 {
            (vec![e, c], vec![n, c], format!("1,{c}"), "1")
        } else {
            (vec![e, k, c], vec![n, k, c], format!("1,{k},{c}"), "1,2")
        };
        let mdims = if per_row { vec![e, k] } else { vec![e] };
        let os = gen::shape_text(&out);
        let idx = indices(e, n - 1, &mut rng);
        let ishape = if lead {
            format!("s32[1,{e}]")
        } else {
            format!("s32[{e},1]")
        };
        let idx = if lead {
            let v = idx.data::<i32>().unwrap().to_vec();
            Literal::from_array_data(
                Shape::array(PrimitiveType::S32, vec![1, e]),
                ArrayData::S32(v),
            )
            .unwrap()
        } else {
            idx
        };
        let mask = {
            let m = preds(mdims.iter().product(), &mut rng);
            let v = m.data::<bool>().unwrap().to_vec();
            Literal::from_array_data(
                Shape::array(PrimitiveType::Pred, mdims.clone()),
                ArrayData::Pred(v),
            )
            .unwrap()
        };
        let mut sdims = out.clone();
        sdims[0] = segs;
        let args = vec![
            f32s(&x, &mut rng),
            idx,
            mask,
            f32s(&sdims, &mut rng),
            indices(e, segs - 1, &mut rng),
        ];
        let (a, b) = if swapped { ("z", "g") } else { ("g", "z") };
        let ss = gen::shape_text(&sdims);
        let windows = if k == 1 { "1" } else { "1,2" };
        let (root, comb) = match rng.next() % 3 {
            0 => (format!("ROOT out = {os} copy(u)"), String::new()),
            1 => (format!("ROOT out = {os} negate(u)"), String::new()),
            _ => (
                format!(
                    "ROOT out = {ss} scatter(init, t, u), update_window_dims={{{windows}}}, \
                     inserted_window_dims={{0}}, scatter_dims_to_operand_dims={{0}}, \
                     index_vector_dim=1, to_apply=%{cname}"
                ),
                combiner(cname, cbody, "f32"),
            ),
        };
        let text = format!(
            "HloModule fill\n\n{comb}\nENTRY %main {{\n  x = {} parameter(0)\n  \
             i = {ishape} parameter(1)\n  m = {} parameter(2)\n  init = {ss} parameter(3)\n  \
             t = s32[{e},1] parameter(4)\n  \
             g = {os} gather(x, i), offset_dims={{{offset}}}, collapsed_slice_dims={{0}}, \
             start_index_map={{0}}, index_vector_dim={}, slice_sizes={{{slice}}}\n  \
             mb = {} broadcast(m), dimensions={{{}}}\n  c = f32[] constant({fill})\n  \
             z = {os} broadcast(c), dimensions={{}}\n  u = {os} select(mb, {a}, {b})\n  {root}\n}}\n",
            gen::shape_text(&x),
            gen::shape_of("pred", &mdims),
            if lead { 0 } else { 1 },
            gen::shape_of("pred", &out),
            if per_row { "0,1" } else { "0" },
        );
        let ran = fused_matches_reference(case, &text, &args);
        assert!(
            !ran.iter().any(|op| op == "gather" || op == "select"),
            "case {case}: {ran:?}\n{text}"
        );
    }
}
