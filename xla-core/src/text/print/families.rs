//! Spellings of the structured attributes: windows, padding, slices, convolution dimension
//! labels, dot / gather / scatter dimension numbers, precision, collectives, custom calls.

use super::{int_list, quoted, Ctx};
use crate::attrs::{
    CollectiveConfig, Composite, ConvConfig, ConvDimensionNumbers, CustomCallConfig, DotDims,
    GatherDims, PadDim, PrecisionConfig, ScatterDims, Window, WindowDim,
};
use crate::ir::CompId;

/// `window={size=2x2 stride=2x1 pad=0_1x-1_0 lhs_dilate=1x2 rhs_dilate=2x1 rhs_reversal=1x0}`
/// with the fields that are default in every dimension left out; nothing for an empty window
/// (XLA omits the attribute then).
pub(super) fn window_attr(w: &Window) -> Vec<String> {
    if w.dims.is_empty() {
        return vec![];
    }
    let d = &w.dims;
    let field = |name: &str, f: &dyn Fn(&WindowDim) -> String, skip: bool| -> Option<String> {
        (!skip).then(|| format!("{name}={}", d.iter().map(f).collect::<Vec<_>>().join("x")))
    };
    let fields = [
        field("size", &|x| x.size.to_string(), false),
        field(
            "stride",
            &|x| x.stride.to_string(),
            d.iter().all(|x| x.stride == 1),
        ),
        field(
            "pad",
            &|x| format!("{}_{}", x.padding_low, x.padding_high),
            d.iter().all(|x| x.padding_low == 0 && x.padding_high == 0),
        ),
        field(
            "lhs_dilate",
            &|x| x.base_dilation.to_string(),
            d.iter().all(|x| x.base_dilation == 1),
        ),
        field(
            "rhs_dilate",
            &|x| x.window_dilation.to_string(),
            d.iter().all(|x| x.window_dilation == 1),
        ),
        field(
            "rhs_reversal",
            &|x| {
                if x.window_reversal {
                    "1".into()
                } else {
                    "0".into()
                }
            },
            d.iter().all(|x| !x.window_reversal),
        ),
    ];
    let parts: Vec<String> = fields.into_iter().flatten().collect();
    vec![format!("window={{{}}}", parts.join(" "))]
}

/// Pad's `lo_hi_interior` per dimension, `x`-separated (`0_1_0x-1_2_1`); when no dimension
/// has interior padding XLA writes only `lo_hi` (`1_1x0_1`).
pub(super) fn padding(p: &[PadDim]) -> String {
    let interior = p.iter().any(|d| d.interior != 0);
    let dim = |d: &PadDim| {
        if interior {
            format!("{}_{}_{}", d.low, d.high, d.interior)
        } else {
            format!("{}_{}", d.low, d.high)
        }
    };
    p.iter().map(dim).collect::<Vec<_>>().join("x")
}

/// `slice={[0:4], [1:3]}`; when any stride is not 1 XLA writes every stride:
/// `slice={[0:4:2], [1:3:1]}`.
pub(super) fn slice_attr(start: &[i64], limit: &[i64], stride: &[i64]) -> String {
    let n = start.len().max(limit.len()).max(stride.len());
    let strided = stride.iter().any(|&s| s != 1);
    let dims: Vec<String> = (0..n)
        .map(|i| {
            let g = |v: &[i64], default: i64| v.get(i).copied().unwrap_or(default);
            if strided {
                format!("[{}:{}:{}]", g(start, 0), g(limit, 0), g(stride, 1))
            } else {
                format!("[{}:{}]", g(start, 0), g(limit, 0))
            }
        })
        .collect();
    format!("slice={{{}}}", dims.join(", "))
}

/// `operand_precision={highest,default}` when any precision was given.
pub(super) fn precision(p: &PrecisionConfig) -> Vec<String> {
    if p.operand_precision.is_empty() {
        return vec![];
    }
    let names: Vec<&str> = p.operand_precision.iter().map(|x| x.name()).collect();
    vec![format!("operand_precision={{{}}}", names.join(","))]
}

/// `lhs_batch_dims` and `rhs_batch_dims` when not empty; contracting dims always.
pub(super) fn dot_attrs(d: &DotDims) -> Vec<String> {
    let mut a = Vec::new();
    if !d.lhs_batch_dims.is_empty() {
        a.push(format!("lhs_batch_dims={}", int_list(&d.lhs_batch_dims)));
    }
    a.push(format!(
        "lhs_contracting_dims={}",
        int_list(&d.lhs_contracting_dims)
    ));
    if !d.rhs_batch_dims.is_empty() {
        a.push(format!("rhs_batch_dims={}", int_list(&d.rhs_batch_dims)));
    }
    a.push(format!(
        "rhs_contracting_dims={}",
        int_list(&d.rhs_contracting_dims)
    ));
    a
}

/// `name={...}` when the list is not empty.
fn non_empty_list(name: &str, v: &[i64]) -> Option<String> {
    (!v.is_empty()).then(|| format!("{name}={}", int_list(v)))
}

/// Gather's dimension numbers (batching dims only when present), slice sizes, sortedness.
pub(super) fn gather_attrs(g: &GatherDims) -> Vec<String> {
    let mut a = vec![
        format!("offset_dims={}", int_list(&g.offset_dims)),
        format!("collapsed_slice_dims={}", int_list(&g.collapsed_slice_dims)),
        format!("start_index_map={}", int_list(&g.start_index_map)),
    ];
    a.extend(non_empty_list(
        "operand_batching_dims",
        &g.operand_batching_dims,
    ));
    a.extend(non_empty_list(
        "start_indices_batching_dims",
        &g.start_indices_batching_dims,
    ));
    a.push(format!("index_vector_dim={}", g.index_vector_dim));
    a.push(format!("slice_sizes={}", int_list(&g.slice_sizes)));
    if g.indices_are_sorted {
        a.push("indices_are_sorted=true".into());
    }
    a
}

/// Scatter's dimension numbers (batching dims only when present) and promises.
pub(super) fn scatter_dims_attrs(s: &ScatterDims) -> Vec<String> {
    let mut a = vec![
        format!("update_window_dims={}", int_list(&s.update_window_dims)),
        format!("inserted_window_dims={}", int_list(&s.inserted_window_dims)),
        format!(
            "scatter_dims_to_operand_dims={}",
            int_list(&s.scatter_dims_to_operand_dims)
        ),
    ];
    a.extend(non_empty_list(
        "input_batching_dims",
        &s.input_batching_dims,
    ));
    a.extend(non_empty_list(
        "scatter_indices_batching_dims",
        &s.scatter_indices_batching_dims,
    ));
    a.push(format!("index_vector_dim={}", s.index_vector_dim));
    if s.indices_are_sorted {
        a.push("indices_are_sorted=true".into());
    }
    if s.unique_indices {
        a.push("unique_indices=true".into());
    }
    a
}

/// Convolution: window, `dim_labels`, group counts when not 1, precision when given.
pub(super) fn conv_attrs(c: &ConvConfig) -> Vec<String> {
    let mut a = window_attr(&c.window);
    a.push(format!("dim_labels={}", dim_labels(&c.dnums)));
    if c.feature_group_count != 1 {
        a.push(format!("feature_group_count={}", c.feature_group_count));
    }
    if c.batch_group_count != 1 {
        a.push(format!("batch_group_count={}", c.batch_group_count));
    }
    a.extend(precision(&c.precision));
    a
}

/// `b01f_01io->b01f`: for each operand, one letter per dimension (`b`/`f`, `i`/`o`, spatial
/// dimension numbers), as XLA's `ConvolutionDimensionNumbersToString` writes them.
pub fn dim_labels(d: &ConvDimensionNumbers) -> String {
    let spatial = |dims: &[i64]| -> Vec<(i64, String)> {
        dims.iter()
            .enumerate()
            .map(|(i, &dim)| (dim, i.to_string()))
            .collect()
    };
    let labels = |fixed: [(i64, &str); 2], dims: &[i64]| -> String {
        let mut entries: Vec<(i64, String)> =
            fixed.iter().map(|&(dim, l)| (dim, l.to_string())).collect();
        entries.extend(spatial(dims));
        let rank = entries.len().max(
            entries
                .iter()
                .map(|(d, _)| (*d).max(-1) + 1)
                .max()
                .unwrap_or(0) as usize,
        );
        let mut out = vec!["?".to_string(); rank];
        for (dim, label) in entries {
            if let Some(slot) = usize::try_from(dim).ok().and_then(|i| out.get_mut(i)) {
                *slot = label;
            }
        }
        out.concat()
    };
    format!(
        "{}_{}->{}",
        labels(
            [
                (d.input_batch_dimension, "b"),
                (d.input_feature_dimension, "f")
            ],
            &d.input_spatial_dimensions
        ),
        labels(
            [
                (d.kernel_input_feature_dimension, "i"),
                (d.kernel_output_feature_dimension, "o")
            ],
            &d.kernel_spatial_dimensions
        ),
        labels(
            [
                (d.output_batch_dimension, "b"),
                (d.output_feature_dimension, "f")
            ],
            &d.output_spatial_dimensions
        ),
    )
}

/// `{{0,1},{2,3}}`.
fn replica_groups(groups: &[Vec<i64>]) -> String {
    let inner: Vec<String> = groups.iter().map(|g| int_list(g)).collect();
    format!("{{{}}}", inner.join(","))
}

/// Collective attributes in XLA's order: `channel_id`, `replica_groups`, `constrain_layout`,
/// then `dimensions` (before `use_global_device_ids`, except for reduce-scatter, after it).
pub(super) fn collective_attrs(
    c: &CollectiveConfig,
    dimension: Option<i64>,
    dimension_last: bool,
) -> Vec<String> {
    let mut a = Vec::new();
    if let Some(ch) = c.channel_id {
        a.push(format!("channel_id={ch}"));
    }
    a.push(format!(
        "replica_groups={}",
        replica_groups(&c.replica_groups.groups)
    ));
    if c.constrain_layout {
        a.push("constrain_layout=true".into());
    }
    let dims = dimension.map(|d| format!("dimensions={{{d}}}"));
    if !dimension_last {
        a.extend(dims.clone());
    }
    if c.use_global_device_ids {
        a.push("use_global_device_ids=true".into());
    }
    if dimension_last {
        a.extend(dims);
    }
    a
}

/// `is_composite=true, frontend_attributes={composite.attributes=...,composite.name="...",
/// composite.version="N"}`.
pub(super) fn composite_attrs(c: &Composite) -> Vec<String> {
    let mut fa = Vec::new();
    if !c.attributes.is_empty() {
        fa.push(format!("composite.attributes={}", c.attributes));
    }
    fa.push(format!("composite.name={}", quoted(&c.name)));
    fa.push(format!(
        "composite.version={}",
        quoted(&c.version.to_string())
    ));
    vec![
        "is_composite=true".into(),
        format!("frontend_attributes={{{}}}", fa.join(",")),
    ]
}

/// `custom_call_target="..."`, called computations, side effect, API version, backend config.
pub(super) fn custom_call_attrs(
    ctx: &Ctx<'_>,
    c: &CustomCallConfig,
    called: &[CompId],
) -> Vec<String> {
    let mut a = vec![format!("custom_call_target={}", quoted(&c.target))];
    if !called.is_empty() {
        a.push(format!("called_computations={}", ctx.comp_list(called)));
    }
    if c.has_side_effect {
        a.push("custom_call_has_side_effect=true".into());
    }
    if !c.api_version.is_empty() {
        a.push(format!("api_version={}", c.api_version));
    }
    if !c.backend_config.is_empty() {
        a.push(format!("backend_config={}", quoted(&c.backend_config)));
    }
    a
}
