//! Reductions and windows: reduce (add, mul, max, min, selecting variadic reducers),
//! reduce-window (add → pad + reduce-window; max/min → select-and-scatter) and
//! select-and-scatter (→ a variadic reduce-window gathering the cotangent).

use super::{sum_all, Cts, Cx};
use crate::backward::Ct;
use crate::error::AutodiffError;
use xla_core::builder::{binary, nary, Combiner, XlaBuilder, XlaOp};
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

/// `reduce-window`: add → pad the cotangent and sum windows again; max/min →
/// select-and-scatter.
pub(super) fn reduce_window(
    cx: &Cx<'_>,
    window: &Window,
    to_apply: CompId,
    ct: &Ct,
) -> Result<Cts, AutodiffError> {
    if cx.args.len() != 2 {
        return selecting_reduce_window(cx, window, to_apply, ct);
    }
    let g = cx.g(ct)?;
    let op = combiner_op(cx.module, to_apply);
    let dx = match op {
        Some(BinaryOp::Add) => window_sum_transpose(cx, window, &g)?,
        Some(op @ (BinaryOp::Max | BinaryOp::Min)) => {
            if window
                .dims
                .iter()
                .any(|d| d.base_dilation != 1 || d.window_dilation != 1)
            {
                let dx = dilated_extremum(cx, window, op == BinaryOp::Max, &g);
                return Ok(vec![Ct::some(dx), extremum_init(cx, &g)]);
            }
            let b = cx.b;
            let dir = if op == BinaryOp::Max {
                ComparisonDirection::Ge
            } else {
                ComparisonDirection::Le
            };
            let select = binary(move |sb: &XlaBuilder, p: XlaOp, q: XlaOp| sb.compare(p, q, dir));
            let w = &window.dims;
            let sizes: Vec<i64> = w.iter().map(|d| d.size).collect();
            let strides: Vec<i64> = w.iter().map(|d| d.stride).collect();
            let pads: Vec<(i64, i64)> = w.iter().map(|d| (d.padding_low, d.padding_high)).collect();
            let zero = b.constant_scalar(cx.shape.element_type(), 0);
            // Where the init value is the result (it won, or tied), no element gets it.
            let g = if is_identity(&cx.x(1), op == BinaryOp::Max) {
                g.clone()
            } else {
                b.select(b.eq(cx.out, cx.x(1)), b.zeros_like(&g), &g)
            };
            b.select_and_scatter_with_general_padding(
                cx.x(0),
                &sizes,
                &strides,
                &pads,
                &g,
                zero,
                select,
                Combiner::Add,
            )
        }
        _ => return Err(cx.nd("the reducer is not add, maximum or minimum")),
    };
    let dinit = match op {
        Some(BinaryOp::Max | BinaryOp::Min) => extremum_init(cx, &g),
        _ => cx.wants(1).then(|| Ct::Array(sum_all(cx.b, &g, cx.shape))),
    };
    Ok(vec![Ct::some(dx), dinit])
}

/// The init value of a max/min reduce-window gets the cotangent where it is the result.
fn extremum_init(cx: &Cx<'_>, g: &XlaOp) -> Option<Ct> {
    let b = cx.b;
    cx.wants(1).then(|| {
        let at_init = b.eq(cx.out, b.broadcast(cx.x(1), cx.shape.dims()));
        Ct::Array(sum_all(b, &b.select(at_init, g, b.zeros_like(g)), cx.shape))
    })
}

/// The value of a scalar f64 or f32 constant.
fn scalar_constant(op: &XlaOp) -> Option<f64> {
    match op.instruction().map(|i| i.op) {
        Some(Op::Constant { literal }) => match (literal.data::<f64>(), literal.data::<f32>()) {
            (Some([v]), _) => Some(*v),
            (_, Some([v])) => Some(f64::from(*v)),
            _ => None,
        },
        _ => None,
    }
}

/// Whether `init` is the constant -inf (`max`) or +inf (min): then it never is the
/// result of a window holding an element, and the cotangent needs no mask.
fn is_identity(init: &XlaOp, max: bool) -> bool {
    let want = if max {
        f64::NEG_INFINITY
    } else {
        f64::INFINITY
    };
    scalar_constant(init) == Some(want)
}

/// Max/min reduce-window with dilation (select-and-scatter has none): a variadic
/// reduce-window over `(x, flat index)`, with the forward's init value and index -1 for
/// padding and holes, finds the element each window selects (the extremum, the first in
/// index order on ties, as select-and-scatter picks; -1 when the init value is the result,
/// as in the undilated rule), and the cotangent is scatter-added there (index -1 is out
/// of bounds: dropped).
fn dilated_extremum(cx: &Cx<'_>, window: &Window, max: bool, g: &XlaOp) -> XlaOp {
    let b = cx.b;
    let (xs, ys) = (cx.s(0), cx.shape);
    let n: i64 = xs.dims().iter().product();
    let s32 = xla_core::PrimitiveType::S32;
    let flat = b.reshape(b.iota(xla_core::Shape::array(s32, [n]), 0), xs.dims());
    let dir = if max {
        ComparisonDirection::Gt
    } else {
        ComparisonDirection::Lt
    };
    let pick = nary(move |sb: &XlaBuilder, p: &[XlaOp]| {
        let (a, ia, c, ic) = (&p[0], &p[1], &p[2], &p[3]);
        let keep = sb.or(sb.compare(a, c, dir), sb.and(sb.eq(a, c), sb.lt(ia, ic)));
        sb.tuple([sb.select(&keep, a, c), sb.select(&keep, ia, ic)])
    });
    let w = &window.dims;
    let field = |f: fn(&xla_core::ir::WindowDim) -> i64| -> Vec<i64> { w.iter().map(f).collect() };
    let pads: Vec<(i64, i64)> = w.iter().map(|d| (d.padding_low, d.padding_high)).collect();
    let r = b.reduce_window_variadic_with_general_padding(
        &[cx.x(0), flat],
        &[cx.x(1), b.constant_r0(-1i32)],
        &field(|d| d.size),
        &field(|d| d.stride),
        &field(|d| d.base_dilation),
        &field(|d| d.window_dilation),
        &pads,
        pick,
    );
    let mut idx_dims = ys.dims().to_vec();
    idx_dims.push(1);
    let idx = b.reshape(b.get_tuple_element(r, 1), &idx_dims);
    let dims = xla_core::ir::ScatterDims {
        update_window_dims: vec![],
        inserted_window_dims: vec![0],
        scatter_dims_to_operand_dims: vec![0],
        index_vector_dim: ys.rank() as i64,
        input_batching_dims: vec![],
        scatter_indices_batching_dims: vec![],
        indices_are_sorted: false,
        unique_indices: false,
    };
    let zeros = b.zeros(&xla_core::Shape::array(ys.element_type(), [n]));
    b.reshape(b.scatter(zeros, idx, g, &dims, Combiner::Add), xs.dims())
}

/// The direction `D` when a two-operand reducer keeps `(a0, a1)` where `compare(a0, b0)`
/// in direction `D` holds: `tuple(select(p, a0, b0), select(p, a1, b1))`.
fn selecting_direction(module: &Module, comp: CompId) -> Option<ComparisonDirection> {
    let c = module.get(comp)?;
    let root = c.root_instruction()?;
    if !matches!(root.op, Op::Tuple) || root.operands.len() != 2 {
        return None;
    }
    let sel = c.get(*root.operands.first()?)?;
    let other = c.get(*root.operands.get(1)?)?;
    if !matches!(sel.op, Op::Select)
        || !matches!(other.op, Op::Select)
        || sel.operands.first() != other.operands.first()
    {
        return None;
    }
    let pred = c.get(*sel.operands.first()?)?;
    let Op::Compare { direction, .. } = pred.op else {
        return None;
    };
    let num = |id: Option<&xla_core::InstrId>| match id.and_then(|&i| c.get(i)).map(|i| &i.op) {
        Some(Op::Parameter { number }) => Some(*number),
        _ => None,
    };
    (num(pred.operands.first()) == Some(0) && num(pred.operands.get(1)) == Some(2))
        .then_some(direction)
}

/// A two-operand reduce-window that selects by its first operand (the transpose of
/// select-and-scatter): linear in the second operand, whose cotangent is scattered back to
/// the selected elements with select-and-scatter.
fn selecting_reduce_window(
    cx: &Cx<'_>,
    window: &Window,
    to_apply: CompId,
    ct: &Ct,
) -> Result<Cts, AutodiffError> {
    let dir = selecting_direction(cx.module, to_apply);
    let (Some(dir), 4) = (dir, cx.args.len()) else {
        return Err(cx.nd(
            "variadic reduce-window is differentiated only when it selects by its first operand",
        ));
    };
    if cx.wants(0) || cx.wants(2) || cx.wants(3) {
        return Err(
            cx.nd("a selecting reduce-window is differentiated only w.r.t. its second operand")
        );
    }
    if window
        .dims
        .iter()
        .any(|d| d.base_dilation != 1 || d.window_dilation != 1)
    {
        return Err(cx.nd("a selecting reduce-window with dilation has no gradient rule"));
    }
    let Ct::Tuple(cts) = ct else {
        return Err(cx.nd("internal: an array cotangent reached a variadic reduce-window"));
    };
    let Some(Some(Ct::Array(g))) = cts.get(1) else {
        return Ok(vec![None; 4]);
    };
    let b = cx.b;
    let select = binary(move |sb: &XlaBuilder, p: XlaOp, q: XlaOp| sb.compare(p, q, dir));
    let w = &window.dims;
    let sizes: Vec<i64> = w.iter().map(|d| d.size).collect();
    let strides: Vec<i64> = w.iter().map(|d| d.stride).collect();
    let pads: Vec<(i64, i64)> = w.iter().map(|d| (d.padding_low, d.padding_high)).collect();
    let zero = b.constant_scalar(cx.s(1).element_type(), 0);
    let d = b.select_and_scatter_with_general_padding(
        cx.x(0),
        &sizes,
        &strides,
        &pads,
        g,
        zero,
        select,
        Combiner::Add,
    );
    Ok(vec![None, Ct::some(d), None, None])
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
