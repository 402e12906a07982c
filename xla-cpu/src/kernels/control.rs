//! Control flow: map, conditional (`while` runs computations in the executor's modes and
//! lives in `while_loop.rs`).

use super::host::Host;
use super::structural::vector;
use crate::error::{internal, operand_count, operand_shapes, result_shape, Result};
use crate::index::{data, dims_of, make, scalar_at, scalar_i64, set_scalar};
use xla_core::ir::CompId;
use xla_core::literal::ArrayData;
use xla_core::{Literal, Shape};

/// `map`: applies `f` to the elements at each index of the operands.
///
/// # Errors
/// If the operands differ in length or `f` fails.
pub fn map(cx: &dyn Host, xs: &[&Literal], f: CompId, out: &Shape) -> Result<Literal> {
    let n: usize = dims_of(out)?.iter().product();
    let ds = xs.iter().map(|x| data(x)).collect::<Result<Vec<_>>>()?;
    if ds.iter().any(|d| d.len() != n) {
        return Err(operand_shapes(
            "map",
            xs.iter().map(|x| x.shape()).chain([out]),
            "must all have the result's element count",
        ));
    }
    if cx.vectorizable(f) {
        let args = ds
            .iter()
            .map(|d| vector((*d).clone()))
            .collect::<Result<_>>()?;
        let r = cx.call_vec(f, args, n)?;
        return make(out, crate::index::data(&r)?.clone());
    }
    let mut o = ArrayData::zeros(out.element_type(), n)
        .ok_or_else(|| result_shape("map", "an array", out))?;
    for i in 0..n {
        let args = ds.iter().map(|d| scalar_at(d, i)).collect::<Result<_>>()?;
        let r = cx.call(f, args)?;
        set_scalar(&mut o, i, &r)?;
    }
    make(out, o)
}

/// `conditional`: a PRED selector picks branch 0 (true) or 1 (false); an integer selector
/// picks its branch, any out-of-range value (negative too) the last one.
///
/// # Errors
/// If the selector is not PRED or an integer scalar, or the branch fails.
pub fn conditional(cx: &dyn Host, a: &[&Literal], branches: &[CompId]) -> Result<Literal> {
    let sel = a
        .first()
        .ok_or_else(|| operand_count("conditional", "a selector and one operand per branch", 0))?;
    let last = branches
        .len()
        .checked_sub(1)
        .ok_or_else(|| internal("a conditional has branches (verified)"))?;
    let b = if let Some([p]) = sel.data::<bool>() {
        if *p {
            0
        } else {
            1
        }
    } else {
        let i = scalar_i64(sel)?;
        usize::try_from(i)
            .ok()
            .filter(|&i| i < last)
            .unwrap_or(last)
    };
    let branch = *branches
        .get(b)
        .ok_or_else(|| internal("the branch picked is at most the last"))?;
    let operand = a.get(b + 1).ok_or_else(|| {
        operand_count(
            "conditional",
            "a selector and one operand per branch",
            a.len(),
        )
    })?;
    cx.call(branch, vec![(*operand).clone()])
}
