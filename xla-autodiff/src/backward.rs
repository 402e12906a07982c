//! The backward pass: cotangents flow from the root to the inputs, one rule per op.
//!
//! A cotangent is a [`Ct`]: an array value, or for a tuple-shaped value one optional
//! cotangent per element. An absent cotangent (`None`) means zero and is never
//! materialised, except where a value must exist (the gradient module's result, the
//! operands of a backward `conditional`).

use crate::error::AutodiffError;
use crate::rules::{self, Cx};
use crate::tape::Tape;
use xla_core::builder::{XlaBuilder, XlaOp};
use xla_core::{CompId, Op, Shape};

/// A cotangent: an array, or per-element cotangents of a tuple (`None` = zero).
#[derive(Clone, Debug)]
pub(crate) enum Ct {
    /// The cotangent of an array value.
    Array(XlaOp),
    /// The cotangents of a tuple's elements.
    Tuple(Vec<Option<Ct>>),
}

impl Ct {
    /// The cotangent `x` of an array.
    pub fn some(x: XlaOp) -> Option<Ct> {
        Some(Ct::Array(x))
    }
}

/// `a + c`, elementwise for arrays and per element for tuples.
pub(crate) fn add_ct(b: &XlaBuilder, a: Ct, c: Ct) -> Ct {
    match (a, c) {
        (Ct::Array(x), Ct::Array(y)) => Ct::Array(b.add(x, y)),
        (Ct::Tuple(xs), Ct::Tuple(ys)) => {
            let n = xs.len().max(ys.len());
            let mut xs = xs;
            xs.resize(n, None);
            let merged = xs
                .into_iter()
                .zip(ys.into_iter().map(Some).chain(std::iter::repeat(None)))
                .map(|(x, y)| add_opt(b, x, y.flatten()))
                .collect();
            Ct::Tuple(merged)
        }
        // Mismatched kinds cannot come from well-formed rules: a bug, which fails the build.
        (Ct::Array(_), Ct::Tuple(_)) | (Ct::Tuple(_), Ct::Array(_)) => Ct::Array(b.internal_error(
            "add",
            "the cotangents summed for one value are both arrays or both tuples",
        )),
    }
}

/// Adds two optional cotangents (`None` is zero).
pub(crate) fn add_opt(b: &XlaBuilder, a: Option<Ct>, c: Option<Ct>) -> Option<Ct> {
    match (a, c) {
        (Some(a), Some(c)) => Some(add_ct(b, a, c)),
        (a, None) => a,
        (None, c) => c,
    }
}

/// The value of an optional cotangent of `shape`: zeros where it is absent.
pub(crate) fn materialize(b: &XlaBuilder, ct: Option<&Ct>, shape: &Shape) -> XlaOp {
    match (ct, shape.tuple_elements()) {
        (Some(Ct::Array(x)), _) => x.clone(),
        (Some(Ct::Tuple(cs)), Some(elems)) => {
            let parts: Vec<XlaOp> = elems
                .iter()
                .enumerate()
                .map(|(i, s)| materialize(b, cs.get(i).and_then(Option::as_ref), s))
                .collect();
            b.tuple(parts)
        }
        (_, Some(elems)) => {
            let parts: Vec<XlaOp> = elems.iter().map(|s| materialize(b, None, s)).collect();
            b.tuple(parts)
        }
        (_, None) => b.zeros(shape),
    }
}

/// A cotangent for a value of `shape` held in `value` (tuples are split into elements).
pub(crate) fn ct_of_value(b: &XlaBuilder, value: &XlaOp, shape: &Shape) -> Ct {
    match shape.tuple_elements() {
        Some(elems) => Ct::Tuple(
            elems
                .iter()
                .enumerate()
                .map(|(i, s)| Some(ct_of_value(b, &b.get_tuple_element(value, i as i64), s)))
                .collect(),
        ),
        None => Ct::Array(value.clone()),
    }
}

/// Runs the backward pass over `tape` from node `root` with cotangent `ct`; returns the
/// cotangent of every node that is an input (a parameter node) of the tape.
pub(crate) fn backprop(
    b: &XlaBuilder,
    tape: &Tape<'_>,
    root: usize,
    ct: Ct,
) -> Result<Vec<Option<Ct>>, AutodiffError> {
    let mut cts: Vec<Option<Ct>> = vec![None; tape.nodes.len()];
    if let Some(slot) = cts.get_mut(root) {
        *slot = Some(ct);
    }
    for i in (0..tape.nodes.len()).rev() {
        let node = &tape.nodes[i];
        if !node.active || matches!(node.op, Op::Parameter { .. }) {
            continue;
        }
        let Some(ct) = cts[i].take() else {
            continue;
        };
        let args: Vec<XlaOp> = node
            .operands
            .iter()
            .map(|&o| tape.nodes[o].value.clone())
            .collect();
        let shapes: Vec<Shape> = node
            .operands
            .iter()
            .map(|&o| tape.nodes[o].shape.clone())
            .collect();
        let active: Vec<bool> = node
            .operands
            .iter()
            .map(|&o| tape.nodes[o].active)
            .collect();
        let cx = Cx {
            b,
            module: tape.module,
            name: &node.name,
            op: &node.op,
            shape: &node.shape,
            args: &args,
            shapes: &shapes,
            out: &node.value,
            active: &active,
            trip_count: node.trip_count,
        };
        let out = rules::vjp(&cx, &ct)?;
        for (k, c) in out.into_iter().enumerate() {
            let (Some(c), Some(&o)) = (c, node.operands.get(k)) else {
                continue;
            };
            if tape.nodes[o].active {
                cts[o] = add_opt(b, cts[o].take(), Some(c));
            }
        }
    }
    Ok(cts)
}

/// The vjp of computation `comp` of `tape_module` at `args` (replayed into `b`), with
/// cotangent `ct` for its result: the primal result and one optional cotangent per
/// argument (only arguments marked in `active` get one).
pub(crate) fn vjp_computation(
    b: &XlaBuilder,
    module: &xla_core::Module,
    comp: CompId,
    args: &[(XlaOp, Shape, bool)],
    ct: impl FnOnce(&XlaOp) -> Option<Ct>,
) -> Result<(XlaOp, Vec<Option<Ct>>), AutodiffError> {
    let mut tape = Tape::new(module);
    let inputs: Vec<usize> = args
        .iter()
        .enumerate()
        .map(|(i, (v, s, a))| tape.input(i as i64, v.clone(), s.clone(), *a))
        .collect();
    let root = tape.replay(b, comp, &inputs)?;
    let out = tape.nodes[root].value.clone();
    let Some(ct) = ct(&out) else {
        return Ok((out, vec![None; args.len()]));
    };
    let mut cts = backprop(b, &tape, root, ct)?;
    let grads = inputs
        .iter()
        .map(|&n| cts.get_mut(n).and_then(Option::take))
        .collect();
    Ok((out, grads))
}
