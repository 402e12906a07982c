//! Index arithmetic: row-major strides, multi-index iteration, and access to array literals.

use crate::error::{internal, operand_kind, result_shape, Result};
use xla_core::literal::ArrayData;
use xla_core::{Literal, Shape};

/// The dims of an array shape as `usize`.
///
/// # Errors
/// If the shape is not an array or has a negative dim.
pub(crate) fn dims_of(shape: &Shape) -> Result<Vec<usize>> {
    let a = shape
        .as_array()
        .ok_or_else(|| operand_kind("array access", "an array", shape))?;
    a.dims
        .iter()
        .map(|&d| {
            usize::try_from(d)
                .map_err(|_| operand_kind("array access", "an array of non-negative dims", shape))
        })
        .collect()
}

/// Number of elements of `dims`.
pub(crate) fn count(dims: &[usize]) -> usize {
    dims.iter().product()
}

/// Row-major strides of `dims`.
pub(crate) fn strides(dims: &[usize]) -> Vec<usize> {
    let mut s = vec![1usize; dims.len()];
    for i in (0..dims.len().saturating_sub(1)).rev() {
        s[i] = s[i + 1] * dims[i + 1];
    }
    s
}

/// Linear offset of `idx` under `strides`.
pub(crate) fn offset(idx: &[usize], strides: &[usize]) -> usize {
    idx.iter().zip(strides).map(|(i, s)| i * s).sum()
}

/// Advances a row-major multi-index; returns false after the last index.
pub(crate) fn advance(idx: &mut [usize], dims: &[usize]) -> bool {
    for d in (0..dims.len()).rev() {
        idx[d] += 1;
        if idx[d] < dims[d] {
            return true;
        }
        idx[d] = 0;
    }
    false
}

/// Calls `f` with every multi-index of `dims` in row-major order.
pub(crate) fn for_each_index(dims: &[usize], mut f: impl FnMut(&[usize])) {
    // `f` cannot fail, so neither can the walk.
    let _never_fails = try_for_each_index(dims, |i| {
        f(i);
        Ok(())
    });
}

/// Calls `f` with every multi-index of `dims` in row-major order until it fails.
///
/// # Errors
/// The first error of `f`.
pub(crate) fn try_for_each_index(
    dims: &[usize],
    mut f: impl FnMut(&[usize]) -> Result<()>,
) -> Result<()> {
    if dims.contains(&0) {
        return Ok(());
    }
    let mut idx = vec![0usize; dims.len()];
    loop {
        f(&idx)?;
        if !advance(&mut idx, dims) {
            return Ok(());
        }
    }
}

/// The elements and dims of an array literal.
///
/// # Errors
/// If the literal is a tuple or token.
pub(crate) fn array(l: &Literal) -> Result<(&ArrayData, Vec<usize>)> {
    let data = l
        .array_data()
        .ok_or_else(|| operand_kind("array access", "an array", l.shape()))?;
    Ok((data, dims_of(l.shape())?))
}

/// The elements of an array literal.
///
/// # Errors
/// If the literal is a tuple or token.
pub(crate) fn data(l: &Literal) -> Result<&ArrayData> {
    l.array_data()
        .ok_or_else(|| operand_kind("array access", "an array", l.shape()))
}

/// Builds an array literal of `shape` (layout dropped) from `data`.
///
/// # Errors
/// If the data does not fit the shape.
pub(crate) fn make(shape: &Shape, data: ArrayData) -> Result<Literal> {
    Ok(Literal::from_array_data(shape.without_layout(), data)?)
}

/// Dimension numbers as `usize`, each checked to be below `rank`.
///
/// # Errors
/// If a dimension is negative or not below `rank`.
pub(crate) fn dim_list(v: &[i64], rank: usize, what: &'static str) -> Result<Vec<usize>> {
    v.iter()
        .map(|&d| {
            usize::try_from(d)
                .ok()
                .filter(|&d| d < rank)
                .ok_or_else(|| crate::error::out_of_range(what, "dimension", d, rank))
        })
        .collect()
}

/// The result of an op with one output per operand: an array, or a tuple of arrays when
/// `out` is a tuple shape.
///
/// # Errors
/// If the data do not fit the shapes.
pub(crate) fn results(out: &Shape, mut datas: Vec<ArrayData>) -> Result<Literal> {
    match out.tuple_elements() {
        Some(shapes) if shapes.len() == datas.len() => Ok(Literal::tuple(
            shapes
                .iter()
                .zip(datas)
                .map(|(s, d)| make(s, d))
                .collect::<Result<_>>()?,
        )),
        Some(_) => Err(result_shape(
            "a multi-result op",
            "one element per output",
            out,
        )),
        None => make(
            out,
            datas
                .pop()
                .ok_or_else(|| internal("a kernel returns a result"))?,
        ),
    }
}

/// A scalar index operand as i64 (any integer type).
///
/// # Errors
/// If the operand is not an integer scalar.
pub(crate) fn scalar_i64(l: &Literal) -> Result<i64> {
    let d = data(l)?;
    if d.len() != 1 || !d.element_type().is_integer() {
        return Err(operand_kind("index", "an integer scalar", l.shape()));
    }
    Ok(xla_core::with_array_data!(d, v => v.first().map_or(0, |&x| crate::scalar::index_value(x))))
}

/// A rank-0 literal holding element `i` of `d`.
///
/// # Errors
/// [`CpuError::Internal`] when `i` is out of range (callers index within the operand's
/// element count, checked against its shape).
pub(crate) fn scalar_at(d: &ArrayData, i: usize) -> Result<Literal> {
    xla_core::with_array_data!(d, v => v
        .get(i)
        .map(|x| Literal::scalar(*x))
        .ok_or_else(|| internal("scalar_at: element index within the array")))
}

fn set_k<T: xla_core::literal::NativeData>(v: &mut [T], i: usize, l: &Literal) -> Result<()> {
    let x = l
        .data::<T>()
        .and_then(|s| s.first().copied())
        .ok_or_else(|| operand_kind("scalar", format!("a {} scalar", T::TYPE), l.shape()))?;
    let slot = v
        .get_mut(i)
        .ok_or_else(|| internal("set_scalar: element index within the array"))?;
    *slot = x;
    Ok(())
}

/// Stores the scalar `l` as element `i` of `d` (the types must agree).
pub(crate) fn set_scalar(d: &mut ArrayData, i: usize, l: &Literal) -> Result<()> {
    xla_core::with_array_data!(d, v => set_k(v, i, l))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn strides_and_iteration() {
        assert_eq!(strides(&[2, 3, 4]), vec![12, 4, 1]);
        assert_eq!(strides(&[]), Vec::<usize>::new());
        let mut seen = Vec::new();
        for_each_index(&[2, 2], |i| seen.push(i.to_vec()));
        assert_eq!(seen, vec![vec![0, 0], vec![0, 1], vec![1, 0], vec![1, 1]]);
        let mut n = 0;
        for_each_index(&[], |_| n += 1);
        assert_eq!(n, 1);
        for_each_index(&[3, 0], |_| n += 1);
        assert_eq!(n, 1);
    }
}
