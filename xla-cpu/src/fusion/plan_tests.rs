//! What the planner makes of a module: which selects fold into the gathers they mask.

use super::gather::Fill;
use super::{plan_steps, FusedKind, Load, Node, Step};
use crate::kernels::combiner::Combiner;
use xla_core::attrs::BinaryOp;

/// The fused steps of `body` (an entry computation's instructions) with a scatter
/// combiner `%add`.
fn fused(body: &str) -> Vec<Box<super::Fused>> {
    let text = format!(
        "HloModule m\n\n%add (a: f32[], b: f32[]) -> f32[] {{\n  a = f32[] parameter(0)\n  \
         b = f32[] parameter(1)\n  ROOT r = f32[] add(a, b)\n}}\n\nENTRY %main {{\n  {body}\n}}\n"
    );
    let m = xla_core::text::parse_module(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    let comp = m.get(m.entry).unwrap_or_else(|| panic!("an entry"));
    plan_steps(comp, &|_| Some(Combiner::Binary(BinaryOp::Add)), false)
        .into_iter()
        .filter_map(|s| match s {
            Step::Fused(_, f) => Some(f),
            Step::Eval(_) => None,
        })
        .collect()
}

/// `x` f32[10,4,16] (or [10,16]) gathered by `i` into `g` of `out`, masked by `mb`.
fn module(
    out: &str,
    slice: &str,
    offset: &str,
    mask_dims: &str,
    select: &str,
    root: &str,
) -> String {
    let x = if slice == "1,16" {
        "f32[10,16]"
    } else {
        "f32[10,4,16]"
    };
    format!(
        "x = {x} parameter(0)\n  i = s32[30,1] parameter(1)\n  m = pred[{mask_dims}] parameter(2)\n  \
         t = s32[30,1] parameter(3)\n  \
         g = f32[{out}] gather(x, i), offset_dims={{{offset}}}, collapsed_slice_dims={{0}}, \
         start_index_map={{0}}, index_vector_dim=1, slice_sizes={{{slice}}}\n  \
         mb = pred[{out}] broadcast(m), dimensions={{{}}}\n  \
         c = f32[] constant(-0)\n  z = f32[{out}] broadcast(c), dimensions={{}}\n  \
         u = f32[{out}] {select}\n  {root}",
        if mask_dims.contains(',') { "0,1" } else { "0" },
    )
}

fn fills(f: &super::Fused) -> Vec<Option<Fill>> {
    f.kernel.gathers.iter().map(|g| g.fill).collect()
}

#[test]
fn a_select_of_a_gather_and_a_constant_by_a_row_mask_is_the_gather_with_a_fill() {
    let root = "ROOT out = f32[30,16] negate(u)";
    for (select, keep) in [("select(mb, g, z)", true), ("select(mb, z, g)", false)] {
        let steps = fused(&module("30,16", "1,16", "1", "30", select, root));
        let [f] = steps.as_slice() else {
            panic!("one fused step: {steps:?}")
        };
        let [Some(fill)] = fills(f)[..] else {
            panic!("{select}: a fill: {:?}", f.kernel.gathers)
        };
        assert_eq!((fill.keep, fill.per), (keep, 1), "{select}");
        assert_eq!(fill.value.to_bits(), (-0.0f64).to_bits());
        assert!(matches!(
            f.kernel.nodes.as_slice(),
            [Node::Load(Load::Gather(_)), Node::Op(..)]
        ));
    }
    // Rows of a three-dimensional gather: one mask value per 4 rows, or per row.
    let steps = fused(&module(
        "30,4,16",
        "1,4,16",
        "1,2",
        "30",
        "select(mb, g, z)",
        "ROOT out = f32[30,4,16] negate(u)",
    ));
    assert_eq!(fills(&steps[0])[0].map(|f| f.per), Some(4));
    let steps = fused(&module(
        "30,4,16",
        "1,4,16",
        "1,2",
        "30,4",
        "select(mb, g, z)",
        "ROOT out = f32[30,4,16] negate(u)",
    ));
    assert_eq!(fills(&steps[0])[0].map(|f| f.per), Some(1));
}

#[test]
fn a_masked_segment_sum_combines_gathered_rows_directly() {
    let root = "init = f32[8,16] broadcast(c), dimensions={}\n  \
                ROOT out = f32[8,16] scatter(init, t, u), update_window_dims={1}, \
                inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, \
                to_apply=%add";
    let steps = fused(&module(
        "30,16",
        "1,16",
        "1",
        "30",
        "select(mb, g, z)",
        root,
    ));
    let scatter = steps
        .iter()
        .find(|f| matches!(f.kind, FusedKind::Scatter(_)))
        .unwrap_or_else(|| panic!("a fused scatter: {steps:?}"));
    assert!(matches!(
        scatter.kernel.nodes.as_slice(),
        [Node::Load(Load::Gather(_))]
    ));
    assert!(fills(scatter)[0].is_some());
}

#[test]
fn other_selects_of_a_gather_stay_selects() {
    let root = "ROOT out = f32[30,16] negate(u)";
    // A mask not constant along a row (broadcast along the row), or a fill that is not
    // a constant.
    let across = module("30,16", "1,16", "1", "16", "select(mb, g, z)", root)
        .replace("dimensions={0}\n", "dimensions={1}\n");
    let w = module("30,16", "1,16", "1", "30", "select(mb, g, w)", root)
        .replace("c = f32[]", "w = f32[30,16] parameter(4)\n  c = f32[]");
    for body in [across, w] {
        let steps = fused(&body);
        let [f] = steps.as_slice() else {
            panic!("one fused step: {steps:?}\n{body}")
        };
        assert_eq!(fills(f), vec![None], "{body}");
        assert!(f
            .kernel
            .nodes
            .iter()
            .any(|n| matches!(n, Node::Op(super::Fop::Select, _))));
    }
}
