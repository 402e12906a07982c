//! Shape checks: every shape is well formed, and every instruction's declared shape is
//! compatible (ignoring layouts) with what shape inference derives from its operands.

use super::Problems;
use crate::ir::{infer_shape, Computation, Instruction, Module};
use crate::shape::{Shape, UNBOUNDED};
use crate::shape_inference::ProgramShape;

/// Checks the shapes of every instruction of `comp`.
pub(super) fn check_computation(module: &Module, comp: &Computation, p: &mut Problems) {
    // Whether each instruction's own shape is well formed: inference is skipped for users of
    // a malformed shape, whose errors would only repeat the first problem.
    let mut well_formed = Vec::with_capacity(comp.instructions.len());
    for (i, ins) in comp.instructions.iter().enumerate() {
        let mut bad = Vec::new();
        shape_problems(&ins.shape, &mut bad);
        for b in &bad {
            p.instr(
                &comp.name,
                &ins.name,
                format!("invalid shape {}: {b}", ins.shape),
            );
        }
        well_formed.push(bad.is_empty());
        let operands_ok = ins
            .operands
            .iter()
            .all(|o| well_formed.get(o.0).copied().unwrap_or(false));
        if bad.is_empty() && operands_ok {
            check_inferred(module, comp, i, ins, p);
        }
    }
}

/// Appends what is wrong with `shape` (recursively for tuples) to `out`.
pub(crate) fn shape_problems(shape: &Shape, out: &mut Vec<String>) {
    match shape {
        Shape::Array(a) => {
            if !a.ty.is_array_type() {
                out.push(format!("{} is not an array element type", a.ty));
            }
            for (d, &size) in a.dims.iter().enumerate() {
                let unbounded_dynamic = a.is_dynamic_dim(d) && size == UNBOUNDED;
                if size < 0 && !unbounded_dynamic {
                    out.push(format!("dimension {d} has negative size {size}"));
                }
            }
            if !a.dynamic.is_empty() && a.dynamic.len() != a.dims.len() {
                out.push(format!(
                    "{} dynamic-dimension flags for {} dimensions",
                    a.dynamic.len(),
                    a.dims.len()
                ));
            }
            if let Some(l) = &a.layout {
                let mut sorted = l.minor_to_major.clone();
                sorted.sort_unstable();
                if sorted != (0..a.dims.len() as i64).collect::<Vec<_>>() {
                    out.push(format!(
                        "layout {{{}}} is not a permutation of the {} dimensions",
                        l.minor_to_major
                            .iter()
                            .map(|d| d.to_string())
                            .collect::<Vec<_>>()
                            .join(","),
                        a.dims.len()
                    ));
                }
            }
        }
        Shape::Tuple(t) => t.iter().for_each(|e| shape_problems(e, out)),
        Shape::Token => {}
    }
}

/// The signature of a computation, if its root exists.
fn program_shape(comp: &Computation) -> Option<ProgramShape> {
    Some(ProgramShape {
        parameters: comp.parameter_shapes(),
        result: comp.result_shape()?.clone(),
    })
}

/// Compares the declared shape of instruction `i` with the inferred one. Skipped when an
/// operand or a called computation is invalid (those are reported by the structural checks).
fn check_inferred(
    module: &Module,
    comp: &Computation,
    i: usize,
    ins: &Instruction,
    p: &mut Problems,
) {
    let mut operands = Vec::with_capacity(ins.operands.len());
    for id in &ins.operands {
        match comp.get(*id) {
            Some(o) if id.0 < i => operands.push(&o.shape),
            _ => return,
        }
    }
    let mut called = Vec::new();
    for c in ins.op.called_computations() {
        match module.get(c).and_then(program_shape) {
            Some(ps) => called.push(ps),
            None => return,
        }
    }
    match infer_shape(&ins.op, &operands, &called, Some(&ins.shape)) {
        Ok(inferred) if inferred.compatible(&ins.shape) => {}
        Ok(inferred) => p.instr(
            &comp.name,
            &ins.name,
            format!(
                "declared shape {} does not match the shape {} inferred from the operands ({})",
                ins.shape,
                inferred,
                operand_list(&operands)
            ),
        ),
        Err(e) => p.instr(
            &comp.name,
            &ins.name,
            format!("shape inference failed: {e}"),
        ),
    }
}

fn operand_list(shapes: &[&Shape]) -> String {
    if shapes.is_empty() {
        return "no operands".into();
    }
    shapes
        .iter()
        .map(|s| s.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}
