//! Contractions: dot, dot_general (both dimension-number syntaxes) and convolution (pretty
//! `dim_numbers = [b, 0, f]x[0, i, o]->[b, 0, f], window = {...}` and generic).

use super::{attrs, emit, err, result_type, shape_of, LResult};
use crate::attrs::{ConvConfig, DotDims, Window, WindowDim};
use crate::builder::{XlaBuilder, XlaOp};
use crate::ir::Op;
use crate::mlir::ast::{Attr, OpAst};
use crate::mlir::MlirErrorKind;

/// Lowers `op` if it is a contraction.
pub(crate) fn lower(
    b: &XlaBuilder,
    op: &OpAst,
    short: &str,
    ops: &[XlaOp],
) -> LResult<Option<Vec<XlaOp>>> {
    let v = match short {
        "dot" => {
            let lhs = ops
                .first()
                .ok_or_else(|| err(op, MlirErrorKind::Syntax, "dot needs two operands"))?;
            let rank = shape_of(op, lhs)?.as_array().map_or(0, |a| a.dims.len());
            let dims = DotDims {
                lhs_contracting_dims: vec![i64::try_from(rank).unwrap_or(1) - 1],
                rhs_contracting_dims: vec![0],
                ..DotDims::default()
            };
            let precision = attrs::precision(op)?;
            emit(
                b,
                op,
                Op::Dot { dims, precision },
                ops,
                Some(result_type(op, 0)?),
            )?
        }
        "dot_general" => {
            let dims = dot_dims(op)?;
            let precision = attrs::precision(op)?;
            emit(
                b,
                op,
                Op::Dot { dims, precision },
                ops,
                Some(result_type(op, 0)?),
            )?
        }
        "convolution" => convolution(b, op, ops)?,
        _ => return Ok(None),
    };
    Ok(Some(vec![v]))
}

fn pair(op: &OpAst, key: &str) -> LResult<(Vec<i64>, Vec<i64>)> {
    match op.attr(&[key]) {
        None => Ok((Vec::new(), Vec::new())),
        Some(Attr::Pair(l, r)) => {
            let ints = |v: &Vec<Attr>| attrs::as_ints(&Attr::List(v.clone()));
            match (ints(l), ints(r)) {
                (Some(l), Some(r)) => Ok((l, r)),
                _ => Err(err(
                    op,
                    MlirErrorKind::Attribute,
                    format!("{key} must be [..] x [..]"),
                )),
            }
        }
        Some(_) => Err(err(
            op,
            MlirErrorKind::Attribute,
            format!("{key} must be [..] x [..]"),
        )),
    }
}

fn dot_dims(op: &OpAst) -> LResult<DotDims> {
    if op.attr(&["dot_dimension_numbers"]).is_some() {
        let f = attrs::fields(op, &["dot_dimension_numbers"])?;
        return Ok(DotDims {
            lhs_batch_dims: attrs::field_ints(op, f, "lhs_batching_dimensions")?,
            rhs_batch_dims: attrs::field_ints(op, f, "rhs_batching_dimensions")?,
            lhs_contracting_dims: attrs::field_ints(op, f, "lhs_contracting_dimensions")?,
            rhs_contracting_dims: attrs::field_ints(op, f, "rhs_contracting_dimensions")?,
        });
    }
    let (lhs_batch_dims, rhs_batch_dims) = pair(op, "batching_dims")?;
    let (lhs_contracting_dims, rhs_contracting_dims) = pair(op, "contracting_dims")?;
    Ok(DotDims {
        lhs_batch_dims,
        lhs_contracting_dims,
        rhs_batch_dims,
        rhs_contracting_dims,
    })
}

/// A window attribute: the generic name on the op, or the pretty key in `window = {...}`.
fn window_attr<'a>(op: &'a OpAst, generic: &str, pretty: &str) -> Option<&'a Attr> {
    op.attr(&[generic]).or_else(|| match op.attr(&["window"]) {
        Some(Attr::Dict(d, _)) => d.iter().find(|(k, _)| k == pretty).map(|(_, v)| v),
        _ => None,
    })
}

fn window_ints(
    op: &OpAst,
    generic: &str,
    pretty: &str,
    n: usize,
    default: i64,
) -> LResult<Vec<i64>> {
    match window_attr(op, generic, pretty) {
        None => Ok(vec![default; n]),
        Some(a) => attrs::as_ints(a).ok_or_else(|| {
            err(
                op,
                MlirErrorKind::Attribute,
                format!("{generic} must be integers"),
            )
        }),
    }
}

fn convolution(b: &XlaBuilder, op: &OpAst, ops: &[XlaOp]) -> LResult<XlaOp> {
    let dnums = match op.attr(&["dimension_numbers", "dim_numbers"]) {
        Some(Attr::Conv(d)) => (**d).clone(),
        _ => {
            return Err(err(
                op,
                MlirErrorKind::Attribute,
                "convolution needs dimension numbers",
            ))
        }
    };
    let rhs = ops
        .get(1)
        .ok_or_else(|| err(op, MlirErrorKind::Syntax, "convolution needs two operands"))?;
    let kernel = shape_of(op, rhs)?;
    let kdims = kernel
        .as_array()
        .map(|a| a.dims.clone())
        .unwrap_or_default();
    let n = dnums.kernel_spatial_dimensions.len();
    let strides = window_ints(op, "window_strides", "stride", n, 1)?;
    let lhs_dil = window_ints(op, "lhs_dilation", "lhs_dilate", n, 1)?;
    let rhs_dil = window_ints(op, "rhs_dilation", "rhs_dilate", n, 1)?;
    let reversal = window_ints(op, "window_reversal", "reverse", n, 0)?;
    let pads = match window_attr(op, "padding", "pad") {
        None => vec![(0, 0); n],
        Some(a) => {
            let flat = match a {
                Attr::List(rows) => rows
                    .iter()
                    .map(attrs::as_ints)
                    .collect::<Option<Vec<_>>>()
                    .map(|v| v.concat()),
                a => attrs::as_ints(a),
            };
            let flat = flat.filter(|f| f.len() == 2 * n).ok_or_else(|| {
                err(
                    op,
                    MlirErrorKind::Attribute,
                    format!("padding must be {n} pairs"),
                )
            })?;
            flat.chunks(2)
                .map(|c| {
                    (
                        c.first().copied().unwrap_or(0),
                        c.get(1).copied().unwrap_or(0),
                    )
                })
                .collect()
        }
    };
    let lens_ok = [
        strides.len(),
        lhs_dil.len(),
        rhs_dil.len(),
        reversal.len(),
        pads.len(),
    ]
    .iter()
    .all(|&l| l == n);
    if !lens_ok {
        return Err(err(
            op,
            MlirErrorKind::Attribute,
            format!("convolution window attributes must have {n} entries"),
        ));
    }
    let mut dims = Vec::with_capacity(n);
    for i in 0..n {
        let kd = dnums.kernel_spatial_dimensions.get(i).copied().unwrap_or(0);
        let size = usize::try_from(kd)
            .ok()
            .and_then(|k| kdims.get(k))
            .copied()
            .unwrap_or(1);
        let (lo, hi) = pads.get(i).copied().unwrap_or((0, 0));
        dims.push(WindowDim {
            size,
            stride: strides.get(i).copied().unwrap_or(1),
            padding_low: lo,
            padding_high: hi,
            window_dilation: rhs_dil.get(i).copied().unwrap_or(1),
            base_dilation: lhs_dil.get(i).copied().unwrap_or(1),
            window_reversal: reversal.get(i).copied().unwrap_or(0) != 0,
        });
    }
    let cfg = ConvConfig {
        window: Window { dims },
        dnums,
        feature_group_count: attrs::int_or(op, &["feature_group_count"], 1)?,
        batch_group_count: attrs::int_or(op, &["batch_group_count"], 1)?,
        precision: attrs::precision(op)?,
    };
    emit(b, op, Op::Convolution(cfg), ops, Some(result_type(op, 0)?))
}
