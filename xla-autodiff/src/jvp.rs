//! Forward mode as the transpose of reverse mode: the vjp is linear in its cotangent `u`,
//! so `J·v = ∇_u ⟨vjp(x, u), v⟩` (the "double vjp" trick).

use crate::error::AutodiffError;
use crate::rules::sum_all;
use crate::{entry_and_wrt, grad_module, malformed, passes, vjp_module};
use xla_core::builder::{XlaBuilder, XlaOp};
use xla_core::{Module, Shape};

/// See [`crate::jvp_module`].
pub(crate) fn jvp_module(module: &Module, wrt: Option<&[usize]>) -> Result<Module, AutodiffError> {
    let (entry, shapes, wrt) = entry_and_wrt(module, wrt)?;
    let result = entry
        .result_shape()
        .ok_or_else(|| malformed(module, "the entry has no root"))?
        .clone();
    let n = shapes.len();
    let tangents: Vec<Shape> = wrt.iter().map(|&i| shapes[i].clone()).collect();
    let vjp = vjp_module(module, Some(&wrt))?;
    // h(x, u, t) = Σ_i sum(vjp_i(x, u) · t_i), a scalar linear in u.
    let hb = XlaBuilder::new("jvp_pairing");
    let mut args: Vec<XlaOp> = shapes
        .iter()
        .enumerate()
        .map(|(i, s)| hb.parameter(i as i64, s.clone(), "x"))
        .collect();
    args.push(hb.parameter(n as i64, result.clone(), "u"));
    let ts: Vec<XlaOp> = tangents
        .iter()
        .enumerate()
        .map(|(k, s)| hb.parameter((n + 1 + k) as i64, s.clone(), "t"))
        .collect();
    let cts = hb.inline(&vjp, vjp.entry, &args);
    // Complex values pair as `Re Σ a·b` (cotangents are unconjugated, as JAX's), so the
    // pairing is real and its gradient w.r.t. `u` is `J·t`.
    let ty = tangents
        .first()
        .map_or(result.element_type(), Shape::element_type)
        .component_type();
    let mut total: Option<XlaOp> = None;
    for (k, (t, s)) in ts.iter().zip(&tangents).enumerate() {
        let prod = sum_all(&hb, &hb.mul(hb.get_tuple_element(&cts, k as i64), t), s);
        let prod = if s.element_type().is_complex() {
            hb.real(prod)
        } else {
            prod
        };
        let part = hb.convert_element_type(prod, ty);
        total = Some(match total {
            Some(acc) => hb.add(acc, part),
            None => part,
        });
    }
    let total = total.unwrap_or_else(|| hb.constant_scalar(ty, 0));
    let pairing = hb.build_with_root(&total)?;
    let jv = grad_module(&pairing, Some(&[n]))?;
    // Final module: (x, t) -> (f(x), J·t), with u = 0 (the result does not depend on it).
    let b = XlaBuilder::new(&module.name);
    let xs: Vec<XlaOp> = shapes
        .iter()
        .enumerate()
        .map(|(i, s)| b.parameter(i as i64, s.clone(), "x"))
        .collect();
    let ts: Vec<XlaOp> = tangents
        .iter()
        .enumerate()
        .map(|(k, s)| b.parameter((n + k) as i64, s.clone(), "tangent"))
        .collect();
    let value = b.inline(module, module.entry, &xs);
    let mut jargs = xs.clone();
    jargs.push(crate::backward::materialize(&b, None, &result));
    jargs.extend(ts);
    let jt = b.get_tuple_element(b.inline(&jv, jv.entry, &jargs), 0);
    let root = b.tuple([value, jt]);
    Ok(passes::simplify(b.build_with_root(&root)?)?)
}
