//! Control flow and called computations: call (the callee's vjp inline), conditional (a
//! conditional of the branches' vjps) and map (a map of the scalar function's partial
//! derivatives). `while` loops with a known trip count are unrolled by the forward pass.

use super::{Cts, Cx};
use crate::backward::{ct_of_value, materialize, vjp_computation, Ct};
use crate::error::AutodiffError;
use xla_core::builder::XlaOp;
use xla_core::{CompId, Op, Shape};

/// `call`: the callee's vjp, inline.
pub(super) fn call(cx: &Cx<'_>, to_apply: CompId, ct: &Ct) -> Result<Cts, AutodiffError> {
    let args: Vec<(XlaOp, Shape, bool)> = (0..cx.args.len())
        .map(|i| (cx.x(i), cx.s(i), cx.wants(i)))
        .collect();
    let (_, cts) = vjp_computation(cx.b, cx.module, to_apply, &args, |_| Some(ct.clone()))?;
    Ok(cts)
}

/// `conditional`: a conditional on the same selector whose branch `i` takes
/// `(operand_i, cotangent)` and returns every branch operand's cotangent (zeros but its
/// own).
pub(super) fn conditional(cx: &Cx<'_>, branches: &[CompId], ct: &Ct) -> Result<Cts, AutodiffError> {
    let b = cx.b;
    let n = branches.len();
    let g = materialize(b, Some(ct), cx.shape);
    let mut new_branches = Vec::with_capacity(n);
    let mut operands = vec![cx.x(0)];
    for (i, &branch) in branches.iter().enumerate() {
        let si = cx.s(i + 1);
        let sb = b.sub_builder("conditional_vjp");
        let p = sb.parameter(0, Shape::tuple(vec![si.clone(), cx.shape.clone()]), "p");
        let (x, gi) = (sb.get_tuple_element(&p, 0), sb.get_tuple_element(&p, 1));
        let args = [(x, si.clone(), cx.wants(i + 1))];
        let out_shape = cx.shape.clone();
        let (_, cts) = vjp_computation(&sb, cx.module, branch, &args, |_| {
            Some(ct_of_value(&sb, &gi, &out_shape))
        })?;
        let parts: Vec<XlaOp> = (0..n)
            .map(|j| {
                let own = if j == i {
                    cts.first().and_then(Option::as_ref)
                } else {
                    None
                };
                materialize(&sb, own, &cx.s(j + 1))
            })
            .collect();
        let comp = sb.build_sub(&sb.tuple(parts))?;
        new_branches.push(comp.id());
        operands.push(b.tuple([cx.x(i + 1), g.clone()]));
    }
    let res = b.add_op(
        Op::Conditional {
            branches: new_branches,
        },
        &operands,
        None,
    );
    let mut out = vec![None];
    for j in 0..n {
        let v = b.get_tuple_element(&res, j as i64);
        out.push(cx.wants(j + 1).then(|| ct_of_value(b, &v, &cx.s(j + 1))));
    }
    Ok(out)
}

/// `map`: operand `k` gets `map(∂f/∂x_k · g)`, the scalar vjp mapped over the arrays.
pub(super) fn map(cx: &Cx<'_>, dims: &[i64], f: CompId, g: &XlaOp) -> Result<Cts, AutodiffError> {
    let b = cx.b;
    let n = cx.args.len();
    let mut out = Vec::with_capacity(n);
    for k in 0..n {
        if !cx.wants(k) {
            out.push(None);
            continue;
        }
        let sb = b.sub_builder("map_vjp");
        let scalars: Vec<Shape> = cx
            .shapes
            .iter()
            .map(|s| Shape::scalar(s.element_type()))
            .collect();
        let params: Vec<XlaOp> = scalars
            .iter()
            .enumerate()
            .map(|(i, s)| sb.parameter(i as i64, s.clone(), "x"))
            .collect();
        let gs = sb.parameter(n as i64, Shape::scalar(cx.shape.element_type()), "g");
        let args: Vec<(XlaOp, Shape, bool)> = params
            .iter()
            .zip(&scalars)
            .enumerate()
            .map(|(i, (p, s))| (p.clone(), s.clone(), i == k))
            .collect();
        let (_, cts) = vjp_computation(&sb, cx.module, f, &args, |_| Some(Ct::Array(gs.clone())))?;
        let root = materialize(&sb, cts.get(k).and_then(Option::as_ref), &scalars[k]);
        let comp = sb.build_sub(&root)?;
        let mut operands = cx.args.to_vec();
        operands.push(g.clone());
        let op = Op::Map {
            dimensions: dims.to_vec(),
            to_apply: comp.id(),
        };
        out.push(Ct::some(b.add_op(op, &operands, None)));
    }
    Ok(out)
}
