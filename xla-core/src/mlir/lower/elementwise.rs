//! Elementwise ops: unary and binary arithmetic, compare, select, clamp, convert,
//! bitcast_convert, reduce_precision.

use super::{attrs, emit, err, result_type, LResult};
use crate::attrs::{BinaryOp, ComparisonDirection, ComparisonType, UnaryOp};
use crate::builder::{XlaBuilder, XlaOp};
use crate::ir::Op;
use crate::mlir::ast::OpAst;
use crate::mlir::MlirErrorKind;

/// The HLO unary op a StableHLO name stands for (`log_plus_one` is `log-plus-one`).
pub(crate) fn unary_named(short: &str) -> Option<UnaryOp> {
    UnaryOp::ALL
        .iter()
        .copied()
        .find(|u| u.name().replace('-', "_") == short)
}

fn binary_named(short: &str) -> Option<BinaryOp> {
    BinaryOp::ALL
        .iter()
        .copied()
        .find(|u| u.name().replace('-', "_") == short)
}

/// Lowers `op` if it is elementwise.
pub(crate) fn lower(
    b: &XlaBuilder,
    op: &OpAst,
    short: &str,
    ops: &[XlaOp],
) -> LResult<Option<Vec<XlaOp>>> {
    if let Some(u) = unary_named(short) {
        return Ok(Some(vec![emit(b, op, Op::Unary(u), ops, None)?]));
    }
    if let Some(bin) = binary_named(short) {
        return Ok(Some(vec![emit(b, op, Op::Binary(bin), ops, None)?]));
    }
    let v = match short {
        "compare" => compare(b, op, ops)?,
        "select" => emit(b, op, Op::Select, ops, None)?,
        "clamp" => emit(b, op, Op::Clamp, ops, None)?,
        "convert" => emit(b, op, Op::Convert, ops, Some(result_type(op, 0)?))?,
        "bitcast_convert" => emit(b, op, Op::BitcastConvert, ops, Some(result_type(op, 0)?))?,
        "reduce_precision" => reduce_precision(b, op, ops)?,
        _ => return Ok(None),
    };
    Ok(Some(vec![v]))
}

fn compare(b: &XlaBuilder, op: &OpAst, ops: &[XlaOp]) -> LResult<XlaOp> {
    let mut words = op.words.iter();
    let dir = attrs::word(op, &["comparison_direction"])?.or_else(|| words.next().cloned());
    let ty = attrs::word(op, &["compare_type"])?.or_else(|| words.next().cloned());
    let dir = dir.ok_or_else(|| {
        err(
            op,
            MlirErrorKind::Attribute,
            "compare needs a comparison direction",
        )
    })?;
    let direction = ComparisonDirection::from_name(&dir).ok_or_else(|| {
        err(
            op,
            MlirErrorKind::Attribute,
            format!("unknown comparison direction '{dir}'"),
        )
    })?;
    let comparison_type = match ty.as_deref() {
        None | Some("NOTYPE") => None,
        Some(t) => Some(ComparisonType::from_name(t).ok_or_else(|| {
            err(
                op,
                MlirErrorKind::Attribute,
                format!("unknown comparison type '{t}'"),
            )
        })?),
    };
    emit(
        b,
        op,
        Op::Compare {
            direction,
            comparison_type,
        },
        ops,
        None,
    )
}

fn reduce_precision(b: &XlaBuilder, op: &OpAst, ops: &[XlaOp]) -> LResult<XlaOp> {
    let (exponent_bits, mantissa_bits) = match attrs::word(op, &["format"])? {
        Some(f) => parse_format(&f).ok_or_else(|| {
            err(
                op,
                MlirErrorKind::Attribute,
                format!("bad format '{f}' (expected eNmM)"),
            )
        })?,
        None => (
            attrs::int(op, &["exponent_bits"])?,
            attrs::int(op, &["mantissa_bits"])?,
        ),
    };
    emit(
        b,
        op,
        Op::ReducePrecision {
            exponent_bits,
            mantissa_bits,
        },
        ops,
        None,
    )
}

/// `e5m10` as (5, 10).
fn parse_format(f: &str) -> Option<(i64, i64)> {
    let (e, m) = f.strip_prefix('e')?.split_once('m')?;
    Some((e.parse().ok()?, m.parse().ok()?))
}
