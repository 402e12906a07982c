//! Indexing rules: gather and scatter (incl. batching dims and variadic scatter), sort, top-k.

use crate::util::*;
use xla_core::attrs::{GatherDims, ScatterDims};
use xla_core::ir::Op;

fn gather(offset: &[i64], collapsed: &[i64], map: &[i64], ivd: i64, slice: &[i64]) -> Op {
    gather_b(offset, collapsed, map, ivd, slice, &[], &[])
}

fn gather_b(
    offset: &[i64],
    collapsed: &[i64],
    map: &[i64],
    ivd: i64,
    slice: &[i64],
    obd: &[i64],
    sibd: &[i64],
) -> Op {
    Op::Gather(GatherDims {
        offset_dims: offset.to_vec(),
        collapsed_slice_dims: collapsed.to_vec(),
        start_index_map: map.to_vec(),
        index_vector_dim: ivd,
        operand_batching_dims: obd.to_vec(),
        start_indices_batching_dims: sibd.to_vec(),
        slice_sizes: slice.to_vec(),
        indices_are_sorted: false,
    })
}

fn scatter(uwd: &[i64], iwd: &[i64], sdod: &[i64], ivd: i64) -> Op {
    scatter_b(uwd, iwd, sdod, ivd, &[], &[])
}

fn scatter_b(uwd: &[i64], iwd: &[i64], sdod: &[i64], ivd: i64, ibd: &[i64], sibd: &[i64]) -> Op {
    let dims = ScatterDims {
        update_window_dims: uwd.to_vec(),
        inserted_window_dims: iwd.to_vec(),
        scatter_dims_to_operand_dims: sdod.to_vec(),
        index_vector_dim: ivd,
        input_batching_dims: ibd.to_vec(),
        scatter_indices_batching_dims: sibd.to_vec(),
        indices_are_sorted: false,
        unique_indices: false,
    };
    Op::Scatter { dims, to_apply: C0 }
}

const ADD: &str = "(f32[], f32[]) -> f32[]";

#[test]
fn gather_rules() {
    let op = &["f32[16,11]", "s64[5,2]"];
    run(vec![
        // Spec, Gather: 5 slices of [8,6] from [16,11]; then [4,5,2] indices; then gather_nd.
        ok(
            "gather 5 slices of 8x6",
            gather(&[1, 2], &[], &[0, 1], 1, &[8, 6]),
            op,
            "f32[5,8,6]",
        ),
        ok(
            "gather with 2-D batch of indices",
            gather(&[2, 3], &[], &[0, 1], 2, &[8, 6]),
            &["f32[16,11]", "s64[4,5,2]"],
            "f32[4,5,8,6]",
        ),
        ok(
            "gather_nd of rows",
            gather(&[2], &[0], &[0], 2, &[1, 11]),
            &["f32[16,11]", "s64[4,5,1]"],
            "f32[4,5,11]",
        ),
        ok(
            "implicit trailing index vector dim",
            gather(&[1], &[0], &[0], 1, &[1, 11]),
            &["f32[16,11]", "s32[5]"],
            "f32[5,11]",
        ),
        ok(
            "offset dims before batch dims",
            gather(&[0], &[0], &[0], 1, &[1, 11]),
            &["f32[16,11]", "s32[5,1]"],
            "f32[11,5]",
        ),
        ok(
            "index_vector_dim 0",
            gather(&[1], &[0], &[0], 0, &[1, 11]),
            &["f32[16,11]", "s32[1,5]"],
            "f32[5,11]",
        ),
        ok(
            "batching dims (StableHLO example)",
            gather_b(&[3, 4], &[1], &[2, 1], 3, &[1, 1, 2, 2], &[0], &[1]),
            &["f32[2,3,4,2]", "s64[2,2,3,2]"],
            "f32[2,2,3,2,2]",
        ),
        ok(
            "take_along_axis batching",
            gather_b(&[], &[1], &[1], 2, &[1, 1], &[0], &[0]),
            &["f32[4,3]", "s32[4,2,1]"],
            "f32[4,2]",
        ),
        err(
            "offset_dims not sorted",
            gather(&[2, 1], &[], &[0, 1], 1, &[8, 6]),
            op,
            "offset_dims {2,1} must be strictly increasing",
        ),
        err(
            "offset_dims out of range",
            gather(&[1, 3], &[], &[0, 1], 1, &[8, 6]),
            op,
            "offset_dims {1,3} contains 3",
        ),
        err(
            "collapsed not sorted",
            gather(&[1], &[1, 0], &[0, 1], 1, &[1, 1]),
            &["f32[16,11]", "s64[5,2]"],
            "collapsed_slice_dims {1,0} must be strictly increasing",
        ),
        err(
            "collapsed out of range",
            gather(&[1, 2], &[2], &[0, 1], 1, &[8, 6]),
            op,
            "collapsed_slice_dims {2} contains 2",
        ),
        err(
            "collapsed slice size > 1",
            gather(&[1], &[0], &[0, 1], 1, &[8, 6]),
            op,
            "dimension 0 must have slice size 0 or 1",
        ),
        err(
            "start_index_map size",
            gather(&[1, 2], &[], &[0], 1, &[8, 6]),
            op,
            "one entry per index vector component (2)",
        ),
        err(
            "start_index_map out of range",
            gather(&[1, 2], &[], &[0, 2], 1, &[8, 6]),
            op,
            "start_index_map {0,2} contains 2",
        ),
        err(
            "start_index_map repeats",
            gather(&[1, 2], &[], &[1, 1], 1, &[8, 6]),
            op,
            "repeats dimension 1",
        ),
        err(
            "slice_sizes length",
            gather(&[1, 2], &[], &[0, 1], 1, &[8]),
            op,
            "slice_sizes {8} must have one entry per dimension",
        ),
        err(
            "slice size too large",
            gather(&[1, 2], &[], &[0, 1], 1, &[17, 6]),
            op,
            "slice size 17 of dimension 0 must be in [0, 16]",
        ),
        err(
            "rank rule",
            gather(&[1], &[], &[0, 1], 1, &[8, 6]),
            op,
            "rank must equal offset_dims + collapsed_slice_dims + operand_batching_dims",
        ),
        err(
            "index_vector_dim out of range",
            gather(&[1, 2], &[], &[0, 1], 3, &[8, 6]),
            op,
            "index_vector_dim 3 must be in [0, 2]",
        ),
        err(
            "float indices",
            gather(&[1, 2], &[], &[0, 1], 1, &[8, 6]),
            &["f32[16,11]", "f32[5,2]"],
            "integer element type",
        ),
        err(
            "gather operand count",
            gather(&[1, 2], &[], &[0, 1], 1, &[8, 6]),
            &["f32[16,11]"],
            "expects 2 operands, got 1",
        ),
        err(
            "batching sizes differ",
            gather_b(&[], &[1], &[1], 2, &[1, 1], &[0], &[0]),
            &["f32[4,3]", "s32[5,2,1]"],
            "batching dimension sizes differ",
        ),
        err(
            "batching lengths differ",
            gather_b(&[], &[1], &[1], 2, &[1, 1], &[0], &[0, 1]),
            &["f32[4,3]", "s32[4,2,1]"],
            "must have the same length",
        ),
        err(
            "batching dim is the index vector dim",
            gather_b(&[], &[1], &[1], 0, &[1, 1], &[0], &[0]),
            &["f32[4,3]", "s32[4,2]"],
            "must not contain index_vector_dim 0",
        ),
        err(
            "collapsed overlaps batching",
            gather_b(&[], &[0, 1], &[1], 2, &[1, 1], &[0], &[0]),
            &["f32[4,3]", "s32[4,2,1]"],
            "collapsed_slice_dims with operand_batching_dims",
        ),
        err(
            "start_index_map hits a batching dim",
            gather_b(&[], &[1], &[0], 2, &[1, 1], &[0], &[0]),
            &["f32[4,3]", "s32[4,2,1]"],
            "start_index_map with the operand batching dims",
        ),
        err(
            "batching dim slice size > 1",
            gather_b(&[2], &[], &[1], 2, &[2, 1], &[0], &[0]),
            &["f32[4,3]", "s32[4,2,1]"],
            "must have slice size 0 or 1",
        ),
    ]);
}

#[test]
fn scatter_rules() {
    let rows = &["f32[5,3]", "s32[2,1]", "f32[2,3]"];
    let rs = || scatter(&[1], &[0], &[0], 1);
    run(vec![
        ok("scatter rows", rs(), rows, "f32[5,3]").called(&[ADD]),
        ok(
            "scatter scalars with implicit index dim",
            scatter(&[], &[0], &[0], 1),
            &["f32[5]", "s32[4]", "f32[4]"],
            "f32[5]",
        )
        .called(&[ADD]),
        ok(
            "scatter a partial window",
            scatter(&[1], &[0], &[0], 1),
            &["f32[5,3]", "s32[2,1]", "f32[2,2]"],
            "f32[5,3]",
        )
        .called(&[ADD]),
        ok(
            "variadic scatter",
            scatter(&[], &[0], &[0], 1),
            &["f32[5]", "s32[5]", "s32[4]", "f32[4]", "s32[4]"],
            "(f32[5], s32[5])",
        )
        .called(&["(f32[], s32[], f32[], s32[]) -> (f32[], s32[])"]),
        ok(
            "scatter with batching dims",
            scatter_b(&[], &[1], &[1], 2, &[0], &[0]),
            &["f32[4,3]", "s32[4,2,1]", "f32[4,2]"],
            "f32[4,3]",
        )
        .called(&[ADD]),
        err(
            "updates rank",
            rs(),
            &["f32[5,3]", "s32[2,1]", "f32[2,3,1]"],
            "must have rank 2",
        )
        .called(&[ADD]),
        err(
            "update window too large",
            rs(),
            &["f32[5,3]", "s32[2,1]", "f32[2,4]"],
            "window dim 1 (4) exceeds the operand bound 3",
        )
        .called(&[ADD]),
        err(
            "update scatter dim differs from indices",
            rs(),
            &["f32[5,3]", "s32[2,1]", "f32[3,3]"],
            "scatter dim 0 is 3 but the indices batch dim is 2",
        )
        .called(&[ADD]),
        err(
            "update_window_dims not sorted",
            scatter(&[1, 0], &[], &[0], 1),
            &["f32[5,3]", "s32[2,1]", "f32[2,3]"],
            "update_window_dims {1,0} must be strictly increasing",
        )
        .called(&[ADD]),
        err(
            "inserted_window_dims out of range",
            scatter(&[1], &[2], &[0], 1),
            rows,
            "inserted_window_dims {2} contains 2",
        )
        .called(&[ADD]),
        err(
            "scatter_dims_to_operand_dims size",
            scatter(&[1], &[0], &[0, 1], 1),
            rows,
            "one entry per index vector component (1)",
        )
        .called(&[ADD]),
        err(
            "scatter_dims_to_operand_dims range",
            scatter(&[1], &[0], &[2], 1),
            rows,
            "contains 2, out of range",
        )
        .called(&[ADD]),
        err(
            "scatter rank rule",
            scatter(&[1], &[], &[0], 1),
            rows,
            "rank must equal update_window_dims + inserted_window_dims",
        )
        .called(&[ADD]),
        err(
            "scatter index_vector_dim",
            scatter(&[1], &[0], &[0], 3),
            rows,
            "index_vector_dim 3 must be in [0, 2]",
        )
        .called(&[ADD]),
        err(
            "scatter combiner arity",
            rs(),
            rows,
            "must take 2 parameters",
        )
        .called(&["(f32[]) -> f32[]"]),
        err(
            "scatter combiner type",
            rs(),
            rows,
            "must take and return f32 scalars",
        )
        .called(&["(s32[], s32[]) -> s32[]"]),
        err(
            "scatter update type",
            rs(),
            &["f32[5,3]", "s32[2,1]", "f64[2,3]"],
            "must have the same element type",
        )
        .called(&[ADD]),
        err(
            "scatter operand/update count",
            rs(),
            &["f32[5,3]", "s32[2,1]"],
            "expects N operands, the indices and N updates",
        )
        .called(&[ADD]),
        err(
            "variadic scatter operand dims differ",
            scatter(&[], &[0], &[0], 1),
            &["f32[5]", "s32[6]", "s32[4]", "f32[4]", "s32[4]"],
            "same dimensions",
        )
        .called(&["(f32[], s32[], f32[], s32[]) -> (f32[], s32[])"]),
        err(
            "float scatter indices",
            rs(),
            &["f32[5,3]", "f32[2,1]", "f32[2,3]"],
            "integer element type",
        )
        .called(&[ADD]),
        err(
            "scatter without its computation",
            rs(),
            rows,
            "expects 1 called computation, got 0",
        ),
    ]);
}

#[test]
fn sort_and_topk() {
    let sort = |d| Op::Sort {
        dimension: d,
        is_stable: true,
        to_apply: C0,
    };
    let topk = |k| Op::TopK { k, largest: true };
    let lt = "(f32[], f32[]) -> pred[]";
    run(vec![
        ok(
            "sort one operand along 0",
            sort(0),
            &["f32[2,3]"],
            "f32[2,3]",
        )
        .called(&[lt]),
        // Spec, Sort: operand0 = [3, 1], operand1 = [42, 50], operand2 = [-3.0, 1.1].
        ok(
            "sort three operands",
            sort(0),
            &["s32[2]", "s32[2]", "f32[2]"],
            "(s32[2], s32[2], f32[2])",
        )
        .called(&["(s32[], s32[], s32[], s32[], f32[], f32[]) -> pred[]"]),
        err(
            "sort operand dims differ",
            sort(0),
            &["f32[2]", "s32[3]"],
            "same dimensions",
        )
        .called(&["(f32[], f32[], s32[], s32[]) -> pred[]"]),
        err(
            "sort dimension out of range",
            sort(1),
            &["f32[2]"],
            "dimension 1 is out of range",
        )
        .called(&[lt]),
        err(
            "sort comparator arity",
            sort(0),
            &["f32[2]", "s32[2]"],
            "must take 4 parameters",
        )
        .called(&[lt]),
        err(
            "sort comparator parameter type",
            sort(0),
            &["s32[2]"],
            "parameter 0 must be a s32 scalar",
        )
        .called(&[lt]),
        err(
            "sort comparator result",
            sort(0),
            &["f32[2]"],
            "must return pred[]",
        )
        .called(&["(f32[], f32[]) -> f32[]"]),
        err("sort with no operand", sort(0), &[], "at least 1 operand").called(&[lt]),
        // Spec, TopK: [A, B, ..., P, Q] with Q >= k gives [A, B, ..., P, k] twice.
        ok("topk of a vector", topk(3), &["f32[5]"], "(f32[3], s32[3])"),
        ok(
            "topk of a batch",
            topk(2),
            &["s32[4,3,6]"],
            "(s32[4,3,2], s32[4,3,2])",
        ),
        err(
            "topk k too large",
            topk(6),
            &["f32[5]"],
            "k = 6 must be in [0, 5]",
        ),
        err("topk of a scalar", topk(1), &["f32[]"], "rank at least 1"),
    ]);
}

#[test]
fn more_gather_scatter_rules() {
    let rows = &["f32[5,3]", "s32[2,1]", "f32[2,3]"];
    run(vec![
        err(
            "update_window_dims out of range",
            scatter(&[2], &[0], &[0], 1),
            rows,
            "update_window_dims {2} contains 2",
        )
        .called(&[ADD]),
        err(
            "inserted_window_dims not sorted",
            scatter(&[], &[1, 0], &[0, 1], 1),
            &["f32[5,3]", "s32[2,2]", "f32[2]"],
            "inserted_window_dims {1,0} must be strictly increasing",
        )
        .called(&[ADD]),
        err(
            "scatter batching sizes differ",
            scatter_b(&[], &[1], &[1], 2, &[0], &[0]),
            &["f32[4,3]", "s32[5,2,1]", "f32[5,2]"],
            "batching dimension sizes differ",
        )
        .called(&[ADD]),
        err(
            "scatter_dims_to_operand_dims hits a batching dim",
            scatter_b(&[], &[1], &[0], 2, &[0], &[0]),
            &["f32[4,3]", "s32[4,2,1]", "f32[4,2]"],
            "scatter_dims_to_operand_dims with the operand batching dims",
        )
        .called(&[ADD]),
        err(
            "gather negative slice size",
            gather(&[1, 2], &[], &[0, 1], 1, &[-1, 6]),
            &["f32[16,11]", "s64[5,2]"],
            "slice size -1 of dimension 0",
        ),
        err(
            "gather of a tuple",
            gather(&[1, 2], &[], &[0, 1], 1, &[8, 6]),
            &["(f32[16,11])", "s64[5,2]"],
            "operand must be an array",
        ),
        err(
            "topk negative k",
            Op::TopK {
                k: -1,
                largest: false,
            },
            &["f32[5]"],
            "k = -1 must be in [0, 5]",
        ),
    ]);
}
