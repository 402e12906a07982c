//! Rewrites applied to a module before it is planned: each keeps every value the same.
//!
//! - A `transpose` feeding a `dot` is folded into the dot's dimension numbers when that
//!   leaves the dot's result unchanged (the operand's free dims keep their order); the dot
//!   then reads the untransposed operand in place (faer takes either orientation), and the
//!   transpose, if nothing else reads it, is dropped as dead.
//! - [`live`] marks what the root needs, so dead instructions are never run.

use xla_core::attrs::DotDims;
use xla_core::ir::{Computation, Module, Op};

/// Applies every rewrite to every computation of `m`.
pub(crate) fn simplify(m: &mut Module) {
    for c in &mut m.computations {
        fold_transposes_into_dots(c);
        transposed_dots(c);
    }
}

fn fold_transposes_into_dots(c: &mut Computation) {
    for i in 0..c.instructions.len() {
        for side in 0..2 {
            let Some(fold) = transpose_fold(c, i, side) else {
                continue;
            };
            let (src, dims) = fold;
            if let Some(ins) = c.instructions.get_mut(i) {
                if let Op::Dot { dims: d, .. } = &mut ins.op {
                    *d = dims;
                }
                if let Some(o) = ins.operands.get_mut(side) {
                    *o = src;
                }
            }
        }
    }
}

/// For operand `side` (0 lhs, 1 rhs) of instruction `i`: when it is a dot whose operand is
/// a transpose that can be folded, the transpose's operand and the new dimension numbers.
fn transpose_fold(
    c: &Computation,
    i: usize,
    side: usize,
) -> Option<(xla_core::ir::InstrId, DotDims)> {
    let ins = c.instructions.get(i)?;
    let Op::Dot { dims, .. } = &ins.op else {
        return None;
    };
    let t = c.instructions.get(ins.operands.get(side)?.0)?;
    let Op::Transpose { permutation } = &t.op else {
        return None;
    };
    let src = *t.operands.first()?;
    if c.instructions.get(src.0)?.shape.element_type() != t.shape.element_type() {
        return None;
    }
    let map = |ds: &[i64]| -> Option<Vec<i64>> {
        ds.iter()
            .map(|&d| permutation.get(usize::try_from(d).ok()?).copied())
            .collect()
    };
    let (batch, contract) = if side == 0 {
        (&dims.lhs_batch_dims, &dims.lhs_contracting_dims)
    } else {
        (&dims.rhs_batch_dims, &dims.rhs_contracting_dims)
    };
    // The free dims, in order, must stay in order after the permutation.
    let free: Vec<i64> = (0..permutation.len() as i64)
        .filter(|d| !batch.contains(d) && !contract.contains(d))
        .collect();
    let moved = map(&free)?;
    if moved.windows(2).any(|w| w[0] > w[1]) {
        return None;
    }
    let mut nd = dims.clone();
    if side == 0 {
        nd.lhs_batch_dims = map(batch)?;
        nd.lhs_contracting_dims = map(contract)?;
    } else {
        nd.rhs_batch_dims = map(batch)?;
        nd.rhs_contracting_dims = map(contract)?;
    }
    Some((src, nd))
}

/// `transpose(dot(a, b))` that swaps the dot's lhs-free and rhs-free dims (batch dims kept
/// in place) becomes `dot(b, a)` with the dimension numbers swapped, when the transpose is
/// the dot's only reader: the product is then written in the order it is read.
fn transposed_dots(c: &mut Computation) {
    let mut readers = vec![0usize; c.instructions.len()];
    for ins in &c.instructions {
        for o in &ins.operands {
            if let Some(r) = readers.get_mut(o.0) {
                *r += 1;
            }
        }
    }
    if let Some(r) = readers.get_mut(c.root.0) {
        *r += 1;
    }
    for i in 0..c.instructions.len() {
        let Some((op, operands)) = swapped_dot(c, i, &readers) else {
            continue;
        };
        if let Some(ins) = c.instructions.get_mut(i) {
            ins.op = op;
            ins.operands = operands;
        }
    }
}

fn swapped_dot(
    c: &Computation,
    i: usize,
    readers: &[usize],
) -> Option<(Op, Vec<xla_core::ir::InstrId>)> {
    let t = c.instructions.get(i)?;
    let Op::Transpose { permutation } = &t.op else {
        return None;
    };
    let d_id = *t.operands.first()?;
    let d = c.instructions.get(d_id.0)?;
    let Op::Dot { dims, precision } = &d.op else {
        return None;
    };
    if readers.get(d_id.0) != Some(&1) || d.operands.len() != 2 {
        return None;
    }
    let rank = |id: xla_core::ir::InstrId| c.instructions.get(id.0).map(|x| x.shape.rank());
    let nb = dims.lhs_batch_dims.len();
    let free = |id, nc: usize| rank(id)?.checked_sub(nb + nc);
    let lf = free(*d.operands.first()?, dims.lhs_contracting_dims.len())?;
    let rf = free(*d.operands.get(1)?, dims.rhs_contracting_dims.len())?;
    // Result of dot(b, a): [batch, rhs free, lhs free]; as a permutation of dot(a, b)'s dims.
    let want: Vec<i64> = (0..nb)
        .chain(nb + lf..nb + lf + rf)
        .chain(nb..nb + lf)
        .map(|x| x as i64)
        .collect();
    if *permutation != want || t.shape.element_type() != d.shape.element_type() {
        return None;
    }
    let swapped = DotDims {
        lhs_batch_dims: dims.rhs_batch_dims.clone(),
        lhs_contracting_dims: dims.rhs_contracting_dims.clone(),
        rhs_batch_dims: dims.lhs_batch_dims.clone(),
        rhs_contracting_dims: dims.lhs_contracting_dims.clone(),
    };
    let mut precision = precision.clone();
    precision.operand_precision.reverse();
    let op = Op::Dot {
        dims: swapped,
        precision,
    };
    Some((op, vec![*d.operands.get(1)?, *d.operands.first()?]))
}

/// Which instructions of `c` must run: the root, what has a side effect or calls a
/// computation (which might), and everything those read.
pub(crate) fn live(c: &Computation) -> Vec<bool> {
    let n = c.instructions.len();
    let mut live = vec![false; n];
    let mut stack: Vec<usize> = vec![c.root.0];
    for (i, ins) in c.instructions.iter().enumerate() {
        if ins.op.has_side_effect() || !ins.op.called_computations().is_empty() {
            stack.push(i);
        }
    }
    while let Some(i) = stack.pop() {
        match live.get_mut(i) {
            Some(l) if !*l => *l = true,
            _ => continue,
        }
        if let Some(ins) = c.instructions.get(i) {
            stack.extend(ins.operands.iter().map(|o| o.0));
        }
    }
    live
}
