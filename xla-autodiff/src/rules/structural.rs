//! Structural rules: the linear data-movement ops and their transposes (broadcast ↔
//! reduce-sum, pad ↔ slice, transpose ↔ inverse permutation, concatenate ↔ slices,
//! dynamic-slice ↔ dynamic-update-slice), and tuples.

use super::{sum, sum_all, Cts, Cx};
use crate::backward::Ct;
use crate::error::AutodiffError;
use xla_core::builder::XlaOp;
use xla_core::ir::PadDim;

/// `tuple(a, b, ...)`: each element's cotangent goes to its operand.
pub(super) fn tuple(cx: &Cx<'_>, ct: &Ct) -> Result<Cts, AutodiffError> {
    match ct {
        Ct::Tuple(cs) => {
            let mut out = cs.clone();
            out.resize(cx.args.len(), None);
            Ok(out)
        }
        Ct::Array(_) => Err(cx.nd("internal: an array cotangent reached a tuple")),
    }
}

/// `get-tuple-element(t), index=i`: a tuple cotangent with only element `i`.
pub(super) fn get_tuple_element(cx: &Cx<'_>, index: i64, ct: &Ct) -> Result<Cts, AutodiffError> {
    let n = cx.s(0).tuple_elements().map_or(0, <[_]>::len);
    let mut cs = vec![None; n];
    if let Some(slot) = usize::try_from(index).ok().and_then(|i| cs.get_mut(i)) {
        *slot = Some(ct.clone());
    }
    Ok(vec![Some(Ct::Tuple(cs))])
}

/// `broadcast`: sum over the added and the expanded dimensions, then back to the
/// operand's dimension order and shape.
pub(super) fn broadcast(cx: &Cx<'_>, dimensions: &[i64], g: &XlaOp) -> Result<Cts, AutodiffError> {
    let (b, s, out) = (cx.b, cx.s(0), cx.shape);
    let odims = out.dims();
    let mut kept: Vec<(i64, usize)> = Vec::new();
    for (i, &d) in dimensions.iter().enumerate() {
        let expanded = s.dims().get(i) == Some(&1) && odims.get(d as usize) != Some(&1);
        if !expanded {
            kept.push((d, i));
        }
    }
    let summed: Vec<i64> = (0..odims.len() as i64)
        .filter(|d| !kept.iter().any(|(k, _)| k == d))
        .collect();
    let mut r = sum(b, g, out.element_type(), &summed);
    kept.sort_unstable();
    let mut order: Vec<usize> = (0..kept.len()).collect();
    order.sort_by_key(|&j| kept[j].1);
    if order.iter().enumerate().any(|(k, &j)| k != j) {
        let perm: Vec<i64> = order.iter().map(|&j| j as i64).collect();
        r = b.transpose(&r, &perm);
    }
    if kept.len() != s.rank() {
        r = b.reshape(&r, s.dims());
    }
    Ok(vec![Ct::some(r)])
}

/// `reshape` / `bitcast`: reshape back.
pub(super) fn reshape(cx: &Cx<'_>, g: &XlaOp) -> Result<Cts, AutodiffError> {
    Ok(vec![Ct::some(cx.b.reshape(g, cx.s(0).dims()))])
}

/// `transpose`: the inverse permutation.
pub(super) fn transpose(cx: &Cx<'_>, perm: &[i64], g: &XlaOp) -> Result<Cts, AutodiffError> {
    let mut inv = vec![0i64; perm.len()];
    for (i, &p) in perm.iter().enumerate() {
        if let Some(slot) = usize::try_from(p).ok().and_then(|p| inv.get_mut(p)) {
            *slot = i as i64;
        }
    }
    Ok(vec![Ct::some(cx.b.transpose(g, &inv))])
}

/// `slice`: pad the cotangent back with zeros (interior padding for strides).
pub(super) fn slice(
    cx: &Cx<'_>,
    start: &[i64],
    _limit: &[i64],
    stride: &[i64],
    g: &XlaOp,
) -> Result<Cts, AutodiffError> {
    let (s, out) = (cx.s(0), cx.shape);
    if out.dims().contains(&0) {
        return Ok(vec![None]);
    }
    let pads: Vec<PadDim> = (0..s.rank())
        .map(|i| {
            let (st, str_, n) = (start[i], stride[i], out.dims()[i]);
            let high = s.dims()[i] - (st + (n - 1) * str_ + 1);
            PadDim {
                low: st,
                high,
                interior: str_ - 1,
            }
        })
        .collect();
    let b = cx.b;
    Ok(vec![Ct::some(b.pad(
        g,
        b.zeros(&xla_core::Shape::scalar(out.element_type())),
        &pads,
    ))])
}

/// `pad`: the operand's part is the un-padded, un-strided cotangent; the padding value's
/// is the sum of the rest (as JAX's `_pad_transpose`).
pub(super) fn pad(cx: &Cx<'_>, padding: &[PadDim], g: &XlaOp) -> Result<Cts, AutodiffError> {
    let b = cx.b;
    let ty = cx.shape.element_type();
    let zero = b.constant_scalar(ty, 0);
    let mut t = g.clone();
    if padding.iter().any(|p| p.low != 0 || p.high != 0) {
        let unpad: Vec<PadDim> = padding
            .iter()
            .map(|p| PadDim {
                low: -p.low,
                high: -p.high,
                interior: 0,
            })
            .collect();
        t = b.pad(&t, &zero, &unpad);
    }
    if padding.iter().any(|p| p.interior != 0) {
        let dims = t.shape()?.dims().to_vec();
        let starts = vec![0; dims.len()];
        let strides: Vec<i64> = padding.iter().map(|p| p.interior + 1).collect();
        t = b.slice(&t, &starts, &dims, &strides);
    }
    let dv = cx
        .wants(1)
        .then(|| Ct::Array(b.sub(sum_all(b, g, cx.shape), sum_all(b, &t, &cx.s(0)))));
    Ok(vec![Ct::some(t), dv])
}

/// `concatenate`: each operand gets its slice of the cotangent.
pub(super) fn concatenate(cx: &Cx<'_>, dim: i64, g: &XlaOp) -> Result<Cts, AutodiffError> {
    let mut offset = 0;
    let d = usize::try_from(dim).map_err(|_| cx.nd("negative dimension"))?;
    let mut out = Vec::with_capacity(cx.args.len());
    for (i, s) in cx.shapes.iter().enumerate() {
        let n = s.dims().get(d).copied().unwrap_or(0);
        out.push(
            cx.wants(i)
                .then(|| Ct::Array(cx.b.slice_in_dim(g, offset, offset + n, 1, dim))),
        );
        offset += n;
    }
    Ok(out)
}

/// `dynamic-slice`: the cotangent written into zeros at the same (clamped) start.
pub(super) fn dynamic_slice(cx: &Cx<'_>, g: &XlaOp) -> Result<Cts, AutodiffError> {
    let b = cx.b;
    let starts = cx.args.get(1..).unwrap_or_default();
    let zeros = b.zeros(&cx.s(0));
    let mut out = vec![Ct::some(b.dynamic_update_slice(zeros, g, starts))];
    out.resize(cx.args.len(), None);
    Ok(out)
}

/// `dynamic-update-slice`: the operand gets the cotangent with the window zeroed; the
/// update gets the window.
pub(super) fn dynamic_update_slice(cx: &Cx<'_>, g: &XlaOp) -> Result<Cts, AutodiffError> {
    let b = cx.b;
    let starts = cx.args.get(2..).unwrap_or_default();
    let us = cx.s(1);
    let d_op = cx
        .wants(0)
        .then(|| Ct::Array(b.dynamic_update_slice(g, b.zeros(&us), starts)));
    let d_up = cx
        .wants(1)
        .then(|| Ct::Array(b.dynamic_slice(g, starts, us.dims())));
    let mut out = vec![d_op, d_up];
    out.resize(cx.args.len(), None);
    Ok(out)
}
