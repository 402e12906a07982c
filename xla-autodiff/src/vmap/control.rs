//! Control flow: `call` is batched inline; `while` keeps its loop when the predicate stays
//! unbatched (the state batched where the body makes it so, found by a fixed point) and
//! otherwise runs until every lane is done, each lane keeping its state once its own
//! predicate is false; `conditional` with an unbatched selector batches its branches, and
//! with a batched one runs every branch and selects per lane. `custom-call` is an error
//! naming its target.

use super::error::VmapError;
use super::rules::Cx;
use super::value::{batched_shape, force, Bt, Val};
use xla_core::builder::{Combiner, XlaBuilder, XlaOp};
use xla_core::ir::ComparisonDirection;
use xla_core::{CompId, Op, PrimitiveType, Shape};

/// `call`: the callee batched inline.
pub(crate) fn call(cx: &Cx, to_apply: CompId) -> Result<Val, VmapError> {
    cx.bat.run(cx.b, to_apply, cx.args)
}

/// `custom-call`: no batched form is known.
pub(crate) fn custom_call(cx: &Cx) -> Result<Val, VmapError> {
    Err(cx.no_rule("a custom-call is opaque: its batched form is unknown"))
}

/// `while`.
pub(crate) fn while_loop(cx: &Cx, condition: CompId, body: CompId) -> Result<Val, VmapError> {
    let (b, bat) = (cx.b, cx.bat);
    let shape = cx.shape(0);
    let arg = cx
        .args
        .first()
        .cloned()
        .ok_or_else(|| cx.no_rule("no operand"))?;
    let mut bt = arg.bt.clone();
    for _ in 0..64 {
        let out = bat.probe(
            b,
            body,
            std::slice::from_ref(&shape),
            std::slice::from_ref(&bt),
        )?;
        let next = bt.or(&out);
        if next == bt {
            break;
        }
        bt = next;
    }
    let pred = bat.probe(
        b,
        condition,
        std::slice::from_ref(&shape),
        std::slice::from_ref(&bt),
    )?;
    if !pred.any() {
        let s1 = std::slice::from_ref(&shape);
        let b1 = std::slice::from_ref(&bt);
        let pred_shape = Shape::scalar(PrimitiveType::Pred);
        let cond_c = bat.sub(b, condition, s1, b1, (&pred_shape, &Bt::Leaf(false)))?;
        let body_c = bat.sub(b, body, s1, b1, (&shape, &bt))?;
        let init = force(b, &arg, &shape, &bt, bat.n);
        return Ok(Val {
            v: b.while_loop(init, &cond_c, &body_c),
            bt,
        });
    }
    lockstep(cx, &arg, &shape, condition, body)
}

/// A `while` whose predicate differs per lane: the whole state batched, the loop runs
/// while some lane's predicate holds, and lanes whose predicate is false keep their state.
fn lockstep(
    cx: &Cx,
    arg: &Val,
    shape: &Shape,
    condition: CompId,
    body: CompId,
) -> Result<Val, VmapError> {
    let (b, bat) = (cx.b, cx.bat);
    let n = bat.n;
    let bt = Bt::uniform(shape, true);
    let state_shape = batched_shape(shape, &bt, n);
    let pred_of = |sb: &XlaBuilder, p: &Val| -> Result<XlaOp, VmapError> {
        let r = bat.run(sb, condition, std::slice::from_ref(p))?;
        Ok(force(
            sb,
            &r,
            &Shape::scalar(PrimitiveType::Pred),
            &Bt::Leaf(true),
            n,
        ))
    };
    let cond_c = {
        let sb = b.sub_builder("vmap_cond");
        let p = Val {
            v: sb.parameter(0, state_shape.clone(), "state"),
            bt: bt.clone(),
        };
        let any = sb.reduce(pred_of(&sb, &p)?, sb.constant_r0(false), &[0], Combiner::Or);
        sb.build_sub(&any)?
    };
    let body_c = {
        let sb = b.sub_builder("vmap_body");
        let p = Val {
            v: sb.parameter(0, state_shape.clone(), "state"),
            bt: bt.clone(),
        };
        let live = pred_of(&sb, &p)?;
        let r = bat.run(&sb, body, std::slice::from_ref(&p))?;
        let new = force(&sb, &r, shape, &bt, n);
        sb.build_sub(&select_tree(&sb, &live, &new, &p.v, shape, n))?
    };
    let init = force(b, arg, shape, &bt, n);
    Ok(Val {
        v: b.while_loop(init, &cond_c, &body_c),
        bt,
    })
}

/// `select(p, t, f)` per leaf of a fully batched value of unbatched shape `shape`, the
/// predicate `p` (`pred[n]`) broadcast along each leaf.
pub(crate) fn select_tree(
    b: &XlaBuilder,
    p: &XlaOp,
    t: &XlaOp,
    f: &XlaOp,
    shape: &Shape,
    n: i64,
) -> XlaOp {
    match shape.tuple_elements() {
        Some(es) => {
            let parts: Vec<XlaOp> = es
                .iter()
                .enumerate()
                .map(|(i, e)| {
                    let (ti, fi) = (
                        b.get_tuple_element(t, i as i64),
                        b.get_tuple_element(f, i as i64),
                    );
                    select_tree(b, p, &ti, &fi, e, n)
                })
                .collect();
            b.tuple(parts)
        }
        None if shape.is_array() => {
            let mut dims = vec![n];
            dims.extend_from_slice(shape.dims());
            let mask = b.broadcast_in_dim(p, &dims, &[0]);
            b.select(mask, t, f)
        }
        None => t.clone(),
    }
}

/// `conditional(selector, operands...)`.
pub(crate) fn conditional(cx: &Cx, branches: &[CompId]) -> Result<Val, VmapError> {
    if cx.is_b(0) {
        return select_branches(cx, branches);
    }
    let (b, bat) = (cx.b, cx.bat);
    let mut out = Bt::uniform(&cx.ins.shape, false);
    for (k, &br) in branches.iter().enumerate() {
        let arg = cx
            .args
            .get(k + 1)
            .ok_or_else(|| cx.no_rule("a branch has no operand"))?;
        let got = bat.probe(b, br, &[cx.shape(k + 1)], std::slice::from_ref(&arg.bt))?;
        out = out.or(&got);
    }
    let mut ids = Vec::with_capacity(branches.len());
    for (k, &br) in branches.iter().enumerate() {
        let bt = cx.args.get(k + 1).map_or(Bt::Leaf(false), |a| a.bt.clone());
        let c = bat.sub(b, br, &[cx.shape(k + 1)], &[bt], (&cx.ins.shape, &out))?;
        ids.push(c.id());
    }
    let operands: Vec<XlaOp> = (0..cx.args.len()).map(|i| cx.v(i)).collect();
    let declared = batched_shape(&cx.ins.shape, &out, bat.n);
    let v = b.add_op(Op::Conditional { branches: ids }, &operands, Some(declared));
    Ok(Val { v, bt: out })
}

/// A batched selector: every branch runs on its operand and each lane takes its branch's
/// result (an S32 index out of range takes the last branch, as `conditional` does).
fn select_branches(cx: &Cx, branches: &[CompId]) -> Result<Val, VmapError> {
    let (b, bat) = (cx.b, cx.bat);
    let n = bat.n;
    let all = Bt::uniform(&cx.ins.shape, true);
    let mut results = Vec::with_capacity(branches.len());
    for (k, &br) in branches.iter().enumerate() {
        let arg = cx
            .args
            .get(k + 1)
            .ok_or_else(|| cx.no_rule("a branch has no operand"))?;
        let r = bat.run(b, br, std::slice::from_ref(arg))?;
        results.push(force(b, &r, &cx.ins.shape, &all, n));
    }
    let sel = cx.v(0);
    let v = if cx.shape(0).element_type() == PrimitiveType::Pred {
        let (t, f) = (results.first(), results.get(1));
        let (Some(t), Some(f)) = (t, f) else {
            return Err(cx.no_rule("a predicated conditional needs two branches"));
        };
        select_tree(b, &sel, t, f, &cx.ins.shape, n)
    } else {
        let ty = cx.shape(0).element_type();
        let last = branches.len() as i64 - 1;
        let lo = b.compare(&sel, b.constant_scalar(ty, 0), ComparisonDirection::Lt);
        let hi = b.compare(&sel, b.constant_scalar(ty, last), ComparisonDirection::Gt);
        let out_of_range = b.or(lo, hi);
        let lastv = b.broadcast(b.constant_scalar(ty, last), &[n]);
        let idx = b.select(out_of_range, lastv, &sel);
        let mut acc = results
            .last()
            .cloned()
            .ok_or_else(|| cx.no_rule("no branches"))?;
        for (k, r) in results.iter().enumerate().rev().skip(1) {
            let is_k = b.compare(
                &idx,
                b.constant_scalar(ty, k as i64),
                ComparisonDirection::Eq,
            );
            acc = select_tree(b, &is_k, r, &acc, &cx.ins.shape, n);
        }
        acc
    };
    Ok(Val { v, bt: all })
}
