//! Control flow and called computations: call (the callee's vjp inline), conditional (a
//! conditional of the branches' vjps) and map (a map of the scalar function's partial
//! derivatives). `while` loops with a known trip count are unrolled by the forward pass.

use super::{Cts, Cx};
use crate::backward::{ct_of_value, materialize, vjp_computation, Ct};
use crate::error::AutodiffError;
use xla_core::builder::{XlaComputation, XlaOp};
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

/// The shape `[n, dims...]` of `n` stacked values of `e`.
fn stacked(e: &Shape, n: i64) -> Shape {
    let dims: Vec<i64> = std::iter::once(n).chain(e.dims().iter().copied()).collect();
    Shape::array(e.element_type(), dims)
}

/// A `while` with a known trip count `n`, kept as a loop: a forward loop re-runs the body
/// and stacks the state at the start of every iteration; a reverse loop runs the body's
/// vjp on the stacked states from the last iteration to the first.
pub(super) fn while_loop(cx: &Cx<'_>, body: CompId, n: i64, ct: &Ct) -> Result<Cts, AutodiffError> {
    let Some(es) = cx.shape.tuple_elements().map(<[Shape]>::to_vec) else {
        return Err(cx.nd("a loop state that is not a tuple has no gradient rule"));
    };
    if es.iter().any(|e| !e.is_array()) || n <= 0 {
        return match n {
            0 => Ok(vec![Some(ct.clone())]),
            _ => Err(cx.nd("a loop state with nested tuples or tokens has no gradient rule")),
        };
    }
    let Ct::Tuple(cts) = ct else {
        return Err(cx.nd("internal: an array cotangent reached a while"));
    };
    let stacks = forward_stacks(cx, body, &es, n)?;
    let b = cx.b;
    let mut init = vec![b.constant_r0((n - 1) as i32)];
    init.extend(
        es.iter()
            .enumerate()
            .map(|(j, e)| materialize(b, cts.get(j).and_then(Option::as_ref), e)),
    );
    init.extend(stacks.iter().cloned());
    let mut bshapes = vec![Shape::scalar(xla_core::PrimitiveType::S32)];
    bshapes.extend(es.iter().cloned());
    bshapes.extend(es.iter().map(|e| stacked(e, n)));
    let bshape = Shape::tuple(bshapes);
    let condc = {
        let sb = b.sub_builder("while_vjp_condition");
        let p = sb.parameter(0, bshape.clone(), "state");
        sb.build_sub(&sb.ge(sb.get_tuple_element(&p, 0), sb.constant_r0(0i32)))?
    };
    let bodyc = reverse_body(cx, body, &es, &bshape)?;
    let op = Op::While {
        condition: condc.id(),
        body: bodyc.id(),
    };
    let res = b.add_op(op, &[b.tuple(init)], None);
    Ok(vec![Some(Ct::Tuple(float_elements(&es, |j| {
        b.get_tuple_element(&res, (1 + j) as i64)
    })))])
}

/// `Some(value(j))` for the floating-point elements of a loop state, `None` for the others.
fn float_elements(es: &[Shape], value: impl Fn(usize) -> XlaOp) -> Vec<Option<Ct>> {
    es.iter()
        .enumerate()
        .map(|(j, e)| {
            e.element_type()
                .is_float_or_complex()
                .then(|| Ct::Array(value(j)))
        })
        .collect()
}

/// One reverse step: the state of iteration `t` read from the stacks, the body's vjp
/// applied to the carried cotangent, `t - 1`.
fn reverse_body(
    cx: &Cx<'_>,
    body: CompId,
    es: &[Shape],
    bshape: &Shape,
) -> Result<XlaComputation, AutodiffError> {
    let m = es.len();
    let sb = cx.b.sub_builder("while_vjp_body");
    let p = sb.parameter(0, bshape.clone(), "state");
    let t = sb.get_tuple_element(&p, 0);
    let state: Vec<XlaOp> = es
        .iter()
        .enumerate()
        .map(|(j, e)| {
            let stack = sb.get_tuple_element(&p, (1 + m + j) as i64);
            let mut starts = vec![t.clone()];
            starts.extend((0..e.rank()).map(|_| sb.constant_r0(0i32)));
            let sizes: Vec<i64> = std::iter::once(1).chain(e.dims().iter().copied()).collect();
            sb.reshape(sb.dynamic_slice(stack, starts, &sizes), e.dims())
        })
        .collect();
    let g = float_elements(es, |j| sb.get_tuple_element(&p, (1 + j) as i64));
    let args = [(sb.tuple(state), cx.shape.clone(), true)];
    let (_, back) = vjp_computation(&sb, cx.module, body, &args, |_| Some(Ct::Tuple(g)))?;
    let back = materialize(&sb, back.first().and_then(Option::as_ref), cx.shape);
    let mut out = vec![sb.sub(&t, sb.constant_r0(1i32))];
    out.extend((0..m).map(|j| sb.get_tuple_element(&back, j as i64)));
    out.extend((0..m).map(|j| sb.get_tuple_element(&p, (1 + m + j) as i64)));
    Ok(sb.build_sub(&sb.tuple(out))?)
}

/// The forward loop again, stacking the state at the start of each iteration: returns one
/// `[n, ...]` stack per state element.
fn forward_stacks(
    cx: &Cx<'_>,
    body: CompId,
    es: &[Shape],
    n: i64,
) -> Result<Vec<XlaOp>, AutodiffError> {
    let b = cx.b;
    let m = es.len();
    let mut shapes: Vec<Shape> = es.to_vec();
    shapes.extend(es.iter().map(|e| stacked(e, n)));
    shapes.push(Shape::scalar(xla_core::PrimitiveType::S32));
    let tshape = Shape::tuple(shapes);
    let condc = {
        let sb = b.sub_builder("while_stack_condition");
        let p = sb.parameter(0, tshape.clone(), "state");
        sb.build_sub(&sb.lt(
            sb.get_tuple_element(&p, (2 * m) as i64),
            sb.constant_r0(n as i32),
        ))?
    };
    let bodyc = {
        let sb = b.sub_builder("while_stack_body");
        let p = sb.parameter(0, tshape.clone(), "state");
        let t = sb.get_tuple_element(&p, (2 * m) as i64);
        let state: Vec<XlaOp> = (0..m).map(|j| sb.get_tuple_element(&p, j as i64)).collect();
        let next = sb.inline(cx.module, body, &[sb.tuple(&state)]);
        let mut out: Vec<XlaOp> = (0..m)
            .map(|j| sb.get_tuple_element(&next, j as i64))
            .collect();
        for (j, e) in es.iter().enumerate() {
            let one: Vec<i64> = std::iter::once(1).chain(e.dims().iter().copied()).collect();
            let mut starts = vec![t.clone()];
            starts.extend((0..e.rank()).map(|_| sb.constant_r0(0i32)));
            let stack = sb.get_tuple_element(&p, (m + j) as i64);
            out.push(sb.dynamic_update_slice(stack, sb.reshape(&state[j], &one), starts));
        }
        out.push(sb.add(&t, sb.constant_r0(1i32)));
        sb.build_sub(&sb.tuple(out))?
    };
    let mut init: Vec<XlaOp> = (0..m)
        .map(|j| b.get_tuple_element(cx.x(0), j as i64))
        .collect();
    init.extend(es.iter().map(|e| b.zeros(&stacked(e, n))));
    init.push(b.constant_r0(0i32));
    let res = b.add_op(
        Op::While {
            condition: condc.id(),
            body: bodyc.id(),
        },
        &[b.tuple(init)],
        None,
    );
    Ok((0..m)
        .map(|j| b.get_tuple_element(&res, (m + j) as i64))
        .collect())
}
