//! Reductions and windows: reduce (add, mul, max, min, selecting variadic reducers),
//! reduce-window (add → pad + reduce-window; max/min and selecting ones in `pick.rs`) and
//! select-and-scatter (→ a variadic reduce-window gathering the cotangent).

use super::pick::scalar_constant;
use super::{sum_all, Cts, Cx};
use crate::backward::Ct;
use crate::error::AutodiffError;
use xla_core::builder::{nary, Combiner, XlaBuilder, XlaOp};
use xla_core::ir::{BinaryOp, ComparisonDirection, PadDim, Window};
use xla_core::{CompId, Computation, Module, Op};

/// The binary op a two-parameter combiner applies to its parameters, if that is all it does.
pub(super) fn combiner_op(module: &Module, comp: CompId) -> Option<BinaryOp> {
    let c = module.get(comp)?;
    let root = c.root_instruction()?;
    let Op::Binary(op) = root.op else {
        return None;
    };
    let is_param = |i: usize| {
        root.operands
            .get(i)
            .and_then(|&id| c.get(id))
            .is_some_and(|p| matches!(p.op, Op::Parameter { .. }))
    };
    (is_param(0) && is_param(1) && root.operands.first() != root.operands.get(1)).then_some(op)
}

/// An all-reduce that adds (JAX's `psum`, data-parallel sums): its transpose is the same
/// all-reduce of the cotangent, since each replica's operand reaches every replica's sum.
pub(super) fn all_reduce(
    cx: &Cx<'_>,
    config: &xla_core::ir::CollectiveConfig,
    to_apply: CompId,
    ct: &Ct,
) -> Result<Cts, AutodiffError> {
    if combiner_op(cx.module, to_apply) != Some(BinaryOp::Add) {
        return Err(cx.nd("only an all-reduce that adds (a cross-replica sum) is differentiated"));
    }
    let g = cx.g(ct)?;
    Ok(vec![Ct::some(cx.b.all_reduce(&g, config, Combiner::Add))])
}

/// The direction of a `select` computation `compare(p0, p1), direction=D`.
fn select_direction(c: &Computation) -> Option<ComparisonDirection> {
    let root = c.root_instruction()?;
    let Op::Compare { direction, .. } = root.op else {
        return None;
    };
    let param = |i: usize| match root
        .operands
        .get(i)
        .and_then(|&id| c.get(id))
        .map(|p| &p.op)
    {
        Some(Op::Parameter { number }) => Some(*number),
        _ => None,
    };
    (param(0) == Some(0) && param(1) == Some(1)).then_some(direction)
}

/// The operand dimensions `reduce` keeps (in order): the result's dimensions.
fn kept_dims(rank: usize, reduced: &[i64]) -> Vec<i64> {
    (0..rank as i64).filter(|d| !reduced.contains(d)).collect()
}

/// For a variadic reducer whose root is `tuple(op_0(p_0, p_n), op_1(p_1, p_n+1), ...)`:
/// the ops, one per operand.
fn elementwise_combiners(module: &Module, comp: CompId, n: usize) -> Option<Vec<BinaryOp>> {
    let c = module.get(comp)?;
    let root = c.root_instruction()?;
    if !matches!(root.op, Op::Tuple) || root.operands.len() != n {
        return None;
    }
    let param = |id: Option<&xla_core::InstrId>| match id.and_then(|&i| c.get(i)).map(|i| &i.op) {
        Some(Op::Parameter { number }) => Some(*number),
        _ => None,
    };
    root.operands
        .iter()
        .enumerate()
        .map(|(j, &o)| {
            let ins = c.get(o)?;
            let Op::Binary(op) = ins.op else {
                return None;
            };
            let (a, b) = (param(ins.operands.first())?, param(ins.operands.get(1))?);
            let (j, n) = (j as i64, n as i64);
            ((a, b) == (j, j + n) || (a, b) == (j + n, j)).then_some(op)
        })
        .collect()
}

/// Inclusive products along the last dim of a `[k, n]` array (Hillis–Steele scan:
/// `log2(n)` shifted products).
fn cumprod(b: &XlaBuilder, x: &XlaOp, n: i64) -> XlaOp {
    let one = b.constant_like(x, 1);
    let mut acc = x.clone();
    let mut k = 1;
    while k < n {
        let shifted = b.pad(
            &acc,
            &one,
            &[
                PadDim {
                    low: 0,
                    high: 0,
                    interior: 0,
                },
                PadDim {
                    low: k,
                    high: -k,
                    interior: 0,
                },
            ],
        );
        acc = b.mul(acc, shifted);
        k *= 2;
    }
    acc
}

/// For each element of `x`, the product of the other elements of its reduction group
/// (exact with zeros, unlike `y / x`): exclusive prefix times exclusive suffix products.
fn product_of_others(
    b: &XlaBuilder,
    x: &XlaOp,
    xs: &xla_core::Shape,
    dims: &[i64],
) -> Result<XlaOp, AutodiffError> {
    let kept = kept_dims(xs.rank(), dims);
    let perm: Vec<i64> = kept.iter().chain(dims).copied().collect();
    let k: i64 = kept.iter().map(|&d| xs.dims()[d as usize]).product();
    let n: i64 = dims.iter().map(|&d| xs.dims()[d as usize]).product();
    let flat = b.reshape(b.transpose(x, &perm), &[k, n]);
    let one = b.constant_like(x, 1);
    let edge = |low: i64| {
        [
            PadDim {
                low: 0,
                high: 0,
                interior: 0,
            },
            PadDim {
                low,
                high: -low,
                interior: 0,
            },
        ]
    };
    let prefix = cumprod(b, &b.pad(&flat, &one, &edge(1)), n);
    let rev = b.rev(&flat, &[1]);
    let suffix = b.rev(cumprod(b, &b.pad(&rev, &one, &edge(1)), n), &[1]);
    let others = b.mul(prefix, suffix);
    let permuted: Vec<i64> = perm.iter().map(|&d| xs.dims()[d as usize]).collect();
    let mut inv = vec![0i64; perm.len()];
    for (i, &p) in perm.iter().enumerate() {
        inv[p as usize] = i as i64;
    }
    Ok(b.transpose(b.reshape(others, &permuted), &inv))
}

/// The cotangents of `x` and of the init value in `y = reduce(x, init)` with combiner
/// `op` over `dims` (component `j` of `n`), each when wanted.
fn reduce_one(
    cx: &Cx<'_>,
    (j, n): (usize, usize),
    y: &XlaOp,
    g: &XlaOp,
    op: Option<BinaryOp>,
    dims: &[i64],
) -> Result<(Option<XlaOp>, Option<XlaOp>), AutodiffError> {
    let (b, x, xs, init) = (cx.b, cx.x(j), cx.s(j), cx.x(n + j));
    let (wx, wi) = (cx.wants(j), cx.wants(n + j));
    let (ys, ty) = (y.shape()?, xs.element_type());
    let kept = kept_dims(xs.rank(), dims);
    let bcast = |v: &XlaOp| b.broadcast_in_dim(v, xs.dims(), &kept);
    Ok(match op {
        Some(BinaryOp::Add) => (wx.then(|| bcast(g)), wi.then(|| sum_all(b, g, &ys))),
        Some(BinaryOp::Mul) => {
            let dx = if wx {
                let others = product_of_others(b, &x, &xs, dims)?;
                let others = if scalar_constant(&init) == Some(1.0) {
                    others
                } else {
                    b.mul(others, b.broadcast(&init, xs.dims()))
                };
                Some(b.mul(bcast(g), others))
            } else {
                None
            };
            let prod = |x: &XlaOp| b.reduce(x, b.constant_scalar(ty, 1), dims, Combiner::Mul);
            (dx, wi.then(|| sum_all(b, &b.mul(g, prod(&x)), &ys)))
        }
        Some(BinaryOp::Max | BinaryOp::Min) => {
            // Split evenly between the elements and the init value equal to the result; a
            // select rather than a multiply by the indicator: where nothing equals the
            // result (a NaN), everything gets zero, as XLA computes JAX's rule.
            let hit = b.eq(&x, bcast(y));
            let at_init = b.eq(y, b.broadcast(&init, ys.dims()));
            let loc = b.convert_element_type(&hit, ty);
            let counts = b.add(
                super::sum(b, &loc, ty, dims),
                b.convert_element_type(&at_init, ty),
            );
            let share = b.div(g, counts);
            let dx = wx.then(|| {
                let s = bcast(&share);
                b.select(&hit, &s, b.zeros_like(&s))
            });
            let di = wi.then(|| sum_all(b, &b.select(&at_init, &share, b.zeros_like(&share)), &ys));
            (dx, di)
        }
        _ => return Err(cx.nd("the reducer is not add, multiply, maximum or minimum")),
    })
}

/// `reduce`: add → broadcast back; mul → `g·y/x`; max/min → the cotangent split evenly
/// between the elements equal to the result (as JAX). Variadic reduces whose reducer
/// combines each operand on its own are differentiated per operand; argmax-style ones
/// through the selected element.
pub(super) fn reduce(
    cx: &Cx<'_>,
    dims: &[i64],
    to_apply: CompId,
    ct: &Ct,
) -> Result<Cts, AutodiffError> {
    let n = cx.args.len() / 2;
    let ops = if n == 1 {
        vec![combiner_op(cx.module, to_apply)]
    } else {
        match elementwise_combiners(cx.module, to_apply, n) {
            Some(ops) => ops.into_iter().map(Some).collect(),
            None => return variadic_reduce(cx, dims, to_apply, ct),
        }
    };
    let b = cx.b;
    let mut out: Cts = vec![None; 2 * n];
    for (j, op) in ops.iter().enumerate() {
        let (g, y) = match ct {
            Ct::Array(g) if n == 1 => (g.clone(), cx.out.clone()),
            Ct::Tuple(cs) => match cs.get(j) {
                Some(Some(Ct::Array(g))) => (g.clone(), b.get_tuple_element(cx.out, j as i64)),
                _ => continue,
            },
            Ct::Array(_) => {
                return Err(cx.nd("internal: an array cotangent reached a variadic reduce"))
            }
        };
        let (dx, dinit) = reduce_one(cx, (j, n), &y, &g, *op, dims)?;
        out[j] = dx.map(Ct::Array);
        out[n + j] = dinit.map(Ct::Array);
    }
    Ok(out)
}

/// A variadic reduce whose reducer selects one of its inputs (argmax / argmin style: the
/// root is a tuple of selects): each value operand's cotangent goes to the element where
/// every operand equals the result.
fn variadic_reduce(
    cx: &Cx<'_>,
    dims: &[i64],
    to_apply: CompId,
    ct: &Ct,
) -> Result<Cts, AutodiffError> {
    let Ct::Tuple(cts) = ct else {
        return Err(cx.nd("internal: an array cotangent reached a variadic reduce"));
    };
    let selecting = cx.module.get(to_apply).is_some_and(|c| {
        c.root_instruction().is_some_and(|r| {
            matches!(r.op, Op::Tuple)
                && r.operands
                    .iter()
                    .all(|&o| c.get(o).is_some_and(|i| matches!(i.op, Op::Select)))
        })
    });
    if !selecting {
        return Err(cx.nd(
            "a variadic reduce is differentiated only when its reducer selects (argmax/argmin)",
        ));
    }
    let b = cx.b;
    let n = cx.args.len() / 2;
    let xs = cx.s(0);
    let kept = kept_dims(xs.rank(), dims);
    let mut loc: Option<XlaOp> = None;
    for j in 0..n {
        let yj = b.get_tuple_element(cx.out, j as i64);
        let eq = b.eq(cx.x(j), b.broadcast_in_dim(&yj, xs.dims(), &kept));
        loc = Some(match loc {
            Some(l) => b.and(l, eq),
            None => eq,
        });
    }
    let Some(loc) = loc else {
        return Ok(vec![None; cx.args.len()]);
    };
    let mut out: Cts = (0..n)
        .map(|j| match cts.get(j) {
            Some(Some(Ct::Array(g))) if cx.wants(j) => {
                let gb = b.broadcast_in_dim(g, xs.dims(), &kept);
                Ct::some(b.select(&loc, &gb, b.zeros_like(&gb)))
            }
            _ => None,
        })
        .collect();
    out.resize(cx.args.len(), None);
    Ok(out)
}

/// `reduce-window`: add → pad the cotangent and sum windows again; max/min and selecting
/// variadic ones → `pick.rs`.
pub(super) fn reduce_window(
    cx: &Cx<'_>,
    window: &Window,
    to_apply: CompId,
    ct: &Ct,
) -> Result<Cts, AutodiffError> {
    if cx.args.len() != 2 {
        return super::pick::selecting_reduce_window(cx, window, to_apply, ct);
    }
    let g = cx.g(ct)?;
    match combiner_op(cx.module, to_apply) {
        Some(BinaryOp::Add) => {
            let dx = window_sum_transpose(cx, window, &g)?;
            let dinit = cx.wants(1).then(|| Ct::Array(sum_all(cx.b, &g, cx.shape)));
            Ok(vec![Ct::some(dx), dinit])
        }
        Some(op @ (BinaryOp::Max | BinaryOp::Min)) => {
            super::pick::extremum_reduce_window(cx, window, op == BinaryOp::Max, &g)
        }
        _ => Err(cx.nd("the reducer is not add, maximum or minimum")),
    }
}

/// JAX's `_reduce_window_sum_transpose_rule`.
fn window_sum_transpose(cx: &Cx<'_>, window: &Window, g: &XlaOp) -> Result<XlaOp, AutodiffError> {
    let b = cx.b;
    let (xs, ys) = (cx.s(0), cx.shape);
    let dil = |d: i64, k: i64| if d == 0 { 0 } else { 1 + k * (d - 1) };
    let mut pads = Vec::new();
    for (i, w) in window.dims.iter().enumerate() {
        let lhs = dil(xs.dims().get(i).copied().unwrap_or(0), w.base_dilation);
        let rhs = dil(w.size, w.window_dilation);
        let out = dil(ys.dims().get(i).copied().unwrap_or(0), w.stride);
        let before = rhs - w.padding_low - 1;
        let after = lhs + rhs - 1 - out - before;
        pads.push(PadDim {
            low: before,
            high: after,
            interior: w.stride - 1,
        });
    }
    let zero = b.constant_scalar(ys.element_type(), 0);
    let padded = b.pad(g, &zero, &pads);
    let sizes: Vec<i64> = window.dims.iter().map(|d| d.size).collect();
    let strides: Vec<i64> = window.dims.iter().map(|d| d.base_dilation).collect();
    let wdil: Vec<i64> = window.dims.iter().map(|d| d.window_dilation).collect();
    let no_pad = vec![(0, 0); sizes.len()];
    Ok(b.reduce_window_with_general_padding(
        padded,
        &zero,
        &sizes,
        &strides,
        &[],
        &wdil,
        &no_pad,
        Combiner::Add,
    ))
}

/// `select-and-scatter`: linear in the source; its transpose gathers the cotangent at the
/// element each window selects (a variadic reduce-window over `(operand, cotangent)`).
pub(super) fn select_and_scatter(
    cx: &Cx<'_>,
    window: &Window,
    select: CompId,
    g: &XlaOp,
) -> Result<Cts, AutodiffError> {
    let b = cx.b;
    let dir = cx.module.get(select).and_then(select_direction);
    let lowest = match dir {
        Some(ComparisonDirection::Ge | ComparisonDirection::Gt) => f64::NEG_INFINITY,
        Some(ComparisonDirection::Le | ComparisonDirection::Lt) => f64::INFINITY,
        _ => {
            return Err(
                cx.nd("the select computation is not a GE/GT/LE/LT comparison of its parameters")
            )
        }
    };
    let Some(dir) = dir else {
        return Err(cx.nd("unknown select"));
    };
    let ds = if cx.wants(1) {
        let x = cx.x(0);
        let xty = cx.s(0).element_type();
        let init_x = b.constant_scalar(xty, lowest);
        let init_g = b.constant_scalar(cx.shape.element_type(), 0);
        let pick = nary(move |sb: &XlaBuilder, p: &[XlaOp]| {
            let keep = sb.compare(&p[0], &p[2], dir);
            sb.tuple([
                sb.select(&keep, &p[0], &p[2]),
                sb.select(&keep, &p[1], &p[3]),
            ])
        });
        let w = &window.dims;
        let sizes: Vec<i64> = w.iter().map(|d| d.size).collect();
        let strides: Vec<i64> = w.iter().map(|d| d.stride).collect();
        let pads: Vec<(i64, i64)> = w.iter().map(|d| (d.padding_low, d.padding_high)).collect();
        let r = b.reduce_window_variadic_with_general_padding(
            &[x, g.clone()],
            &[init_x, init_g],
            &sizes,
            &strides,
            &[],
            &[],
            &pads,
            pick,
        );
        Some(Ct::Array(b.get_tuple_element(r, 1)))
    } else {
        None
    };
    let dinit = cx.wants(2).then(|| Ct::Array(sum_all(b, g, cx.shape)));
    Ok(vec![None, ds, dinit])
}
