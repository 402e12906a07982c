//! A `dot` whose result only a `transpose` reads, computed straight into the transposed
//! order: the custom-call [`TARGET`] that `rewrite::dot_order` puts in place of such a pair.
//!
//! Why here and not in the vmap rule: `vmap` of a product of shared data with batched
//! weights (an ensemble) makes the lane a *free* dimension of one operand, so the lane lands
//! in the middle of the dot's result and a transpose moves it to the front. JAX's `vmap`
//! emits the same pair; real XLA makes the transpose free by choosing the dot's output
//! layout. Broadcasting the shared operand instead (a batch dimension on both sides) would
//! copy it once per lane, and a shared matrix times batched vectors would pay that for
//! nothing. Computing the pair as a loop of GEMMs reads both operands in place (the shared
//! one with stride 0 along the loop) and writes each block where the transpose puts it,
//! for any module that has the pair, whoever wrote it.
//!
//! The form: after the permutation, the result's last two dims are one lhs free dim (`m`)
//! and one rhs free dim (`n`), in either order; the contracting dims read as one strided
//! dim (`k`); every other dim (batch dims, the remaining free dims) is a loop whose index
//! moves the operands that have it. Each loop step writes one contiguous `m x n` block
//! (row-major when `n` is last, else as its transpose), through the same batched product
//! ([`bmm_faer`]) the plain `dot` uses.
//!
//! Same bits as `transpose(dot(a, b))`: every block is a product of at least
//! [`MIN_MNK`] multiply-adds with `m`, `n`, `k` ≥ 2 (so faer neither takes its matrix-vector,
//! rank-1 or small-product path nor do we take the plain loop), and faer's large-product
//! kernel sums each element in `k` order with blocks of `k` that depend on `k` alone, as
//! the plain dot's larger product does (checked on random inputs with NaN, ±inf and ±0).

use crate::error::{attribute, Result};
use crate::index::{array, dims_of, offset, strides};
use crate::parallel::Parallel;
use xla_core::attrs::DotDims;
use xla_core::literal::ArrayData;
use xla_core::{Literal, PrimitiveType, Shape};

use super::contraction::{dot_split, merged};
use super::matmul::{bmm_faer, Layout, Orient};
use super::structural::index_map;

/// The custom-call target of a dot computed into its reader's transposed order.
pub(crate) const TARGET: &str = "__xla_rs$dot_transposed";

/// Blocks smaller than this (faer's small-product threshold, `16^3`) keep the plain dot.
pub(crate) const MIN_MNK: usize = 4097;

/// How the pair runs: `loops` products `[m, k] x [k, n]`, operand `b` at the offsets of
/// its layouts, the result block `b` at `b * m * n` (row-major, or column-major when
/// `transposed`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Plan {
    m: usize,
    k: usize,
    n: usize,
    lhs: Layout,
    rhs: Layout,
    transposed: bool,
}

/// One dim of the dot's result: its size and its stride in the lhs and the rhs (0 where
/// the operand does not have it), and whether it is a free dim of the lhs / rhs.
#[derive(Clone, Copy)]
struct ResultDim {
    size: usize,
    lst: usize,
    rst: usize,
    side: Side,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Side {
    Batch,
    LhsFree,
    RhsFree,
}

/// The dot's result dims in order (batch, lhs free, rhs free).
fn result_dims(ldims: &[usize], rdims: &[usize], split: &[Vec<usize>; 6]) -> Vec<ResultDim> {
    let [lb, lf, _, rb, rf, _] = split;
    let (lst, rst) = (strides(ldims), strides(rdims));
    let at = |v: &[usize], d: usize| crate::invariant::at(v, d, "dot: dims named by the split");
    let batch = lb.iter().zip(rb).map(|(&l, &r)| ResultDim {
        size: at(ldims, l),
        lst: at(&lst, l),
        rst: at(&rst, r),
        side: Side::Batch,
    });
    let lfree = lf.iter().map(|&l| ResultDim {
        size: at(ldims, l),
        lst: at(&lst, l),
        rst: 0,
        side: Side::LhsFree,
    });
    let rfree = rf.iter().map(|&r| ResultDim {
        size: at(rdims, r),
        lst: 0,
        rst: at(&rst, r),
        side: Side::RhsFree,
    });
    batch.chain(lfree).chain(rfree).collect()
}

/// The `rows x cols` matrices of an operand with row stride `rs` and column stride `cs`
/// at `offsets`, when one of the two strides is 1.
fn layout(offsets: Vec<usize>, rs: usize, cs: usize) -> Option<Layout> {
    let (orient, stride) = match (rs, cs) {
        (_, 1) => (Orient::RowMajor, rs),
        (1, _) => (Orient::ColMajor, cs),
        _ => return None,
    };
    Some(Layout {
        offsets,
        orient,
        stride,
    })
}

/// The plan of `transpose(dot(l, r), perm)`, or `None` when the pair does not have the
/// form above (it then runs as a dot and a transpose).
pub(crate) fn plan(
    (ldims, lshape): (&[usize], &Shape),
    (rdims, rshape): (&[usize], &Shape),
    dd: &DotDims,
    perm: &[usize],
) -> Option<Plan> {
    let split = dot_split(ldims, rdims, dd, (lshape, rshape)).ok()?;
    let res = result_dims(ldims, rdims, &split);
    let mut seen = vec![false; res.len()];
    for &p in perm {
        if std::mem::replace(seen.get_mut(p)?, true) {
            return None;
        }
    }
    let rank = perm.len();
    if rank != res.len() || rank < 2 {
        return None;
    }
    let (outer, inner) = perm.split_at(rank - 2);
    let (a, b) = (*res.get(*inner.first()?)?, *res.get(*inner.get(1)?)?);
    let (md, nd, transposed) = match (a.side, b.side) {
        (Side::LhsFree, Side::RhsFree) => (a, b, false),
        (Side::RhsFree, Side::LhsFree) => (b, a, true),
        _ => return None,
    };
    let (k, lks) = merged(ldims, &strides(ldims), &split[2])?;
    let (_, rks) = merged(rdims, &strides(rdims), &split[5])?;
    let (m, n) = (md.size, nd.size);
    if m < 2 || n < 2 || k < 2 || m.checked_mul(n)?.checked_mul(k)? < MIN_MNK {
        return None;
    }
    let loop_dims: Vec<ResultDim> = outer
        .iter()
        .map(|&p| res.get(p).copied())
        .collect::<Option<_>>()?;
    let sizes: Vec<usize> = loop_dims.iter().map(|d| d.size).collect();
    let lst: Vec<usize> = loop_dims.iter().map(|d| d.lst).collect();
    let rst: Vec<usize> = loop_dims.iter().map(|d| d.rst).collect();
    let lhs = layout(index_map(&sizes, |o| offset(o, &lst)), md.lst, lks)?;
    let rhs = layout(index_map(&sizes, |o| offset(o, &rst)), rks, nd.rst)?;
    Some(Plan {
        m,
        k,
        n,
        lhs,
        rhs,
        transposed,
    })
}

/// The custom-call's `backend_config`: the dot's dimension numbers and the permutation.
pub(crate) fn encode(dd: &DotDims, perm: &[i64]) -> String {
    encode_dims(dd, "permutation", perm)
}

/// A dot's dimension numbers and one more list named `last`, as a custom-call's
/// `backend_config` (this target's and `dot_add.rs`'s).
pub(crate) fn encode_dims(dd: &DotDims, last: &str, values: &[i64]) -> String {
    let list = |v: &[i64]| v.iter().map(i64::to_string).collect::<Vec<_>>().join(",");
    format!(
        "lhs_batch={};lhs_contracting={};rhs_batch={};rhs_contracting={};{last}={}",
        list(&dd.lhs_batch_dims),
        list(&dd.lhs_contracting_dims),
        list(&dd.rhs_batch_dims),
        list(&dd.rhs_contracting_dims),
        list(values)
    )
}

/// The dimension numbers and the last list [`encode_dims`] wrote.
pub(crate) fn decode_dims(config: &str) -> Option<(DotDims, Vec<i64>)> {
    let mut fields = config.split(';').map(|f| {
        let (_, v) = f.split_once('=')?;
        v.split(',')
            .filter(|s| !s.is_empty())
            .map(|s| s.parse::<i64>().ok())
            .collect::<Option<Vec<i64>>>()
    });
    let mut next = || fields.next().flatten();
    let dd = DotDims {
        lhs_batch_dims: next()?,
        lhs_contracting_dims: next()?,
        rhs_batch_dims: next()?,
        rhs_contracting_dims: next()?,
    };
    Some((dd, next()?))
}

/// The dimension numbers and permutation [`encode`] wrote.
fn decode(config: &str) -> Option<(DotDims, Vec<usize>)> {
    let (dd, perm) = decode_dims(config)?;
    let perm = perm
        .into_iter()
        .map(|p| usize::try_from(p).ok())
        .collect::<Option<_>>()?;
    Some((dd, perm))
}

/// Whether the rewrite may fuse a pair of element type `ty` planned as `p`: a type faer
/// multiplies, and for complex types only row-major blocks. A column-major block is the
/// product with its operands' roles swapped, which rounds a complex product's imaginary
/// part (`a.re * b.im + a.im * b.re`, fused multiply-adds) in the other order; for real
/// types the swap is exact.
pub(crate) fn fusable(ty: PrimitiveType, p: &Plan) -> bool {
    match ty {
        PrimitiveType::F32 | PrimitiveType::F64 => true,
        PrimitiveType::C64 | PrimitiveType::C128 => !p.transposed,
        _ => false,
    }
}

/// Runs the custom-call [`TARGET`] (`None` for any other target).
pub(crate) fn call(
    target: &str,
    args: &[&Literal],
    config: &str,
    out: &Shape,
    par: Parallel<'_>,
) -> Option<Result<Literal>> {
    (target == TARGET).then(|| run(args, config, out, par))
}

fn run(args: &[&Literal], config: &str, out: &Shape, par: Parallel<'_>) -> Result<Literal> {
    let bad = |why: &str| {
        attribute(
            format!("custom-call {TARGET}"),
            "backend_config",
            config,
            format!("(result {out}): {why}"),
        )
    };
    let [l, r] = args else {
        return Err(bad("takes two operands"));
    };
    let (dd, perm) = decode(config).ok_or_else(|| bad("unreadable configuration"))?;
    let (ld, ldims) = array(l)?;
    let (rd, rdims) = array(r)?;
    let p = plan((&ldims, l.shape()), (&rdims, r.shape()), &dd, &perm)
        .ok_or_else(|| bad("operands and permutation do not have the fused form"))?;
    let loops = p.lhs.offsets.len();
    let (m, k, n) = (p.m, p.k, p.n);
    let fits = p.lhs.fits(m, k, ld.len()) && p.rhs.fits(k, n, rd.len());
    if !fits || dims_of(out)?.iter().product::<usize>() != loops * m * n {
        return Err(bad("the operands or the result do not hold the product"));
    }
    // A column-major block is the row-major block of the transposed product r^T l^T.
    let flip = |lay: &Layout| Layout {
        orient: match lay.orient {
            Orient::RowMajor => Orient::ColMajor,
            Orient::ColMajor => Orient::RowMajor,
        },
        ..lay.clone()
    };
    let (fl, fr) = (flip(&p.lhs), flip(&p.rhs));
    macro_rules! product {
        ($a:expr, $b:expr) => {
            if p.transposed {
                bmm_faer(($b, &fr), ($a, &fl), [loops, n, k, m], par)
            } else {
                bmm_faer(($a, &p.lhs), ($b, &p.rhs), [loops, m, k, n], par)
            }
        };
    }
    use ArrayData as D;
    let data = match (ld, rd) {
        (D::F32(a), D::F32(b)) if out.element_type() == PrimitiveType::F32 => {
            D::F32(product!(a, b))
        }
        (D::F64(a), D::F64(b)) if out.element_type() == PrimitiveType::F64 => {
            D::F64(product!(a, b))
        }
        (D::C64(a), D::C64(b)) if out.element_type() == PrimitiveType::C64 => {
            D::C64(product!(a, b))
        }
        (D::C128(a), D::C128(b)) if out.element_type() == PrimitiveType::C128 => {
            D::C128(product!(a, b))
        }
        _ => {
            return Err(bad(
                "operands and result must share one of f32, f64, c64, c128",
            ))
        }
    };
    crate::index::make(out, data)
}
