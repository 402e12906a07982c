//! `add(c, dot(a, b))` as one product accumulated into `c`'s buffer: the custom-call
//! [`TARGET`] on `(a, b, c)` that `rewrite::dot_add` puts in place of such an add.
//!
//! A gradient accumulated over the steps of a scan (`dW = dW + xᵀ·δ`, every weight of a
//! recurrent cell, every step) is a product the size of the weight followed by an add
//! that reads it and the accumulator and writes a third buffer. Accumulated in place, the
//! product's last step reads and writes the accumulator once and the add's pass over three
//! weight-sized buffers is gone (a GRU step's `f32[256,256]` weight gradients: a 23 µs
//! product plus a 10-13 µs add, per weight and step). XLA's GPU backend does the same
//! (`GemmRewriter` folds such an add into the GEMM's `beta = 1`).
//!
//! The values are those of the separate dot and add, bit for bit: faer sums each element
//! of a product over `k` in registers and, for a contraction of 2 to 512 (one block of
//! `k`, `private-gemm-x86`'s `kc`), adds the sum to the destination once (`Accum::Add`)
//! where it otherwise stores it (`Accum::Replace`); the small-product loops and the
//! matrix-vector path do the same (`matmul::gemm_acc`). A contraction of one element is
//! different: faer folds the destination into the single multiply (one rounding where the
//! separate ops round twice). The rewrite therefore fuses only contractions of [`MIN_K`]
//! to [`MAX_K`] (`tests/dot_add.rs` checks sizes across that range on random shapes, with
//! NaN, ±inf and ±0, and that a one-element contraction is left alone).

use crate::error::{attribute, Result};
use crate::kernels::contraction;
use crate::kernels::dot_perm::{decode_dims, encode_dims};
use crate::parallel::Parallel;
use xla_core::attrs::{CustomCallConfig, DotDims};
use xla_core::{Literal, Shape};

/// The custom-call's target name.
pub(crate) const TARGET: &str = "__xla_rs$dot_add";

/// The smallest and largest contracted sizes the rewrite fuses (see the module comment).
pub(crate) const MIN_K: usize = 2;
pub(crate) const MAX_K: usize = 256;

/// What the custom-call computes: `c + dot(a, b)` (`dot_first`: the add read the product
/// as its first operand, `dot(a, b) + c`).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct DotAdd {
    pub(crate) dims: DotDims,
    pub(crate) dot_first: bool,
}

impl DotAdd {
    /// The custom-call configuration that names this product.
    pub(crate) fn config(&self) -> CustomCallConfig {
        CustomCallConfig {
            target: TARGET.to_string(),
            backend_config: encode_dims(&self.dims, "dot_first", &[i64::from(self.dot_first)]),
            has_side_effect: false,
            api_version: String::new(),
        }
    }

    /// The product a custom-call configuration names (`None`: another target, or not
    /// readable).
    pub(crate) fn of(config: &CustomCallConfig) -> Option<DotAdd> {
        if config.target != TARGET {
            return None;
        }
        let (dims, side) = decode_dims(&config.backend_config)?;
        let dot_first = match side.as_slice() {
            [0] => false,
            [1] => true,
            _ => return None,
        };
        Some(DotAdd { dims, dot_first })
    }
}

/// Runs the custom-call [`TARGET`] on borrowed operands (`None` for any other target): the
/// accumulator is copied first. The executor runs it in place instead when the
/// accumulator dies with it ([`run`]).
pub(crate) fn call(
    target: &str,
    args: &[&Literal],
    config: &str,
    out: &Shape,
    par: Parallel<'_>,
) -> Option<Result<Literal>> {
    if target != TARGET {
        return None;
    }
    Some((|| {
        let [a, b, c] = args else {
            return Err(bad(config, out, "takes three operands"));
        };
        run([a, b], (*c).clone(), config, out, par)
    })())
}

/// `acc + dot(a, b)` in `acc`'s buffer.
///
/// # Errors
/// If the configuration is unreadable, the operands do not fit the product, or `acc` is
/// not of the result's shape.
pub(crate) fn run(
    [a, b]: [&Literal; 2],
    acc: Literal,
    config: &str,
    out: &Shape,
    par: Parallel<'_>,
) -> Result<Literal> {
    let (dims, _) =
        decode_dims(config).ok_or_else(|| bad(config, out, "unreadable configuration"))?;
    if !acc.shape().compatible(out) {
        return Err(bad(
            config,
            out,
            "the accumulator is not of the result's shape",
        ));
    }
    contraction::dot_add(a, b, &dims, acc, par)
}

fn bad(config: &str, out: &Shape, why: &str) -> crate::error::CpuError {
    attribute(
        format!("custom-call {TARGET}"),
        "backend_config",
        config,
        format!("(result {out}): {why}"),
    )
}
