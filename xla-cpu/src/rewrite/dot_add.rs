//! `add(c, dot(a, b))` (either operand order), where the dot is the add's only reader,
//! becomes the custom-call `kernels::dot_add::TARGET` on `(a, b, c)`: the product is
//! accumulated into `c`'s buffer (in place when `c` dies there) instead of written to a
//! buffer of its own and added in a second pass. See `kernels/dot_add.rs` for why the
//! values stay the same bits, and so why only f32/f64 products contracting [`MIN_K`] to
//! [`MAX_K`] elements are fused.
//!
//! `c` must be a running sum: a parameter or a loop state's element. An elementwise `c` (a
//! broadcast bias) fuses with the add into one kernel reading the product, which costs no
//! more than the accumulation and keeps `c` unstored; and a `c` that is itself computed
//! (`dot(x, u) + dot(h, w)`, a recurrent cell's gate) would make the two products run one
//! after the other instead of side by side (`concurrent.rs`).

use crate::kernels::dot_add::{DotAdd, MAX_K, MIN_K};
use xla_core::attrs::{BinaryOp, DotDims};
use xla_core::ir::{Computation, InstrId, Op};
use xla_core::PrimitiveType;

/// Rewrites every such add of `c`.
pub(super) fn dots_into_adds(c: &mut Computation) {
    super::replace_each(c, fused);
}

/// The custom-call replacing instruction `i`, when it is such an add.
fn fused(c: &Computation, i: usize, readers: &[usize]) -> Option<(Op, Vec<InstrId>)> {
    let add = c.instructions.get(i)?;
    let Op::Binary(BinaryOp::Add) = add.op else {
        return None;
    };
    let ty = add.shape.element_type();
    if !add.shape.is_array() || !matches!(ty, PrimitiveType::F32 | PrimitiveType::F64) {
        return None;
    }
    let [x, y] = add.operands.as_slice() else {
        return None;
    };
    // The product is the first operand the rule takes (`dot + dot`: the second is `c`).
    let (d_id, c_id, dot_first) = if product(c, *x, readers).is_some() {
        (*x, *y, true)
    } else {
        (*y, *x, false)
    };
    let (dims, a, b) = product(c, d_id, readers)?;
    if d_id == c_id || !stored(c, c_id) {
        return None;
    }
    let same = [a, b, c_id].iter().all(|o| {
        c.get(*o)
            .is_some_and(|ins| ins.shape.is_array() && ins.shape.element_type() == ty)
    });
    if !same || c.get(c_id)?.shape != add.shape {
        return None;
    }
    let config = DotAdd { dims, dot_first }.config();
    let op = Op::CustomCall {
        config,
        called: Vec::new(),
    };
    Some((op, vec![a, b, c_id]))
}

/// `(dims, lhs, rhs)` of instruction `d` when it is a dot read only once that contracts
/// [`MIN_K`] to [`MAX_K`] elements.
fn product(c: &Computation, d: InstrId, readers: &[usize]) -> Option<(DotDims, InstrId, InstrId)> {
    let ins = c.get(d)?;
    let Op::Dot { dims, .. } = &ins.op else {
        return None;
    };
    let [a, b] = ins.operands.as_slice() else {
        return None;
    };
    let lhs = c.get(*a)?.shape.as_array()?;
    let k = dims
        .lhs_contracting_dims
        .iter()
        .map(|&k| lhs.dims.get(usize::try_from(k).ok()?).copied())
        .product::<Option<i64>>()?;
    let fits = usize::try_from(k).is_ok_and(|k| (MIN_K..=MAX_K).contains(&k));
    (fits && readers.get(d.0) == Some(&1)).then(|| (dims.clone(), *a, *b))
}

/// True when instruction `o` is a running sum: a parameter or a tuple's element.
fn stored(c: &Computation, o: InstrId) -> bool {
    c.get(o)
        .is_some_and(|ins| matches!(ins.op, Op::Parameter { .. } | Op::GetTupleElement { .. }))
}
