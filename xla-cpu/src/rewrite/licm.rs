//! While-loop invariant code motion, as XLA's `WhileLoopInvariantCodeMotion` does it: a
//! body instruction whose operands are all loop-invariant (constants, and state elements the
//! body passes through unchanged) computes the same value every iteration, so it runs once
//! before the loop and its value rides along as an extra state element. A decoder that slices
//! each layer's weights out of the loop state every step slices them once.
//!
//! Not hoisted: ops with side effects, called computations or tuple results (`fold::pure`),
//! and broadcasts and iotas, which are cheap to recompute and would only make the state
//! bigger. A loop is left alone unless its condition and body are used by it alone and
//! read the state only through `get-tuple-element`.

use crate::fold::pure;
use xla_core::ir::{CompId, Computation, InstrId, Instruction, Module, Op};
use xla_core::Shape;

/// Hoists the invariant instructions of every while loop of `m`.
pub(crate) fn hoist_loop_invariants(m: &mut Module) {
    // Each round moves one loop's invariants; a module has finitely many loops.
    for _ in 0..64 {
        let Some((c, w)) = find_loop(m) else { return };
        // On a copy, so a loop that turns out not to fit leaves the module as it was.
        let mut next = m.clone();
        if hoist(&mut next, c, w).is_none() {
            return;
        }
        *m = next;
    }
}

/// The first while loop (computation, instruction) with something to hoist.
fn find_loop(m: &Module) -> Option<(usize, usize)> {
    for (c, comp) in m.computations.iter().enumerate() {
        for (w, ins) in comp.instructions.iter().enumerate() {
            if let Op::While { condition, body } = ins.op {
                if condition != body && uses(m, condition) == 1 && uses(m, body) == 1 {
                    if let Some(b) = m.computations.get(body.0) {
                        if !frontier(b).is_empty() && reads_by_element(m, condition) {
                            return Some((c, w));
                        }
                    }
                }
            }
        }
    }
    None
}

fn uses(m: &Module, c: CompId) -> usize {
    m.computations
        .iter()
        .flat_map(|comp| &comp.instructions)
        .filter(|i| i.op.called_computations().contains(&c))
        .count()
}

/// True when computation `c` has one parameter, read only by `get-tuple-element`.
fn reads_by_element(m: &Module, c: CompId) -> bool {
    let Some(comp) = m.computations.get(c.0) else {
        return false;
    };
    let params = comp.parameters();
    let [p] = params.as_slice() else { return false };
    comp.root != *p
        && comp
            .instructions
            .iter()
            .all(|i| !i.operands.contains(p) || matches!(i.op, Op::GetTupleElement { .. }))
}

/// The state elements the body passes through unchanged (`root.j = gte(param, j)`).
fn passed_through(body: &Computation) -> Option<(InstrId, Vec<bool>)> {
    let params = body.parameters();
    let [p] = params.as_slice() else { return None };
    let root = body.root_instruction()?;
    if !matches!(root.op, Op::Tuple) {
        return None;
    }
    let through = root
        .operands
        .iter()
        .enumerate()
        .map(|(j, o)| {
            body.get(*o).is_some_and(|i| {
                i.operands.as_slice() == [*p]
                    && matches!(i.op, Op::GetTupleElement { index } if index == j as i64)
            })
        })
        .collect();
    Some((*p, through))
}

/// Which body instructions are invariant.
fn invariant(body: &Computation) -> Vec<bool> {
    let mut inv = vec![false; body.instructions.len()];
    let Some((p, through)) = passed_through(body) else {
        return inv;
    };
    for (i, ins) in body.instructions.iter().enumerate() {
        inv[i] = match (&ins.op, ins.operands.as_slice()) {
            (Op::Constant { .. }, _) => true,
            (Op::GetTupleElement { index }, [t]) if *t == p => usize::try_from(*index)
                .ok()
                .and_then(|j| through.get(j).copied())
                .unwrap_or(false),
            (op, ops) => {
                pure(op)
                    && ins.shape.as_array().is_some()
                    && ops.iter().all(|o| inv.get(o.0).copied().unwrap_or(false))
            }
        };
    }
    inv
}

/// Invariant instructions worth hoisting that a varying instruction (or the root) reads.
fn frontier(body: &Computation) -> Vec<usize> {
    let inv = invariant(body);
    let worth = |ins: &Instruction| {
        !matches!(
            ins.op,
            Op::Constant { .. }
                | Op::GetTupleElement { .. }
                | Op::Broadcast { .. }
                | Op::Iota { .. }
        )
    };
    let mut read_by_varying = vec![false; body.instructions.len()];
    for (i, ins) in body.instructions.iter().enumerate() {
        if !inv[i] || i == body.root.0 {
            for o in &ins.operands {
                if let Some(r) = read_by_varying.get_mut(o.0) {
                    *r = true;
                }
            }
        }
    }
    (0..body.instructions.len())
        .filter(|&i| inv[i] && read_by_varying[i] && worth(&body.instructions[i]))
        .collect()
}

/// Moves the invariants of loop `w` of computation `c` out of it (`None` if the module is
/// not as [`find_loop`] checked).
fn hoist(m: &mut Module, c: usize, w: usize) -> Option<()> {
    let outer = m.computations.get(c)?;
    let wins = outer.instructions.get(w)?.clone();
    let Op::While { condition, body } = wins.op else {
        return None;
    };
    let b = m.computations.get(body.0)?.clone();
    let (param, _) = passed_through(&b)?;
    let hoisted = frontier(&b);
    // Each hoisted instruction becomes a read of the parameter, which must come first.
    if hoisted.iter().any(|&h| h < param.0) {
        return None;
    }
    let inv = invariant(&b);
    let Shape::Tuple(elems) = &wins.shape else {
        return None;
    };
    let n = elems.len();
    let mut state = elems.clone();
    state.extend(hoisted.iter().map(|&h| b.instructions[h].shape.clone()));
    let new_shape = Shape::Tuple(state);

    // The outer computation: the invariants computed before the loop, a wider loop, and
    // the original tuple rebuilt from it for the loop's readers.
    let mut out: Vec<Instruction> = outer.instructions[..w].to_vec();
    let init = *wins.operands.first()?;
    let push = |out: &mut Vec<Instruction>, i: Instruction| {
        out.push(i);
        InstrId(out.len() - 1)
    };
    let mut element = Vec::with_capacity(n);
    for (j, s) in elems.iter().enumerate() {
        let g = Instruction {
            name: format!("{}.licm.in{j}", wins.name),
            op: Op::GetTupleElement { index: j as i64 },
            operands: vec![init],
            shape: s.clone(),
        };
        element.push(push(&mut out, g));
    }
    let mut map: Vec<Option<InstrId>> = vec![None; b.instructions.len()];
    for (i, ins) in b.instructions.iter().enumerate() {
        if !inv[i] {
            continue;
        }
        map[i] = Some(match (&ins.op, ins.operands.as_slice()) {
            (Op::GetTupleElement { index }, [t]) if *t == param => {
                *element.get(usize::try_from(*index).ok()?)?
            }
            _ => {
                let operands = ins
                    .operands
                    .iter()
                    .map(|o| map.get(o.0).copied().flatten())
                    .collect::<Option<Vec<_>>>()?;
                let name = format!("{}.licm.{}", wins.name, ins.name);
                push(
                    &mut out,
                    Instruction {
                        name,
                        operands,
                        ..ins.clone()
                    },
                )
            }
        });
    }
    let mut init_ops = element.clone();
    for &h in &hoisted {
        init_ops.push(map.get(h).copied().flatten()?);
    }
    let new_init = push(
        &mut out,
        Instruction {
            name: format!("{}.licm.init", wins.name),
            op: Op::Tuple,
            operands: init_ops,
            shape: new_shape.clone(),
        },
    );
    let new_w = push(
        &mut out,
        Instruction {
            operands: vec![new_init],
            shape: new_shape.clone(),
            ..wins.clone()
        },
    );
    let mut parts = Vec::with_capacity(n);
    for (j, s) in elems.iter().enumerate() {
        let g = Instruction {
            name: format!("{}.licm.out{j}", wins.name),
            op: Op::GetTupleElement { index: j as i64 },
            operands: vec![new_w],
            shape: s.clone(),
        };
        parts.push(push(&mut out, g));
    }
    let rebuilt = push(
        &mut out,
        Instruction {
            name: format!("{}.licm.result", wins.name),
            op: Op::Tuple,
            operands: parts,
            shape: wins.shape.clone(),
        },
    );
    // Later instructions shift by the ones inserted; readers of the loop read `rebuilt`.
    let shift = out.len() - w - 1;
    let outer = m.computations.get(c)?;
    for ins in &outer.instructions[w + 1..] {
        let operands = ins
            .operands
            .iter()
            .map(|o| match o.0 {
                x if x == w => rebuilt,
                x if x > w => InstrId(x + shift),
                x => InstrId(x),
            })
            .collect();
        out.push(Instruction {
            operands,
            ..ins.clone()
        });
    }
    let root = match outer.root.0 {
        x if x == w => rebuilt,
        x if x > w => InstrId(x + shift),
        x => InstrId(x),
    };
    let outer = m.computations.get_mut(c)?;
    outer.instructions = out;
    outer.root = root;

    widen_body(
        m.computations.get_mut(body.0)?,
        param,
        &hoisted,
        n,
        &new_shape,
    )?;
    let cond = m.computations.get_mut(condition.0)?;
    let cp = *cond.parameters().first()?;
    cond.instructions.get_mut(cp.0)?.shape = new_shape;
    Some(())
}

/// The body reads each hoisted value as state element `n + k` and passes it on.
fn widen_body(
    b: &mut Computation,
    param: InstrId,
    hoisted: &[usize],
    n: usize,
    shape: &Shape,
) -> Option<()> {
    b.instructions.get_mut(param.0)?.shape = shape.clone();
    for (k, &h) in hoisted.iter().enumerate() {
        let ins = b.instructions.get_mut(h)?;
        ins.op = Op::GetTupleElement {
            index: (n + k) as i64,
        };
        ins.operands = vec![param];
    }
    let root = b.instructions.get_mut(b.root.0)?;
    root.operands.extend(hoisted.iter().map(|&h| InstrId(h)));
    root.shape = shape.clone();
    Some(())
}
