//! Shape rules: indexing ops — gather and scatter (with batching dims), sort and top-k.

use super::validators::*;
use super::window::check_reducer;
use super::{CalleeRule, GatherRule, OperandsRule, ProgramShape, ShapeError, ShapeRule, SliceRule};
use crate::attrs::{GatherDims, ScatterDims};
use crate::shape::{ArrayShape, Shape};
use crate::types::PrimitiveType;

/// The start-indices dims with an implicit trailing 1 when `index_vector_dim == rank`.
fn expanded_indices(
    name: &str,
    index: usize,
    indices: &ArrayShape,
    index_vector_dim: i64,
) -> Result<(Vec<i64>, usize), ShapeError> {
    expect_type(name, index, "indices", indices, is_integer, "an integer")?;
    let rank = indices.dims.len();
    let ivd = usize::try_from(index_vector_dim)
        .ok()
        .filter(|&v| v <= rank)
        .ok_or_else(|| {
            let rule = GatherRule::IndexVectorDim {
                index_vector_dim,
                indices: indices.clone(),
            };
            ShapeError::rule(name, ShapeRule::Gather(rule))
        })?;
    let mut dims = indices.dims.clone();
    if ivd == rank {
        dims.push(1);
    }
    Ok((dims, ivd))
}

/// Checks a batching-dims pair: operand dims sorted, in range; indices dims unique, in range,
/// not the index vector dim; same count; equal sizes.
fn check_batching(
    name: &str,
    operand: &ArrayShape,
    operand_dims: &[i64],
    indices: &ArrayShape,
    indices_dims: &[i64],
    ivd: usize,
    labels: (&str, &str),
) -> Result<(), ShapeError> {
    let (op_label, idx_label) = labels;
    expect_strictly_increasing(name, op_label, operand_dims, operand)?;
    expect_dims_in_range(name, op_label, operand_dims, operand.dims.len(), operand)?;
    expect_unique_dims(name, idx_label, indices_dims, indices)?;
    expect_dims_in_range(name, idx_label, indices_dims, indices.dims.len(), indices)?;
    if indices_dims.contains(&(ivd as i64)) {
        let rule = GatherRule::ContainsIndexVectorDim {
            what: idx_label.to_string(),
            dims: indices_dims.to_vec(),
            index_vector_dim: ivd,
        };
        return Err(ShapeError::rule(name, ShapeRule::Gather(rule)));
    }
    if operand_dims.len() != indices_dims.len() {
        let rule = ShapeRule::ListLengths {
            what_a: op_label.to_string(),
            a: operand_dims.to_vec(),
            what_b: idx_label.to_string(),
            b: indices_dims.to_vec(),
        };
        return Err(ShapeError::rule(name, rule));
    }
    for (&o, &i) in operand_dims.iter().zip(indices_dims) {
        let os = dim_size(name, op_label, o, operand)?;
        let is = dim_size(name, idx_label, i, indices)?;
        if os != is {
            let rule = GatherRule::BatchingSize {
                operand: operand.clone(),
                operand_dim: o,
                operand_size: os,
                indices: indices.clone(),
                indices_dim: i,
                indices_size: is,
            };
            return Err(ShapeError::rule(name, ShapeRule::Gather(rule)));
        }
    }
    Ok(())
}

/// Checks the dims dropped from the operand window (collapsed / inserted: sorted and in
/// range; unique together with the operand batching dims) and returns them all.
fn removed_dims(
    name: &str,
    a: &ArrayShape,
    dropped: (&str, &[i64]),
    batching: (&str, &[i64]),
) -> Result<Vec<i64>, ShapeError> {
    let (label, dims) = dropped;
    expect_strictly_increasing(name, label, dims, a)?;
    expect_dims_in_range(name, label, dims, a.dims.len(), a)?;
    let removed: Vec<i64> = dims.iter().chain(batching.1).copied().collect();
    expect_unique_dims(name, &format!("{label} with {}", batching.0), &removed, a)?;
    Ok(removed)
}

/// Checks the index map (`start_index_map` / `scatter_dims_to_operand_dims`): one entry per
/// index-vector component, in range, unique together with the operand batching dims.
fn check_index_map(
    name: &str,
    label: &str,
    map: &[i64],
    expanded: &[i64],
    ivd: usize,
    operand: &ArrayShape,
    batching: &[i64],
) -> Result<(), ShapeError> {
    // `expanded_indices` checked ivd <= rank and appended the implicit 1 when ivd == rank.
    debug_assert!(
        ivd < expanded.len(),
        "index_vector_dim indexes the expanded indices"
    );
    let components = expanded.get(ivd).copied().unwrap_or(1);
    if map.len() as i64 != components {
        let rule = GatherRule::IndexMap {
            what: label.to_string(),
            map: map.to_vec(),
            components,
        };
        return Err(ShapeError::rule(name, ShapeRule::Gather(rule)));
    }
    expect_dims_in_range(name, label, map, operand.dims.len(), operand)?;
    let both: Vec<i64> = map.iter().chain(batching).copied().collect();
    expect_unique_dims(
        name,
        &format!("{label} with the operand batching dims"),
        &both,
        operand,
    )
}

/// The shape of `gather(operand, start_indices)` with XLA's dimension numbers, including
/// operand / start-indices batching dims: batch dims (the indices' dims except
/// `index_vector_dim`) interleaved with the offset dims (`slice_sizes` without the collapsed
/// and operand batching dims) at positions `offset_dims`.
///
/// # Errors
/// When any dimension-number rule of XLA's gather is broken.
pub fn gather(
    operand: &Shape,
    start_indices: &Shape,
    dims: &GatherDims,
) -> Result<Shape, ShapeError> {
    let name = "gather";
    let a = expect_array(name, 0, "operand", operand)?;
    let idx = expect_array(name, 1, "start_indices", start_indices)?;
    let (expanded, ivd) = expanded_indices(name, 1, idx, dims.index_vector_dim)?;
    let batch_rank = expanded.len() - 1;
    let out_rank = batch_rank + dims.offset_dims.len();
    expect_strictly_increasing(
        name,
        "offset_dims",
        &dims.offset_dims,
        &format!("the result of rank {out_rank}"),
    )?;
    expect_dims_in_range(
        name,
        "offset_dims",
        &dims.offset_dims,
        out_rank,
        &format!("the result (rank {out_rank})"),
    )?;
    let removed = removed_dims(
        name,
        a,
        ("collapsed_slice_dims", &dims.collapsed_slice_dims),
        ("operand_batching_dims", &dims.operand_batching_dims),
    )?;
    let labels = ("operand_batching_dims", "start_indices_batching_dims");
    check_batching(
        name,
        a,
        &dims.operand_batching_dims,
        idx,
        &dims.start_indices_batching_dims,
        ivd,
        labels,
    )?;
    check_index_map(
        name,
        "start_index_map",
        &dims.start_index_map,
        &expanded,
        ivd,
        a,
        &dims.operand_batching_dims,
    )?;
    if dims.slice_sizes.len() != a.dims.len() {
        let sizes = &dims.slice_sizes;
        return Err(entry_per_dimension(
            name,
            "slice_sizes",
            sizes,
            "operand",
            a,
        ));
    }
    if a.dims.len() != dims.offset_dims.len() + removed.len() {
        return Err(operand_rank(
            name,
            a,
            [
                "offset_dims",
                "collapsed_slice_dims",
                "operand_batching_dims",
            ],
            [
                dims.offset_dims.len(),
                dims.collapsed_slice_dims.len(),
                dims.operand_batching_dims.len(),
            ],
        ));
    }
    for (i, (&s, &size)) in dims.slice_sizes.iter().zip(&a.dims).enumerate() {
        if s < 0 || s > size {
            return Err(slice_size(name, (s, i, size), "operand", a));
        }
        if removed.contains(&(i as i64)) && s > 1 {
            let rule = GatherRule::CollapsedSize {
                dimension: i,
                size: s,
            };
            return Err(ShapeError::rule(name, ShapeRule::Gather(rule)));
        }
    }
    let offset_sizes = dims
        .slice_sizes
        .iter()
        .enumerate()
        .filter(|(i, _)| !removed.contains(&(*i as i64)))
        .map(|(_, &s)| s);
    let batch_sizes = expanded
        .iter()
        .enumerate()
        .filter(|&(i, _)| i != ivd)
        .map(|(_, &s)| s);
    Ok(Shape::array(
        a.ty,
        interleave(out_rank, &dims.offset_dims, offset_sizes, batch_sizes),
    ))
}

/// Builds `rank` dims: positions in `chosen` take the next value of `at_chosen`, the others
/// the next value of `rest`.
fn interleave(
    rank: usize,
    chosen: &[i64],
    mut at_chosen: impl Iterator<Item = i64>,
    mut rest: impl Iterator<Item = i64>,
) -> Vec<i64> {
    (0..rank)
        .map(|i| {
            if chosen.contains(&(i as i64)) {
                at_chosen.next()
            } else {
                rest.next()
            }
            .unwrap_or(0)
        })
        .collect()
}

/// The shape of `scatter(operands..., scatter_indices, updates...)`: the operands' shape (a
/// tuple for several). Checks XLA's dimension-number rules (incl. batching dims), the update
/// shapes and the combiner `(T..., T...) -> (T...)`.
///
/// # Errors
/// When any of these rules is broken.
pub fn scatter(
    operands: &[&Shape],
    scatter_indices: &Shape,
    updates: &[&Shape],
    dims: &ScatterDims,
    to_apply: &ProgramShape,
) -> Result<Shape, ShapeError> {
    let name = "scatter";
    let n = operands.len();
    if n == 0 || updates.len() != n {
        return Err(scatter_layout(name, n, updates.len()));
    }
    let (ops, first) = expect_arrays_same_dims(name, operands)?;
    let ups = expect_arrays(name, n + 1, "update", updates)?;
    let idx = expect_array(name, n, "scatter_indices", scatter_indices)?;
    let (expanded, ivd) = expanded_indices(name, n, idx, dims.index_vector_dim)?;
    let first_up = *ups.first().ok_or_else(|| scatter_layout(name, n, 0))?;
    for u in &ups {
        expect_same_dims(name, "update", first_up, "update", u)?;
    }
    check_scatter_dims(name, first, idx, &expanded, ivd, dims)?;
    check_updates(name, first, first_up, &expanded, ivd, dims)?;
    let types: Vec<PrimitiveType> = ops.iter().map(|a| a.ty).collect();
    for (k, (a, u)) in ops.iter().zip(&ups).enumerate() {
        if a.ty != u.ty {
            let rule = ShapeRule::SameElementType {
                what_a: "update".into(),
                a: (*u).clone(),
                what_b: "operand".into(),
                b: (*a).clone(),
            };
            return Err(ShapeError::rule_at(name, n + 1 + k, rule));
        }
    }
    check_reducer(name, "to_apply", to_apply, &types)?;
    Ok(single_or_tuple(ops.iter().map(|a| plain(a)).collect()))
}

fn check_scatter_dims(
    name: &str,
    a: &ArrayShape,
    idx: &ArrayShape,
    expanded: &[i64],
    ivd: usize,
    dims: &ScatterDims,
) -> Result<(), ShapeError> {
    let removed = removed_dims(
        name,
        a,
        ("inserted_window_dims", &dims.inserted_window_dims),
        ("input_batching_dims", &dims.input_batching_dims),
    )?;
    let labels = ("input_batching_dims", "scatter_indices_batching_dims");
    check_batching(
        name,
        a,
        &dims.input_batching_dims,
        idx,
        &dims.scatter_indices_batching_dims,
        ivd,
        labels,
    )?;
    check_index_map(
        name,
        "scatter_dims_to_operand_dims",
        &dims.scatter_dims_to_operand_dims,
        expanded,
        ivd,
        a,
        &dims.input_batching_dims,
    )?;
    if a.dims.len() != dims.update_window_dims.len() + removed.len() {
        return Err(operand_rank(
            name,
            a,
            [
                "update_window_dims",
                "inserted_window_dims",
                "input_batching_dims",
            ],
            [
                dims.update_window_dims.len(),
                dims.inserted_window_dims.len(),
                dims.input_batching_dims.len(),
            ],
        ));
    }
    Ok(())
}

fn check_updates(
    name: &str,
    a: &ArrayShape,
    u: &ArrayShape,
    expanded: &[i64],
    ivd: usize,
    dims: &ScatterDims,
) -> Result<(), ShapeError> {
    expect_strictly_increasing(name, "update_window_dims", &dims.update_window_dims, u)?;
    let expected_rank = expanded.len() - 1 + dims.update_window_dims.len();
    if u.dims.len() != expected_rank {
        let rule = GatherRule::UpdatesRank {
            updates: u.clone(),
            expected: expected_rank,
        };
        return Err(ShapeError::rule(name, ShapeRule::Gather(rule)));
    }
    expect_dims_in_range(
        name,
        "update_window_dims",
        &dims.update_window_dims,
        u.dims.len(),
        u,
    )?;
    let removed: Vec<i64> = dims
        .inserted_window_dims
        .iter()
        .chain(&dims.input_batching_dims)
        .copied()
        .collect();
    let window_bounds = a
        .dims
        .iter()
        .enumerate()
        .filter(|(i, _)| !removed.contains(&(*i as i64)))
        .map(|(_, &s)| s);
    for (&w, bound) in dims.update_window_dims.iter().zip(window_bounds) {
        let size = dim_size(name, "update window dim", w, u)?;
        if size > bound {
            let rule = GatherRule::UpdateWindow {
                updates: u.clone(),
                dim: w,
                size,
                bound,
                operand: a.clone(),
            };
            return Err(ShapeError::rule(name, ShapeRule::Gather(rule)));
        }
    }
    let mut scatter_sizes = expanded
        .iter()
        .enumerate()
        .filter(|&(i, _)| i != ivd)
        .map(|(_, &s)| s);
    for (i, &size) in u.dims.iter().enumerate() {
        if dims.update_window_dims.contains(&(i as i64)) {
            continue;
        }
        // The rank check above leaves one indices batch dim per non-window update dim.
        let want = scatter_sizes.next();
        debug_assert!(
            want.is_some(),
            "one indices batch dim per update scatter dim"
        );
        let want = want.unwrap_or(0);
        if size != want {
            let rule = GatherRule::UpdateScatterDim {
                updates: u.clone(),
                dim: i,
                size,
                expected: want,
            };
            return Err(ShapeError::rule(name, ShapeRule::Gather(rule)));
        }
    }
    Ok(())
}

/// The shape of `sort(operands...)` along `dimension`: the operand (or a tuple of them); the
/// operands share dims; the comparator takes `2N` scalars (`a_k`, `b_k` of operand `k`'s type)
/// and returns PRED.
///
/// # Errors
/// When any of these rules is broken.
pub fn sort(
    operands: &[&Shape],
    dimension: i64,
    comparator: &ProgramShape,
) -> Result<Shape, ShapeError> {
    let name = "sort";
    let (arrays, first) = expect_arrays_same_dims(name, operands)?;
    dim_index(name, "dimension", dimension, first)?;
    if comparator.parameters.len() != 2 * arrays.len() {
        let rule = CalleeRule::ParameterCount {
            expected: 2 * arrays.len(),
            per_operand: false,
        };
        return Err(ShapeError::rule(
            name,
            callee("comparator", comparator, rule),
        ));
    }
    for (k, a) in arrays.iter().enumerate() {
        let scalar = Shape::scalar(a.ty);
        for p in [2 * k, 2 * k + 1] {
            if !comparator
                .parameters
                .get(p)
                .is_some_and(|s| s.compatible(&scalar))
            {
                let rule = CalleeRule::ScalarParameter { index: p, ty: a.ty };
                return Err(ShapeError::rule(
                    name,
                    callee("comparator", comparator, rule),
                ));
            }
        }
    }
    if !comparator
        .result
        .compatible(&Shape::scalar(PrimitiveType::Pred))
    {
        let rule = callee("comparator", comparator, CalleeRule::PredResult);
        return Err(ShapeError::rule(name, rule));
    }
    Ok(single_or_tuple(arrays.iter().map(|a| plain(a)).collect()))
}

/// The shape of `topk(operand), k=...`: `(T[..., k], s32[..., k])`; the operand has rank >= 1
/// and a last dim of at least `k`.
///
/// # Errors
/// When any of these rules is broken.
pub fn topk(operand: &Shape, k: i64) -> Result<Shape, ShapeError> {
    let name = "topk";
    let a = expect_array(name, 0, "operand", operand)?;
    let last = a
        .dims
        .last()
        .copied()
        .ok_or_else(|| min_rank(name, Some(0), "operand", 1, a))?;
    if k < 0 || k > last {
        let rule = SliceRule::TopK {
            k,
            last,
            shape: a.clone(),
        };
        return Err(ShapeError::rule(name, ShapeRule::Slice(rule)));
    }
    let mut dims = a.dims.clone();
    if let Some(slot) = dims.last_mut() {
        *slot = k;
    }
    Ok(Shape::tuple(vec![
        Shape::array(a.ty, dims.clone()),
        Shape::array(PrimitiveType::S32, dims),
    ]))
}

/// Scatter's operands and updates do not pair up (N operands, the indices, N updates).
fn scatter_layout(name: &str, operands: usize, updates: usize) -> ShapeError {
    let rule = OperandsRule::Updates { operands, updates };
    ShapeError::rule(name, ShapeRule::Operands(rule))
}

/// The operand `a`'s rank is not the sum of the lengths `counts` of the attributes `names`.
fn operand_rank(
    name: &str,
    a: &ArrayShape,
    names: [&'static str; 3],
    counts: [usize; 3],
) -> ShapeError {
    let operand = a.clone();
    let rule = GatherRule::OperandRank {
        operand,
        names,
        counts,
    };
    ShapeError::rule(name, ShapeRule::Gather(rule))
}
