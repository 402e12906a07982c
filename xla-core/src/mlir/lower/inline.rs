//! Constants a region uses from outside, copied into the region. `exported.mlir_module()`
//! (and `jax.export` bytecode) hoists the constants of sort comparators and reducers out of
//! their regions; HLO computations capture nothing, so each such region gets its own copy
//! of the constants it uses (while, if and case pass outside values in instead).

use super::free_vars;
use crate::mlir::ast::{ModuleAst, OpAst, Region};
use std::collections::HashMap;

/// `m` with every region's outside constants copied in.
pub(crate) fn inline_constants(m: &ModuleAst) -> ModuleAst {
    let mut m = m.clone();
    for f in &mut m.funcs {
        let mut visible = HashMap::new();
        walk(&mut f.body, &mut visible);
    }
    m
}

fn is_constant(op: &OpAst) -> bool {
    op.short_name() == "constant" && op.operands.is_empty() && op.result_count() == 1
}

/// Regions that pass the values they use from outside in explicitly (while, if, case)
/// keep doing so; the others (comparators, reducers, combiners) get copies.
fn captures(op: &OpAst) -> bool {
    matches!(op.short_name(), "while" | "if" | "case")
}

/// Processes the regions nested in `r` with the constants visible there; `visible` gains
/// `r`'s own constants as they are defined.
fn walk(r: &mut Region, visible: &mut HashMap<String, OpAst>) {
    for op in &mut r.ops {
        let captures = captures(op);
        for nested in &mut op.regions {
            let mut inner = visible.clone();
            walk(nested, &mut inner);
            if captures {
                continue;
            }
            let copies: Vec<OpAst> = free_vars(nested)
                .iter()
                .filter_map(|n| visible.get(n).cloned())
                .collect();
            if !copies.is_empty() {
                nested.ops.splice(0..0, copies);
            }
        }
        if is_constant(op) {
            if let Some((name, _)) = op.results.first() {
                visible.insert(name.clone(), op.clone());
            }
        }
    }
}
