//! Algebraic rewrites XLA's `AlgebraicSimplifier` makes that change rounding, made here too so
//! results agree with XLA's bit for bit.
//!
//! - `multiply(broadcast(x), multiply(z, broadcast(c)))` with a scalar `x` and a scalar
//!   constant `c` (any operand order) becomes `multiply(z, broadcast(multiply(x, c)))`: the
//!   scalars meet first. XLA keeps the written order when `c` is not a constant, and for
//!   `multiply(multiply(z, broadcast(x)), broadcast(c))` (both checked). Checked
//!   against jaxlib 0.10.2 on the RK45 step of `testdata/perf/B16_rk45_adaptive.hlo`, where
//!   `h * (k * 0.2)` came out of XLA as `k * (h * 0.2)` (1 ulp apart in half the elements,
//!   one of two roundings that set our step count apart from XLA's there; the other is XLA
//!   contracting a multiply feeding an add into an FMA, which we do not do).

use super::remap;
use xla_core::attrs::BinaryOp;
use xla_core::ir::{Computation, InstrId, Instruction, Op};
use xla_core::{PrimitiveType, Shape};

/// The scalar `x` of `broadcast(x), dimensions={}` at `id`.
fn scalar_broadcast(c: &Computation, id: InstrId) -> Option<InstrId> {
    let b = c.get(id)?;
    let (Op::Broadcast { dimensions }, [x]) = (&b.op, b.operands.as_slice()) else {
        return None;
    };
    (dimensions.is_empty() && c.get(*x)?.shape.is_scalar()).then_some(*x)
}

/// The scalar constant `c` of `broadcast(c), dimensions={}` at `id`.
fn constant_broadcast(c: &Computation, id: InstrId) -> Option<InstrId> {
    let y = scalar_broadcast(c, id)?;
    matches!(c.get(y)?.op, Op::Constant { .. }).then_some(y)
}

/// `(x, y, z)` when `ins` is `x̂ · (z · ŷ)` in any operand order (`x̂` a broadcast scalar,
/// `ŷ` a broadcast scalar constant: with `y` a parameter XLA keeps the written order).
fn scalar_pair(c: &Computation, ins: &Instruction) -> Option<(InstrId, InstrId, InstrId)> {
    let (Op::Binary(BinaryOp::Mul), [p, q]) = (&ins.op, ins.operands.as_slice()) else {
        return None;
    };
    if !matches!(
        ins.shape.element_type(),
        PrimitiveType::F32 | PrimitiveType::F64
    ) || ins.shape.is_scalar()
    {
        return None;
    }
    let inner = |x: InstrId, m: InstrId| {
        let mi = c.get(m)?;
        let (Op::Binary(BinaryOp::Mul), [r, s]) = (&mi.op, mi.operands.as_slice()) else {
            return None;
        };
        match (constant_broadcast(c, *r), constant_broadcast(c, *s)) {
            (_, Some(y)) => Some((x, y, *r)),
            (Some(y), None) => Some((x, y, *s)),
            (None, None) => None,
        }
    };
    match (scalar_broadcast(c, *p), scalar_broadcast(c, *q)) {
        (Some(x), _) => inner(x, *q),
        (None, Some(x)) => inner(x, *p),
        (None, None) => None,
    }
}

/// `c` with every `x̂ · (z · ŷ)` turned into `z · broadcast(x · y)` (`None` when there is
/// none).
pub(super) fn combine_scalar_factors(c: &Computation) -> Option<Computation> {
    if !c.instructions.iter().any(|i| scalar_pair(c, i).is_some()) {
        return None;
    }
    let mut out: Vec<Instruction> = Vec::with_capacity(c.instructions.len() + 8);
    let mut map: Vec<InstrId> = Vec::with_capacity(c.instructions.len());
    for ins in &c.instructions {
        let operands = remap(&ins.operands, &map)?;
        // Matched on the rewritten computation so far, so chains combine step by step.
        let done = Computation {
            name: String::new(),
            instructions: std::mem::take(&mut out),
            root: InstrId(0),
        };
        let here = Instruction {
            operands,
            ..ins.clone()
        };
        let found = scalar_pair(&done, &here);
        out = done.instructions;
        let Some((x, y, z)) = found else {
            out.push(here);
            map.push(InstrId(out.len() - 1));
            continue;
        };
        let ty = ins.shape.element_type();
        let mut push = |name: String, op: Op, operands: Vec<InstrId>, shape: Shape| {
            out.push(Instruction {
                name,
                op,
                operands,
                shape,
            });
            InstrId(out.len() - 1)
        };
        let n = &ins.name;
        let xy = push(
            format!("{n}.scalars"),
            Op::Binary(BinaryOp::Mul),
            vec![x, y],
            Shape::scalar(ty),
        );
        let b = push(
            format!("{n}.scalars.broadcast"),
            Op::Broadcast { dimensions: vec![] },
            vec![xy],
            ins.shape.clone(),
        );
        map.push(push(
            n.clone(),
            Op::Binary(BinaryOp::Mul),
            vec![z, b],
            ins.shape.clone(),
        ));
    }
    Some(Computation {
        name: c.name.clone(),
        instructions: out,
        root: *map.get(c.root.0)?,
    })
}
