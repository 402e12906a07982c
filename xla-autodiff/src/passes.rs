//! Clean-up passes on the gradient module: common-subexpression elimination, dead-code
//! elimination (parameters are kept: they are the signature) and pruning of computations
//! no longer called.

use std::collections::HashMap;
use xla_core::{CompId, Computation, InstrId, Module, Op};

/// CSE and DCE on every computation, then drops unreachable computations.
pub(crate) fn simplify(mut m: Module) -> Result<Module, xla_core::Error> {
    for c in &mut m.computations {
        cse(c);
        dce(c);
    }
    prune(m)
}

/// Merges instructions with the same op, operands and shape (not parameters, not ops
/// with side effects).
fn cse(c: &mut Computation) {
    let mut map: Vec<InstrId> = Vec::with_capacity(c.instructions.len());
    let mut seen: HashMap<String, InstrId> = HashMap::new();
    let mut kept = Vec::with_capacity(c.instructions.len());
    for ins in c.instructions.drain(..) {
        let mut ins = ins;
        ins.operands = ins.operands.iter().map(|&o| renamed(&map, o)).collect();
        let mergeable = !matches!(ins.op, Op::Parameter { .. }) && !ins.op.has_side_effect();
        let key = format!("{:?}|{:?}|{:?}", ins.op, ins.operands, ins.shape);
        if mergeable {
            if let Some(&id) = seen.get(&key) {
                map.push(id);
                continue;
            }
        }
        let id = InstrId(kept.len());
        if mergeable {
            seen.insert(key, id);
        }
        kept.push(ins);
        map.push(id);
    }
    c.root = renamed(&map, c.root);
    c.instructions = kept;
}

/// The new id of `o` in `map` (old id to new). Operands precede their users and the
/// root is an instruction, so every id has an entry: debug builds assert it.
fn renamed(map: &[InstrId], o: InstrId) -> InstrId {
    let new = map.get(o.0).copied();
    debug_assert!(new.is_some(), "xla-autodiff invariant: {o:?} is renumbered");
    new.unwrap_or(o)
}

/// Removes instructions the root does not use (parameters and side effects stay).
fn dce(c: &mut Computation) {
    let n = c.instructions.len();
    let mut live = vec![false; n];
    if let Some(l) = live.get_mut(c.root.0) {
        *l = true;
    }
    for i in (0..n).rev() {
        let ins = &c.instructions[i];
        if matches!(ins.op, Op::Parameter { .. }) || ins.op.has_side_effect() {
            live[i] = true;
        }
        if live[i] {
            for o in &ins.operands {
                if let Some(l) = live.get_mut(o.0) {
                    *l = true;
                }
            }
        }
    }
    let mut map = vec![InstrId(0); n];
    let mut kept = Vec::with_capacity(n);
    for (i, ins) in c.instructions.drain(..).enumerate() {
        if live[i] {
            map[i] = InstrId(kept.len());
            kept.push(ins);
        }
    }
    for ins in &mut kept {
        ins.operands = ins.operands.iter().map(|&o| renamed(&map, o)).collect();
    }
    c.root = renamed(&map, c.root);
    c.instructions = kept;
}

/// Keeps the computations reachable from the entry, in order, renumbered.
fn prune(m: Module) -> Result<Module, xla_core::Error> {
    let n = m.computations.len();
    let mut reachable = vec![false; n];
    let mut stack = vec![m.entry];
    while let Some(c) = stack.pop() {
        match reachable.get_mut(c.0) {
            Some(r) if !*r => *r = true,
            _ => continue,
        }
        for i in &m.computations[c.0].instructions {
            stack.extend(i.op.called_computations());
        }
    }
    let mut new_id = vec![None; n];
    let mut comps = Vec::new();
    for (i, c) in m.computations.into_iter().enumerate() {
        if reachable[i] {
            new_id[i] = Some(CompId(comps.len()));
            comps.push(c);
        }
    }
    for c in &mut comps {
        for ins in &mut c.instructions {
            ins.op.map_called(|id| {
                let new = new_id.get(id.0).copied().flatten();
                debug_assert!(
                    new.is_some(),
                    "xla-autodiff invariant: callees are reachable"
                );
                new.unwrap_or(id)
            });
        }
    }
    // The walk starts at the entry, so it is reachable whenever it names a computation.
    let Some(entry) = new_id.get(m.entry.0).copied().flatten() else {
        debug_assert!(
            false,
            "xla-autodiff invariant broken: the entry is reachable"
        );
        return Err(xla_core::Error::Internal(
            "autodiff prune: the module's entry names one of its computations",
        ));
    };
    Ok(Module {
        name: m.name,
        computations: comps,
        entry,
        config: m.config,
    })
}
