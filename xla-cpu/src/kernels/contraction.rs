//! Contractions: dot (general dimension numbers) and convolution (every option), as plain
//! reference loops accumulating in the result's element type (f16/bf16 in f32).
//!
//! Dot is canonicalised to batched `[B,M,K] x [B,K,N]`, the form a fast matmul takes.

use crate::error::{attribute, operand_shapes, out_of_range, result_shape, Result};
use crate::index::{array, count, dim_list, dims_of, make, strides};
use crate::limits::stop::Stop;
use crate::scalar::Ring;
use xla_core::attrs::{ConvConfig, DotDims};
use xla_core::literal::ArrayData;
use xla_core::{Literal, PrimitiveType, Shape};

use super::conv::conv_gemm;
use super::elementwise::convert;
use super::matmul::{bmm_faer, bmm_ring, Layout, Orient};
use super::structural::{index_map, take};
use crate::parallel::Parallel;
use std::borrow::Cow;

/// The element type arithmetic runs in for a result of type `ty`.
fn compute_type(ty: PrimitiveType) -> PrimitiveType {
    match ty {
        PrimitiveType::F16 | PrimitiveType::Bf16 => PrimitiveType::F32,
        other => other,
    }
}

/// Runs a generic ring kernel on two operands converted to the compute type, and converts
/// the result to the output's type.
fn run_ring(
    l: &ArrayData,
    r: &ArrayData,
    out: &Shape,
    kernel: &dyn Fn(&ArrayData, &ArrayData) -> Result<ArrayData>,
) -> Result<Literal> {
    let ty = compute_type(out.element_type());
    let res = kernel(&*as_type(l, ty)?, &*as_type(r, ty)?)?;
    finish(out, res)
}

/// `d` in element type `ty`, borrowed when it already is.
pub(crate) fn as_type(d: &ArrayData, ty: PrimitiveType) -> Result<Cow<'_, ArrayData>> {
    if d.element_type() == ty {
        Ok(Cow::Borrowed(d))
    } else {
        convert(d, ty).map(Cow::Owned)
    }
}

/// The result literal of shape `out` from `res`, converted to its type if needed.
pub(crate) fn finish(out: &Shape, res: ArrayData) -> Result<Literal> {
    if res.element_type() == out.element_type() {
        make(out, res)
    } else {
        make(out, convert(&res, out.element_type())?)
    }
}

macro_rules! ring_dispatch {
    ($l:expr, $r:expr, $f:ident, $($arg:expr),*) => {{
        use ArrayData as D;
        match ($l, $r) {
            (D::F32(a), D::F32(b)) => Ok($f(a, b, $($arg),*)),
            (D::F64(a), D::F64(b)) => Ok($f(a, b, $($arg),*)),
            (D::C64(a), D::C64(b)) => Ok($f(a, b, $($arg),*)),
            (D::C128(a), D::C128(b)) => Ok($f(a, b, $($arg),*)),
            (D::S8(a), D::S8(b)) => Ok($f(a, b, $($arg),*)),
            (D::S16(a), D::S16(b)) => Ok($f(a, b, $($arg),*)),
            (D::S32(a), D::S32(b)) => Ok($f(a, b, $($arg),*)),
            (D::S64(a), D::S64(b)) => Ok($f(a, b, $($arg),*)),
            (D::U8(a), D::U8(b)) => Ok($f(a, b, $($arg),*)),
            (D::U16(a), D::U16(b)) => Ok($f(a, b, $($arg),*)),
            (D::U32(a), D::U32(b)) => Ok($f(a, b, $($arg),*)),
            (D::U64(a), D::U64(b)) => Ok($f(a, b, $($arg),*)),
            (D::Pred(a), D::Pred(b)) => Ok($f(a, b, $($arg),*)),
            (a, _) => Err(crate::error::CpuError::UnsupportedType { op: "dot/convolution", ty: a.element_type() }),
        }
    }};
}

/// Batched matmul `[B,M,K] x [B,K,N] -> [B,M,N]`, sums in k order.
#[cfg(test)]
fn bmm<T: Ring>(l: &[T], r: &[T], bmkn: [usize; 4]) -> ArrayData {
    let [b, m, k, n] = bmkn;
    let mut out = vec![T::zero(); b * m * n];
    for bi in 0..b {
        for mi in 0..m {
            let lrow = &l[(bi * m + mi) * k..(bi * m + mi + 1) * k];
            let orow = &mut out[(bi * m + mi) * n..(bi * m + mi + 1) * n];
            for (ni, o) in orow.iter_mut().enumerate() {
                let mut acc = T::zero();
                for (ki, &x) in lrow.iter().enumerate() {
                    acc = acc.add(x.mul(r[(bi * k + ki) * n + ni]));
                }
                *o = acc;
            }
        }
    }
    T::wrap(out)
}

/// Orders `dims` of an operand as `[first..., second..., rest...]` and returns the index map.
fn canon(dims: &[usize], first: &[usize], second: &[usize]) -> (Vec<usize>, Vec<usize>) {
    let rest: Vec<usize> = (0..dims.len())
        .filter(|d| !first.contains(d) && !second.contains(d))
        .collect();
    let order: Vec<usize> = first.iter().chain(second).chain(&rest).copied().collect();
    let st = strides(dims);
    let odims: Vec<usize> = order.iter().map(|&d| dims[d]).collect();
    let ost: Vec<usize> = order.iter().map(|&d| st[d]).collect();
    (index_map(&odims, |o| crate::index::offset(o, &ost)), rest)
}

/// The operand dims of a dot, split: (batch, free, contracting) of lhs, then of rhs.
type DotSplit = [Vec<usize>; 6];

pub(crate) fn dot_split(
    ldims: &[usize],
    rdims: &[usize],
    dd: &DotDims,
    shapes: (&Shape, &Shape),
) -> Result<DotSplit> {
    let lb = dim_list(&dd.lhs_batch_dims, ldims.len(), "dot")?;
    let lc = dim_list(&dd.lhs_contracting_dims, ldims.len(), "dot")?;
    let rb = dim_list(&dd.rhs_batch_dims, rdims.len(), "dot")?;
    let rc = dim_list(&dd.rhs_contracting_dims, rdims.len(), "dot")?;
    let size = |dims: &[usize], ds: &[usize]| ds.iter().map(|&d| dims[d]).collect::<Vec<_>>();
    if lb.len() != rb.len()
        || lc.len() != rc.len()
        || size(ldims, &lb) != size(rdims, &rb)
        || size(ldims, &lc) != size(rdims, &rc)
    {
        return Err(operand_shapes(
            "dot",
            [shapes.0, shapes.1],
            format!("do not agree under {dd:?}"),
        ));
    }
    let free = |rank: usize, b: &[usize], c: &[usize]| {
        (0..rank)
            .filter(|d| !b.contains(d) && !c.contains(d))
            .collect::<Vec<_>>()
    };
    let lf = free(ldims.len(), &lb, &lc);
    let rf = free(rdims.len(), &rb, &rc);
    Ok([lb, lf, lc, rb, rf, rc])
}

/// How an operand's matrices sit in its buffer when its batch dims lead in order and the
/// rest is `(first, second)` or `(second, first)`: `Some(RowMajor)` for the former.
pub(crate) fn in_place(batch: &[usize], first: &[usize], second: &[usize]) -> Option<Orient> {
    let nb = batch.len();
    if batch.iter().enumerate().any(|(i, &d)| i != d) {
        return None;
    }
    let rest = |a: &[usize], b: &[usize]| a.iter().chain(b).enumerate().all(|(i, &d)| d == nb + i);
    if rest(first, second) {
        Some(Orient::RowMajor)
    } else if rest(second, first) {
        Some(Orient::ColMajor)
    } else {
        None
    }
}

/// `(size, stride)` of a group of dims read as one: each dim's stride is the next one's
/// times its size (`(1, 1)` for no dims).
pub(crate) fn merged(dims: &[usize], st: &[usize], group: &[usize]) -> Option<(usize, usize)> {
    let size = group
        .iter()
        .map(|&d| dims.get(d).copied())
        .product::<Option<usize>>()?;
    for w in group.windows(2) {
        let (a, b) = (w[0], w[1]);
        if *st.get(a)? != st.get(b)? * dims.get(b)? {
            return None;
        }
    }
    Some((size, group.last().map_or(Some(1), |&d| st.get(d).copied())?))
}

/// The operand's matrices read in place with strides, when the row dims and the column dims
/// each merge into one dim and one of the two is contiguous (any batch dims).
fn strided(dims: &[usize], [b, first, second]: [&[usize]; 3]) -> Option<Layout> {
    let st = strides(dims);
    let (rows, rs) = merged(dims, &st, first)?;
    let (cols, cs) = merged(dims, &st, second)?;
    let (orient, stride) = if cs == 1 || cols <= 1 {
        (Orient::RowMajor, if rows <= 1 { cols } else { rs })
    } else if rs == 1 || rows <= 1 {
        (Orient::ColMajor, cs)
    } else {
        return None;
    };
    let bdims: Vec<usize> = b
        .iter()
        .map(|&d| dims.get(d).copied())
        .collect::<Option<_>>()?;
    let bst: Vec<usize> = b
        .iter()
        .map(|&d| st.get(d).copied())
        .collect::<Option<_>>()?;
    let offsets = index_map(&bdims, |o| crate::index::offset(o, &bst));
    Some(Layout {
        offsets,
        orient,
        stride,
    })
}

/// An operand as `B` matrices: in place when the layout allows (packed, or strided for
/// faer's types), else one transposing copy to row-major `[B, first, second]`, admitted
/// to the memory budget as scratch first.
///
/// # Errors
/// [`crate::error::CpuError::ScratchOverBudget`] or [`crate::error::CpuError::Allocation`]
/// when the copy does not fit.
fn operand<'a>(
    d: &'a ArrayData,
    dims: &[usize],
    groups: [&[usize]; 3],
    par: Parallel<'_>,
) -> Result<(Cow<'a, ArrayData>, Layout)> {
    let [b, first, second] = groups;
    let size = |g: &[usize]| {
        g.iter()
            .map(|&x| crate::invariant::at(dims, x, "contraction dim groups"))
            .product()
    };
    let (nb, rows, cols): (usize, usize, usize) = (size(b), size(first), size(second));
    if let Some(o) = in_place(b, first, second) {
        return Ok((Cow::Borrowed(d), Layout::packed(o, nb, rows, cols)));
    }
    let faer = matches!(
        d,
        ArrayData::F32(_) | ArrayData::F64(_) | ArrayData::C64(_) | ArrayData::C128(_)
    );
    if let Some(l) = strided(dims, groups).filter(|l| faer && l.fits(rows, cols, d.len())) {
        return Ok((Cow::Borrowed(d), l));
    }
    let bytes = (d.len() as u64).saturating_mul(d.element_type().byte_size() as u64);
    crate::limits::scratch::admit("dot (operand transpose)", bytes)?;
    let order: Vec<usize> = b.iter().chain(first).chain(second).copied().collect();
    let copy = super::strided::permute(d, dims, &order, par)
        .unwrap_or_else(|| take(d, &canon(dims, &order, &[]).0));
    Ok((
        Cow::Owned(copy),
        Layout::packed(Orient::RowMajor, nb, rows, cols),
    ))
}

/// A dot's operands, their dims split into groups (lhs batch, free, contracting; rhs
/// batch, free, contracting), and its canonical sizes `[B, M, K, N]`.
struct Product<'a> {
    ld: &'a ArrayData,
    ldims: Vec<usize>,
    rd: &'a ArrayData,
    rdims: Vec<usize>,
    groups: DotSplit,
    bmkn: [usize; 4],
}

impl<'a> Product<'a> {
    fn of(lhs: &'a Literal, rhs: &'a Literal, dd: &DotDims) -> Result<Product<'a>> {
        let (ld, ldims) = array(lhs)?;
        let (rd, rdims) = array(rhs)?;
        let groups = dot_split(&ldims, &rdims, dd, (lhs.shape(), rhs.shape()))?;
        let size =
            |dims: &[usize], ds: &[usize]| count(&ds.iter().map(|&d| dims[d]).collect::<Vec<_>>());
        let [lb, lf, lc, _, rf, _] = &groups;
        let bmkn = [
            size(&ldims, lb),
            size(&ldims, lf),
            size(&ldims, lc),
            size(&rdims, rf),
        ];
        Ok(Product {
            ld,
            ldims,
            rd,
            rdims,
            groups,
            bmkn,
        })
    }
}

/// `dot` with general dimension numbers: result dims are batch, lhs free, rhs free.
/// f32/f64/c64/c128 (and f16/bf16 through f32) run through faer with `par`.
///
/// # Errors
/// If the dimension numbers do not fit the operands.
pub fn dot(
    lhs: &Literal,
    rhs: &Literal,
    dd: &DotDims,
    out: &Shape,
    par: Parallel<'_>,
) -> Result<Literal> {
    let Product {
        ld,
        ldims,
        rd,
        rdims,
        groups: [lb, lf, lc, rb, rf, rc],
        bmkn,
    } = Product::of(lhs, rhs, dd)?;
    let [b, m, _, n] = bmkn;
    if count(&dims_of(out)?) != b * m * n {
        return Err(result_shape("dot", format!("{b}x{m}x{n} elements"), out));
    }
    if ldims.len() == 1 && rdims.len() == 1 && lc.len() == 1 && rc.len() == 1 {
        if let Some(res) = super::reduce_tree::complex_vector_dot(ld, rd) {
            return finish(out, res);
        }
    }
    let ty = compute_type(out.element_type());
    let (l, r) = (as_type(ld, ty)?, as_type(rd, ty)?);
    let (l, lo) = operand(&l, &ldims, [&lb, &lf, &lc], par)?;
    let (r, ro) = operand(&r, &rdims, [&rb, &rc, &rf], par)?;
    use ArrayData as D;
    let res = match (&*l, &*r) {
        (D::F32(a), D::F32(b)) => D::F32(bmm_faer((a, &lo), (b, &ro), bmkn, par)),
        (D::F64(a), D::F64(b)) => D::F64(bmm_faer((a, &lo), (b, &ro), bmkn, par)),
        (D::C64(a), D::C64(b)) => D::C64(bmm_faer((a, &lo), (b, &ro), bmkn, par)),
        (D::C128(a), D::C128(b)) => D::C128(bmm_faer((a, &lo), (b, &ro), bmkn, par)),
        (a, b) => {
            let row = |d: &ArrayData, o: &Layout, dims: &[usize], g: [&[usize]; 3]| match o.orient {
                Orient::RowMajor => d.clone(),
                Orient::ColMajor => {
                    let order: Vec<usize> = g.iter().flat_map(|v| v.iter()).copied().collect();
                    take(d, &canon(dims, &order, &[]).0)
                }
            };
            let a = row(a, &lo, &ldims, [&lb, &lf, &lc]);
            let b = row(b, &ro, &rdims, [&rb, &rc, &rf]);
            ring_dispatch!(&a, &b, bmm_ring_data, bmkn)?
        }
    };
    finish(out, res)
}

/// `acc + dot(lhs, rhs)` computed in `acc`'s buffer: each element's product summed as
/// [`dot`] sums it and added to `acc` once (the custom-call `dot_add.rs` puts in place of
/// such an add). f32 and f64 only; `acc` must have the dot's result shape.
///
/// # Errors
/// If the dimension numbers do not fit the operands, `acc` is not of the result's shape
/// and type, or a block of the product panicked on the partner thread.
pub(crate) fn dot_add(
    lhs: &Literal,
    rhs: &Literal,
    dd: &DotDims,
    mut acc: Literal,
    par: Parallel<'_>,
) -> Result<Literal> {
    let Product {
        ld,
        ldims,
        rd,
        rdims,
        groups: [lb, lf, lc, rb, rf, rc],
        bmkn,
    } = Product::of(lhs, rhs, dd)?;
    let [b, m, _, n] = bmkn;
    let acc_shape = acc.shape().clone();
    let wrong = || {
        result_shape(
            "dot (accumulated)",
            format!("{b}x{m}x{n} elements of the operands' type"),
            &acc_shape,
        )
    };
    if count(&dims_of(&acc_shape)?) != b * m * n {
        return Err(wrong());
    }
    let (l, lo) = operand(ld, &ldims, [&lb, &lf, &lc], par)?;
    let (r, ro) = operand(rd, &rdims, [&rb, &rc, &rf], par)?;
    use ArrayData as D;
    let done = match (&*l, &*r, acc.array_data_mut()) {
        (D::F32(a), D::F32(b), Some(D::F32(c))) => {
            super::matmul::bmm_faer_add((a, &lo), (b, &ro), bmkn, c, par)
        }
        (D::F64(a), D::F64(b), Some(D::F64(c))) => {
            super::matmul::bmm_faer_add((a, &lo), (b, &ro), bmkn, c, par)
        }
        _ => return Err(wrong()),
    };
    if !done {
        return Err(crate::error::internal(
            "a block of an accumulated product panicked on the partner thread",
        ));
    }
    Ok(acc)
}

fn bmm_ring_data<T: Ring>(l: &[T], r: &[T], bmkn: [usize; 4]) -> ArrayData {
    T::wrap(bmm_ring(l, r, bmkn))
}

#[cfg(test)]
/// The reference `dot`: plain loops in the compute type (kept to check the fast path).
///
/// # Errors
/// If the dimension numbers do not fit the operands.
pub(crate) fn dot_reference(
    lhs: &Literal,
    rhs: &Literal,
    dd: &DotDims,
    out: &Shape,
) -> Result<Literal> {
    let (ld, ldims) = array(lhs)?;
    let (rd, rdims) = array(rhs)?;
    let lb = dim_list(&dd.lhs_batch_dims, ldims.len(), "dot")?;
    let lc = dim_list(&dd.lhs_contracting_dims, ldims.len(), "dot")?;
    let rb = dim_list(&dd.rhs_batch_dims, rdims.len(), "dot")?;
    let rc = dim_list(&dd.rhs_contracting_dims, rdims.len(), "dot")?;
    let size = |dims: &[usize], ds: &[usize]| ds.iter().map(|&d| dims[d]).collect::<Vec<_>>();
    if lb.len() != rb.len()
        || lc.len() != rc.len()
        || size(&ldims, &lb) != size(&rdims, &rb)
        || size(&ldims, &lc) != size(&rdims, &rc)
    {
        return Err(operand_shapes(
            "dot",
            [lhs.shape(), rhs.shape()],
            format!("do not agree under {dd:?}"),
        ));
    }
    // lhs as [B, M, K]: batch, free, contracting; rhs as [B, K, N].
    let lfree: Vec<usize> = (0..ldims.len())
        .filter(|d| !lb.contains(d) && !lc.contains(d))
        .collect();
    let lorder: Vec<usize> = lb.iter().chain(&lfree).chain(&lc).copied().collect();
    let (lmap, _) = canon(&ldims, &lorder, &[]);
    let (rmap, rfree) = canon(&rdims, &rb, &rc);
    let b = count(&size(&ldims, &lb));
    let m = count(&size(&ldims, &lfree));
    let k = count(&size(&ldims, &lc));
    let n = count(&size(&rdims, &rfree));
    if count(&dims_of(out)?) != b * m * n {
        return Err(result_shape("dot", format!("{b}x{m}x{n} elements"), out));
    }
    let (lt, rt) = (take(ld, &lmap), take(rd, &rmap));
    run_ring(&lt, &rt, out, &|l, r| {
        ring_dispatch!(l, r, bmm, [b, m, k, n])
    })
}

/// Everything the convolution loop needs, as strides and sizes.
#[derive(Clone, Debug)]
pub(crate) struct ConvPlan {
    pub(crate) out_dims: Vec<usize>,
    /// Per output dim: (role, spatial index) where role 0 = batch, 1 = feature, 2 = spatial.
    pub(crate) out_role: Vec<(u8, usize)>,
    pub(crate) lhs_batch_stride: usize,
    pub(crate) lhs_feature_stride: usize,
    pub(crate) lhs_spatial: Vec<(usize, usize)>,
    pub(crate) rhs_in_stride: usize,
    pub(crate) rhs_out_stride: usize,
    pub(crate) rhs_spatial: Vec<(usize, usize)>,
    pub(crate) kic: usize,
    pub(crate) oc_per_fgroup: usize,
    pub(crate) oc_per_bgroup: usize,
    pub(crate) batch_per_group: usize,
    pub(crate) win: Vec<xla_core::attrs::WindowDim>,
    /// Whether window taps over padding multiply a zero by their weight (so a NaN or
    /// infinite weight reaches the output elements at the border) instead of being skipped.
    /// XLA:CPU runs f16/bf16/f32 convolutions with 1-3 spatial dims, no lhs dilation and
    /// no window reversal on Eigen's spatial convolution, which pads with zeros and
    /// multiplies them; every other convolution on its loop emitter, which skips taps outside
    /// the input (checked on jaxlib 0.10.2: `scripts/gen_conv_fill_fixtures.py`).
    pub(crate) zeros_multiplied: bool,
}

/// Whether XLA multiplies the padding of a convolution of `ty` elements (see
/// [`ConvPlan::zeros_multiplied`]).
fn multiplies_padding(ty: PrimitiveType, c: &ConvConfig) -> bool {
    use PrimitiveType as P;
    matches!(ty, P::F16 | P::Bf16 | P::F32)
        && (1..=3).contains(&c.window.dims.len())
        && c.window
            .dims
            .iter()
            .all(|w| !w.window_reversal && w.base_dilation == 1)
}

/// A dimension number checked against a rank.
fn conv_dim(d: i64, rank: usize) -> Result<usize> {
    usize::try_from(d)
        .ok()
        .filter(|&d| d < rank)
        .ok_or_else(|| out_of_range("convolution", "dimension", d, rank))
}

/// Output dim roles, and (size, stride) of each spatial dim of lhs and rhs, in window order.
#[allow(clippy::type_complexity)]
fn conv_spatial(
    ldims: &[usize],
    rdims: &[usize],
    out_rank: usize,
    c: &ConvConfig,
) -> Result<(Vec<(u8, usize)>, Vec<(usize, usize)>, Vec<(usize, usize)>)> {
    let dn = &c.dnums;
    let (lst, rst) = (strides(ldims), strides(rdims));
    let ns = dn.input_spatial_dimensions.len();
    if dn.kernel_spatial_dimensions.len() != ns
        || dn.output_spatial_dimensions.len() != ns
        || c.window.dims.len() != ns
        || out_rank != ldims.len()
    {
        return Err(attribute(
            "convolution",
            "dim_labels",
            format!("{dn:?}"),
            format!(
                "do not name {ns} spatial dimensions for input, kernel, output and window \
                 alike (operand ranks {}, {}, result rank {out_rank})",
                ldims.len(),
                rdims.len()
            ),
        ));
    }
    let mut out_role = vec![(3u8, 0usize); out_rank];
    out_role[conv_dim(dn.output_batch_dimension, out_rank)?] = (0, 0);
    out_role[conv_dim(dn.output_feature_dimension, out_rank)?] = (1, 0);
    let mut lhs_spatial = Vec::new();
    let mut rhs_spatial = Vec::new();
    for s in 0..ns {
        out_role[conv_dim(dn.output_spatial_dimensions[s], out_rank)?] = (2, s);
        let li = conv_dim(dn.input_spatial_dimensions[s], ldims.len())?;
        let ri = conv_dim(dn.kernel_spatial_dimensions[s], rdims.len())?;
        lhs_spatial.push((ldims[li], lst[li]));
        rhs_spatial.push((rdims[ri], rst[ri]));
    }
    if out_role.iter().any(|r| r.0 == 3) {
        return Err(attribute(
            "convolution",
            "dim_labels",
            format!("{dn:?}"),
            "do not name every output dimension once",
        ));
    }
    Ok((out_role, lhs_spatial, rhs_spatial))
}

fn conv_plan(
    (ty, ldims): (PrimitiveType, &[usize]),
    rdims: &[usize],
    out_dims: Vec<usize>,
    c: &ConvConfig,
) -> Result<ConvPlan> {
    let dn = &c.dnums;
    let u = conv_dim;
    let (lst, rst) = (strides(ldims), strides(rdims));
    let (out_role, lhs_spatial, rhs_spatial) = conv_spatial(ldims, rdims, out_dims.len(), c)?;
    let (ib, ifd) = (
        u(dn.input_batch_dimension, ldims.len())?,
        u(dn.input_feature_dimension, ldims.len())?,
    );
    let (ki, ko) = (
        u(dn.kernel_input_feature_dimension, rdims.len())?,
        u(dn.kernel_output_feature_dimension, rdims.len())?,
    );
    let (fgc, bgc) = (
        usize::try_from(c.feature_group_count).unwrap_or(0),
        usize::try_from(c.batch_group_count).unwrap_or(0),
    );
    let (n, ic, kic, oc) = (ldims[ib], ldims[ifd], rdims[ki], rdims[ko]);
    if fgc == 0 || bgc == 0 || ic != kic * fgc || oc % fgc != 0 || oc % bgc != 0 || n % bgc != 0 {
        return Err(attribute(
            "convolution",
            "feature_group_count, batch_group_count",
            format!("{fgc}, {bgc}"),
            format!(
                "do not fit batch {n}, input features {ic}, kernel input features {kic}, \
                 output features {oc}"
            ),
        ));
    }
    Ok(ConvPlan {
        out_dims,
        out_role,
        lhs_batch_stride: lst[ib],
        lhs_feature_stride: lst[ifd],
        lhs_spatial,
        rhs_in_stride: rst[ki],
        rhs_out_stride: rst[ko],
        rhs_spatial,
        kic,
        oc_per_fgroup: oc / fgc,
        oc_per_bgroup: oc / bgc,
        batch_per_group: n / bgc,
        win: c.window.dims.clone(),
        zeros_multiplied: multiplies_padding(ty, c),
    })
}

/// The lhs offset (without batch/feature) of window position `k` for output position `o`.
fn conv_lhs_offset(p: &ConvPlan, o: &[usize], k: &[usize]) -> Option<usize> {
    let mut off = 0;
    for (s, &(size, stride)) in p.lhs_spatial.iter().enumerate() {
        let w = &p.win[s];
        let pos = o[s] as i64 * w.stride + k[s] as i64 * w.window_dilation - w.padding_low;
        let dilated = if size == 0 {
            0
        } else {
            (size as i64 - 1) * w.base_dilation + 1
        };
        if pos < 0 || pos >= dilated || pos % w.base_dilation != 0 {
            return None;
        }
        off += (pos / w.base_dilation) as usize * stride;
    }
    Some(off)
}

fn conv_k<T: Ring>(l: &[T], r: &[T], p: &ConvPlan) -> ArrayData {
    let ksizes: Vec<usize> = p.rhs_spatial.iter().map(|s| s.0).collect();
    let mut out = Vec::with_capacity(count(&p.out_dims));
    let mut ospatial = vec![0usize; p.lhs_spatial.len()];
    // Polled every 4,096 outputs; once stopped, the rest are left zero (`limits/stop.rs`).
    let (stop, mut stopped) = (Stop::current(), false);
    crate::index::for_each_index(&p.out_dims, |o| {
        if out.len() % 4096 == 0 {
            stopped = stopped || stop.stopped();
        }
        if stopped {
            out.push(T::zero());
            return;
        }
        let at = conv_at(l, r, p, (o, &mut ospatial), &ksizes, |a: T, x: T, y: T| {
            a.add(x.mul(y))
        });
        out.push(at);
    });
    T::wrap(out)
}

/// One output element of the reference loop at output index `o` (`ospatial` is scratch for
/// its spatial coordinates): the taps that read a real lhs element, summed in window order
/// by `fma(acc, x, y)` from `T::default()` (zero).
fn conv_at<T: Copy + Default>(
    l: &[T],
    r: &[T],
    p: &ConvPlan,
    (o, ospatial): (&[usize], &mut [usize]),
    ksizes: &[usize],
    fma: impl Fn(T, T, T) -> T,
) -> T {
    let (mut b, mut oc) = (0, 0);
    for (d, &(role, s)) in p.out_role.iter().enumerate() {
        match role {
            0 => b = o[d],
            1 => oc = o[d],
            _ => {
                if let Some(x) = ospatial.get_mut(s) {
                    *x = o[d];
                }
            }
        }
    }
    let lb = (oc / p.oc_per_bgroup) * p.batch_per_group + b;
    let ic0 = (oc / p.oc_per_fgroup) * p.kic;
    let mut acc = T::default();
    crate::index::for_each_index(ksizes, |k| {
        // A tap outside the input: skipped, or (see `zeros_multiplied`) a zero times the
        // weights, which only matters for a NaN or infinite weight.
        let loff = conv_lhs_offset(p, ospatial, k);
        if loff.is_none() && !p.zeros_multiplied {
            return;
        }
        let mut roff = oc * p.rhs_out_stride;
        for (s, &(size, stride)) in p.rhs_spatial.iter().enumerate() {
            let kk = if p.win[s].window_reversal {
                size - 1 - k[s]
            } else {
                k[s]
            };
            roff += kk * stride;
        }
        let lbase = loff.map(|o| lb * p.lhs_batch_stride + o);
        for kic in 0..p.kic {
            let x = lbase
                .and_then(|b| l.get(b + (ic0 + kic) * p.lhs_feature_stride))
                .copied()
                .unwrap_or_default();
            let y = r
                .get(roff + kic * p.rhs_in_stride)
                .copied()
                .unwrap_or_default();
            acc = fma(acc, x, y);
        }
    });
    acc
}

/// Recomputes, as the reference loop does, every output element of `out` whose window
/// reads padding or an lhs-dilation hole: where a kernel treated that fill differently from
/// the plan (multiplied it where XLA skips it, or skipped it where XLA multiplies it), a NaN
/// or infinite weight makes those elements differ; every other element sums exactly the
/// reference's terms. An output coordinate's window meets fill along a spatial dim
/// independently of the others, so one mask per dim decides.
pub(crate) fn redo_filled<
    T: Copy + Default + std::ops::Add<Output = T> + std::ops::Mul<Output = T>,
>(
    l: &[T],
    r: &[T],
    p: &ConvPlan,
    out: &mut [T],
) {
    let ksizes: Vec<usize> = p.rhs_spatial.iter().map(|s| s.0).collect();
    let filled: Vec<Vec<bool>> =
        p.lhs_spatial
            .iter()
            .enumerate()
            .map(|(s, &(size, _))| {
                let osize = p
                    .out_role
                    .iter()
                    .zip(&p.out_dims)
                    .find(|(r, _)| r.0 == 2 && r.1 == s)
                    .map_or(0, |(_, &n)| n);
                let w = &p.win[s];
                let dilated = (size as i64 - 1) * w.base_dilation + 1;
                (0..osize)
                    .map(|o| {
                        (0..crate::invariant::at(&ksizes, s, "one window size per spatial dim"))
                            .any(|k| {
                                let pos = o as i64 * w.stride + k as i64 * w.window_dilation
                                    - w.padding_low;
                                size == 0 || pos < 0 || pos >= dilated || pos % w.base_dilation != 0
                            })
                    })
                    .collect()
            })
            .collect();
    let mut ospatial = vec![0usize; p.lhs_spatial.len()];
    let mut i = 0;
    crate::index::for_each_index(&p.out_dims, |o| {
        let hit = p.out_role.iter().enumerate().any(|(d, &(role, s))| {
            role == 2
                && filled
                    .get(s)
                    .and_then(|f| f.get(o[d]))
                    .copied()
                    .unwrap_or(true)
        });
        if hit {
            let v = conv_at(l, r, p, (o, &mut ospatial), &ksizes, |a: T, x: T, y: T| {
                a + x * y
            });
            if let Some(slot) = out.get_mut(i) {
                *slot = v;
            }
        }
        i += 1;
    });
}

/// `convolution` with strides, (negative) padding, lhs/rhs dilation, window reversal,
/// feature and batch groups and any dimension numbers.
///
/// # Errors
/// If the configuration does not fit the operands.
pub fn convolution(
    lhs: &Literal,
    rhs: &Literal,
    c: &ConvConfig,
    out: &Shape,
    par: Parallel<'_>,
) -> Result<Literal> {
    let (ld, ldims) = array(lhs)?;
    let (rd, rdims) = array(rhs)?;
    let p = conv_plan((ld.element_type(), &ldims), &rdims, dims_of(out)?, c)?;
    run_ring(ld, rd, out, &|l, r| {
        use ArrayData as D;
        let fast = match (l, r) {
            (D::F32(a), D::F32(b)) => conv_gemm(a, b, &p, par).map(D::F32),
            (D::F64(a), D::F64(b)) => conv_gemm(a, b, &p, par).map(D::F64),
            (D::C64(a), D::C64(b)) => conv_gemm(a, b, &p, par).map(D::C64),
            (D::C128(a), D::C128(b)) => conv_gemm(a, b, &p, par).map(D::C128),
            _ => None,
        };
        match fast {
            Some(d) => Ok(d),
            None => ring_dispatch!(l, r, conv_k, &p),
        }
    })
}

/// The reference `convolution`: one plain loop per output element.
#[cfg(test)]
pub(crate) fn convolution_reference(
    lhs: &Literal,
    rhs: &Literal,
    c: &ConvConfig,
    out: &Shape,
) -> Result<Literal> {
    let (ld, ldims) = array(lhs)?;
    let (rd, rdims) = array(rhs)?;
    let p = conv_plan((ld.element_type(), &ldims), &rdims, dims_of(out)?, c)?;
    run_ring(ld, rd, out, &|l, r| ring_dispatch!(l, r, conv_k, &p))
}

/// The fast form a convolution takes (`None`: the column gather).
#[cfg(test)]
pub(crate) fn convolution_form(
    lhs: &Literal,
    rhs: &Literal,
    c: &ConvConfig,
    out: &Shape,
) -> Result<Option<super::conv_rows::Form>> {
    Ok(super::conv_rows::form(&convolution_plan(lhs, rhs, c, out)?))
}

/// The plan a convolution runs by, for the fast paths' tests.
#[cfg(test)]
pub(crate) fn convolution_plan(
    lhs: &Literal,
    rhs: &Literal,
    c: &ConvConfig,
    out: &Shape,
) -> Result<ConvPlan> {
    let (ld, ldims) = array(lhs)?;
    let (_, rdims) = array(rhs)?;
    conv_plan((ld.element_type(), &ldims), &rdims, dims_of(out)?, c)
}
