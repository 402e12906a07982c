//! The HLO text printer: writes a [`Module`] in the text format XLA's own parser accepts, in
//! the style of JAX's `as_text(dialect="hlo")` (XLA's `HloPrintOptions::short_parsable()`):
//! callee computations first, `ENTRY` on the entry, no `%` sigils, layouts on every array
//! shape, attributes spelled and ordered as XLA prints them, false booleans omitted.

mod attrs;
mod families;

use crate::ir::{CompId, Computation, InstrId, Instruction, Module, Op};
use crate::shape::{ArrayShape, Layout, Shape};
use std::fmt::Write;

/// Prints a module in XLA's HLO text format.
///
/// Never fails: an invalid module (dangling operand or computation ids, a bad entry id) is
/// still printed, with the dangling references spelled `<invalid ...>` so that the text
/// shows where the problem is (the verifier reports it properly).
pub fn print_module(module: &Module) -> String {
    let mut out = String::new();
    out.push_str("HloModule ");
    out.push_str(&module.name);
    if module.config.replica_count != 1 {
        let _ = write!(out, ", replica_count={}", module.config.replica_count);
    }
    if module.config.num_partitions != 1 {
        let _ = write!(out, ", num_partitions={}", module.config.num_partitions);
    }
    if let Some(entry) = module.entry_computation() {
        out.push_str(", entry_computation_layout={");
        out.push_str(&program_layout(entry));
        out.push('}');
    }
    out.push_str("\n\n");
    for id in computation_order(module) {
        if let Some(comp) = module.get(id) {
            print_computation(&mut out, module, comp, id == module.entry);
            out.push('\n');
        }
    }
    out
}

/// The entry computation's signature with layouts: `(f32[2]{0}, s32[])->f32[2]{0}`.
fn program_layout(comp: &Computation) -> String {
    let params: Vec<String> = comp
        .parameter_shapes()
        .iter()
        .map(shape_with_layout)
        .collect();
    let result = comp
        .result_shape()
        .map(shape_with_layout)
        .unwrap_or_else(|| "()".into());
    format!("({})->{}", join_indexed(&params), result)
}

/// Computations in post order (every callee before its callers), entry last; computations
/// the entry does not reach keep their relative order. Cycles and dangling ids are
/// tolerated (each computation is printed once).
fn computation_order(module: &Module) -> Vec<CompId> {
    let n = module.computations.len();
    let mut state = vec![0u8; n]; // 0 = new, 1 = on the stack, 2 = done
    let mut order = Vec::with_capacity(n);
    let starts = (0..n)
        .filter(|&i| i != module.entry.0)
        .chain(std::iter::once(module.entry.0));
    for start in starts {
        visit(module, CompId(start), &mut state, &mut order);
    }
    order
}

fn visit(module: &Module, id: CompId, state: &mut [u8], order: &mut Vec<CompId>) {
    // Iterative DFS (a deep chain of calls must not overflow the stack); each frame holds
    // the computation, its callees and the next callee to visit.
    let mut stack: Vec<(CompId, Vec<CompId>, usize)> = Vec::new();
    let enter = |c: CompId, state: &mut [u8], stack: &mut Vec<(CompId, Vec<CompId>, usize)>| {
        if let Some(s @ 0) = state.get_mut(c.0) {
            *s = 1;
            stack.push((c, callees(module, c), 0));
        }
    };
    enter(id, state, &mut stack);
    while let Some((cur, callees, next)) = stack.last_mut() {
        if let Some(&callee) = callees.get(*next) {
            *next += 1;
            enter(callee, state, &mut stack);
        } else {
            let cur = *cur;
            if let Some(s) = state.get_mut(cur.0) {
                *s = 2;
            }
            order.push(cur);
            stack.pop();
        }
    }
}

/// The computations `id` calls, in instruction order, without duplicates.
fn callees(module: &Module, id: CompId) -> Vec<CompId> {
    let mut out: Vec<CompId> = Vec::new();
    if let Some(comp) = module.get(id) {
        for ins in &comp.instructions {
            for c in ins.op.called_computations() {
                if !out.contains(&c) {
                    out.push(c);
                }
            }
        }
    }
    out
}

fn print_computation(out: &mut String, module: &Module, comp: &Computation, entry: bool) {
    if entry {
        out.push_str("ENTRY ");
    }
    out.push_str(&comp.name);
    out.push_str(" {\n");
    for (i, ins) in comp.instructions.iter().enumerate() {
        out.push_str("  ");
        if InstrId(i) == comp.root {
            out.push_str("ROOT ");
        }
        print_instruction(out, module, comp, ins);
        out.push('\n');
    }
    out.push_str("}\n");
}

/// Prints one instruction line (without indentation, `ROOT` or newline).
fn print_instruction(out: &mut String, module: &Module, comp: &Computation, ins: &Instruction) {
    let ctx = Ctx { module, comp };
    let _ = write!(
        out,
        "{} = {} {}(",
        ins.name,
        shape_with_layout(&ins.shape),
        ins.op.name()
    );
    // Parameters print their number and constants their value; every other op its operands.
    if let Op::Parameter { number } = &ins.op {
        let _ = write!(out, "{number}");
    } else if let Op::Constant { literal } = &ins.op {
        out.push_str(&literal.hlo_constant_body());
    } else {
        out.push_str(&ctx.operand_names(ins).join(", "));
    }
    out.push(')');
    for attr in attrs::attributes(&ctx, ins) {
        out.push_str(", ");
        out.push_str(&attr);
    }
    if let Some(sharding) = module.config.shardings.get(&ins.name) {
        let _ = write!(out, ", sharding={sharding}");
    }
}

/// What attribute printing needs to look up: names of computations and operands.
pub(super) struct Ctx<'a> {
    module: &'a Module,
    comp: &'a Computation,
}

impl Ctx<'_> {
    /// The name of computation `id` (or a visible placeholder if it does not exist).
    fn comp_name(&self, id: CompId) -> String {
        match self.module.get(id) {
            Some(c) => c.name.clone(),
            None => format!("<invalid computation {}>", id.0),
        }
    }

    /// `{a, b}`: names of computations.
    fn comp_list(&self, ids: &[CompId]) -> String {
        let names: Vec<String> = ids.iter().map(|&c| self.comp_name(c)).collect();
        format!("{{{}}}", names.join(", "))
    }

    fn operand_names(&self, ins: &Instruction) -> Vec<String> {
        ins.operands
            .iter()
            .map(|&id| match self.comp.get(id) {
                Some(o) => o.name.clone(),
                None => format!("<invalid operand {}>", id.0),
            })
            .collect()
    }

    /// The shape of operand `i` of `ins`, if it exists.
    fn operand_shape(&self, ins: &Instruction, i: usize) -> Option<&Shape> {
        ins.operands
            .get(i)
            .and_then(|&id| self.comp.get(id))
            .map(|o| &o.shape)
    }
}

/// Joins with `, `, adding XLA's `/*index=N*/` comment before every fifth element (as XLA
/// does in tuple shapes, not in operand lists).
fn join_indexed(items: &[String]) -> String {
    let mut s = String::new();
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            s.push_str(", ");
        }
        if i >= 5 && i % 5 == 0 {
            let _ = write!(s, "/*index={i}*/");
        }
        s.push_str(item);
    }
    s
}

/// The shape as XLA prints it: with its layout, or the default row-major layout when it has
/// none (`f32[2,3]{1,0}`); scalars, tuples and tokens as usual.
pub fn shape_with_layout(shape: &Shape) -> String {
    with_default_layouts(shape).to_string_with_layout()
}

/// The shape with the default (row-major) layout filled in wherever an array has none.
pub fn with_default_layouts(shape: &Shape) -> Shape {
    match shape {
        Shape::Array(a) => Shape::Array(ArrayShape {
            layout: Some(
                a.layout
                    .clone()
                    .unwrap_or_else(|| Layout::row_major(a.dims.len())),
            ),
            ..a.clone()
        }),
        Shape::Tuple(t) => Shape::Tuple(t.iter().map(with_default_layouts).collect()),
        Shape::Token => Shape::Token,
    }
}

/// `{1,2,3}`.
fn int_list(v: &[i64]) -> String {
    let items: Vec<String> = v.iter().map(|x| x.to_string()).collect();
    format!("{{{}}}", items.join(","))
}

/// A string attribute value in double quotes, escaped as XLA's `CEscape` does.
fn quoted(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for ch in s.chars() {
        match ch {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\'' => out.push_str("\\'"),
            c if (c as u32) < 0x20 || c as u32 == 0x7f => {
                let _ = write!(out, "\\{:03o}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoting_escapes() {
        assert_eq!(quoted("a\"b\\c\n"), "\"a\\\"b\\\\c\\n\"");
    }
}
