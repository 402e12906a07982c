//! Rewrites applied to a module before it is planned: each keeps every value the same.
//!
//! - Every `call` is inlined (its callee's instructions copied in its place, the callee's
//!   parameters replaced by the call's operands), so the callee's elementwise ops fuse with
//!   the caller's and no argument is passed at run time.
//! - A `transpose` feeding a `dot` is folded into the dot's dimension numbers when that
//!   leaves the dot's result unchanged (the operand's free dims keep their order); the dot
//!   then reads the untransposed operand in place (faer takes either orientation), and the
//!   transpose, if nothing else reads it, is dropped as dead.
//! - `divide(a, broadcast(b))` becomes `multiply(a, broadcast(divide(1, b)))` for f32 and
//!   f64, as XLA's algebraic simplifier does: checked against jaxlib 0.10.2, whose results
//!   for a row, scalar-parameter and scalar-constant divisor equal `a * (1 / b)` bit for
//!   bit and differ from IEEE division in a quarter of the elements. The reciprocal is
//!   computed once per divisor element instead of a division per output element.
//! - `get-tuple-element(tuple(…))` reads the element itself ([`tuples`]).
//! - Chains of reshapes and size-1 broadcasts collapse ([`shapes`]).
//! - Chains of slices, and pads that only cut, become one slice ([`slices`]).
//! - Products of broadcast scalars are combined as XLA combines them ([`algebra`]).
//! - Instructions computing the same value as an earlier one are merged into it ([`cse`]).
//! - Loop-invariant instructions move out of while bodies ([`licm`]).
//! - `add(c, dot(a, b))` accumulates the product into `c` ([`dot_add`]).
//! - A `transpose` that is a `dot`'s only reader and moves a free dim outward is computed
//!   with the dot, straight into the transposed order ([`dot_order`]).
//! - [`live`] marks what the root needs, so dead instructions are never run.

mod algebra;
mod cse;
mod dot_add;
mod dot_order;
mod licm;
mod shapes;
mod slices;
mod tuples;

use xla_core::attrs::DotDims;
use xla_core::ir::{Computation, InstrId, Instruction, Module, Op};

/// Applies every rewrite to every computation of `m`.
pub(crate) fn simplify(m: &mut Module) {
    inline_calls(m);
    for c in &mut m.computations {
        tuples::forward_tuple_elements(c);
        shapes::simplify_shapes(c);
        slices::simplify_slices(c);
    }
    cse::eliminate_common_subexpressions(m);
    licm::hoist_loop_invariants(m);
    for c in &mut m.computations {
        if let Some(r) = reciprocal_divisors(c) {
            *c = r;
        }
        if let Some(r) = algebra::combine_scalar_factors(c) {
            *c = r;
        }
        fold_transposes_into_dots(c);
        transposed_dots(c);
        dot_add::dots_into_adds(c);
    }
    if let Some(c) = m.computations.get_mut(m.entry.0) {
        dot_order::dots_into_transposes(c);
    }
}

/// Inlines calls one level per round (nested calls take several; HLO has no recursion, and
/// the rounds are bounded anyway).
fn inline_calls(m: &mut Module) {
    for _ in 0..16 {
        let bodies = m.computations.clone();
        let mut changed = false;
        for c in &mut m.computations {
            if !c
                .instructions
                .iter()
                .any(|i| matches!(i.op, Op::Call { .. }))
            {
                continue;
            }
            if let Some(inlined) = inline_in(c, &bodies) {
                *c = inlined;
                changed = true;
            }
        }
        if !changed {
            return;
        }
    }
}

/// `c` with each of its calls replaced by a copy of the callee's body (`None` if anything
/// does not resolve, leaving `c` as it was).
fn inline_in(c: &Computation, bodies: &[Computation]) -> Option<Computation> {
    let mut out: Vec<Instruction> = Vec::with_capacity(c.instructions.len());
    let mut map: Vec<InstrId> = Vec::with_capacity(c.instructions.len());
    for ins in &c.instructions {
        let operands = remap(&ins.operands, &map)?;
        let Op::Call { to_apply, .. } = &ins.op else {
            out.push(Instruction {
                operands,
                ..ins.clone()
            });
            map.push(InstrId(out.len() - 1));
            continue;
        };
        let callee = bodies.get(to_apply.0)?;
        let mut cmap: Vec<InstrId> = Vec::with_capacity(callee.instructions.len());
        for ci in &callee.instructions {
            if let Op::Parameter { number } = ci.op {
                cmap.push(*operands.get(usize::try_from(number).ok()?)?);
                continue;
            }
            out.push(Instruction {
                name: format!("{}.{}", ins.name, ci.name),
                op: ci.op.clone(),
                operands: remap(&ci.operands, &cmap)?,
                shape: ci.shape.clone(),
            });
            cmap.push(InstrId(out.len() - 1));
        }
        map.push(*cmap.get(callee.root.0)?);
    }
    Some(Computation {
        name: c.name.clone(),
        instructions: out,
        root: *map.get(c.root.0)?,
    })
}

/// `c` with each `divide(a, broadcast(b))` of f32 or f64 turned into
/// `multiply(a, broadcast(divide(broadcast(1), b)))` (`None` when there is none).
fn reciprocal_divisors(c: &Computation) -> Option<Computation> {
    use xla_core::attrs::BinaryOp;
    use xla_core::{Literal, PrimitiveType, Shape};
    let divisor = |ins: &Instruction| -> Option<(InstrId, InstrId, Vec<i64>)> {
        let Op::Binary(BinaryOp::Div) = ins.op else {
            return None;
        };
        let [a, b] = ins.operands.as_slice() else {
            return None;
        };
        let bi = c.instructions.get(b.0)?;
        let Op::Broadcast { dimensions } = &bi.op else {
            return None;
        };
        let ty = ins.shape.element_type();
        if bi.shape.element_type() != ty || !matches!(ty, PrimitiveType::F32 | PrimitiveType::F64) {
            return None;
        }
        Some((*a, *bi.operands.first()?, dimensions.clone()))
    };
    if !c.instructions.iter().any(|i| divisor(i).is_some()) {
        return None;
    }
    let mut out: Vec<Instruction> = Vec::with_capacity(c.instructions.len() + 8);
    let mut map: Vec<InstrId> = Vec::with_capacity(c.instructions.len());
    let push = |out: &mut Vec<Instruction>, name: String, op: Op, operands, shape| {
        out.push(Instruction {
            name,
            op,
            operands,
            shape,
        });
        InstrId(out.len() - 1)
    };
    for ins in &c.instructions {
        let operands = remap(&ins.operands, &map)?;
        let Some((a, b, dims)) = divisor(ins) else {
            out.push(Instruction {
                operands,
                ..ins.clone()
            });
            map.push(InstrId(out.len() - 1));
            continue;
        };
        let ty = ins.shape.element_type();
        let (a, b) = (*map.get(a.0)?, *map.get(b.0)?);
        let b_shape = out.get(b.0)?.shape.clone();
        let one = match ty {
            PrimitiveType::F64 => Literal::scalar(1.0f64),
            _ => Literal::scalar(1.0f32),
        };
        let n = &ins.name;
        let one = push(
            &mut out,
            format!("{n}.one"),
            Op::Constant { literal: one },
            vec![],
            Shape::scalar(ty),
        );
        let ones = push(
            &mut out,
            format!("{n}.ones"),
            Op::Broadcast { dimensions: vec![] },
            vec![one],
            b_shape.clone(),
        );
        let recip = push(
            &mut out,
            format!("{n}.recip"),
            Op::Binary(BinaryOp::Div),
            vec![ones, b],
            b_shape,
        );
        let spread = push(
            &mut out,
            format!("{n}.recip.broadcast"),
            Op::Broadcast { dimensions: dims },
            vec![recip],
            ins.shape.clone(),
        );
        let id = push(
            &mut out,
            n.clone(),
            Op::Binary(BinaryOp::Mul),
            vec![a, spread],
            ins.shape.clone(),
        );
        map.push(id);
    }
    Some(Computation {
        name: c.name.clone(),
        instructions: out,
        root: *map.get(c.root.0)?,
    })
}

pub(super) fn remap(ids: &[InstrId], map: &[InstrId]) -> Option<Vec<InstrId>> {
    ids.iter().map(|o| map.get(o.0).copied()).collect()
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

/// How many times each instruction of `c` is read (the root once more).
fn readers(c: &Computation) -> Vec<usize> {
    let mut readers = vec![0usize; c.instructions.len()];
    for o in c.instructions.iter().flat_map(|i| &i.operands) {
        if let Some(r) = readers.get_mut(o.0) {
            *r += 1;
        }
    }
    if let Some(r) = readers.get_mut(c.root.0) {
        *r += 1;
    }
    readers
}

/// `transpose(dot(a, b))` that swaps the dot's lhs-free and rhs-free dims (batch dims kept
/// in place) becomes `dot(b, a)` with the dimension numbers swapped, when the transpose is
/// the dot's only reader: the product is then written in the order it is read.
fn transposed_dots(c: &mut Computation) {
    replace_each(c, swapped_dot);
}

/// A rewrite that gives instruction `i` of a computation (whose values have the given
/// reader counts) a new op and operands, or leaves it (`None`).
type Replacement = fn(&Computation, usize, &[usize]) -> Option<(Op, Vec<InstrId>)>;

/// Applies `f` to every instruction of `c` in order, with reader counts taken before the
/// first replacement (a replaced instruction's old operands keep their count: the dead
/// ones are dropped later).
fn replace_each(c: &mut Computation, f: Replacement) {
    let readers = readers(c);
    for i in 0..c.instructions.len() {
        let Some((op, operands)) = f(c, i, &readers) else {
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
