//! A module as a Graphviz DOT graph: one node per instruction (name, op, shape), one
//! cluster per computation, the executor's fused kernels as nested clusters, and the time
//! of each step from a profile.

use std::collections::HashMap;
use std::fmt::Write;
use xla::core::ir::{CompId, Computation};
use xla::cpu::PlanStep;
use xla::Module;

/// Longest shape text shown on a node (longer tuples are cut with `...`).
const MAX_SHAPE: usize = 48;

/// What is drawn besides the module itself.
#[derive(Default)]
pub struct Overlay {
    /// Per computation (by index): the executor's schedule, when `--plan`.
    pub plans: Option<Vec<Vec<PlanStep>>>,
    /// Milliseconds per run of each (computation, instruction) name pair that was
    /// profiled (for a fused kernel: its root's name).
    pub times: HashMap<(String, String), f64>,
}

/// The DOT text of `m` with `overlay`.
pub fn to_dot(m: &Module, overlay: &Overlay) -> String {
    let total: f64 = overlay.times.values().sum();
    let mut out = String::new();
    let _ = writeln!(out, "digraph {} {{", quote(&m.name));
    out.push_str("  compound=true;\n  rankdir=TB;\n  newrank=true;\n");
    out.push_str("  node [shape=box, style=\"rounded,filled\", fillcolor=white, fontname=\"Helvetica\", fontsize=10];\n");
    out.push_str("  edge [color=\"#555555\", arrowsize=0.6];\n");
    let live = reachable(m);
    let drawn = |ci: usize| live.get(ci).copied().unwrap_or(false);
    for (ci, comp) in m
        .computations
        .iter()
        .enumerate()
        .filter(|(ci, _)| drawn(*ci))
    {
        let plan = overlay.plans.as_ref().and_then(|p| p.get(ci));
        let entry = CompId(ci) == m.entry;
        computation(&mut out, ci, comp, entry, plan, overlay, total);
    }
    for (ci, comp) in m
        .computations
        .iter()
        .enumerate()
        .filter(|(ci, _)| drawn(*ci))
    {
        for (k, ins) in comp.instructions.iter().enumerate() {
            for o in &ins.operands {
                let _ = writeln!(out, "  {} -> {};", node(ci, o.0), node(ci, k));
            }
            for callee in ins.op.called_computations() {
                let Some(c) = m.get(callee) else { continue };
                let _ = writeln!(
                    out,
                    "  {} -> {} [style=dashed, color=\"#3366aa\", ltail=cluster_c{}];",
                    node(callee.0, c.root.0),
                    node(ci, k),
                    callee.0
                );
            }
        }
    }
    out.push_str("}\n");
    out
}

/// Which computations the entry reaches (the rewrites inline `call`s, leaving their
/// callees unused).
fn reachable(m: &Module) -> Vec<bool> {
    let mut seen = vec![false; m.computations.len()];
    let mut stack = vec![m.entry];
    while let Some(c) = stack.pop() {
        match seen.get_mut(c.0) {
            Some(s) if !*s => *s = true,
            _ => continue,
        }
        if let Some(comp) = m.get(c) {
            for ins in &comp.instructions {
                stack.extend(ins.op.called_computations());
            }
        }
    }
    seen
}

/// The cluster of computation `ci`, with its fused kernels as nested clusters.
fn computation(
    out: &mut String,
    ci: usize,
    comp: &Computation,
    entry: bool,
    plan: Option<&Vec<PlanStep>>,
    overlay: &Overlay,
    total: f64,
) {
    let title = if entry {
        format!("ENTRY {}", comp.name)
    } else {
        comp.name.clone()
    };
    let _ = writeln!(out, "  subgraph cluster_c{ci} {{");
    let _ = writeln!(
        out,
        "    label={}; fontname=\"Helvetica-Bold\"; fontsize=12; style=rounded; color=\"#888888\";",
        quote(&title)
    );
    let time = |name: &str| overlay.times.get(&(comp.name.clone(), name.to_string()));
    let mut drawn = vec![false; comp.instructions.len()];
    for (s, step) in plan.into_iter().flatten().enumerate() {
        let Some(label) = &step.fusion else { continue };
        let members: Vec<usize> = step
            .members
            .iter()
            .copied()
            .filter(|&k| !drawn.get(k).copied().unwrap_or(true))
            .collect();
        if members.is_empty() {
            continue;
        }
        let root_name = comp
            .instructions
            .get(step.root)
            .map_or("", |i| i.name.as_str());
        let mut title = label.clone();
        if let Some(t) = time(root_name) {
            let _ = write!(title, " {}", millis(*t, total));
        }
        let _ = writeln!(out, "    subgraph cluster_c{ci}_s{s} {{");
        let _ = writeln!(out, "      label={}; style=\"rounded,filled\"; fillcolor=\"#e8f0fe\"; color=\"#3366aa\"; fontsize=10;", quote(&title));
        for k in members {
            if let Some(d) = drawn.get_mut(k) {
                *d = true;
            }
            instruction(out, "      ", ci, comp, k, None, total);
        }
        out.push_str("    }\n");
    }
    for k in 0..comp.instructions.len() {
        if !drawn.get(k).copied().unwrap_or(true) {
            let t = comp
                .instructions
                .get(k)
                .and_then(|i| time(&i.name))
                .copied();
            instruction(out, "    ", ci, comp, k, t, total);
        }
    }
    out.push_str("  }\n");
}

/// The node of instruction `k`: name, op, shape and its time if profiled.
fn instruction(
    out: &mut String,
    indent: &str,
    ci: usize,
    comp: &Computation,
    k: usize,
    ms: Option<f64>,
    total: f64,
) {
    let Some(ins) = comp.instructions.get(k) else {
        return;
    };
    let mut shape = ins.shape.to_string();
    if shape.chars().count() > MAX_SHAPE {
        shape = shape.chars().take(MAX_SHAPE - 3).collect::<String>() + "...";
    }
    let root = if comp.root.0 == k { "ROOT " } else { "" };
    let mut label = format!("{root}{}\n{}\n{shape}", ins.name, ins.op.name());
    let mut attrs = String::new();
    if let Some(t) = ms {
        let _ = write!(label, "\n{}", millis(t, total));
        let share = if total > 0.0 { t / total } else { 0.0 };
        let _ = write!(
            attrs,
            ", fillcolor=\"0.0 {:.3} 1.0\"",
            share.sqrt().min(1.0)
        );
    }
    if matches!(ins.op, xla::core::ir::Op::Parameter { .. }) {
        attrs.push_str(", shape=ellipse, style=filled, fillcolor=\"#f3f3f3\"");
    }
    let _ = writeln!(
        out,
        "{indent}{} [label={}{attrs}];",
        node(ci, k),
        quote(&label)
    );
}

/// A time per run and its share of the whole: `1.234 ms (12.3%)`.
fn millis(t: f64, total: f64) -> String {
    let share = if total > 0.0 { 100.0 * t / total } else { 0.0 };
    format!("{t:.3} ms ({share:.1}%)")
}

/// The DOT id of instruction `k` of computation `ci`.
fn node(ci: usize, k: usize) -> String {
    format!("c{ci}_i{k}")
}

/// `s` as a DOT string (quotes and backslashes escaped, newlines as `\n`).
fn quote(s: &str) -> String {
    let mut q = String::with_capacity(s.len() + 2);
    q.push('"');
    for ch in s.chars() {
        match ch {
            '"' => q.push_str("\\\""),
            '\\' => q.push_str("\\\\"),
            '\n' => q.push_str("\\n"),
            c => q.push(c),
        }
    }
    q.push('"');
    q
}

#[cfg(test)]
mod tests {
    use super::quote;

    #[test]
    fn strings_are_escaped() {
        assert_eq!(quote("a\"b\\c\nd"), "\"a\\\"b\\\\c\\nd\"");
    }
}
