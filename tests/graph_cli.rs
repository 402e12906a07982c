//! `xla graph`: the DOT text of a module (instructions with shapes, called computations as
//! clusters), `--plan` (fused kernels as nested clusters), `--profile` (times), and SVG
//! through Graphviz when it is installed.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;
use std::process::Command;

const LOOP: &str = r#"HloModule drawn

cond {
  s = (s32[], f32[256]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  three = s32[] constant(3)
  ROOT lt = pred[] compare(i, three), direction=LT
}

body {
  s = (s32[], f32[256]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  x = f32[256] get-tuple-element(s), index=1
  one = s32[] constant(1)
  j = s32[] add(i, one)
  y = f32[256] multiply(x, x)
  z = f32[256] add(y, x)
  e = f32[256] exponential(z)
  ROOT t = (s32[], f32[256]) tuple(j, e)
}

ENTRY main {
  p = f32[256] parameter(0)
  zero = s32[] constant(0)
  init = (s32[], f32[256]) tuple(zero, p)
  ROOT w = (s32[], f32[256]) while(init), condition=cond, body=body
}
"#;

/// A scratch file holding `text`, removed when dropped.
struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str, text: &str) -> Scratch {
        let p = std::env::temp_dir().join(format!("xla-graph-{}-{name}", std::process::id()));
        std::fs::write(&p, text).unwrap();
        Scratch(p)
    }
    fn path(&self) -> &str {
        self.0.to_str().unwrap()
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// `xla graph ARGS...`: (exit status, stdout, stderr).
fn graph(args: &[&str]) -> (Option<i32>, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_xla"))
        .arg("graph")
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The lines of the cluster whose `subgraph` line contains `id`, up to its closing brace.
fn cluster<'a>(dot: &'a str, id: &str) -> Vec<&'a str> {
    let mut lines = dot
        .lines()
        .skip_while(|l| !l.contains(&format!("subgraph {id} {{")));
    let Some(first) = lines.next() else {
        return Vec::new();
    };
    let indent = first.len() - first.trim_start().len();
    let mut v = vec![first];
    for l in lines {
        v.push(l);
        if l.trim() == "}" && l.len() - l.trim_start().len() == indent {
            break;
        }
    }
    v
}

#[test]
fn a_module_is_drawn_with_shapes_and_its_computations_as_clusters() {
    let m = Scratch::new("loop.hlo", LOOP);
    let (code, dot, err) = graph(&[m.path()]);
    assert_eq!(code, Some(0), "{err}");
    assert!(dot.starts_with("digraph \"drawn\" {"), "{dot}");
    // One cluster per computation, the entry marked; the body's instructions inside it.
    assert_eq!(dot.matches("subgraph cluster_c").count(), 3, "{dot}");
    assert!(dot.contains("label=\"ENTRY main\""), "{dot}");
    let body = cluster(&dot, "cluster_c1").join("\n");
    assert!(body.contains("label=\"body\""), "{body}");
    assert!(body.contains("\"y\\nmultiply\\nf32[256]\""), "{body}");
    assert!(
        body.contains("\"ROOT t\\ntuple\\n(s32[], f32[256])\""),
        "{body}"
    );
    // Operands are edges; the loop is fed by its condition's and body's roots (dashed).
    let node = |comp: usize, name: &str| {
        let line = dot
            .lines()
            .find(|l| {
                l.trim_start().starts_with(&format!("c{comp}_"))
                    && l.contains(&format!("label=\"{name}\\n"))
            })
            .unwrap_or_else(|| panic!("no node {name}"));
        line.trim_start().split(' ').next().unwrap().to_string()
    };
    let (x, y) = (node(1, "x"), node(1, "y"));
    assert!(dot.contains(&format!("  {x} -> {y};")), "{dot}");
    let (w, t) = (node(2, "ROOT w"), node(1, "ROOT t"));
    assert!(
        dot.contains(&format!(
            "  {t} -> {w} [style=dashed, color=\"#3366aa\", ltail=cluster_c1];"
        )),
        "{dot}"
    );
}

#[test]
fn the_plan_shows_fused_kernels_and_the_profile_their_times() {
    let m = Scratch::new("plan.hlo", LOOP);
    let (code, dot, err) = graph(&[m.path(), "--plan"]);
    assert_eq!(code, Some(0), "{err}");
    // The body's elementwise chain y, z, e runs as one fused kernel: a nested cluster
    // holding all three.
    let fused: Vec<String> = dot
        .lines()
        .filter(|l| l.contains("subgraph cluster_c") && l.contains("_s"))
        .map(|l| {
            l.trim()
                .trim_start_matches("subgraph ")
                .trim_end_matches(" {")
                .to_string()
        })
        .collect();
    let chain = fused
        .iter()
        .map(|id| cluster(&dot, id).join("\n"))
        .find(|c| c.contains("\\nexponential\\n"))
        .unwrap_or_else(|| panic!("no fused cluster holds the exponential:\n{dot}"));
    assert!(chain.contains("label=\"fusion"), "{chain}");
    for op in ["multiply", "add", "exponential"] {
        assert!(
            chain.contains(&format!("\\n{op}\\nf32[256]")),
            "{op}: {chain}"
        );
    }
    assert!(!dot.contains(" ms ("), "no times without --profile");
    let (code, dot, err) = graph(&[m.path(), "--profile", "--iters", "2"]);
    assert_eq!(code, Some(0), "{err}");
    // The entry's steps are timed (the loop runs as native code: its body's steps are
    // inside the loop's time); the shares add up to 100%.
    let timed: Vec<&str> = dot.lines().filter(|l| l.contains(" ms (")).collect();
    assert!(timed.iter().any(|l| l.contains("ROOT w\\nwhile")), "{dot}");
    let share: f64 = timed
        .iter()
        .filter_map(|l| {
            l.split(" ms (")
                .nth(1)?
                .split('%')
                .next()?
                .parse::<f64>()
                .ok()
        })
        .sum();
    assert!((share - 100.0).abs() < 0.5, "{share}: {dot}");
    assert!(dot.contains("label=\"fusion"), "{dot}");
}

#[test]
fn bad_output_names_and_modules_are_errors_with_status_2() {
    let m = Scratch::new("bad.hlo", LOOP);
    let png = std::env::temp_dir().join(format!("xla-graph-{}.png", std::process::id()));
    let (code, _, err) = graph(&[m.path(), "-o", png.to_str().unwrap()]);
    assert_eq!(code, Some(2));
    assert!(err.contains("unknown output format `.png`"), "{err}");
    assert!(!png.exists());
    let broken = Scratch::new(
        "broken.hlo",
        "HloModule m\n\nENTRY main {\n  ROOT x = f32[2] bogus()\n}\n",
    );
    let (code, _, err) = graph(&[broken.path()]);
    assert_eq!(code, Some(2));
    assert!(err.contains(":4:"), "{err}");
}

#[test]
fn svg_is_laid_out_by_graphviz_when_installed() {
    if Command::new("dot").arg("-V").output().is_err() {
        eprintln!("Graphviz `dot` is not installed: SVG not tested");
        return;
    }
    let m = Scratch::new("svg.hlo", LOOP);
    let svg = std::env::temp_dir().join(format!("xla-graph-{}.svg", std::process::id()));
    let (code, _, err) = graph(&[m.path(), "-o", svg.to_str().unwrap()]);
    assert_eq!(code, Some(0), "{err}");
    let text = std::fs::read_to_string(&svg).unwrap();
    let _ = std::fs::remove_file(&svg);
    assert!(
        text.contains("<svg") && text.contains("multiply"),
        "{}",
        &text[..200.min(text.len())]
    );
}
