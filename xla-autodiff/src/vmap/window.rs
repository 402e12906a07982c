//! Reductions and windows: reduce (variadic), reduce-window and select-and-scatter. The
//! batch dimension is never reduced (a size-1 window dimension in front); batched init
//! values run per lane.

use super::error::VmapError;
use super::rules::Cx;
use super::value::shift;
use super::value::Val;
use xla_core::ir::{Window, WindowDim};
use xla_core::{CompId, Op};

/// True when one of the init values (the second half of the operands) is batched.
fn init_batched(cx: &Cx, first_init: usize) -> bool {
    (first_init..cx.args.len()).any(|i| cx.is_b(i))
}

/// `reduce`.
pub(crate) fn reduce(cx: &Cx, dimensions: &[i64], to_apply: CompId) -> Result<Val, VmapError> {
    let k = cx.args.len() / 2;
    if init_batched(cx, k) {
        return cx.lanes();
    }
    let ops: Vec<_> = (0..cx.args.len())
        .map(|i| if i < k { cx.full(i) } else { cx.v(i) })
        .collect();
    let op = Op::Reduce {
        dimensions: shift(dimensions),
        to_apply,
    };
    cx.emit(op, &ops, Some(cx.out_all()))
}

/// A window with a size-1 dimension in front (the batch dimension).
fn with_unit(window: &Window) -> Window {
    let unit = WindowDim {
        size: 1,
        stride: 1,
        padding_low: 0,
        padding_high: 0,
        window_dilation: 1,
        base_dilation: 1,
        window_reversal: false,
    };
    Window {
        dims: std::iter::once(unit)
            .chain(window.dims.iter().cloned())
            .collect(),
    }
}

/// `reduce-window`.
pub(crate) fn reduce_window(cx: &Cx, window: &Window, to_apply: CompId) -> Result<Val, VmapError> {
    let k = cx.args.len() / 2;
    if init_batched(cx, k) {
        return cx.lanes();
    }
    let ops: Vec<_> = (0..cx.args.len())
        .map(|i| if i < k { cx.full(i) } else { cx.v(i) })
        .collect();
    let op = Op::ReduceWindow {
        window: with_unit(window),
        to_apply,
    };
    cx.emit(op, &ops, Some(cx.out_all()))
}

/// `select-and-scatter(operand, source, init)`.
pub(crate) fn select_and_scatter(
    cx: &Cx,
    window: &Window,
    select: CompId,
    scatter: CompId,
) -> Result<Val, VmapError> {
    if init_batched(cx, 2) {
        return cx.lanes();
    }
    let op = Op::SelectAndScatter {
        window: with_unit(window),
        select,
        scatter,
    };
    cx.emit(op, &[cx.full(0), cx.full(1), cx.v(2)], Some(cx.out()))
}
