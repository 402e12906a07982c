//! Reduction and window rules: reduce (variadic), reduce-window (padding, dilations,
//! variadic), select-and-scatter.

use crate::util::*;
use xla_core::attrs::Window;
use xla_core::ir::Op;

fn reduce(d: &[i64]) -> Op {
    Op::Reduce {
        dimensions: d.to_vec(),
        to_apply: C0,
    }
}
fn rw(window: Window) -> Op {
    Op::ReduceWindow {
        window,
        to_apply: C0,
    }
}
fn sas(window: Window) -> Op {
    Op::SelectAndScatter {
        window,
        select: C0,
        scatter: C1,
    }
}

const ADD: &str = "(f32[], f32[]) -> f32[]";
const ARGMAX: &str = "(f32[], s32[], f32[], s32[]) -> (f32[], s32[])";
const GE: &str = "(f32[], f32[]) -> pred[]";

#[test]
fn reduce_rules() {
    run(vec![
        // Spec, Reduce: a 2x3 matrix over 0 or 1; a 4x2x3 array over 0, 2, {0,1} and all.
        ok(
            "reduce a matrix over 0",
            reduce(&[0]),
            &["f32[2,3]", "f32[]"],
            "f32[3]",
        )
        .called(&[ADD]),
        ok(
            "reduce a matrix over 1",
            reduce(&[1]),
            &["f32[2,3]", "f32[]"],
            "f32[2]",
        )
        .called(&[ADD]),
        ok(
            "reduce 3-D over 0",
            reduce(&[0]),
            &["f32[4,2,3]", "f32[]"],
            "f32[2,3]",
        )
        .called(&[ADD]),
        ok(
            "reduce 3-D over 2",
            reduce(&[2]),
            &["f32[4,2,3]", "f32[]"],
            "f32[4,2]",
        )
        .called(&[ADD]),
        ok(
            "reduce 3-D over {0,1}",
            reduce(&[0, 1]),
            &["f32[4,2,3]", "f32[]"],
            "f32[3]",
        )
        .called(&[ADD]),
        ok(
            "reduce 3-D over all",
            reduce(&[2, 0, 1]),
            &["f32[4,2,3]", "f32[]"],
            "f32[]",
        )
        .called(&[ADD]),
        ok(
            "variadic argmax",
            reduce(&[0]),
            &["f32[7]", "s32[7]", "f32[]", "s32[]"],
            "(f32[], s32[])",
        )
        .called(&[ARGMAX]),
        err(
            "reduce odd operand count",
            reduce(&[0]),
            &["f32[7]", "s32[7]", "f32[]"],
            "N operands followed by N init values",
        )
        .called(&[ADD]),
        err(
            "reduce init not scalar",
            reduce(&[0]),
            &["f32[7]", "f32[1]"],
            "init value must be a scalar",
        )
        .called(&[ADD]),
        err(
            "reduce init type",
            reduce(&[0]),
            &["f32[7]", "s32[]"],
            "same element type",
        )
        .called(&[ADD]),
        err(
            "reduce dimension out of range",
            reduce(&[2]),
            &["f32[2,3]", "f32[]"],
            "dimensions {2} contains 2",
        )
        .called(&[ADD]),
        err(
            "reduce repeated dimension",
            reduce(&[1, 1]),
            &["f32[2,3]", "f32[]"],
            "repeats dimension 1",
        )
        .called(&[ADD]),
        err(
            "reduce operand dims differ",
            reduce(&[0]),
            &["f32[7]", "s32[6]", "f32[]", "s32[]"],
            "same dimensions",
        )
        .called(&[ARGMAX]),
        err(
            "reducer arity",
            reduce(&[0]),
            &["f32[7]", "f32[]"],
            "must take 2 parameters",
        )
        .called(&["(f32[]) -> f32[]"]),
        err(
            "reducer type",
            reduce(&[0]),
            &["f32[7]", "f32[]"],
            "must take and return f32 scalars",
        )
        .called(&["(f64[], f64[]) -> f64[]"]),
        err(
            "variadic reducer with one result",
            reduce(&[0]),
            &["f32[7]", "s32[7]", "f32[]", "s32[]"],
            "must return 2 scalars",
        )
        .called(&["(f32[], s32[], f32[], s32[]) -> f32[]"]),
        err(
            "reduce without a computation",
            reduce(&[0]),
            &["f32[7]", "f32[]"],
            "expects 1 called computation",
        ),
    ]);
}

#[test]
fn reduce_window_rules() {
    run(vec![
        // Spec, ReduceWindow: [4x6] with window and stride [2x3], VALID.
        ok(
            "4x6 by 2x3 windows",
            rw(win_simple(&[2, 3], &[2, 3])),
            &["f32[4,6]", "f32[]"],
            "f32[2,2]",
        )
        .called(&[ADD]),
        // Spec: window 3, stride 2 over [10000, 1000, 100, 10, 1]: VALID gives 2, SAME gives 3.
        ok(
            "VALID padding",
            rw(win_simple(&[3], &[2])),
            &["f32[5]", "f32[]"],
            "f32[2]",
        )
        .called(&[ADD]),
        ok(
            "SAME padding",
            rw(win(&[(3, 2, 1, 1, 1, 1)])),
            &["f32[5]", "f32[]"],
            "f32[3]",
        )
        .called(&[ADD]),
        ok(
            "SAME padding at stride 1 keeps the shape",
            rw(win(&[(3, 1, 1, 1, 1, 1), (3, 1, 1, 1, 1, 1)])),
            &["f32[4,6]", "f32[]"],
            "f32[4,6]",
        )
        .called(&[ADD]),
        ok(
            "base dilation",
            rw(win(&[(2, 1, 0, 0, 2, 1)])),
            &["f32[4]", "f32[]"],
            "f32[6]",
        )
        .called(&[ADD]),
        ok(
            "window dilation",
            rw(win(&[(2, 1, 0, 0, 1, 2)])),
            &["f32[5]", "f32[]"],
            "f32[3]",
        )
        .called(&[ADD]),
        ok(
            "window larger than the base",
            rw(win_simple(&[4], &[1])),
            &["f32[3]", "f32[]"],
            "f32[0]",
        )
        .called(&[ADD]),
        ok(
            "cumulative sum style padding",
            rw(win(&[(5, 1, 4, 0, 1, 1)])),
            &["f32[5]", "f32[]"],
            "f32[5]",
        )
        .called(&[ADD]),
        ok(
            "variadic reduce-window",
            rw(win_simple(&[2], &[1])),
            &["f32[4]", "s32[4]", "f32[]", "s32[]"],
            "(f32[3], s32[3])",
        )
        .called(&[ARGMAX]),
        err(
            "window rank",
            rw(win_simple(&[2], &[1])),
            &["f32[4,6]", "f32[]"],
            "window has 1 dimensions",
        )
        .called(&[ADD]),
        err(
            "window size 0",
            rw(win_simple(&[0], &[1])),
            &["f32[4]", "f32[]"],
            "positive size and stride",
        )
        .called(&[ADD]),
        err(
            "window stride 0",
            rw(win_simple(&[2], &[0])),
            &["f32[4]", "f32[]"],
            "positive size and stride",
        )
        .called(&[ADD]),
        err(
            "window dilation 0",
            rw(win(&[(2, 1, 0, 0, 1, 0)])),
            &["f32[4]", "f32[]"],
            "dilations >= 1",
        )
        .called(&[ADD]),
        err(
            "base dilation 0",
            rw(win(&[(2, 1, 0, 0, 0, 1)])),
            &["f32[4]", "f32[]"],
            "dilations >= 1",
        )
        .called(&[ADD]),
        err(
            "reduce-window reducer type",
            rw(win_simple(&[2], &[1])),
            &["s32[4]", "s32[]"],
            "must take and return s32 scalars",
        )
        .called(&[ADD]),
        err(
            "reduce-window init type",
            rw(win_simple(&[2], &[1])),
            &["f32[4]", "f64[]"],
            "same element type",
        )
        .called(&[ADD]),
    ]);
}

#[test]
fn select_and_scatter_rules() {
    let w = || win_simple(&[2, 3], &[2, 3]);
    run(vec![
        ok(
            "max-pool gradient",
            sas(w()),
            &["f32[4,6]", "f32[2,2]", "f32[]"],
            "f32[4,6]",
        )
        .called(&[GE, ADD]),
        ok(
            "overlapping windows",
            sas(win_simple(&[2, 3], &[2, 2])),
            &["f32[4,5]", "f32[2,2]", "f32[]"],
            "f32[4,5]",
        )
        .called(&[GE, ADD]),
        ok(
            "padded windows",
            sas(win(&[(3, 1, 1, 1, 1, 1)])),
            &["f64[4]", "f64[4]", "f64[]"],
            "f64[4]",
        )
        .called(&["(f64[], f64[]) -> pred[]", "(f64[], f64[]) -> f64[]"]),
        err(
            "source shape",
            sas(w()),
            &["f32[4,6]", "f32[2,3]", "f32[]"],
            "source f32[2,3] must have the window-reduced shape f32[2,2]",
        )
        .called(&[GE, ADD]),
        err(
            "select must return pred",
            sas(w()),
            &["f32[4,6]", "f32[2,2]", "f32[]"],
            "must be (f32[], f32[]) -> pred[]",
        )
        .called(&[ADD, ADD]),
        err(
            "select parameter type",
            sas(w()),
            &["f32[4,6]", "f32[2,2]", "f32[]"],
            "must be (f32[], f32[]) -> pred[]",
        )
        .called(&["(s32[], s32[]) -> pred[]", ADD]),
        err(
            "scatter signature",
            sas(w()),
            &["f32[4,6]", "f32[2,2]", "f32[]"],
            "scatter (f32[], f32[]) -> pred[] must take and return f32",
        )
        .called(&[GE, GE]),
        err(
            "init not scalar",
            sas(w()),
            &["f32[4,6]", "f32[2,2]", "f32[1]"],
            "init value must be a scalar",
        )
        .called(&[GE, ADD]),
        err(
            "source type",
            sas(w()),
            &["f32[4,6]", "s32[2,2]", "f32[]"],
            "same element type",
        )
        .called(&[GE, ADD]),
        err(
            "needs both computations",
            sas(w()),
            &["f32[4,6]", "f32[2,2]", "f32[]"],
            "expects 2 called computations, got 1",
        )
        .called(&[GE]),
    ]);
}

#[test]
fn more_window_rules() {
    run(vec![
        err(
            "select-and-scatter window rank",
            sas(win_simple(&[2], &[2])),
            &["f32[4,6]", "f32[2,2]", "f32[]"],
            "window has 1 dimensions",
        )
        .called(&[GE, ADD]),
        err(
            "reduce of a tuple",
            reduce(&[0]),
            &["(f32[7])", "f32[]"],
            "operand must be an array",
        )
        .called(&[ADD]),
        err(
            "reduce-window init count",
            rw(win_simple(&[2], &[1])),
            &["f32[4]", "f32[4]", "f32[]"],
            "N operands followed by N init values",
        )
        .called(&[ADD]),
        err(
            "reduce-window overflow",
            rw(win(&[(2, 1, i64::MAX, 1, 1, 1)])),
            &["f32[4]", "f32[]"],
            "overflows",
        )
        .called(&[ADD]),
    ]);
}
