//! Normalisation, linear algebra, transforms and sorting: batch norm (training →
//! batch-norm-grad), cholesky and triangular-solve (through triangular solves, as JAX),
//! fft (its transposes as JAX's), sort and top-k (through the sorting permutation).

use super::{sum, Cts, Cx};
use crate::backward::Ct;
use crate::error::AutodiffError;
use xla_core::builder::{nary, XlaBuilder, XlaOp};
use xla_core::ir::{FftType, Transpose, TriangularSolveOptions};
use xla_core::{CompId, PrimitiveType, Shape};

/// The dims of `rank` other than `feature`.
fn other_dims(rank: usize, feature: i64) -> Vec<i64> {
    (0..rank as i64).filter(|&d| d != feature).collect()
}

/// `batch-norm-training` → `batch-norm-grad`, plus the mean and variance outputs'
/// cotangents.
pub(super) fn batch_norm_training(
    cx: &Cx<'_>,
    eps: f32,
    fi: i64,
    ct: &Ct,
) -> Result<Cts, AutodiffError> {
    let Ct::Tuple(cts) = ct else {
        return Err(cx.nd("internal: an array cotangent reached batch-norm-training"));
    };
    let b = cx.b;
    let (x, scale) = (cx.x(0), cx.x(1));
    let xs = cx.s(0);
    let (mean, var) = (
        b.get_tuple_element(cx.out, 1),
        b.get_tuple_element(cx.out, 2),
    );
    let bc = |v: &XlaOp| b.broadcast_in_dim(v, xs.dims(), &[fi]);
    let count =
        xs.dims().iter().product::<i64>() / xs.dims().get(fi as usize).copied().unwrap_or(1).max(1);
    let inv_n = 1.0 / count.max(1) as f64;
    let arr = |i: usize| match cts.get(i) {
        Some(Some(Ct::Array(g))) => Some(g.clone()),
        _ => None,
    };
    let (mut dx, mut dscale, mut doffset) = (None, None, None);
    if let Some(gy) = arr(0) {
        let r = b.batch_norm_grad(&x, &scale, &mean, &var, gy, eps, fi);
        dx = Some(b.get_tuple_element(&r, 0));
        dscale = Some(b.get_tuple_element(&r, 1));
        doffset = Some(b.get_tuple_element(&r, 2));
    }
    let mut add = |v: XlaOp| {
        dx = Some(match dx.take() {
            Some(d) => b.add(d, v),
            None => v,
        })
    };
    if let Some(gm) = arr(1) {
        add(bc(&(gm * inv_n)));
    }
    if let Some(gv) = arr(2) {
        add(b.mul(bc(&(gv * (2.0 * inv_n))), b.sub(&x, bc(&mean))));
    }
    Ok(vec![
        dx.map(Ct::Array),
        dscale.map(Ct::Array),
        doffset.map(Ct::Array),
    ])
}

/// `batch-norm-grad`, w.r.t. its `grad_output` operand (in which it is linear — what a
/// second derivative through `batch-norm-training`'s rule, or a jvp, needs):
/// `ḡ = A - mean(A) - x̂·mean(A·x̂) + x̂·γ̄ + β̄` with `A = dx̄·γ/σ`.
pub(super) fn batch_norm_grad(
    cx: &Cx<'_>,
    eps: f32,
    fi: i64,
    ct: &Ct,
) -> Result<Cts, AutodiffError> {
    if (0..4).any(|i| cx.wants(i)) {
        return batch_norm_grad_expanded(cx, eps, fi, ct);
    }
    let Ct::Tuple(cts) = ct else {
        return Err(cx.nd("internal: an array cotangent reached batch-norm-grad"));
    };
    let b = cx.b;
    let xs = cx.s(0);
    let ty = xs.element_type();
    let (x, scale, mean, var) = (cx.x(0), cx.x(1), cx.x(2), cx.x(3));
    let bc = |v: &XlaOp| b.broadcast_in_dim(v, xs.dims(), &[fi]);
    let red = other_dims(xs.rank(), fi);
    let count =
        xs.dims().iter().product::<i64>() / xs.dims().get(fi as usize).copied().unwrap_or(1).max(1);
    let inv_n = 1.0 / count.max(1) as f64;
    let inv = b.rsqrt(&var + f64::from(eps));
    let xhat = b.mul(b.sub(&x, bc(&mean)), bc(&inv));
    let arr = |i: usize| match cts.get(i) {
        Some(Some(Ct::Array(g))) => Some(g.clone()),
        _ => None,
    };
    let mut terms = Vec::new();
    if let Some(a) = arr(0) {
        let a = b.mul(a, bc(&b.mul(&scale, &inv)));
        let ma = sum(b, &a, ty, &red) * inv_n;
        let max = sum(b, &b.mul(&a, &xhat), ty, &red) * inv_n;
        terms.push(b.sub(b.sub(&a, bc(&ma)), b.mul(&xhat, bc(&max))));
    }
    if let Some(gs) = arr(1) {
        terms.push(b.mul(&xhat, bc(&gs)));
    }
    if let Some(go) = arr(2) {
        terms.push(bc(&go));
    }
    let total = terms.into_iter().reduce(|p, q| b.add(p, q));
    Ok(vec![None, None, None, None, total.map(Ct::Array)])
}

/// `batch-norm-grad` w.r.t. any operand: differentiate its definition, written out with
/// elementwise ops and reductions in a scratch module.
fn batch_norm_grad_expanded(cx: &Cx<'_>, eps: f32, fi: i64, ct: &Ct) -> Result<Cts, AutodiffError> {
    let eb = XlaBuilder::new("batch_norm_grad");
    let ps: Vec<XlaOp> = (0..5)
        .map(|i| eb.parameter(i, cx.s(i as usize), "p"))
        .collect();
    let xs = cx.s(0);
    let ty = xs.element_type();
    let bc = |v: &XlaOp| eb.broadcast_in_dim(v, xs.dims(), &[fi]);
    let red = other_dims(xs.rank(), fi);
    let count =
        xs.dims().iter().product::<i64>() / xs.dims().get(fi as usize).copied().unwrap_or(1).max(1);
    let inv_n = 1.0 / count.max(1) as f64;
    let (x, scale, mean, var, dy) = (&ps[0], &ps[1], &ps[2], &ps[3], &ps[4]);
    let inv = eb.rsqrt(var + f64::from(eps));
    let xhat = eb.mul(eb.sub(x, bc(mean)), bc(&inv));
    let dbeta = sum(&eb, dy, ty, &red);
    let dgamma = sum(&eb, &eb.mul(dy, &xhat), ty, &red);
    let centred = eb.sub(
        eb.sub(dy, bc(&(&dbeta * inv_n))),
        eb.mul(&xhat, bc(&(&dgamma * inv_n))),
    );
    let dx = eb.mul(bc(&eb.mul(scale, &inv)), centred);
    let expansion = eb.build_with_root(&eb.tuple([dx, dgamma, dbeta]))?;
    let args: Vec<(XlaOp, Shape, bool)> = (0..5).map(|i| (cx.x(i), cx.s(i), cx.wants(i))).collect();
    let (_, cts) =
        crate::backward::vjp_computation(cx.b, &expansion, expansion.entry, &args, |_| {
            Some(ct.clone())
        })?;
    Ok(cts)
}

/// `batch-norm-inference`: `y = (x - mean) * scale / sqrt(var + eps) + offset`.
pub(super) fn batch_norm_inference(
    cx: &Cx<'_>,
    eps: f32,
    fi: i64,
    g: &XlaOp,
) -> Result<Cts, AutodiffError> {
    let b = cx.b;
    let xs = cx.s(0);
    let (x, scale, mean, var) = (cx.x(0), cx.x(1), cx.x(3), cx.x(4));
    let bc = |v: &XlaOp| b.broadcast_in_dim(v, xs.dims(), &[fi]);
    let red = other_dims(xs.rank(), fi);
    let ty = xs.element_type();
    let inv = b.rsqrt(&var + f64::from(eps));
    let dx = b.mul(g, bc(&b.mul(&scale, &inv)));
    let doffset = sum(b, g, ty, &red);
    let sgxm = sum(b, &b.mul(g, b.sub(&x, bc(&mean))), ty, &red);
    let dscale = b.mul(&sgxm, &inv);
    let dmean = b.neg(b.mul(b.mul(&doffset, &scale), &inv));
    let inv3 = b.mul(b.mul(&inv, &inv), &inv);
    let dvar = b.mul(b.mul(&sgxm, &scale), &inv3) * -0.5f64;
    Ok([dx, dscale, doffset, dmean, dvar]
        .into_iter()
        .map(Ct::some)
        .collect())
}

/// Swaps the last two dims.
fn mt(b: &XlaBuilder, x: &XlaOp, rank: usize) -> XlaOp {
    let mut perm: Vec<i64> = (0..rank as i64).collect();
    perm.swap(rank - 2, rank - 1);
    b.transpose(x, &perm)
}

/// Batched matrix product `op(a) · op(b)` over the last two dims.
fn mm(b: &XlaBuilder, x: &XlaOp, y: &XlaOp, rank: usize, tx: bool, ty: bool) -> XlaOp {
    let r = rank as i64;
    let batch: Vec<i64> = (0..r - 2).collect();
    let dims = xla_core::ir::DotDims {
        lhs_batch_dims: batch.clone(),
        lhs_contracting_dims: vec![if tx { r - 2 } else { r - 1 }],
        rhs_batch_dims: batch,
        rhs_contracting_dims: vec![if ty { r - 1 } else { r - 2 }],
    };
    b.dot_general(x, y, &dims)
}

/// Where `col - row` satisfies `keep` (over the last two dims of `shape`).
fn band(b: &XlaBuilder, shape: &Shape, keep: impl Fn(&XlaOp, &XlaOp) -> XlaOp) -> XlaOp {
    let r = shape.rank() as i64;
    let s = Shape::array(PrimitiveType::S32, shape.dims().to_vec());
    let (row, col) = (b.iota(s.clone(), r - 2), b.iota(s, r - 1));
    keep(&row, &col)
}

/// `cholesky`: `Σ̄ = L⁻ᵀ Φ(Lᵀ L̄) L⁻¹` folded onto the triangle XLA reads.
pub(super) fn cholesky(cx: &Cx<'_>, lower: bool, g: &XlaOp) -> Result<Cts, AutodiffError> {
    let b = cx.b;
    let (shape, r) = (cx.shape, cx.shape.rank());
    if r < 2 {
        return Err(cx.nd("cholesky of rank < 2"));
    }
    let (l, lbar) = if lower {
        (cx.out.clone(), g.clone())
    } else {
        (mt(b, cx.out, r), mt(b, g, r))
    };
    let p = mm(b, &l, &lbar, r, true, false);
    let zero = b.zeros_like(&p);
    let below = band(b, shape, |i, j| b.gt(i, j));
    let diag = band(b, shape, |i, j| b.eq(i, j));
    let phi = b.select(&below, &p, b.select(&diag, &p * 0.5f64, &zero));
    let solve = |a: &XlaOp, x: &XlaOp, left: bool, t: Transpose| {
        let o = TriangularSolveOptions {
            left_side: left,
            lower: true,
            unit_diagonal: false,
            transpose_a: t,
        };
        b.triangular_solve(a, x, o)
    };
    let x1 = solve(&l, &phi, true, Transpose::Transpose);
    let s = solve(&l, &x1, false, Transpose::NoTranspose);
    let sym = b.add(&s, mt(b, &s, r));
    let off = if lower {
        below
    } else {
        band(b, shape, |i, j| b.lt(i, j))
    };
    Ok(vec![Ct::some(b.select(off, sym, b.select(diag, &s, zero)))])
}

/// `triangular-solve` (JAX's rules, cotangents unconjugated as everywhere in this crate):
/// `b̄` is a solve with the other transpose (for an adjoint solve: a plain solve with
/// `conj(a)`); `ā = -b̄ xᵀ` (left side; transposed as `op(a)` is, conjugated for an
/// adjoint), restricted to the triangle read.
pub(super) fn triangular_solve(
    cx: &Cx<'_>,
    o: &TriangularSolveOptions,
    g: &XlaOp,
) -> Result<Cts, AutodiffError> {
    let b = cx.b;
    let (a, x, r) = (cx.x(0), cx.out.clone(), cx.shape.rank());
    let transposed = o.transpose_a != Transpose::NoTranspose;
    let conjugated = o.transpose_a == Transpose::Adjoint && cx.shape.element_type().is_complex();
    let (solve_a, flipped) = match (transposed, conjugated) {
        (true, true) => (conj(b, &a), Transpose::NoTranspose),
        (true, false) => (a.clone(), Transpose::NoTranspose),
        (false, _) => (a.clone(), Transpose::Transpose),
    };
    let gb = b.triangular_solve(
        &solve_a,
        g,
        TriangularSolveOptions {
            transpose_a: flipped,
            ..*o
        },
    );
    let da = if cx.wants(0) {
        let prod = match (o.left_side, transposed) {
            (true, false) => mm(b, &gb, &x, r, false, true),
            (true, true) => mm(b, &x, &gb, r, false, true),
            (false, false) => mm(b, &x, &gb, r, true, false),
            (false, true) => mm(b, &gb, &x, r, true, false),
        };
        let prod = if conjugated { conj(b, &prod) } else { prod };
        let k = i32::from(o.unit_diagonal);
        let keep = band(b, &cx.s(0), |i, j| {
            let d = b.sub(j, i);
            if o.lower {
                b.le(d, b.constant_r0(-k))
            } else {
                b.ge(d, b.constant_r0(k))
            }
        });
        Some(Ct::Array(b.select(keep, b.neg(&prod), b.zeros_like(&prod))))
    } else {
        None
    };
    Ok(vec![da, cx.wants(1).then_some(Ct::Array(gb))])
}

/// `complex(re(x), -im(x))`.
fn conj(b: &XlaBuilder, x: &XlaOp) -> XlaOp {
    b.complex(b.real(x), b.neg(b.imag(x)))
}

/// `fft`: FFT and IFFT transpose to themselves; RFFT to the real part of an FFT of the
/// zero-extended cotangent; IRFFT to a weighted, conjugated RFFT (JAX's rules).
pub(super) fn fft(cx: &Cx<'_>, ty: FftType, len: &[i64], g: &XlaOp) -> Result<Cts, AutodiffError> {
    let b = cx.b;
    let d = match ty {
        FftType::Fft | FftType::Ifft => b.fft(g, ty, len),
        FftType::Rfft => {
            let gs = cx.shape;
            let last = gs.rank().saturating_sub(1);
            let n = len.last().copied().unwrap_or(0);
            let have = gs.dims().get(last).copied().unwrap_or(0);
            let zero = b.constant_scalar(gs.element_type(), 0);
            let padded = b.pad_in_dim(g, &zero, last as i64, 0, n - have);
            b.real(b.fft(padded, FftType::Fft, len))
        }
        FftType::Irfft => {
            let x = b.fft(g, FftType::Rfft, len);
            let xs = x.shape()?;
            let m = xs.dims().last().copied().unwrap_or(0);
            let odd = len.last().copied().unwrap_or(0) % 2;
            let mut w = vec![2.0f64; m as usize];
            if let Some(f) = w.first_mut() {
                *f = 1.0;
            }
            if odd == 0 {
                if let Some(l) = w.last_mut() {
                    *l = 1.0;
                }
            }
            let scale = 1.0 / len.iter().product::<i64>().max(1) as f64;
            let real = xs.element_type().component_type();
            let wv: Vec<f64> = w.iter().map(|v| v * scale).collect();
            let wl = b.convert_element_type(b.constant_r1(&wv), real);
            let wc = b.complex(&wl, b.zeros_like(&wl));
            let wb = b.broadcast_in_dim(wc, xs.dims(), &[xs.rank() as i64 - 1]);
            conj(b, &b.mul(wb, x))
        }
    };
    Ok(vec![Ct::some(d)])
}

/// `sort`: sort again with an iota to get the permutation, then undo it on the
/// cotangents by sorting them by the permutation.
pub(super) fn sort(cx: &Cx<'_>, dim: i64, cmp: CompId, ct: &Ct) -> Result<Cts, AutodiffError> {
    let b = cx.b;
    let n = cx.args.len();
    let gs: Vec<Option<XlaOp>> = match ct {
        Ct::Array(g) => vec![Some(g.clone())],
        Ct::Tuple(cs) => (0..n)
            .map(|i| match cs.get(i) {
                Some(Some(Ct::Array(g))) if cx.wants(i) => Some(g.clone()),
                _ => None,
            })
            .collect(),
    };
    let wanted: Vec<(usize, XlaOp)> = gs
        .into_iter()
        .enumerate()
        .filter_map(|(i, g)| g.map(|g| (i, g)))
        .collect();
    if wanted.is_empty() {
        return Ok(vec![None; n]);
    }
    let s0 = cx.s(0);
    let iota = b.iota(Shape::array(PrimitiveType::S32, s0.dims().to_vec()), dim);
    let module = cx.module;
    let wrapped = nary(move |sb: &XlaBuilder, p: &[XlaOp]| sb.inline(module, cmp, &p[..2 * n]));
    let mut ops: Vec<XlaOp> = cx.args.to_vec();
    ops.push(iota);
    let sorted = b.sort(&ops, dim, true, wrapped);
    let perm = b.get_tuple_element(&sorted, n as i64);
    let mut back = vec![perm];
    back.extend(wanted.iter().map(|(_, g)| g.clone()));
    let by_perm = nary(|sb: &XlaBuilder, p: &[XlaOp]| sb.lt(&p[0], &p[1]));
    let unsorted = b.sort(&back, dim, true, by_perm);
    let mut out = vec![None; n];
    for (k, (i, _)) in wanted.iter().enumerate() {
        out[*i] = Ct::some(b.get_tuple_element(&unsorted, k as i64 + 1));
    }
    Ok(out)
}

/// `topk`: each value's cotangent goes back to its index (a one-hot sum over `k`).
pub(super) fn top_k(cx: &Cx<'_>, k: i64, ct: &Ct) -> Result<Cts, AutodiffError> {
    let Ct::Tuple(cts) = ct else {
        return Err(cx.nd("internal: an array cotangent reached topk"));
    };
    let Some(Some(Ct::Array(g))) = cts.first() else {
        return Ok(vec![None]);
    };
    let b = cx.b;
    let xs = cx.s(0);
    let r = xs.rank();
    let mut dims3: Vec<i64> = xs.dims()[..r - 1].to_vec();
    dims3.push(k);
    dims3.push(xs.dims()[r - 1]);
    let map: Vec<i64> = (0..r as i64).collect();
    let idx = b.get_tuple_element(cx.out, 1);
    let hit = b.eq(
        b.broadcast_in_dim(idx, &dims3, &map),
        b.iota(Shape::array(PrimitiveType::S32, dims3.clone()), r as i64),
    );
    let gb = b.broadcast_in_dim(g, &dims3, &map);
    let picked = b.select(hit, &gb, b.zeros_like(&gb));
    Ok(vec![Ct::some(sum(
        b,
        &picked,
        xs.element_type(),
        &[r as i64 - 1],
    ))])
}
