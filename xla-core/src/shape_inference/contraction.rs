//! Shape rules: contractions — dot (general dimension numbers) and convolution.

use super::validators::*;
use super::window::window_output_dims;
use super::{ContractionRule, ShapeError, ShapeRule};
use crate::attrs::{ConvConfig, DotDims, PrecisionConfig, Window};
use crate::shape::{ArrayShape, Shape};
use crate::types::PrimitiveType;

/// The result element type of a dot / convolution: the operands' common element type, or
/// `preferred` (the instruction's declared type, e.g. `s8 x s8 -> s32`, `bf16 x bf16 -> f32`)
/// unless it narrows an integer, drops an imaginary part or turns numbers into PRED.
///
/// # Errors
/// When the operand types differ or `preferred` is not allowed.
pub fn contraction_type(
    op: &str,
    lhs: &ArrayShape,
    rhs: &ArrayShape,
    preferred: Option<PrimitiveType>,
) -> Result<PrimitiveType, ShapeError> {
    expect_same_type(op, "lhs", lhs, "rhs", rhs)?;
    let base = lhs.ty;
    let Some(p) = preferred else { return Ok(base) };
    let narrows = base.is_integer() && p.is_integer() && p.bit_width() < base.bit_width();
    if !p.is_array_type()
        || narrows
        || (base.is_complex() && !p.is_complex())
        || (p.is_pred() && !base.is_pred())
    {
        let rule = ContractionRule::ResultType {
            ty: p,
            lhs: lhs.clone(),
            rhs: rhs.clone(),
        };
        return Err(ShapeError::rule(op, ShapeRule::Contraction(rule)));
    }
    Ok(p)
}

/// Checks that a precision config has no entry or one per operand (two).
///
/// # Errors
/// When it has another number of entries.
pub fn check_precision(op: &str, config: &PrecisionConfig) -> Result<(), ShapeError> {
    match config.operand_precision.len() {
        0 | 2 => Ok(()),
        found => {
            let rule = ContractionRule::PrecisionCount { found };
            Err(ShapeError::rule(op, ShapeRule::Contraction(rule)))
        }
    }
}

/// Checks one side's batch and contracting dims: in range and unique together.
fn check_side(
    op: &str,
    side: &str,
    a: &ArrayShape,
    batch: &[i64],
    contracting: &[i64],
) -> Result<(), ShapeError> {
    expect_dims_in_range(op, &format!("{side}_batch_dims"), batch, a.dims.len(), a)?;
    expect_dims_in_range(
        op,
        &format!("{side}_contracting_dims"),
        contracting,
        a.dims.len(),
        a,
    )?;
    let all: Vec<i64> = batch.iter().chain(contracting).copied().collect();
    expect_unique_dims(op, &format!("{side} batch and contracting dims"), &all, a)
}

/// Checks that paired dims of lhs and rhs have equal sizes (`kind` = "batch"/"contracting").
fn check_pairs(
    op: &str,
    kind: &str,
    l: &ArrayShape,
    ld: &[i64],
    r: &ArrayShape,
    rd: &[i64],
) -> Result<(), ShapeError> {
    if ld.len() != rd.len() {
        let rule = ShapeRule::ListLengths {
            what_a: format!("lhs_{kind}_dims"),
            a: ld.to_vec(),
            what_b: format!("rhs_{kind}_dims"),
            b: rd.to_vec(),
        };
        return Err(ShapeError::rule(op, rule));
    }
    for (&a, &b) in ld.iter().zip(rd) {
        let ls = dim_size(op, "dimension", a, l)?;
        let rs = dim_size(op, "dimension", b, r)?;
        if ls != rs {
            let rule = ShapeRule::PairedSizes {
                kind: kind.to_string(),
                lhs: l.clone(),
                lhs_dim: a,
                lhs_size: ls,
                rhs: r.clone(),
                rhs_dim: b,
                rhs_size: rs,
            };
            return Err(ShapeError::rule(op, rule));
        }
    }
    Ok(())
}

/// The shape of `dot(lhs, rhs)` with general dimension numbers: batch dims, then the lhs
/// free dims, then the rhs free dims. Batch and contracting dims are in range, unique per
/// side, paired with equal sizes. The element type follows [`contraction_type`].
///
/// # Errors
/// When any of these rules is broken.
pub fn dot(
    lhs: &Shape,
    rhs: &Shape,
    dims: &DotDims,
    preferred: Option<PrimitiveType>,
) -> Result<Shape, ShapeError> {
    let name = "dot";
    let l = expect_array(name, 0, "lhs", lhs)?;
    let r = expect_array(name, 1, "rhs", rhs)?;
    check_side(
        name,
        "lhs",
        l,
        &dims.lhs_batch_dims,
        &dims.lhs_contracting_dims,
    )?;
    check_side(
        name,
        "rhs",
        r,
        &dims.rhs_batch_dims,
        &dims.rhs_contracting_dims,
    )?;
    check_pairs(
        name,
        "contracting",
        l,
        &dims.lhs_contracting_dims,
        r,
        &dims.rhs_contracting_dims,
    )?;
    check_pairs(
        name,
        "batch",
        l,
        &dims.lhs_batch_dims,
        r,
        &dims.rhs_batch_dims,
    )?;
    let ty = contraction_type(name, l, r, preferred)?;
    let mut out = Vec::new();
    let mut dynamic = Vec::new();
    for &b in &dims.lhs_batch_dims {
        let i = dim_index(name, "lhs batch dim", b, l)?;
        out.push(dim_size(name, "lhs batch dim", b, l)?);
        dynamic.push(l.is_dynamic_dim(i));
    }
    for (a, batch, contracting) in [
        (l, &dims.lhs_batch_dims, &dims.lhs_contracting_dims),
        (r, &dims.rhs_batch_dims, &dims.rhs_contracting_dims),
    ] {
        for (i, &size) in a.dims.iter().enumerate() {
            let d = i as i64;
            if !batch.contains(&d) && !contracting.contains(&d) {
                out.push(size);
                dynamic.push(a.is_dynamic_dim(i));
            }
        }
    }
    Ok(array_with_dynamic(ty, out, dynamic))
}

/// Checks that `dims` (batch, feature, spatial...) is a permutation of `0..rank`.
fn check_conv_numbering(
    op: &str,
    what: &str,
    dims: Vec<i64>,
    rank: usize,
) -> Result<(), ShapeError> {
    let shape = format!("a rank-{rank} {what}");
    expect_dims_in_range(
        op,
        &format!("{what} dimension numbers"),
        &dims,
        rank,
        &shape,
    )?;
    expect_unique_dims(op, &format!("{what} dimension numbers"), &dims, &shape)
}

fn size_at(op: &str, a: &ArrayShape, d: i64) -> Result<i64, ShapeError> {
    dim_size(op, "dimension", d, a)
}

/// Checks the group counts against the feature and batch sizes.
fn check_groups(
    op: &str,
    l: &ArrayShape,
    r: &ArrayShape,
    cfg: &ConvConfig,
    sizes: (i64, i64, i64, i64),
) -> Result<(), ShapeError> {
    let (in_batch, in_features, kernel_in, kernel_out) = sizes;
    let (fgc, bgc) = (cfg.feature_group_count, cfg.batch_group_count);
    if fgc <= 0 || bgc <= 0 {
        let rule = ContractionRule::GroupCounts {
            feature_group_count: fgc,
            batch_group_count: bgc,
        };
        return Err(ShapeError::rule(op, ShapeRule::Contraction(rule)));
    }
    if fgc > 1 && bgc > 1 {
        let rule = ContractionRule::BothGroups {
            feature_group_count: fgc,
            batch_group_count: bgc,
        };
        return Err(ShapeError::rule(op, ShapeRule::Contraction(rule)));
    }
    if in_features % fgc != 0 || in_features / fgc != kernel_in {
        let rule = ContractionRule::InputFeatures {
            lhs: l.clone(),
            in_features,
            feature_group_count: fgc,
            rhs: r.clone(),
            kernel_in,
        };
        return Err(ShapeError::rule(op, ShapeRule::Contraction(rule)));
    }
    if kernel_out % fgc != 0 {
        return Err(output_features(
            op,
            r,
            kernel_out,
            ("feature_group_count", fgc),
        ));
    }
    if kernel_out % bgc != 0 {
        return Err(output_features(
            op,
            r,
            kernel_out,
            ("batch_group_count", bgc),
        ));
    }
    if in_batch % bgc != 0 {
        let rule = ContractionRule::BatchGroups {
            lhs: l.clone(),
            in_batch,
            batch_group_count: bgc,
        };
        return Err(ShapeError::rule(op, ShapeRule::Contraction(rule)));
    }
    Ok(())
}

/// The shape of `convolution(lhs, rhs)` like XLA's `InferConvolveShape`: the dimension
/// numbers are permutations of `0..n+2` for input, kernel and output; the window has one
/// dim per spatial dim whose size equals the kernel's spatial size; the output has batch
/// `input_batch / batch_group_count`, features `kernel_output_features`, and per spatial dim
/// the number of window positions over the padded, dilated input.
///
/// # Errors
/// When any of these rules is broken.
pub fn convolution(
    lhs: &Shape,
    rhs: &Shape,
    cfg: &ConvConfig,
    preferred: Option<PrimitiveType>,
) -> Result<Shape, ShapeError> {
    let name = "convolution";
    let l = expect_array(name, 0, "lhs", lhs)?;
    let r = expect_array(name, 1, "rhs", rhs)?;
    let dn = &cfg.dnums;
    let n = dn.input_spatial_dimensions.len();
    if dn.kernel_spatial_dimensions.len() != n
        || dn.output_spatial_dimensions.len() != n
        || cfg.window.dims.len() != n
    {
        let rule = ContractionRule::SpatialCounts {
            input: n,
            kernel: dn.kernel_spatial_dimensions.len(),
            output: dn.output_spatial_dimensions.len(),
            window: cfg.window.dims.len(),
        };
        return Err(ShapeError::rule(name, ShapeRule::Contraction(rule)));
    }
    expect_rank(name, 0, "lhs", l, n + 2)?;
    expect_rank(name, 1, "rhs", r, n + 2)?;
    let with = |a: i64, b: i64, s: &[i64]| {
        [a, b]
            .into_iter()
            .chain(s.iter().copied())
            .collect::<Vec<i64>>()
    };
    check_conv_numbering(
        name,
        "input",
        with(
            dn.input_batch_dimension,
            dn.input_feature_dimension,
            &dn.input_spatial_dimensions,
        ),
        n + 2,
    )?;
    check_conv_numbering(
        name,
        "kernel",
        with(
            dn.kernel_input_feature_dimension,
            dn.kernel_output_feature_dimension,
            &dn.kernel_spatial_dimensions,
        ),
        n + 2,
    )?;
    check_conv_numbering(
        name,
        "output",
        with(
            dn.output_batch_dimension,
            dn.output_feature_dimension,
            &dn.output_spatial_dimensions,
        ),
        n + 2,
    )?;
    let in_batch = size_at(name, l, dn.input_batch_dimension)?;
    let sizes = (
        in_batch,
        size_at(name, l, dn.input_feature_dimension)?,
        size_at(name, r, dn.kernel_input_feature_dimension)?,
        size_at(name, r, dn.kernel_output_feature_dimension)?,
    );
    check_groups(name, l, r, cfg, sizes)?;
    let base = dn
        .input_spatial_dimensions
        .iter()
        .map(|&d| size_at(name, l, d))
        .collect::<Result<Vec<_>, _>>()?;
    let kernel = dn
        .kernel_spatial_dimensions
        .iter()
        .map(|&d| size_at(name, r, d))
        .collect::<Result<Vec<_>, _>>()?;
    check_window_matches_kernel(name, r, &kernel, &cfg.window)?;
    let spatial = window_output_dims(name, &base, &cfg.window)?;
    let ty = contraction_type(name, l, r, preferred)?;
    let mut dims = vec![0i64; n + 2];
    let out_positions = with(
        dn.output_batch_dimension,
        dn.output_feature_dimension,
        &dn.output_spatial_dimensions,
    );
    let out_sizes = with(in_batch / cfg.batch_group_count, sizes.3, &spatial);
    for (&pos, size) in out_positions.iter().zip(out_sizes) {
        if let Some(slot) = usize::try_from(pos).ok().and_then(|p| dims.get_mut(p)) {
            *slot = size;
        }
    }
    Ok(Shape::array(ty, dims))
}

fn check_window_matches_kernel(
    op: &str,
    r: &ArrayShape,
    kernel: &[i64],
    window: &Window,
) -> Result<(), ShapeError> {
    let sizes: Vec<i64> = window.dims.iter().map(|w| w.size).collect();
    if sizes != kernel {
        let rule = ContractionRule::WindowSizes {
            sizes,
            kernel: kernel.to_vec(),
            rhs: r.clone(),
        };
        return Err(ShapeError::rule(op, ShapeRule::Contraction(rule)));
    }
    Ok(())
}

/// The kernel's output features (`kernel_out` of `r`) are not divisible by the group count.
fn output_features(
    op: &str,
    r: &ArrayShape,
    kernel_out: i64,
    (group, count): (&'static str, i64),
) -> ShapeError {
    let rule = ContractionRule::OutputFeatures {
        rhs: r.clone(),
        kernel_out,
        group,
        count,
    };
    ShapeError::rule(op, ShapeRule::Contraction(rule))
}
