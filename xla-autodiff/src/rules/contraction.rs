//! Bilinear rules: dot and convolution, a transpose rule per operand (ports of JAX's
//! `_dot_general_transpose_lhs/rhs` and `_conv_general_dilated_transpose_lhs/rhs`).

use super::{Cts, Cx};
use crate::backward::Ct;
use crate::error::AutodiffError;
use xla_core::builder::{ConvOptions, XlaBuilder, XlaOp};
use xla_core::ir::{ConvConfig, ConvDimensionNumbers, DotDims, PrecisionConfig};

/// The dimensions of `0..n` not in `a` or `b`, in order.
fn remaining(n: usize, a: &[i64], b: &[i64]) -> Vec<i64> {
    (0..n as i64)
        .filter(|d| !a.contains(d) && !b.contains(d))
        .collect()
}

/// The permutation sorting `v` (numpy's `argsort`).
fn argsort(v: &[i64]) -> Vec<i64> {
    let mut idx: Vec<i64> = (0..v.len() as i64).collect();
    idx.sort_by_key(|&i| v[i as usize]);
    idx
}

/// One side of a dot's transpose: the cotangent of `x` in `dot(x, y)` (or of `y` with
/// `swap`), given as `(x_contract, y_contract, x_batch, y_batch)`.
#[allow(clippy::too_many_arguments)]
fn dot_transpose_lhs(
    b: &XlaBuilder,
    g: &XlaOp,
    y: &XlaOp,
    x_rank: usize,
    y_rank: usize,
    (xc, yc, xb, yb): (&[i64], &[i64], &[i64], &[i64]),
    swap: bool,
    precision: &PrecisionConfig,
) -> XlaOp {
    let x_kept = remaining(x_rank, xc, xb);
    let y_kept = remaining(y_rank, yc, yb);
    let nb = xb.len() as i64;
    let ans_batch: Vec<i64> = (0..nb).collect();
    let ans_y: Vec<i64> = if swap {
        (nb..nb + y_kept.len() as i64).collect()
    } else {
        let start = nb + x_kept.len() as i64;
        (start..start + y_kept.len() as i64).collect()
    };
    let dims = DotDims {
        lhs_batch_dims: ans_batch,
        lhs_contracting_dims: ans_y,
        rhs_batch_dims: yb.to_vec(),
        rhs_contracting_dims: y_kept,
    };
    let sorted_by_y: Vec<i64> = argsort(yc).iter().map(|&i| xc[i as usize]).collect();
    let unsorted: Vec<i64> = xb
        .iter()
        .chain(&x_kept)
        .chain(&sorted_by_y)
        .copied()
        .collect();
    let out_axes = argsort(&unsorted);
    let d = b.dot_general_with_precision(g, y, &dims, precision);
    if out_axes.iter().enumerate().all(|(i, &a)| a == i as i64) {
        d
    } else {
        b.transpose(d, &out_axes)
    }
}

/// `dot`: `(g · yᵀ, xᵀ · g)` in general dimension numbers.
pub(super) fn dot(
    cx: &Cx<'_>,
    dims: &DotDims,
    precision: &PrecisionConfig,
    g: &XlaOp,
) -> Result<Cts, AutodiffError> {
    let (b, x, y) = (cx.b, cx.x(0), cx.x(1));
    let (xr, yr) = (cx.s(0).rank(), cx.s(1).rank());
    let (xc, yc) = (
        &dims.lhs_contracting_dims[..],
        &dims.rhs_contracting_dims[..],
    );
    let (xb, yb) = (&dims.lhs_batch_dims[..], &dims.rhs_batch_dims[..]);
    let convert = |v: XlaOp, i: usize| {
        let ty = cx.s(i).element_type();
        if cx.shape.element_type() == ty {
            v
        } else {
            b.convert_element_type(v, ty)
        }
    };
    let (gy, gx) = (g_as(cx, g, 1), g_as(cx, g, 0));
    let dx = cx.wants(0).then(|| {
        convert(
            dot_transpose_lhs(b, &gy, &y, xr, yr, (xc, yc, xb, yb), false, precision),
            0,
        )
    });
    let dy = cx.wants(1).then(|| {
        convert(
            dot_transpose_lhs(b, &gx, &x, yr, xr, (yc, xc, yb, xb), true, precision),
            1,
        )
    });
    Ok(vec![dx.map(Ct::Array), dy.map(Ct::Array)])
}

/// The cotangent in operand `i`'s element type (when the result's type differs, e.g. a
/// preferred element type), so it can meet that operand in a dot or convolution.
fn g_as(cx: &Cx<'_>, g: &XlaOp, i: usize) -> XlaOp {
    let ty = cx.s(i).element_type();
    if cx.shape.element_type() == ty {
        g.clone()
    } else {
        cx.b.convert_element_type(g, ty)
    }
}

/// `core.dilate_dim`: the extent of `d` elements with `dilation - 1` holes between them.
fn dilate(d: i64, dilation: i64) -> i64 {
    if d == 0 {
        0
    } else {
        1 + dilation * (d - 1)
    }
}

/// Splits dimension `src` of `x` into `[size1, dim / size1]`.
fn reshape_axis_out_of(
    b: &XlaBuilder,
    src: usize,
    size1: i64,
    x: &XlaOp,
) -> Result<XlaOp, AutodiffError> {
    let mut dims = x.shape()?.dims().to_vec();
    let d = dims.get(src).copied().unwrap_or(1);
    dims.splice(src..=src, [size1, d / size1.max(1)]);
    Ok(b.reshape(x, &dims))
}

/// Moves dimension `src` of `x` into dimension `dst` (numbered without `src`), as its
/// major part.
fn reshape_axis_into(
    b: &XlaBuilder,
    src: usize,
    dst: usize,
    x: &XlaOp,
) -> Result<XlaOp, AutodiffError> {
    let dims = x.shape()?.dims().to_vec();
    let mut perm: Vec<i64> = (0..dims.len() as i64)
        .filter(|&i| i != src as i64)
        .collect();
    perm.insert(dst.min(perm.len()), src as i64);
    let mut new_dims: Vec<i64> = dims
        .iter()
        .enumerate()
        .filter(|(i, _)| *i != src)
        .map(|(_, &d)| d)
        .collect();
    if let Some(nd) = new_dims.get_mut(dst) {
        *nd *= dims.get(src).copied().unwrap_or(1);
    }
    Ok(b.reshape(b.transpose(x, &perm), &new_dims))
}

/// Spec triples `(batch, feature, spatial)` of a convolution's lhs, rhs and output.
struct Specs {
    lhs: (i64, i64, Vec<i64>),
    rhs: (i64, i64, Vec<i64>),
    out: (i64, i64, Vec<i64>),
}

fn specs(d: &ConvDimensionNumbers) -> Specs {
    Specs {
        lhs: (
            d.input_batch_dimension,
            d.input_feature_dimension,
            d.input_spatial_dimensions.clone(),
        ),
        rhs: (
            d.kernel_output_feature_dimension,
            d.kernel_input_feature_dimension,
            d.kernel_spatial_dimensions.clone(),
        ),
        out: (
            d.output_batch_dimension,
            d.output_feature_dimension,
            d.output_spatial_dimensions.clone(),
        ),
    }
}

/// Dimension numbers from `(lhs, rhs, out)` specs (JAX's `ConvDimensionNumbers`).
fn dnums(
    lhs: &(i64, i64, Vec<i64>),
    rhs: &(i64, i64, Vec<i64>),
    out: &(i64, i64, Vec<i64>),
) -> ConvDimensionNumbers {
    ConvDimensionNumbers {
        input_batch_dimension: lhs.0,
        input_feature_dimension: lhs.1,
        input_spatial_dimensions: lhs.2.clone(),
        kernel_output_feature_dimension: rhs.0,
        kernel_input_feature_dimension: rhs.1,
        kernel_spatial_dimensions: rhs.2.clone(),
        output_batch_dimension: out.0,
        output_feature_dimension: out.1,
        output_spatial_dimensions: out.2.clone(),
    }
}

fn swap01(s: &(i64, i64, Vec<i64>)) -> (i64, i64, Vec<i64>) {
    (s.1, s.0, s.2.clone())
}

fn take(dims: &[i64], idx: &[i64]) -> Vec<i64> {
    idx.iter()
        .map(|&i| dims.get(i as usize).copied().unwrap_or(0))
        .collect()
}

/// The per-dimension pieces both transposes need.
struct Geometry {
    lhs_dilated: Vec<i64>,
    rhs_dilated: Vec<i64>,
    out_dilated: Vec<i64>,
    pads_lo: Vec<i64>,
}

fn geometry(cx: &Cx<'_>, c: &ConvConfig, sp: &Specs) -> Geometry {
    let (ls, rs, os) = (
        take(cx.s(0).dims(), &sp.lhs.2),
        take(cx.s(1).dims(), &sp.rhs.2),
        take(cx.shape.dims(), &sp.out.2),
    );
    let w = &c.window.dims;
    Geometry {
        lhs_dilated: ls
            .iter()
            .zip(w)
            .map(|(&d, wd)| dilate(d, wd.base_dilation))
            .collect(),
        rhs_dilated: rs
            .iter()
            .zip(w)
            .map(|(&d, wd)| dilate(d, wd.window_dilation))
            .collect(),
        out_dilated: os
            .iter()
            .zip(w)
            .map(|(&d, wd)| dilate(d, wd.stride))
            .collect(),
        pads_lo: w.iter().map(|wd| wd.padding_low).collect(),
    }
}

/// `convolution`: the input gradient is a convolution of the cotangent with the reversed
/// kernel (feature dims swapped, `lhs_dilation` for the forward strides); the kernel
/// gradient a convolution of the input with the cotangent.
pub(super) fn convolution(cx: &Cx<'_>, c: &ConvConfig, g: &XlaOp) -> Result<Cts, AutodiffError> {
    if c.window.dims.iter().any(|d| d.window_reversal) {
        return reversed_window(cx, c, g);
    }
    if c.feature_group_count > 1 && c.batch_group_count > 1 {
        return Err(cx.nd("feature_group_count and batch_group_count both > 1"));
    }
    let sp = specs(&c.dnums);
    let geo = geometry(cx, c, &sp);
    let as_operand = |v: XlaOp, i: usize| {
        let ty = cx.s(i).element_type();
        Ct::Array(if cx.shape.element_type() == ty {
            v
        } else {
            cx.b.convert_element_type(v, ty)
        })
    };
    let dx = if cx.wants(0) {
        Some(as_operand(conv_lhs(cx, c, &sp, &geo, &g_as(cx, g, 1))?, 0))
    } else {
        None
    };
    let dw = if cx.wants(1) {
        Some(as_operand(conv_rhs(cx, c, &sp, &geo, &g_as(cx, g, 0))?, 1))
    } else {
        None
    };
    Ok(vec![dx, dw])
}

/// A convolution with window reversal is one with the kernel's reversed spatial dims:
/// differentiate that, then reverse the kernel's cotangent back.
fn reversed_window(cx: &Cx<'_>, c: &ConvConfig, g: &XlaOp) -> Result<Cts, AutodiffError> {
    let dims: Vec<i64> = c
        .window
        .dims
        .iter()
        .zip(&c.dnums.kernel_spatial_dimensions)
        .filter(|(w, _)| w.window_reversal)
        .map(|(_, &d)| d)
        .collect();
    let mut plain = c.clone();
    plain
        .window
        .dims
        .iter_mut()
        .for_each(|d| d.window_reversal = false);
    let args = [cx.x(0), cx.b.rev(cx.x(1), &dims)];
    let inner = Cx { args: &args, ..*cx };
    let mut cts = convolution(&inner, &plain, g)?;
    if let Some(Some(Ct::Array(dw))) = cts.get_mut(1) {
        *dw = cx.b.rev(&*dw, &dims);
    }
    Ok(cts)
}

fn conv_lhs(
    cx: &Cx<'_>,
    c: &ConvConfig,
    sp: &Specs,
    geo: &Geometry,
    g: &XlaOp,
) -> Result<XlaOp, AutodiffError> {
    let b = cx.b;
    let mut rhs = cx.x(1);
    let (r0, r1) = (sp.rhs.0 as usize, sp.rhs.1 as usize);
    let groups = c.feature_group_count.max(c.batch_group_count);
    if groups > 1 {
        rhs = reshape_axis_out_of(b, r0, groups, &rhs)?;
        rhs = reshape_axis_into(b, r0, r1, &rhs)?;
    }
    let pads: Vec<(i64, i64)> = (0..geo.pads_lo.len())
        .map(|i| {
            let before = geo.rhs_dilated[i] - geo.pads_lo[i] - 1;
            let after = geo.lhs_dilated[i] + geo.rhs_dilated[i] - 1 - geo.out_dilated[i] - before;
            (before, after)
        })
        .collect();
    let w = &c.window.dims;
    let options = ConvOptions {
        window_strides: w.iter().map(|d| d.base_dilation).collect(),
        padding: pads,
        lhs_dilation: w.iter().map(|d| d.stride).collect(),
        rhs_dilation: w.iter().map(|d| d.window_dilation).collect(),
        dimension_numbers: Some(dnums(&sp.out, &swap01(&sp.rhs), &sp.lhs)),
        feature_group_count: groups,
        batch_group_count: 1,
        precision: c.precision.clone(),
    };
    let revd = b.rev(&rhs, &sp.rhs.2);
    let mut out = b.conv_general_dilated(g, revd, &options);
    if c.batch_group_count > 1 {
        let (l0, l1) = (sp.lhs.0 as usize, sp.lhs.1 as usize);
        out = reshape_axis_out_of(b, l1, c.batch_group_count, &out)?;
        out = reshape_axis_into(b, l1, l0, &out)?;
    }
    Ok(out)
}

fn conv_rhs(
    cx: &Cx<'_>,
    c: &ConvConfig,
    sp: &Specs,
    geo: &Geometry,
    g: &XlaOp,
) -> Result<XlaOp, AutodiffError> {
    let (fgc, bgc) = if c.batch_group_count > 1 {
        (c.batch_group_count, 1)
    } else {
        (1, c.feature_group_count)
    };
    let pads: Vec<(i64, i64)> = (0..geo.pads_lo.len())
        .map(|i| {
            let from_lhs = geo.out_dilated[i] - geo.lhs_dilated[i];
            let from_rhs = geo.rhs_dilated[i] - geo.pads_lo[i] - 1;
            (geo.pads_lo[i], from_lhs + from_rhs)
        })
        .collect();
    let w = &c.window.dims;
    let options = ConvOptions {
        window_strides: w.iter().map(|d| d.window_dilation).collect(),
        padding: pads,
        lhs_dilation: w.iter().map(|d| d.base_dilation).collect(),
        rhs_dilation: w.iter().map(|d| d.stride).collect(),
        dimension_numbers: Some(dnums(&swap01(&sp.lhs), &swap01(&sp.out), &swap01(&sp.rhs))),
        feature_group_count: fgc,
        batch_group_count: bgc,
        precision: c.precision.clone(),
    };
    Ok(cx.b.conv_general_dilated(cx.x(0), g, &options))
}
