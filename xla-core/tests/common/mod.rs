//! Helpers shared by the integration tests: building IR by hand.
#![allow(dead_code)]

use xla_core::attrs::{ConvDimensionNumbers, PadDim, WindowDim};
use xla_core::ir::{Computation, InstrId, Instruction, Op};
use xla_core::shape::Shape;
use xla_core::types::PrimitiveType;

/// An array shape without layout.
pub fn arr(ty: PrimitiveType, dims: &[i64]) -> Shape {
    Shape::array(ty, dims.to_vec())
}

/// An instruction with operands given by index.
pub fn ins(name: &str, op: Op, operands: &[usize], shape: Shape) -> Instruction {
    Instruction {
        name: name.into(),
        op,
        operands: operands.iter().map(|&i| InstrId(i)).collect(),
        shape,
    }
}

/// Parameter `n`.
pub fn param(name: &str, n: i64, shape: Shape) -> Instruction {
    ins(name, Op::Parameter { number: n }, &[], shape)
}

/// A computation with its root given by index.
pub fn comp(name: &str, instructions: Vec<Instruction>, root: usize) -> Computation {
    Computation {
        name: name.into(),
        instructions,
        root: InstrId(root),
    }
}

/// `name(a, b) = op(a, b)` on scalars of `ty` (parameters `name.a`, `name.b`, root `name.r`)
/// with a result of type `result`.
pub fn scalar_binary(name: &str, op: Op, ty: PrimitiveType, result: PrimitiveType) -> Computation {
    let s = arr(ty, &[]);
    comp(
        name,
        vec![
            param(&format!("{name}.a"), 0, s.clone()),
            param(&format!("{name}.b"), 1, s),
            ins(&format!("{name}.r"), op, &[0, 1], arr(result, &[])),
        ],
        2,
    )
}

/// Pad's `low`, `high` and `interior` padding of one dimension.
pub fn pd(low: i64, high: i64, interior: i64) -> PadDim {
    PadDim {
        low,
        high,
        interior,
    }
}

/// Convolution dimension numbers in the field order of [`ConvDimensionNumbers`].
#[allow(clippy::too_many_arguments)]
pub fn dnums(
    input_batch_dimension: i64,
    input_feature_dimension: i64,
    input_spatial_dimensions: Vec<i64>,
    kernel_input_feature_dimension: i64,
    kernel_output_feature_dimension: i64,
    kernel_spatial_dimensions: Vec<i64>,
    output_batch_dimension: i64,
    output_feature_dimension: i64,
    output_spatial_dimensions: Vec<i64>,
) -> ConvDimensionNumbers {
    ConvDimensionNumbers {
        input_batch_dimension,
        input_feature_dimension,
        input_spatial_dimensions,
        kernel_input_feature_dimension,
        kernel_output_feature_dimension,
        kernel_spatial_dimensions,
        output_batch_dimension,
        output_feature_dimension,
        output_spatial_dimensions,
    }
}

/// A window dimension: size, stride, padding, base and window dilation, reversal.
pub fn wd(size: i64, stride: i64, lo: i64, hi: i64, base: i64, win: i64, rev: bool) -> WindowDim {
    WindowDim {
        size,
        stride,
        padding_low: lo,
        padding_high: hi,
        window_dilation: win,
        base_dilation: base,
        window_reversal: rev,
    }
}
