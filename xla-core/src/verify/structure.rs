//! Structural checks: entry, names, operand order, root, parameter numbering, call graph.

use super::Problems;
use crate::ir::{CompId, Computation, InstrId, Module, Op};
use std::collections::{HashMap, HashSet};

/// Module-level checks: the entry exists, computation names are unique, and every called
/// computation exists and the call graph has no cycle.
pub(super) fn check_module(module: &Module, p: &mut Problems) {
    if module.entry_computation().is_none() {
        p.module(format!(
            "entry computation id {} does not exist (the module has {} computations)",
            module.entry.0,
            module.computations.len()
        ));
    }
    let mut seen: HashSet<&str> = HashSet::new();
    for comp in &module.computations {
        if comp.name.is_empty() {
            p.comp(&comp.name, "computation name is empty");
        } else if !seen.insert(&comp.name) {
            p.comp(&comp.name, "duplicate computation name");
        }
    }
    check_call_graph(module, p);
}

/// Reports dangling called-computation ids and cycles (recursion) in the call graph.
fn check_call_graph(module: &Module, p: &mut Problems) {
    let n = module.computations.len();
    for comp in &module.computations {
        for ins in &comp.instructions {
            for c in ins.op.called_computations() {
                if c.0 >= n {
                    p.instr(
                        &comp.name,
                        &ins.name,
                        format!(
                            "{} calls computation id {} which does not exist",
                            ins.op.name(),
                            c.0
                        ),
                    );
                }
            }
        }
    }
    // Colours: 0 = unvisited, 1 = on the current path, 2 = finished.
    let mut colour = vec![0u8; n];
    for start in 0..n {
        if colour[start] == 0 {
            find_cycles(module, CompId(start), &mut colour, p);
        }
    }
}

/// Calls out of one computation: (calling instruction's name, callee).
type Edges = Vec<(String, CompId)>;

/// Iterative depth-first search reporting each back edge (a call that closes a cycle).
fn find_cycles(module: &Module, start: CompId, colour: &mut [u8], p: &mut Problems) {
    let callees = |id: CompId| -> Edges {
        module.get(id).map_or_else(Vec::new, |c| {
            c.instructions
                .iter()
                .flat_map(|i| {
                    i.op.called_computations()
                        .into_iter()
                        .map(|c| (i.name.clone(), c))
                })
                .filter(|(_, c)| c.0 < module.computations.len())
                .collect()
        })
    };
    let mut stack: Vec<(CompId, Edges, usize)> = vec![(start, callees(start), 0)];
    colour[start.0] = 1;
    while let Some((cur, edges, next)) = stack.last_mut() {
        let cur = *cur;
        if let Some((instr, callee)) = edges.get(*next).cloned() {
            *next += 1;
            match colour[callee.0] {
                0 => {
                    colour[callee.0] = 1;
                    stack.push((callee, callees(callee), 0));
                }
                1 => {
                    let name = |c: CompId| module.get(c).map_or("", |c| c.name.as_str());
                    p.instr(
                        name(cur),
                        &instr,
                        format!(
                            "recursive call: calls {}, which is already being called (a cycle \
                             in the call graph)",
                            name(callee)
                        ),
                    );
                }
                _ => {}
            }
        } else {
            colour[cur.0] = 2;
            stack.pop();
        }
    }
}

/// Per-computation checks: instruction names, operand order, root, parameter numbers.
pub(super) fn check_computation(comp: &Computation, p: &mut Problems) {
    let name = comp.name.as_str();
    if comp.instructions.is_empty() {
        p.comp(name, "computation has no instructions");
    } else if comp.get(comp.root).is_none() {
        p.comp(
            name,
            format!(
                "root id {} does not exist (the computation has {} instructions)",
                comp.root.0,
                comp.instructions.len()
            ),
        );
    }
    let mut seen: HashSet<&str> = HashSet::new();
    for (i, ins) in comp.instructions.iter().enumerate() {
        if ins.name.is_empty() {
            p.instr(
                name,
                &ins.name,
                format!("instruction {i} has an empty name"),
            );
        } else if !seen.insert(&ins.name) {
            p.instr(
                name,
                &ins.name,
                "duplicate instruction name in this computation",
            );
        }
        for (k, &op) in ins.operands.iter().enumerate() {
            check_operand(comp, InstrId(i), k, op, p);
        }
    }
    check_parameters(comp, p);
}

fn check_operand(comp: &Computation, user: InstrId, k: usize, op: InstrId, p: &mut Problems) {
    let ins = comp.instr(user);
    let msg = if op.0 >= comp.instructions.len() {
        format!(
            "operand {k} refers to instruction id {} which does not exist",
            op.0
        )
    } else if op == user {
        format!("operand {k} refers to the instruction itself (a cycle)")
    } else if op.0 > user.0 {
        format!(
            "operand {k} ({}) is defined after its user (a forward reference or cycle)",
            comp.instr(op).name
        )
    } else {
        return;
    };
    p.instr(&comp.name, &ins.name, msg);
}

/// Parameters must be numbered `0..n-1`, each exactly once.
fn check_parameters(comp: &Computation, p: &mut Problems) {
    let mut by_number: HashMap<i64, Vec<&str>> = HashMap::new();
    for ins in &comp.instructions {
        if let Op::Parameter { number } = ins.op {
            by_number.entry(number).or_default().push(&ins.name);
        }
    }
    let n = by_number.values().map(Vec::len).sum::<usize>() as i64;
    let mut entries: Vec<(i64, Vec<&str>)> = by_number.into_iter().collect();
    entries.sort_unstable();
    for (number, names) in &entries {
        if *number < 0 || *number >= n {
            for name in names {
                p.instr(
                    &comp.name,
                    name,
                    format!(
                        "parameter number {number} is out of range: the computation has {n} \
                         parameters, numbered 0..{}",
                        n - 1
                    ),
                );
            }
        }
        if names.len() > 1 {
            p.comp(
                &comp.name,
                format!(
                    "parameter number {number} is used by {} instructions: {}",
                    names.len(),
                    names.join(", ")
                ),
            );
        }
    }
    let present: HashSet<i64> = entries.iter().map(|(k, _)| *k).collect();
    let missing: Vec<String> = (0..n)
        .filter(|i| !present.contains(i))
        .map(|i| i.to_string())
        .collect();
    if !missing.is_empty() {
        p.comp(
            &comp.name,
            format!(
                "parameter numbers missing: {} (parameters must be numbered 0..{} without gaps)",
                missing.join(", "),
                n - 1
            ),
        );
    }
}
