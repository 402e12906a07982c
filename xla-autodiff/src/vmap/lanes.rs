//! The generic batching rule: a `while` loop over the lanes that slices lane `i` of every
//! batched operand, runs the original (unbatched) op on it and writes its result into row
//! `i` of each output. Correct for any op whose result holds arrays; the rules in the
//! family files avoid it wherever a batched form of the op exists.

use super::error::VmapError;
use super::rules::Cx;
use super::value::{batched_shape, Bt, Val};
use xla_core::builder::{XlaBuilder, XlaComputation, XlaOp};
use xla_core::{PrimitiveType, Shape};

/// Lane `i` of `x` (batched as `bt` says, unbatched shape `shape`).
fn lane(b: &XlaBuilder, x: &XlaOp, bt: &Bt, shape: &Shape, i: &XlaOp) -> XlaOp {
    match shape.tuple_elements() {
        Some(es) => {
            let parts: Vec<XlaOp> = es
                .iter()
                .enumerate()
                .map(|(k, e)| lane(b, &b.get_tuple_element(x, k as i64), &bt.elem(k), e, i))
                .collect();
            b.tuple(parts)
        }
        None if matches!(bt, Bt::Leaf(true)) => {
            let zero = b.constant_r0(0i32);
            let mut starts = vec![i.clone()];
            starts.extend(std::iter::repeat_n(zero, shape.rank()));
            let mut sizes = vec![1];
            sizes.extend_from_slice(shape.dims());
            let s = b.dynamic_slice(x, &starts, &sizes);
            b.reshape(s, shape.dims())
        }
        None => x.clone(),
    }
}

/// The array leaves of `shape` (depth-first), or `None` if a leaf is not an array.
fn leaves(shape: &Shape, out: &mut Vec<Shape>) -> bool {
    match shape.tuple_elements() {
        Some(es) => es.iter().all(|e| leaves(e, out)),
        None => {
            out.push(shape.clone());
            shape.is_array()
        }
    }
}

/// The leaves of value `x` of shape `shape`, depth-first.
fn split(b: &XlaBuilder, x: &XlaOp, shape: &Shape, out: &mut Vec<XlaOp>) {
    match shape.tuple_elements() {
        Some(es) => {
            for (k, e) in es.iter().enumerate() {
                split(b, &b.get_tuple_element(x, k as i64), e, out);
            }
        }
        None => out.push(x.clone()),
    }
}

/// The value of `shape` made of `leaves` (depth-first).
fn join(b: &XlaBuilder, leaves: &mut std::vec::IntoIter<XlaOp>, shape: &Shape) -> XlaOp {
    match shape.tuple_elements() {
        Some(es) => {
            let parts: Vec<XlaOp> = es.iter().map(|e| join(b, leaves, e)).collect();
            b.tuple(parts)
        }
        None => leaves
            .next()
            .unwrap_or_else(|| b.tuple(Vec::<XlaOp>::new())),
    }
}

/// The loop body: lane `i` of every operand through the op, the result written into row
/// `i` of each accumulator, `i + 1`.
fn lane_body(cx: &Cx, state: &Shape, outs: &[Shape]) -> Result<XlaComputation, VmapError> {
    let op = cx.bat.import(cx.b, &cx.ins.op)?;
    let k = cx.args.len();
    let sb = cx.b.sub_builder("vmap_lane");
    let p = sb.parameter(0, state.clone(), "state");
    let i = sb.get_tuple_element(&p, 0);
    let ins: Vec<XlaOp> = (0..k)
        .map(|j| {
            let x = sb.get_tuple_element(&p, j as i64 + 1);
            let bt = cx.args.get(j).map_or(Bt::Leaf(false), |a| a.bt.clone());
            lane(&sb, &x, &bt, &cx.shape(j), &i)
        })
        .collect();
    let r = sb.add_op(op, &ins, Some(cx.ins.shape.clone()));
    let mut rs = Vec::new();
    split(&sb, &r, &cx.ins.shape, &mut rs);
    let mut next = vec![sb.add(&i, sb.constant_r0(1i32))];
    next.extend((0..k).map(|j| sb.get_tuple_element(&p, j as i64 + 1)));
    for (j, (leaf, s)) in rs.iter().zip(outs).enumerate() {
        let acc = sb.get_tuple_element(&p, (1 + k + j) as i64);
        let row = sb.reshape(leaf, batched_shape(s, &Bt::Leaf(true), 1).dims());
        let mut starts = vec![i.clone()];
        starts.extend(std::iter::repeat_n(sb.constant_r0(0i32), s.rank()));
        next.push(sb.dynamic_update_slice(acc, row, &starts));
    }
    Ok(sb.build_sub(&sb.tuple(next))?)
}

/// The per-lane loop for `cx`'s instruction: state `(i, operands..., accumulators...)`.
pub(crate) fn per_lane(cx: &Cx) -> Result<Val, VmapError> {
    let (b, n) = (cx.b, cx.n());
    let out_shape = &cx.ins.shape;
    let mut outs = Vec::new();
    if !leaves(out_shape, &mut outs) {
        return Err(cx.no_rule("its result holds a token, which cannot be batched"));
    }
    let accs: Vec<Shape> = outs
        .iter()
        .map(|s| batched_shape(s, &Bt::Leaf(true), n))
        .collect();
    let mut state: Vec<Shape> = vec![Shape::scalar(PrimitiveType::S32)];
    state.extend(cx.args.iter().filter_map(|a| a.v.shape().ok()));
    state.extend(accs.iter().cloned());
    let state = Shape::tuple(state);
    let body = lane_body(cx, &state, &outs)?;
    let cond = {
        let sb = b.sub_builder("vmap_lanes");
        let p = sb.parameter(0, state, "state");
        let i = sb.get_tuple_element(&p, 0);
        sb.build_sub(&sb.lt(i, sb.constant_r0(n as i32)))?
    };
    let mut init = vec![b.constant_r0(0i32)];
    init.extend((0..cx.args.len()).map(|k| cx.v(k)));
    init.extend(accs.iter().map(|s| b.zeros(s)));
    let w = b.while_loop(b.tuple(init), &cond, &body);
    let first = 1 + cx.args.len();
    let results: Vec<XlaOp> = (0..outs.len())
        .map(|j| b.get_tuple_element(&w, (first + j) as i64))
        .collect();
    let v = join(b, &mut results.into_iter(), out_shape);
    Ok(Val {
        v,
        bt: Bt::uniform(out_shape, true),
    })
}
