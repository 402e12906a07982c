//! `transpose(dot(a, b))`, where the transpose is the dot's only reader and moves a free
//! dim in front of the product's two innermost dims (the lane of a `vmap`ped product of
//! shared data with batched weights, a weight gradient `x^T · delta` of a batch of
//! models), becomes one instruction that writes the product in the transposed order: the
//! custom-call [`TARGET`] on `a` and `b` (see `kernels::dot_perm` for the form and why it
//! lives in the executor). The dot, then unread, is dropped as dead.
//!
//! Only the entry computation is rewritten: loop bodies compile to native code, which runs
//! the dot and the transpose as they are.

use crate::kernels::dot_perm::{encode, fusable, plan, TARGET};
use xla_core::attrs::CustomCallConfig;
use xla_core::ir::{Computation, InstrId, Op};

/// Rewrites every such pair of `c`.
pub(super) fn dots_into_transposes(c: &mut Computation) {
    super::replace_each(c, fused);
}

/// The custom-call replacing instruction `i`, when it is such a transpose.
fn fused(c: &Computation, i: usize, readers: &[usize]) -> Option<(Op, Vec<InstrId>)> {
    let t = c.instructions.get(i)?;
    let Op::Transpose { permutation } = &t.op else {
        return None;
    };
    let d_id = *t.operands.first()?;
    let d = c.instructions.get(d_id.0)?;
    let Op::Dot { dims, .. } = &d.op else {
        return None;
    };
    let (l_id, r_id) = match d.operands.as_slice() {
        [l, r] => (*l, *r),
        _ => return None,
    };
    let (l, r) = (c.instructions.get(l_id.0)?, c.instructions.get(r_id.0)?);
    let ty = t.shape.element_type();
    let same = [&l.shape, &r.shape, &d.shape]
        .iter()
        .all(|s| s.is_array() && s.element_type() == ty);
    if readers.get(d_id.0) != Some(&1) || !same {
        return None;
    }
    let dims_of = |s: &xla_core::Shape| {
        s.dims()
            .iter()
            .map(|&x| usize::try_from(x).ok())
            .collect::<Option<Vec<usize>>>()
    };
    let perm = permutation
        .iter()
        .map(|&p| usize::try_from(p).ok())
        .collect::<Option<Vec<usize>>>()?;
    let (ld, rd) = (dims_of(&l.shape)?, dims_of(&r.shape)?);
    let p = plan((&ld, &l.shape), (&rd, &r.shape), dims, &perm)?;
    if !fusable(ty, &p) {
        return None;
    }
    let config = CustomCallConfig {
        target: TARGET.to_string(),
        backend_config: encode(dims, permutation),
        has_side_effect: false,
        api_version: String::new(),
    };
    let op = Op::CustomCall {
        config,
        called: Vec::new(),
    };
    Some((op, vec![l_id, r_id]))
}
