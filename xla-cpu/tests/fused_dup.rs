//! One-instruction values read by several kernels (a negate, an add of a stored array and a
//! broadcast, short chains of them) are computed again inside each reader's kernel instead
//! of being stored (`fusion::Planner::dup`), and `get-tuple-element(tuple(…))` reads the
//! element itself (`rewrite/tuples.rs`). Random elementwise graphs in which values have
//! many readers, with tuples in the middle, on inputs holding NaN, ±inf and ±0: fused at 1
//! and 2 threads, bit for bit against the module compiled without rewrites and run one
//! instruction at a time. Plus which steps two fixed modules run.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use xla_core::Literal;

mod gen;
use gen::{f32s, fused_matches_reference, shape_text, Rng};

/// A random graph over `x`, `y` (full arrays), `r` (a row repeated down the rows) and `cb`
/// (a constant).
fn random_module(rng: &mut Rng) -> (String, Vec<Literal>) {
    let dims = [rng.range(1, 40), rng.pick(&[1i64, 7, 16, 33, 100])];
    let s = shape_text(&dims);
    let args = vec![f32s(&dims, rng), f32s(&dims, rng), f32s(&dims[1..], rng)];
    let mut body = vec![
        format!("x = {s} parameter(0)"),
        format!("y = {s} parameter(1)"),
        format!("r0 = {} parameter(2)", shape_text(&dims[1..])),
        format!("r = {s} broadcast(r0), dimensions={{1}}"),
        "c = f32[] constant(0.5)".to_string(),
        format!("cb = {s} broadcast(c), dimensions={{}}"),
    ];
    let mut vals: Vec<String> = ["x", "y", "r", "cb"].map(String::from).to_vec();
    let mut read = vec![true; vals.len()];
    let count = rng.range(4, 14) as usize;
    for k in 0..count {
        let name = format!("v{k}");
        // Later values read recent ones more often, so one value gets several readers.
        let pick = |rng: &mut Rng| {
            let lo = vals.len().saturating_sub(4) as i64;
            let hi = vals.len() as i64 - 1;
            let from = if rng.range(0, 2) == 0 { 0 } else { lo };
            rng.range(from, hi) as usize
        };
        let (a, b) = (pick(rng), pick(rng));
        read[a] = true;
        read[b] = true;
        let (va, vb) = (vals[a].clone(), vals[b].clone());
        let line = match rng.range(0, 11) {
            0 => format!("{name} = {s} negate({va})"),
            1 => format!("{name} = {s} abs({va})"),
            2 => format!("{name} = {s} add({va}, {vb})"),
            3 => format!("{name} = {s} subtract({va}, {vb})"),
            4 => format!("{name} = {s} multiply({va}, {vb})"),
            5 => format!("{name} = {s} maximum({va}, {vb})"),
            6 => format!("{name} = {s} minimum({va}, {vb})"),
            7 => format!("{name} = {s} exponential({va})"),
            // By `y`, never by what may be a broadcast (after tuple forwarding too): that
            // divide is a multiply by the reciprocal after the rewrites, as in XLA, and the
            // reference runs without them.
            8 => format!("{name} = {s} divide({va}, y)"),
            9 => {
                let p = format!(
                    "{name}p = pred{} compare({va}, {vb}), direction=GT",
                    &s[3..]
                );
                format!("{p}\n  {name} = {s} select({name}p, {va}, {vb})")
            }
            _ => {
                // A `(value, derivative)` pair as JAX's custom_jvp functions return.
                let t = format!("{name}t = ({s}, {s}) tuple({va}, {vb})");
                let i = rng.range(0, 1);
                format!("{t}\n  {name} = {s} get-tuple-element({name}t), index={i}")
            }
        };
        body.push(line);
        vals.push(name);
        read.push(false);
    }
    // Every value nothing read yet is an output, with the last one.
    let last = vals.len() - 1;
    let outs: Vec<&String> = (4..vals.len())
        .filter(|&i| !read[i] || i == last)
        .map(|i| &vals[i])
        .collect();
    let shapes = vec![s.clone(); outs.len()].join(", ");
    let names: Vec<&str> = outs.iter().map(|v| v.as_str()).collect();
    body.push(format!("ROOT out = ({shapes}) tuple({})", names.join(", ")));
    let text = format!(
        "HloModule dup\n\nENTRY main {{\n  {}\n}}\n",
        body.join("\n  ")
    );
    (text, args)
}

#[test]
fn random_graphs_with_shared_values_match_the_reference() {
    let mut rng = Rng(0x5eed_d0b1);
    for case in 0..300 {
        let (text, args) = random_module(&mut rng);
        fused_matches_reference(case, &text, &args);
    }
}

/// How many fused steps module `text` runs on `n` random f32[64,256] arguments (its values
/// checked against the reference).
fn fused_steps(n: usize, seed: u64, text: &str) -> usize {
    let mut rng = Rng(seed);
    let args: Vec<Literal> = (0..n).map(|_| f32s(&[64, 256], &mut rng)).collect();
    fused_matches_reference(0, text, &args)
        .iter()
        .filter(|s| s.starts_with("fusion"))
        .count()
}

#[test]
fn a_negate_read_by_three_kernels_is_computed_in_each() {
    let text = "HloModule n\nENTRY main {\n  x = f32[64,256] parameter(0)\n  \
                n = f32[64,256] negate(x)\n  a = f32[64,256] exponential(n)\n  \
                b = f32[64,256] tanh(n)\n  c = f32[64,256] sqrt(n)\n  \
                ROOT out = (f32[64,256], f32[64,256], f32[64,256]) tuple(a, b, c)\n}\n";
    // Three kernels, none of them the negate.
    assert_eq!(fused_steps(1, 7, text), 3);
    // Through a tuple: the negate is read only by the element's reader.
    let tupled = text.replace(
        "a = f32[64,256] exponential(n)",
        "t = (f32[64,256], f32[64,256]) tuple(x, n)\n  \
             g = f32[64,256] get-tuple-element(t), index=1\n  \
             a = f32[64,256] exponential(g)",
    );
    assert_eq!(fused_steps(1, 7, &tupled), 3);
}

#[test]
fn a_sum_of_two_arrays_read_by_four_kernels_is_stored() {
    // Computed again, each of four readers would read two arrays (8 reads); stored, one
    // kernel reads two and writes one, and the readers read it (7).
    let text = "HloModule s\nENTRY main {\n  x = f32[64,256] parameter(0)\n  \
                y = f32[64,256] parameter(1)\n  s = f32[64,256] add(x, y)\n  \
                a = f32[64,256] exponential(s)\n  b = f32[64,256] tanh(s)\n  \
                c = f32[64,256] sqrt(s)\n  d = f32[64,256] log(s)\n  \
                ROOT out = (f32[64,256], f32[64,256], f32[64,256], f32[64,256]) \
                tuple(a, b, c, d)\n}\n";
    assert_eq!(fused_steps(2, 9, text), 5);
    // With two readers it is computed in each (4 reads against 5).
    let two = text
        .replace(
            "  c = f32[64,256] sqrt(s)\n  d = f32[64,256] log(s)\n",
            "\n",
        )
        .replace(
            "(f32[64,256], f32[64,256], f32[64,256], f32[64,256]) tuple(a, b, c, d)",
            "(f32[64,256], f32[64,256]) tuple(a, b)",
        );
    assert_eq!(fused_steps(2, 9, &two), 2);
}

#[test]
fn a_transcendental_read_by_two_kernels_is_computed_once() {
    let text = "HloModule e\nENTRY main {\n  x = f32[64,256] parameter(0)\n  \
                e = f32[64,256] exponential(x)\n  n = f32[64,256] negate(e)\n  \
                a = f32[64,256] tanh(n)\n  b = f32[64,256] sqrt(n)\n  \
                ROOT out = (f32[64,256], f32[64,256]) tuple(a, b)\n}\n";
    // The exp (with its negate) is one kernel, each reader another: nothing computed twice.
    assert_eq!(fused_steps(1, 11, text), 3);
}
