//! Constants a region uses from outside, copied into the region. `exported.mlir_module()`
//! (and `jax.export` bytecode) hoists the constants of sort comparators and reducers out of
//! their regions; HLO computations capture nothing, so each such region gets its own copy
//! of the constants it uses (what XLA's own import does).

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

/// Processes the regions nested in `r` with the constants visible there; `visible` gains
/// `r`'s own constants as they are defined.
fn walk(r: &mut Region, visible: &mut HashMap<String, OpAst>) {
    for op in &mut r.ops {
        for nested in &mut op.regions {
            let mut inner = visible.clone();
            walk(nested, &mut inner);
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
