//! Slices and pads read in place by fused kernels (`fusion/remap.rs`), and the slice/pad
//! rewrites (`rewrite/slices.rs`): random modules of one or two slices and pads (strided,
//! edge, interior and negative padding, a pad of a slice, a slice of a pad or broadcast)
//! feeding elementwise ops are run fused and rewritten, and compared bit for bit with the
//! same module compiled without rewrites and run one instruction at a time, on inputs
//! holding NaN, ±inf and ±0; and at 1 and 2 threads.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use xla_core::text::parse_module;
use xla_core::{Literal, PrimitiveType, Shape};
use xla_cpu::Executable;

mod gen;
use gen::{bits, fused_matches_reference, shape_text, values, Rng};

/// The dimension a slice or pad changes: one before the last three times in four (the
/// rows the kernels read in place), else any.
fn dim(rank: usize, rng: &mut Rng) -> usize {
    let last = rank as i64 - 1;
    let hi = if rank >= 2 && rng.next() % 4 != 0 {
        last - 1
    } else {
        last
    };
    rng.range(0, hi) as usize
}

/// A module being written: instruction lines and the parameters' shapes.
struct Text {
    lines: Vec<String>,
    params: Vec<Vec<i64>>,
    next: usize,
}

impl Text {
    fn param(&mut self, dims: &[i64]) -> String {
        let name = format!("p{}", self.params.len());
        self.lines.push(format!(
            "{name} = {} parameter({})",
            shape_text(dims),
            self.params.len()
        ));
        self.params.push(dims.to_vec());
        name
    }
    fn push(&mut self, dims: &[i64], rhs: String) -> String {
        self.next += 1;
        let name = format!("v{}", self.next);
        self.lines
            .push(format!("{name} = {} {rhs}", shape_text(dims)));
        name
    }

    /// A random slice of `x` (dims `d`) along one dim (sometimes two, which stays unfused).
    fn slice(&mut self, x: &str, d: &[i64], rng: &mut Rng) -> (String, Vec<i64>) {
        let j = dim(d.len(), rng);
        let both = rng.next() % 6 == 0;
        let (mut parts, mut out) = (Vec::new(), Vec::new());
        for (k, &n) in d.iter().enumerate() {
            let (s, l, st) = if (k == j || (both && k + 1 == d.len())) && n > 1 {
                let s = rng.range(0, n / 2);
                let l = rng.range(s + 1, n);
                (s, l, rng.range(1, 3))
            } else {
                (0, n, 1)
            };
            parts.push(format!("[{s}:{l}:{st}]"));
            out.push((l - s + st - 1) / st);
        }
        let v = self.push(&out, format!("slice({x}), slice={{{}}}", parts.join(", ")));
        (v, out)
    }

    /// A random pad of `x` along one dim (low/high may be negative), by a constant or a
    /// scalar parameter.
    fn pad(&mut self, x: &str, d: &[i64], rng: &mut Rng) -> (String, Vec<i64>) {
        let j = dim(d.len(), rng);
        let value = if rng.next() % 2 == 0 {
            self.push(
                &[],
                format!("constant({})", rng.pick(&["0", "-1.5", "inf", "nan"])),
            )
        } else {
            self.param(&[])
        };
        let (mut parts, mut out) = (Vec::new(), Vec::new());
        for (k, &n) in d.iter().enumerate() {
            let (lo, hi, int) = if k == j {
                let int = rng.range(0, 2);
                let span = n + (n - 1).max(0) * int;
                let lo = rng.range(-(span / 3), 3);
                let hi = rng.range(-(span / 3), 3).max(1 - lo - span);
                (lo, hi, int)
            } else {
                (0, 0, 0)
            };
            parts.push(format!("{lo}_{hi}_{int}"));
            out.push(lo + hi + n + (n - 1).max(0) * int);
        }
        let v = self.push(
            &out,
            format!("pad({x}, {value}), padding={}", parts.join("x")),
        );
        (v, out)
    }
}

/// One random module: a source (a parameter or a broadcast), one or two slices/pads, then
/// `r * y + r` (so the slice/pad has two readers) and sometimes `r` itself in the result.
fn random_module(rng: &mut Rng) -> (String, Vec<Vec<i64>>) {
    let rank = rng.range(1, 4) as usize;
    let last = rng.pick(&[5i64, 16, 24, 40, 48, 96, 128, 160, 256, 384]);
    let mut d: Vec<i64> = (0..rank - 1).map(|_| rng.range(1, 12)).collect();
    d.push(last);
    let mut t = Text {
        lines: Vec::new(),
        params: Vec::new(),
        next: 0,
    };
    let mut x = if rng.next() % 5 == 0 && rank >= 2 {
        let row = t.param(&[last]);
        let b = (rank - 1) as i64;
        t.push(&d, format!("broadcast({row}), dimensions={{{b}}}"))
    } else {
        t.param(&d)
    };
    for _ in 0..rng.range(1, 2) {
        let (v, nd) = if rng.next() % 2 == 0 {
            t.slice(&x, &d, rng)
        } else {
            t.pad(&x, &d, rng)
        };
        if nd.iter().any(|&n| n <= 0) {
            break;
        }
        x = v;
        d = nd;
    }
    let y = t.param(&d);
    let m = t.push(&d, format!("multiply({x}, {y})"));
    let a = t.push(&d, format!("add({m}, {x})"));
    let root = if rng.next() % 3 == 0 {
        let s = shape_text(&d);
        format!("ROOT out = ({s}, {s}) tuple({a}, {x})")
    } else {
        format!("ROOT out = {} negate({a})", shape_text(&d))
    };
    let body: Vec<String> = t.lines.iter().map(|l| format!("  {l}")).collect();
    let text = format!(
        "HloModule r\n\nENTRY e {{\n{}\n  {root}\n}}\n",
        body.join("\n")
    );
    (text, t.params)
}

/// One f32 argument of random values (NaN, ±inf, ±0 among them) per shape.
fn random_args(params: &[Vec<i64>], rng: &mut Rng) -> Vec<Literal> {
    params
        .iter()
        .map(|d| {
            let n = d.iter().product::<i64>() as usize;
            let shape = Shape::array(PrimitiveType::F32, d.clone());
            let data = xla_core::literal::ArrayData::F32(values(n, rng));
            Literal::from_array_data(shape, data).unwrap()
        })
        .collect()
}

#[test]
fn random_slices_and_pads_read_in_place_match_the_reference() {
    let mut rng = Rng(0x5eed_1234_abcd_0001);
    let mut fused = 0;
    for case in 0..300 {
        let (text, params) = random_module(&mut rng);
        let args = random_args(&params, &mut rng);
        let ran = fused_matches_reference(case, &text, &args);
        // An unfused slice or pad runs as its own op; read in place it is a load of a
        // fused kernel (`fusion(slice)` when it is stored itself, as a tuple's element).
        if !ran.iter().any(|op| op == "slice" || op == "pad") {
            fused += 1;
        }
    }
    // Most cases have rows long enough to be read in place (the rest run unfused).
    assert!(
        fused > 120,
        "only {fused} of 300 cases fused their slices and pads"
    );
}

/// An associative scan's step, as JAX writes it: strided halves, a cut written as a pad,
/// a slice of a slice and an interleaving pad of a slice, all read in place: nothing but
/// the fused kernels runs.
#[test]
fn a_scan_step_runs_without_storing_slices_or_pads() {
    let text = "HloModule scan

ENTRY e {
  x = f32[64,128] parameter(0)
  a = f32[32,128] slice(x), slice={[0:63:2], [0:128:1]}
  b = f32[32,128] slice(x), slice={[1:64:2], [0:128:1]}
  s = f32[32,128] add(a, b)
  z = f32[] constant(0)
  c = f32[31,128] pad(s, z), padding=0_-1x0_0
  h = f32[16,128] slice(c), slice={[0:31:2], [0:128:1]}
  t = f32[15,128] slice(h), slice={[1:16], [0:128]}
  u = f32[15,128] multiply(t, t)
  p = f32[32,128] pad(t, z), padding=2_1_1x0_0_0
  q = f32[32,128] add(p, s)
  ROOT out = (f32[15,128], f32[32,128]) tuple(u, q)
}
";
    let m = parse_module(text).unwrap();
    let mut rng = Rng(7);
    let x = Literal::from_array_data(
        Shape::array(PrimitiveType::F32, vec![64, 128]),
        xla_core::literal::ArrayData::F32(values(64 * 128, &mut rng)),
    )
    .unwrap();
    let plain = Executable::compile_without_rewrites(&m).unwrap();
    let want = plain.execute_unfused(&[&x]).unwrap();
    let mut exe = Executable::compile(&m).unwrap();
    exe.drop_native_loops();
    exe.set_profiling(true);
    let got = exe.execute_borrowed(&[&x]).unwrap();
    assert_eq!(bits(&got), bits(&want));
    let ran: Vec<String> = exe.profile().into_iter().map(|e| e.op).collect();
    assert!(
        !ran.iter()
            .any(|op| op.contains("slice") || op.contains("pad")),
        "{ran:?}"
    );
}

/// Pads of the last dimension by whole pieces of at least 16 values (`Remap::pad_last`),
/// as the gradient of splitting a gated activation writes a concatenate
/// (`add(pad(a, 32_0), pad(b, 0_32))`), with positive and negative edges, by a constant
/// or a parameter, under a multiply-add and a sum of two pads: run fused, they match the
/// unfused reference bit for bit (NaN, ±inf, ±0 in every input) and no pad is stored.
#[test]
fn last_dim_pads_by_whole_pieces_read_in_place_match_the_reference() {
    let mut rng = Rng(0x5eed_1234_abcd_0002);
    for case in 0..120 {
        let g = rng.pick(&[16i64, 32, 48]);
        let n = g * rng.range(1, 4);
        let rank = rng.range(1, 3) as usize;
        let mut d: Vec<i64> = (0..rank - 1).map(|_| rng.range(1, 9)).collect();
        d.push(n);
        let mut t = Text {
            lines: Vec::new(),
            params: Vec::new(),
            next: 0,
        };
        let value = if rng.next() % 2 == 0 {
            t.push(
                &[],
                format!("constant({})", rng.pick(&["0", "-0", "2.5", "nan"])),
            )
        } else {
            t.param(&[])
        };
        // Edges in pieces of `g`; the output keeps at least one piece.
        let lo = g * rng.range(-(n / g - 1), 3);
        let hi = (g * rng.range(-(n / g - 1), 3)).max(g - lo - n);
        let out_n = lo + hi + n;
        let mut od = d.clone();
        *od.last_mut().unwrap() = out_n;
        let edges = |l: i64, h: i64| {
            let mut p = vec!["0_0".to_string(); rank - 1];
            p.push(format!("{l}_{h}"));
            p.join("x")
        };
        let (a, b) = (t.param(&d), t.param(&d));
        let pa = t.push(&od, format!("pad({a}, {value}), padding={}", edges(lo, hi)));
        let x = if rng.next() % 2 == 0 && out_n == n {
            // The concatenate pattern: the same row length, `b` in the other edge.
            let pb = t.push(&od, format!("pad({b}, {value}), padding={}", edges(hi, lo)));
            t.push(&od, format!("add({pa}, {pb})"))
        } else {
            pa
        };
        let y = t.param(&od);
        let m = t.push(&od, format!("multiply({x}, {y})"));
        let s = t.push(&od, format!("add({m}, {x})"));
        let body: Vec<String> = t.lines.iter().map(|l| format!("  {l}")).collect();
        let text = format!(
            "HloModule r\n\nENTRY e {{\n{}\n  ROOT out = {} negate({s})\n}}\n",
            body.join("\n"),
            shape_text(&od)
        );
        let args = random_args(&t.params, &mut rng);
        let ran = fused_matches_reference(case, &text, &args);
        assert!(
            !ran.iter().any(|op| op == "pad"),
            "case {case}: {ran:?}\n{text}"
        );
    }
}

/// Halves of the last dimension as a gated activation reads them (`tanh(x[..., :g]) *
/// x[..., g:]`), rows of 16, 32 or 64 values read through a table of row addresses
/// (`Stream::Pieces`), also under a sum over the last dim and over everything: run fused,
/// they match the unfused reference bit for bit, and no slice is stored.
#[test]
fn short_last_dim_slices_read_in_place_match_the_reference() {
    let mut rng = Rng(0x5eed_1234_abcd_0003);
    for case in 0..60 {
        let g = rng.pick(&[16i64, 32, 64]);
        let (b, t) = (rng.range(1, 6), rng.range(1, 70));
        let (x, h) = (shape_text(&[b, t, 2 * g]), shape_text(&[b, t, g]));
        let (row, one) = (shape_text(&[b, t]), shape_text(&[]));
        let text = format!(
            "HloModule s

sum {{
  l = f32[] parameter(0)
  r = f32[] parameter(1)
  ROOT s = f32[] add(l, r)
}}

ENTRY e {{
  x = {x} parameter(0)
  lo = {h} slice(x), slice={{[0:{b}], [0:{t}], [0:{g}]}}
  hi = {h} slice(x), slice={{[0:{b}], [0:{t}], [{g}:{g2}]}}
  th = {h} tanh(lo)
  m = {h} multiply(th, hi)
  a = {h} add(m, lo)
  z = f32[] constant(0)
  rs = {row} reduce(a, z), dimensions={{2}}, to_apply=sum
  all = {one} reduce(m, z), dimensions={{0,1,2}}, to_apply=sum
  ROOT out = ({h}, {row}, {one}) tuple(a, rs, all)
}}
",
            g2 = 2 * g
        );
        let args = random_args(&[vec![b, t, 2 * g]], &mut rng);
        let ran = fused_matches_reference(case, &text, &args);
        assert!(
            !ran.iter().any(|op| op == "slice"),
            "case {case}: {ran:?}\n{text}"
        );
    }
}
