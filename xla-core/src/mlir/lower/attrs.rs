//! Reading attribute values of an op: integers, lists of integers (from `[..]`,
//! `array<i64: ..>` or `dense<..>`), booleans, keywords, struct fields and precision.

use super::{err, LResult};
use crate::attrs::{Precision, PrecisionConfig};
use crate::mlir::ast::{Attr, DenseBody, DenseElem, OpAst};
use crate::mlir::MlirErrorKind;

fn missing(op: &OpAst, names: &[&str]) -> crate::mlir::MlirError {
    let name = names.first().copied().unwrap_or("?");
    err(
        op,
        MlirErrorKind::Attribute,
        format!("{} needs the attribute '{name}'", op.name),
    )
}

fn bad(op: &OpAst, names: &[&str], what: &str) -> crate::mlir::MlirError {
    let name = names.first().copied().unwrap_or("?");
    err(
        op,
        MlirErrorKind::Attribute,
        format!("{}: attribute '{name}' must be {what}", op.name),
    )
}

/// An attribute as a list of integers, if it is one.
pub(crate) fn as_ints(a: &Attr) -> Option<Vec<i64>> {
    match a {
        Attr::Int(i) => Some(vec![i64::try_from(*i).ok()?]),
        Attr::List(v) => v.iter().map(as_int).collect(),
        Attr::Dense(DenseBody::Elems(v), _) => v.iter().map(dense_int).collect(),
        Attr::Dense(DenseBody::Splat(e), ty) => {
            let n = ty
                .as_ref()
                .and_then(|t| t.as_array())
                .map_or(1, |a| a.dims.iter().product::<i64>());
            let v = dense_int(e)?;
            Some(vec![v; usize::try_from(n).ok()?])
        }
        Attr::Unit => Some(Vec::new()),
        _ => None,
    }
}

fn dense_int(e: &DenseElem) -> Option<i64> {
    match e {
        DenseElem::Int(i) => i64::try_from(*i).ok(),
        DenseElem::Bool(b) => Some(i64::from(*b)),
        _ => None,
    }
}

/// An attribute as one integer.
pub(crate) fn as_int(a: &Attr) -> Option<i64> {
    match a {
        Attr::Int(i) => i64::try_from(*i).ok(),
        Attr::Bool(b) => Some(i64::from(*b)),
        Attr::List(v) if v.len() == 1 => v.first().and_then(as_int),
        _ => None,
    }
}

/// The integer list under one of `names`.
pub(crate) fn ints(op: &OpAst, names: &[&str]) -> LResult<Vec<i64>> {
    let a = op.attr(names).ok_or_else(|| missing(op, names))?;
    as_ints(a).ok_or_else(|| bad(op, names, "a list of integers"))
}

/// The integer list under one of `names`, if present.
pub(crate) fn opt_ints(op: &OpAst, names: &[&str]) -> LResult<Option<Vec<i64>>> {
    op.attr(names)
        .map(|a| as_ints(a).ok_or_else(|| bad(op, names, "a list of integers")))
        .transpose()
}

/// The integer under one of `names`.
pub(crate) fn int(op: &OpAst, names: &[&str]) -> LResult<i64> {
    let a = op.attr(names).ok_or_else(|| missing(op, names))?;
    as_int(a).ok_or_else(|| bad(op, names, "an integer"))
}

/// The integer under one of `names`, or `default`.
pub(crate) fn int_or(op: &OpAst, names: &[&str], default: i64) -> LResult<i64> {
    op.attr(names).map_or(Ok(default), |a| {
        as_int(a).ok_or_else(|| bad(op, names, "an integer"))
    })
}

/// The boolean under one of `names`, or `default`.
pub(crate) fn flag(op: &OpAst, names: &[&str], default: bool) -> LResult<bool> {
    match op.attr(names) {
        None => Ok(default),
        Some(Attr::Bool(b)) => Ok(*b),
        Some(Attr::Unit) => Ok(true),
        Some(_) => Err(bad(op, names, "true or false")),
    }
}

/// The keyword (enum value or string) under one of `names`.
pub(crate) fn word(op: &OpAst, names: &[&str]) -> LResult<Option<String>> {
    match op.attr(names) {
        None => Ok(None),
        Some(Attr::Word(w)) => Ok(Some(w.clone())),
        Some(Attr::Str(s)) => Ok(Some(String::from_utf8_lossy(s).into_owned())),
        Some(_) => Err(bad(op, names, "a keyword")),
    }
}

/// Field `key` of a `#stablehlo.x<...>` struct attribute (empty list when absent).
pub(crate) fn field_ints(op: &OpAst, s: &[(String, Attr)], key: &str) -> LResult<Vec<i64>> {
    match s.iter().find(|(k, _)| k == key) {
        None => Ok(Vec::new()),
        Some((_, a)) => as_ints(a).ok_or_else(|| bad(op, &[key], "a list of integers")),
    }
}

/// The struct attribute under one of `names`.
pub(crate) fn fields<'a>(op: &'a OpAst, names: &[&str]) -> LResult<&'a [(String, Attr)]> {
    match op.attr(names) {
        Some(Attr::Struct(_, f)) => Ok(f),
        Some(_) => Err(bad(op, names, "a dimension-numbers attribute")),
        None => Err(missing(op, names)),
    }
}

/// `precision_config` / pretty `precision`, for `n` operands.
pub(crate) fn precision(op: &OpAst) -> LResult<PrecisionConfig> {
    let Some(a) = op.attr(&["precision_config", "precision"]) else {
        return Ok(PrecisionConfig::default());
    };
    let Attr::List(v) = a else {
        return Err(bad(op, &["precision_config"], "a list"));
    };
    let operand_precision = v
        .iter()
        .map(|p| match p {
            Attr::Word(w) => match w.as_str() {
                "DEFAULT" => Ok(Precision::Default),
                "HIGH" => Ok(Precision::High),
                "HIGHEST" => Ok(Precision::Highest),
                _ => Err(bad(op, &["precision_config"], "DEFAULT, HIGH or HIGHEST")),
            },
            _ => Err(bad(op, &["precision_config"], "DEFAULT, HIGH or HIGHEST")),
        })
        .collect::<LResult<Vec<_>>>()?;
    Ok(PrecisionConfig { operand_precision })
}

/// An `N x 2` padding attribute (`dense<[[lo, hi], ...]>` or `[[lo, hi], ...]`) as pairs.
pub(crate) fn pairs(op: &OpAst, names: &[&str], n: usize) -> LResult<Vec<(i64, i64)>> {
    let flat: Vec<i64> = match op.attr(names) {
        None => vec![0; 2 * n],
        Some(Attr::List(rows)) => {
            let mut out = Vec::new();
            for r in rows {
                out.extend(as_ints(r).ok_or_else(|| bad(op, names, "pairs of integers"))?);
            }
            out
        }
        Some(Attr::Dense(DenseBody::Splat(e), _)) => {
            vec![dense_int(e).ok_or_else(|| bad(op, names, "integers"))?; 2 * n]
        }
        Some(a) => as_ints(a).ok_or_else(|| bad(op, names, "pairs of integers"))?,
    };
    if flat.len() != 2 * n {
        return Err(bad(op, names, &format!("{n} pairs")));
    }
    Ok(flat
        .chunks(2)
        .map(|c| {
            (
                c.first().copied().unwrap_or(0),
                c.get(1).copied().unwrap_or(0),
            )
        })
        .collect())
}
