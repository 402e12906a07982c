//! Reshape and broadcast simplifications XLA's `AlgebraicSimplifier` makes; each moves no
//! value and changes no rounding, so results are bit-identical. JAX writes every
//! `keepdims` reduction as `reshape(reduce)` → `broadcast(…, dims={0,1})` → `reshape` →
//! `broadcast`; after these rules the chain is one `broadcast(reduce)`, which the fusion
//! planner reads in place (a row load) instead of storing three copies of it.
//!
//! - `broadcast(x)` adding only size-1 dims, in order, is `reshape(x)`.
//! - `reshape(reshape(x))` is `reshape(x)`.
//! - A `reshape` to its operand's own dims is its operand (unless it is the root).
//! - `broadcast(reshape(x))` where the reshape only inserts or removes size-1 dims, and
//!   `x` has none, is `broadcast(x)` with `x`'s dims mapped through the reshape.

use xla_core::ir::{Computation, InstrId, Op};
use xla_core::shape::ArrayShape;

/// The static array shape of instruction `id`.
fn array(c: &Computation, id: InstrId) -> Option<&ArrayShape> {
    let a = c.get(id)?.shape.as_array()?;
    a.dynamic.iter().all(|d| !d).then_some(a)
}

/// For `y = reshape(x)` that only inserts or removes size-1 dims, with no size-1 dim in
/// `x`: for each dim of `x`, the dim of `y` it is.
fn degenerate_map(x: &ArrayShape, y: &ArrayShape) -> Option<Vec<usize>> {
    if x.dims.contains(&1) || x.ty != y.ty {
        return None;
    }
    let kept: Vec<usize> = (0..y.dims.len()).filter(|&j| y.dims[j] != 1).collect();
    let same =
        kept.len() == x.dims.len() && kept.iter().zip(&x.dims).all(|(&j, &d)| y.dims[j] == d);
    same.then_some(kept)
}

/// The simplified `(op, operand)` of instruction `i`, or `None` to keep it.
fn simplified(c: &Computation, i: usize) -> Option<(Op, InstrId)> {
    let ins = c.instructions.get(i)?;
    let [o] = ins.operands.as_slice() else {
        return None;
    };
    let (out, src) = (array(c, InstrId(i))?, array(c, *o)?);
    let producer = c.get(*o)?;
    match &ins.op {
        Op::Broadcast { dimensions } => {
            let count = |d: &[i64]| d.iter().product::<i64>();
            let ordered = dimensions.windows(2).all(|w| w[0] < w[1]);
            if ordered && count(&out.dims) == count(&src.dims) && out.ty == src.ty {
                return Some((Op::Reshape, *o));
            }
            let (Op::Reshape, [x]) = (&producer.op, producer.operands.as_slice()) else {
                return None;
            };
            let map = degenerate_map(array(c, *x)?, src)?;
            let dims = map
                .iter()
                .map(|&j| dimensions.get(j).copied())
                .collect::<Option<Vec<i64>>>()?;
            Some((Op::Broadcast { dimensions: dims }, *x))
        }
        Op::Reshape => match (&producer.op, producer.operands.as_slice()) {
            (Op::Reshape, [x]) if array(c, *x).is_some() => Some((Op::Reshape, *x)),
            _ => None,
        },
        _ => None,
    }
}

/// Applies the rules to `c` in place, to a fixed point; true if anything changed.
pub(super) fn simplify_shapes(c: &mut Computation) -> bool {
    let mut changed = false;
    let n = c.instructions.len();
    let mut alias: Vec<InstrId> = (0..n).map(InstrId).collect();
    for i in 0..n {
        if let Some(ins) = c.instructions.get_mut(i) {
            for o in &mut ins.operands {
                *o = alias.get(o.0).copied().unwrap_or(*o);
            }
        }
        while let Some((op, x)) = simplified(c, i) {
            if let Some(ins) = c.instructions.get_mut(i) {
                ins.op = op;
                ins.operands = vec![x];
                changed = true;
            }
        }
        let Some(ins) = c.instructions.get(i) else {
            continue;
        };
        if let (Op::Reshape, [x]) = (&ins.op, ins.operands.as_slice()) {
            let same = array(c, *x).zip(array(c, InstrId(i)));
            if i != c.root.0 && same.is_some_and(|(a, b)| a.dims == b.dims && a.ty == b.ty) {
                alias[i] = *x;
                changed = true;
            }
        }
    }
    changed
}
