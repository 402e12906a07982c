//! `scatter`, one operand or variadic, whose combiner adds, multiplies, takes the maximum
//! or minimum, or replaces (per component for a variadic scatter). Update windows that do
//! not fit in the operand are skipped by scatter, so their updates get zero gradient.

use super::{Cts, Cx};
use crate::backward::Ct;
use crate::error::AutodiffError;
use xla_core::builder::{binary, Combiner, XlaBuilder, XlaOp};
use xla_core::ir::{BinaryOp, GatherDims, ScatterDims};
use xla_core::{CompId, Computation, InstrId, Module, Op, PrimitiveType, Shape};

/// How one component of a scatter combines its current value with an update.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Add,
    Mul,
    Max,
    Min,
    /// The combiner returns the update.
    Replace,
}

/// The parameter number of `id`, looking through copies.
fn param_number(c: &Computation, mut id: InstrId) -> Option<i64> {
    loop {
        let ins = c.get(id)?;
        match ins.op {
            Op::Copy => id = *ins.operands.first()?,
            Op::Parameter { number } => return Some(number),
            _ => return None,
        }
    }
}

/// The kind of the combiner value `id` for component `j` of `n`: `op(p_j, p_n+j)` (either
/// order) or `p_n+j` itself.
fn component_kind(c: &Computation, id: InstrId, j: i64, n: i64) -> Option<Kind> {
    if param_number(c, id) == Some(n + j) {
        return Some(Kind::Replace);
    }
    let ins = c.get(id)?;
    let Op::Binary(op) = ins.op else {
        return None;
    };
    let p = |k: usize| ins.operands.get(k).and_then(|&o| param_number(c, o));
    let (a, b) = (p(0)?, p(1)?);
    if (a, b) != (j, n + j) && (a, b) != (n + j, j) {
        return None;
    }
    match op {
        BinaryOp::Add => Some(Kind::Add),
        BinaryOp::Mul => Some(Kind::Mul),
        BinaryOp::Max => Some(Kind::Max),
        BinaryOp::Min => Some(Kind::Min),
        _ => None,
    }
}

/// One kind per component, or the first component that is not separable.
fn kinds(module: &Module, comp: CompId, n: usize) -> Result<Vec<Kind>, usize> {
    let Some((c, root)) = module
        .get(comp)
        .and_then(|c| Some((c, c.root_instruction()?)))
    else {
        return Err(0);
    };
    let ni = n as i64;
    if n == 1 && !matches!(root.op, Op::Tuple) {
        return component_kind(c, c.root, 0, 1).map(|k| vec![k]).ok_or(0);
    }
    if !matches!(root.op, Op::Tuple) || root.operands.len() != n {
        return Err(0);
    }
    (0..n)
        .map(|j| {
            let id = *root.operands.get(j).ok_or(j)?;
            component_kind(c, id, j as i64, ni).ok_or(j)
        })
        .collect()
}

/// What the components of a scatter share: the indices and the geometry.
struct Geo<'a> {
    b: &'a XlaBuilder,
    d: &'a ScatterDims,
    idx: XlaOp,
    /// Operand and updates shapes.
    os: Shape,
    us: Shape,
    /// The gather that reads back each update element's target.
    gd: GatherDims,
    /// Per update element: does its window fit (scatter skips those that do not)?
    ok: XlaOp,
}

/// One component: operand, update, result and the result's cotangent.
struct Part {
    x: XlaOp,
    u: XlaOp,
    y: XlaOp,
    g: XlaOp,
    /// The element type of `x`, `u` and `y`.
    ty: PrimitiveType,
}

/// The gather that reads back each update's window of a scatter.
fn inverse_gather(d: &ScatterDims, operand: &Shape, updates: &Shape) -> GatherDims {
    let mut slice_sizes = Vec::with_capacity(operand.rank());
    let mut pos = 0;
    for i in 0..operand.rank() as i64 {
        if d.inserted_window_dims.contains(&i) || d.input_batching_dims.contains(&i) {
            slice_sizes.push(1);
        } else {
            let ud = d.update_window_dims.get(pos).copied().unwrap_or(0) as usize;
            slice_sizes.push(updates.dims().get(ud).copied().unwrap_or(0));
            pos += 1;
        }
    }
    GatherDims {
        offset_dims: d.update_window_dims.clone(),
        collapsed_slice_dims: d.inserted_window_dims.clone(),
        start_index_map: d.scatter_dims_to_operand_dims.clone(),
        index_vector_dim: d.index_vector_dim,
        operand_batching_dims: d.input_batching_dims.clone(),
        start_indices_batching_dims: d.scatter_indices_batching_dims.clone(),
        slice_sizes,
        indices_are_sorted: d.indices_are_sorted,
    }
}

/// Per update element: does its window fit in the operand (scatter drops those that do
/// not, where gather would clamp)?
fn in_bounds(b: &XlaBuilder, d: &ScatterDims, gd: &GatherDims, g: &Geo0) -> XlaOp {
    let ity = g.is.element_type();
    let maxes: Vec<i64> = d
        .scatter_dims_to_operand_dims
        .iter()
        .map(|&od| {
            let od = od as usize;
            let dim = g.os.dims().get(od).copied().unwrap_or(0);
            dim - gd.slice_sizes.get(od).copied().unwrap_or(0)
        })
        .collect();
    let ivd = d.index_vector_dim;
    let implicit = ivd as usize >= g.is.rank();
    let hi = if implicit {
        b.constant_scalar(ity, maxes.first().copied().unwrap_or(0))
    } else {
        let v: Vec<XlaOp> = maxes
            .iter()
            .map(|&m| b.reshape(b.constant_scalar(ity, m), &[1]))
            .collect();
        b.broadcast_in_dim(b.concat_in_dim(v, 0), g.is.dims(), &[ivd])
    };
    let idx = &g.idx;
    let ok = b.and(b.ge(idx, b.constant_scalar(ity, 0)), b.le(idx, hi));
    let ok = if implicit {
        ok
    } else {
        b.reduce(ok, b.constant_r0(true), &[ivd], Combiner::And)
    };
    let scatter_dims: Vec<i64> = (0..g.us.rank() as i64)
        .filter(|d2| !d.update_window_dims.contains(d2))
        .collect();
    b.broadcast_in_dim(ok, g.us.dims(), &scatter_dims)
}

/// The shapes and indices `in_bounds` needs.
struct Geo0 {
    idx: XlaOp,
    os: Shape,
    is: Shape,
    us: Shape,
}

impl<'a> Geo<'a> {
    fn new(b: &'a XlaBuilder, d: &'a ScatterDims, g0: Geo0) -> Geo<'a> {
        let gd = inverse_gather(d, &g0.os, &g0.us);
        let ok = in_bounds(b, d, &gd, &g0);
        Geo {
            b,
            d,
            idx: g0.idx,
            os: g0.os,
            us: g0.us,
            gd,
            ok,
        }
    }

    /// `v` (operand-shaped) read back at every update element.
    fn back(&self, v: &XlaOp) -> XlaOp {
        self.b.gather(v, &self.idx, &self.gd)
    }

    /// `v` (update-shaped) where the update's window fits, else zero.
    fn kept(&self, v: &XlaOp) -> XlaOp {
        self.b.select(&self.ok, v, self.b.zeros_like(v))
    }

    /// `scatter(init, idx, v)` with `combiner`.
    fn scatter(&self, init: XlaOp, v: &XlaOp, combiner: Combiner) -> XlaOp {
        self.b.scatter(init, &self.idx, v, self.d, combiner)
    }

    /// The operand shape with element type `ty`.
    fn operand_of(&self, ty: PrimitiveType) -> Shape {
        Shape::array(ty, self.os.dims().to_vec())
    }
}

type Pair = (Option<XlaOp>, Option<XlaOp>);

/// Add: the operand gets the cotangent, each update the cotangent at its window.
fn add(geo: &Geo<'_>, p: &Part) -> Pair {
    (Some(p.g.clone()), Some(geo.kept(&geo.back(&p.g))))
}

/// Replace (JAX's id scheme): scatter update ids; an operand element gets the cotangent
/// when no update overwrote it, an update when its id is the one that landed.
fn replace(geo: &Geo<'_>, p: &Part) -> Pair {
    let (b, us) = (geo.b, &geo.us);
    let mut ids_shape = us.dims().to_vec();
    for &w in &geo.d.update_window_dims {
        if let Some(x) = ids_shape.get_mut(w as usize) {
            *x = 1;
        }
    }
    let num: i64 = ids_shape.iter().product();
    let s32 = PrimitiveType::S32;
    let ids = b.reshape(b.iota(Shape::array(s32, [num]), 0) + 1i32, &ids_shape);
    let all: Vec<i64> = (0..us.rank() as i64).collect();
    let ids = b.broadcast_in_dim(ids, us.dims(), &all);
    let put = binary(|_sb: &XlaBuilder, _old: XlaOp, new: XlaOp| new);
    let landed = b.scatter(b.zeros(&geo.operand_of(s32)), &geo.idx, &ids, geo.d, put);
    let dx = b.select(b.eq(&landed, b.constant_r0(0i32)), &p.g, b.zeros_like(&p.g));
    let gathered = geo.back(&p.g);
    let du = b.select(
        b.eq(&ids, geo.back(&landed)),
        &gathered,
        b.zeros_like(&gathered),
    );
    (Some(dx), Some(du))
}

/// Multiply: `y = x·Πu`, so `x̄ = g·Πu` and `ū_k = g·x·Π_{k'≠k} u_k'` (the product of the
/// other updates reaching the same element, exact with zero updates: products of the
/// nonzero updates and counts of the zero ones).
fn mul(geo: &Geo<'_>, p: &Part) -> Pair {
    let b = geo.b;
    let s32 = PrimitiveType::S32;
    let zero_u = b.eq(&p.u, b.zeros_like(&p.u));
    let nonzero = b.select(&zero_u, b.full_like(&p.u, 1), &p.u);
    let ones = b.full_like(&p.x, 1);
    let prod_nz = geo.scatter(ones, &nonzero, Combiner::Mul);
    let zeros = geo.scatter(
        b.zeros(&geo.operand_of(s32)),
        &b.convert_element_type(&zero_u, s32),
        Combiner::Add,
    );
    let none = b.eq(&zeros, b.constant_r0(0i32));
    let prod = b.select(&none, &prod_nz, b.zeros_like(&prod_nz));
    let dx = b.mul(&p.g, prod);
    let w = geo.back(&b.mul(b.mul(&p.g, &p.x), &prod_nz));
    let zg = geo.back(&zeros);
    let others_nonzero = b.and(b.eq(&zg, b.constant_r0(0i32)), b.not(&zero_u));
    let only_zero = b.and(b.eq(&zg, b.constant_r0(1i32)), &zero_u);
    let zu = b.zeros_like(&w);
    let du = b.select(
        others_nonzero,
        b.div(&w, &nonzero),
        b.select(only_zero, &w, &zu),
    );
    (Some(dx), Some(geo.kept(&du)))
}

/// Max/min (JAX's `_scatter_extremal_jvp`): the cotangent of each result element is split
/// evenly between the operand element and the updates equal to it.
fn extremal(geo: &Geo<'_>, p: &Part) -> Pair {
    let b = geo.b;
    let hit_u = b.and(&geo.ok, b.eq(&p.u, geo.back(&p.y)));
    let hit_x = b.eq(&p.x, &p.y);
    let ty = p.ty;
    let count = b.add(
        geo.scatter(
            b.zeros_like(&p.x),
            &b.convert_element_type(&hit_u, ty),
            Combiner::Add,
        ),
        b.convert_element_type(&hit_x, ty),
    );
    let share = b.div(&p.g, b.max(count, b.full_like(&p.x, 1)));
    let dx = b.select(&hit_x, &share, b.zeros_like(&share));
    let back = geo.back(&share);
    let du = b.select(&hit_u, &back, b.zeros_like(&back));
    (Some(dx), Some(du))
}

/// The cotangent of component `j` of the result (`None`: zero).
fn ct_of(cx: &Cx<'_>, ct: &Ct, n: usize, j: usize) -> Result<Option<XlaOp>, AutodiffError> {
    match ct {
        Ct::Array(g) if n == 1 => Ok(Some(g.clone())),
        Ct::Tuple(cs) => Ok(match cs.get(j) {
            Some(Some(Ct::Array(g))) => Some(g.clone()),
            _ => None,
        }),
        Ct::Array(_) => Err(cx.nd("internal: an array cotangent reached a variadic scatter")),
    }
}

/// `scatter`: each component differentiated by its combiner (add, multiply, max/min,
/// replace); a variadic scatter must combine each operand with its own update.
pub(super) fn scatter(
    cx: &Cx<'_>,
    d: &ScatterDims,
    to_apply: CompId,
    ct: &Ct,
) -> Result<Cts, AutodiffError> {
    let n = cx.args.len() / 2;
    let kinds = kinds(cx.module, to_apply, n).map_err(|j| {
        cx.nd(if n == 1 {
            "the combiner is not add, multiply, maximum, minimum or a replacement".to_string()
        } else {
            format!("the combiner does not combine operand {j} with update {j} alone by add, multiply, maximum, minimum or replacement")
        })
    })?;
    let b = cx.b;
    let g0 = Geo0 {
        idx: cx.x(n),
        os: cx.s(0),
        is: cx.s(n),
        us: cx.s(n + 1),
    };
    let geo = Geo::new(b, d, g0);
    let mut out: Cts = vec![None; 2 * n + 1];
    for (j, kind) in kinds.into_iter().enumerate() {
        let (wx, wu) = (cx.wants(j), cx.wants(n + 1 + j));
        let Some(g) = ct_of(cx, ct, n, j)? else {
            continue;
        };
        if !(wx || wu) || !cx.s(j).element_type().is_float_or_complex() {
            continue;
        }
        let y = if n == 1 {
            cx.out.clone()
        } else {
            b.get_tuple_element(cx.out, j as i64)
        };
        let part = Part {
            x: cx.x(j),
            u: cx.x(n + 1 + j),
            y,
            g,
            ty: cx.s(j).element_type(),
        };
        let (dx, du) = match kind {
            Kind::Add => add(&geo, &part),
            Kind::Replace => replace(&geo, &part),
            Kind::Mul => mul(&geo, &part),
            Kind::Max | Kind::Min => extremal(&geo, &part),
        };
        out[j] = dx.filter(|_| wx).map(Ct::Array);
        out[n + 1 + j] = du.filter(|_| wu).map(Ct::Array);
    }
    Ok(out)
}
