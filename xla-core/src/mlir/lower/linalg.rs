//! Sorting, linear algebra, transforms, normalisation and random numbers: sort, top_k,
//! cholesky, triangular_solve, fft, batch_norm_*, rng, rng_bit_generator.

use super::{attrs, check, declared, emit, err, Env, LResult, Lowerer};
use crate::attrs::{FftType, RngAlgorithm, RngDistribution, Transpose, TriangularSolveOptions};
use crate::builder::{XlaBuilder, XlaOp};
use crate::ir::Op;
use crate::mlir::ast::{Attr, OpAst};
use crate::mlir::MlirErrorKind;

fn elems(b: &XlaBuilder, op: &OpAst, v: XlaOp, n: usize) -> LResult<Vec<XlaOp>> {
    if n == 1 {
        return Ok(vec![v]);
    }
    (0..n)
        .map(|i| {
            check(
                b,
                op,
                b.get_tuple_element(&v, i64::try_from(i).unwrap_or(0)),
            )
        })
        .collect()
}

fn epsilon(op: &OpAst) -> LResult<f32> {
    match op.attr(&["epsilon"]) {
        Some(Attr::Float(f)) => Ok(*f as f32),
        Some(Attr::Int(i)) => Ok(*i as f32),
        _ => Err(err(
            op,
            MlirErrorKind::Attribute,
            format!("{} needs a float epsilon", op.name),
        )),
    }
}

fn keyword(op: &OpAst, names: &[&str]) -> LResult<String> {
    attrs::word(op, names)?.ok_or_else(|| {
        err(
            op,
            MlirErrorKind::Attribute,
            format!(
                "{} needs '{}'",
                op.name,
                names.first().copied().unwrap_or("?")
            ),
        )
    })
}

/// Lowers `op` if it is in this family.
pub(crate) fn lower(
    lw: &Lowerer<'_>,
    b: &XlaBuilder,
    op: &OpAst,
    short: &str,
    ops: &[XlaOp],
    _env: &Env,
) -> LResult<Option<Vec<XlaOp>>> {
    let n = op.result_count();
    let v = match short {
        "sort" => {
            let region = op
                .regions
                .first()
                .ok_or_else(|| err(op, MlirErrorKind::Syntax, "sort needs a comparator region"))?;
            let cmp = lw.region_comp(b, op, region, "comparator")?;
            let mut dimension = attrs::int_or(op, &["dimension"], -1)?;
            if dimension < 0 {
                let rank = ops
                    .first()
                    .map(|o| super::shape_of(op, o))
                    .transpose()?
                    .and_then(|s| s.as_array().map(|a| a.dims.len()))
                    .unwrap_or(0);
                dimension += i64::try_from(rank).unwrap_or(0);
            }
            let is_stable = attrs::flag(op, &["is_stable"], false)?;
            emit(
                b,
                op,
                Op::Sort {
                    dimension,
                    is_stable,
                    to_apply: cmp.id(),
                },
                ops,
                None,
            )?
        }
        "topk" | "top_k" => {
            let k = attrs::int(op, &["k"])?;
            let largest = attrs::flag(op, &["largest"], true)?;
            emit(b, op, Op::TopK { k, largest }, ops, None)?
        }
        "cholesky" => emit(
            b,
            op,
            Op::Cholesky {
                lower: attrs::flag(op, &["lower"], false)?,
            },
            ops,
            None,
        )?,
        "triangular_solve" => {
            let t = keyword(op, &["transpose_a"])?;
            let transpose_a = Transpose::from_name(&t).ok_or_else(|| {
                err(
                    op,
                    MlirErrorKind::Attribute,
                    format!("unknown transpose_a '{t}'"),
                )
            })?;
            let opts = TriangularSolveOptions {
                left_side: attrs::flag(op, &["left_side"], false)?,
                lower: attrs::flag(op, &["lower"], false)?,
                unit_diagonal: attrs::flag(op, &["unit_diagonal"], false)?,
                transpose_a,
            };
            emit(b, op, Op::TriangularSolve(opts), ops, None)?
        }
        "fft" => {
            let t = keyword(op, &["fft_type", "type"])?;
            let fft_type = FftType::from_name(&t).ok_or_else(|| {
                err(
                    op,
                    MlirErrorKind::Attribute,
                    format!("unknown fft type '{t}'"),
                )
            })?;
            let fft_length = attrs::ints(op, &["fft_length", "length"])?;
            emit(
                b,
                op,
                Op::Fft {
                    fft_type,
                    fft_length,
                },
                ops,
                None,
            )?
        }
        "batch_norm_training" | "batch_norm_inference" | "batch_norm_grad" => {
            let (epsilon, feature_index) = (epsilon(op)?, attrs::int(op, &["feature_index"])?);
            let hlo = match short {
                "batch_norm_training" => Op::BatchNormTraining {
                    epsilon,
                    feature_index,
                },
                "batch_norm_inference" => Op::BatchNormInference {
                    epsilon,
                    feature_index,
                },
                _ => Op::BatchNormGrad {
                    epsilon,
                    feature_index,
                },
            };
            emit(b, op, hlo, ops, None)?
        }
        "rng" => {
            let d = keyword(op, &["rng_distribution", "distribution"])?;
            let distribution = match d.as_str() {
                "UNIFORM" => RngDistribution::Uniform,
                "NORMAL" => RngDistribution::Normal,
                _ => {
                    return Err(err(
                        op,
                        MlirErrorKind::Attribute,
                        format!("unknown rng distribution '{d}'"),
                    ))
                }
            };
            let ab = ops.get(..2).unwrap_or(ops);
            emit(b, op, Op::Rng { distribution }, ab, Some(declared(op)?))?
        }
        "rng_bit_generator" => {
            let a = keyword(op, &["rng_algorithm", "algorithm"])?;
            let algorithm = match a.as_str() {
                "DEFAULT" => RngAlgorithm::Default,
                "THREE_FRY" => RngAlgorithm::ThreeFry,
                "PHILOX" => RngAlgorithm::Philox,
                _ => {
                    return Err(err(
                        op,
                        MlirErrorKind::Attribute,
                        format!("unknown rng algorithm '{a}'"),
                    ))
                }
            };
            emit(
                b,
                op,
                Op::RngBitGenerator { algorithm },
                ops,
                Some(declared(op)?),
            )?
        }
        _ => return Ok(None),
    };
    Ok(Some(elems(b, op, v, n)?))
}
