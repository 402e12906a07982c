//! Rows of the method table: leaves, elementwise and structural ops.

use super::*;

pub(super) fn rows() -> Vec<Row> {
    vec![
        (
            "parameter",
            |b| param(b, 0, f32s(&[2, 3])),
            "parameter",
            "f32[2,3]",
        ),
        (
            "constant",
            |b| b.constant(&Literal::vec1(&[1i32, 2, 3])),
            "constant",
            "s32[3]",
        ),
        (
            "constant_r0",
            |b| b.constant_r0(2.5f64),
            "constant",
            "f64[]",
        ),
        (
            "constant_r1",
            |b| b.constant_r1(&[1.0f32, 2.0]),
            "constant",
            "f32[2]",
        ),
        (
            "constant_scalar",
            |b| b.constant_scalar(Bf16, 1.5),
            "constant",
            "bf16[]",
        ),
        ("iota", |b| b.iota(arr(S32, &[4, 8]), 1), "iota", "s32[4,8]"),
        ("iota_r1", |b| b.iota_r1(F32, 5), "iota", "f32[5]"),
        (
            "exp",
            |b| b.exp(param(b, 0, f32s(&[2]))),
            "exponential",
            "f32[2]",
        ),
        (
            "is_finite",
            |b| b.is_finite(param(b, 0, f32s(&[2]))),
            "is-finite",
            "pred[2]",
        ),
        (
            "real",
            |b| b.real(param(b, 0, arr(C64, &[3]))),
            "real",
            "f32[3]",
        ),
        (
            "abs complex",
            |b| b.abs(param(b, 0, arr(C128, &[3]))),
            "abs",
            "f64[3]",
        ),
        (
            "round",
            |b| b.round(param(b, 0, f32s(&[2]))),
            "round-nearest-afz",
            "f32[2]",
        ),
        (
            "population_count",
            |b| b.population_count(param(b, 0, arr(U8, &[2]))),
            "popcnt",
            "u8[2]",
        ),
        (
            "clz",
            |b| b.clz(param(b, 0, arr(S32, &[2]))),
            "count-leading-zeros",
            "s32[2]",
        ),
        (
            "add",
            |b| b.add(param(b, 0, f32s(&[2, 3])), param(b, 1, f32s(&[2, 3]))),
            "add",
            "f32[2,3]",
        ),
        (
            "add scalar",
            |b| b.add(param(b, 0, f32s(&[2, 3])), b.constant_r0(1.0f32)),
            "add",
            "f32[2,3]",
        ),
        (
            "add_with_broadcast",
            |b| b.add_with_broadcast(param(b, 0, f32s(&[2, 3])), param(b, 1, f32s(&[3])), &[1]),
            "add",
            "f32[2,3]",
        ),
        (
            "add degenerate",
            |b| b.add(param(b, 0, f32s(&[2, 1])), param(b, 1, f32s(&[1, 3]))),
            "add",
            "f32[2,3]",
        ),
        (
            "pow",
            |b| b.pow(param(b, 0, f32s(&[2])), param(b, 1, f32s(&[2]))),
            "power",
            "f32[2]",
        ),
        (
            "atan2",
            |b| b.atan2(param(b, 0, f32s(&[2])), param(b, 1, f32s(&[2]))),
            "atan2",
            "f32[2]",
        ),
        (
            "complex",
            |b| b.complex(param(b, 0, f32s(&[2])), param(b, 1, f32s(&[2]))),
            "complex",
            "c64[2]",
        ),
        (
            "shift_right_logical",
            |b| b.shift_right_logical(param(b, 0, arr(U32, &[2])), param(b, 1, arr(U32, &[2]))),
            "shift-right-logical",
            "u32[2]",
        ),
        (
            "and",
            |b| b.and(param(b, 0, arr(Pred, &[2])), param(b, 1, arr(Pred, &[2]))),
            "and",
            "pred[2]",
        ),
        (
            "lt",
            |b| b.lt(param(b, 0, f32s(&[2])), param(b, 1, f32s(&[2]))),
            "compare",
            "pred[2]",
        ),
        (
            "ge_with_broadcast",
            |b| b.ge_with_broadcast(param(b, 0, f32s(&[3])), param(b, 1, f32s(&[2, 3])), &[1]),
            "compare",
            "pred[2,3]",
        ),
        (
            "select scalar pred",
            |b| {
                b.select(
                    param(b, 0, arr(Pred, &[])),
                    param(b, 1, f32s(&[2, 3])),
                    param(b, 2, f32s(&[2, 3])),
                )
            },
            "select",
            "f32[2,3]",
        ),
        (
            "clamp",
            |b| {
                b.clamp(
                    b.constant_r0(0.0f32),
                    param(b, 0, f32s(&[4])),
                    b.constant_r0(1.0f32),
                )
            },
            "clamp",
            "f32[4]",
        ),
        (
            "convert",
            |b| b.convert_element_type(param(b, 0, f32s(&[2, 3])), S32),
            "convert",
            "s32[2,3]",
        ),
        (
            "bitcast same width",
            |b| b.bitcast_convert_type(param(b, 0, f32s(&[2])), U32),
            "bitcast-convert",
            "u32[2]",
        ),
        (
            "bitcast narrower",
            |b| b.bitcast_convert_type(param(b, 0, f32s(&[2])), U8),
            "bitcast-convert",
            "u8[2,4]",
        ),
        (
            "bitcast wider",
            |b| b.bitcast_convert_type(param(b, 0, arr(U16, &[3, 4])), F64),
            "bitcast-convert",
            "f64[3]",
        ),
        (
            "reduce_precision",
            |b| b.reduce_precision(param(b, 0, f32s(&[2])), 5, 10),
            "reduce-precision",
            "f32[2]",
        ),
        (
            "broadcast",
            |b| b.broadcast(param(b, 0, f32s(&[2, 3])), &[4]),
            "broadcast",
            "f32[4,2,3]",
        ),
        (
            "broadcast scalar",
            |b| b.broadcast(b.constant_r0(1.0f32), &[2, 3]),
            "broadcast",
            "f32[2,3]",
        ),
        (
            "broadcast_in_dim",
            |b| b.broadcast_in_dim(param(b, 0, f32s(&[3])), &[2, 3], &[1]),
            "broadcast",
            "f32[2,3]",
        ),
        (
            "reshape",
            |b| b.reshape(param(b, 0, f32s(&[2, 3])), &[3, 2]),
            "reshape",
            "f32[3,2]",
        ),
        (
            "reshape_with_dims",
            |b| b.reshape_with_dims(param(b, 0, f32s(&[2, 3, 4])), &[2, 0, 1], &[24]),
            "reshape",
            "f32[24]",
        ),
        (
            "collapse",
            |b| b.collapse(param(b, 0, f32s(&[2, 3, 4])), &[0, 1]),
            "reshape",
            "f32[6,4]",
        ),
        (
            "collapse all",
            |b| b.collapse(param(b, 0, f32s(&[2, 3, 4])), &[0, 1, 2]),
            "reshape",
            "f32[24]",
        ),
        (
            "collapse trailing",
            |b| b.collapse(param(b, 0, f32s(&[2, 3, 4])), &[1, 2]),
            "reshape",
            "f32[2,12]",
        ),
        (
            "collapse one dim is the operand",
            |b| b.collapse(param(b, 0, f32s(&[2, 3, 4])), &[1]),
            "parameter",
            "f32[2,3,4]",
        ),
        (
            "transpose",
            |b| b.transpose(param(b, 0, f32s(&[2, 3, 4])), &[2, 0, 1]),
            "transpose",
            "f32[4,2,3]",
        ),
        (
            "rev",
            |b| b.rev(param(b, 0, f32s(&[2, 3])), &[0, 1]),
            "reverse",
            "f32[2,3]",
        ),
        (
            "slice",
            |b| b.slice(param(b, 0, f32s(&[5])), &[2], &[4], &[1]),
            "slice",
            "f32[2]",
        ),
        (
            "slice strided",
            |b| b.slice(param(b, 0, f32s(&[4, 6])), &[0, 1], &[4, 6], &[2, 2]),
            "slice",
            "f32[2,3]",
        ),
        (
            "slice_in_dim",
            |b| b.slice_in_dim(param(b, 0, f32s(&[4, 6])), 1, 5, 2, 1),
            "slice",
            "f32[4,2]",
        ),
        (
            "dynamic_slice",
            |b| {
                let s = b.constant_r0(1i32);
                b.dynamic_slice(param(b, 0, f32s(&[4, 4])), [&s, &s], &[2, 2])
            },
            "dynamic-slice",
            "f32[2,2]",
        ),
        (
            "dynamic_update_slice",
            |b| {
                let s = b.constant_r0(1i32);
                b.dynamic_update_slice(
                    param(b, 0, f32s(&[4, 4])),
                    param(b, 1, f32s(&[2, 2])),
                    [&s, &s],
                )
            },
            "dynamic-update-slice",
            "f32[4,4]",
        ),
        (
            "concat_in_dim",
            |b| b.concat_in_dim([param(b, 0, f32s(&[2, 3])), param(b, 1, f32s(&[1, 3]))], 0),
            "concatenate",
            "f32[3,3]",
        ),
        (
            "pad negative and interior",
            |b| {
                let pads = [
                    PadDim {
                        low: 1,
                        high: -1,
                        interior: 0,
                    },
                    PadDim {
                        low: 0,
                        high: 0,
                        interior: 1,
                    },
                ];
                b.pad(param(b, 0, f32s(&[2, 3])), b.constant_r0(0.0f32), &pads)
            },
            "pad",
            "f32[2,5]",
        ),
        (
            "pad_in_dim",
            |b| b.pad_in_dim(param(b, 0, f32s(&[2, 3])), b.constant_r0(0.0f32), 1, 2, 1),
            "pad",
            "f32[2,6]",
        ),
        (
            "tuple",
            |b| b.tuple([param(b, 0, f32s(&[2])), param(b, 1, arr(S32, &[]))]),
            "tuple",
            "(f32[2], s32[])",
        ),
        (
            "get_tuple_element",
            |b| {
                b.get_tuple_element(
                    param(b, 0, Shape::tuple(vec![f32s(&[2]), arr(S32, &[])])),
                    1,
                )
            },
            "get-tuple-element",
            "s32[]",
        ),
        (
            "get_dimension_size",
            |b| b.get_dimension_size(param(b, 0, f32s(&[2, 3])), 1),
            "get-dimension-size",
            "s32[]",
        ),
        (
            "set_dimension_size",
            |b| b.set_dimension_size(param(b, 0, f32s(&[2, 3])), b.constant_r0(2i32), 1),
            "set-dimension-size",
            "f32[2,<=3]",
        ),
        (
            "optimization_barrier",
            |b| b.optimization_barrier(param(b, 0, f32s(&[2]))),
            "opt-barrier",
            "f32[2]",
        ),
        (
            "constant_like",
            |b| b.constant_like(&param(b, 0, arr(U16, &[3])), 7),
            "constant",
            "u16[]",
        ),
        (
            "full",
            |b| b.full(&arr(S8, &[2, 2]), -1),
            "broadcast",
            "s8[2,2]",
        ),
        (
            "full scalar",
            |b| b.full(&arr(F16, &[]), 0.5),
            "constant",
            "f16[]",
        ),
        ("zeros", |b| b.zeros(&arr(C64, &[3])), "broadcast", "c64[3]"),
        (
            "zeros_like",
            |b| b.zeros_like(&param(b, 0, arr(F64, &[1, 2]))),
            "broadcast",
            "f64[1,2]",
        ),
        (
            "compare",
            |b| {
                b.compare(
                    param(b, 0, arr(U8, &[2])),
                    param(b, 1, arr(U8, &[2])),
                    ComparisonDirection::Ne,
                )
            },
            "compare",
            "pred[2]",
        ),
        (
            "copy",
            |b| b.copy(param(b, 0, f32s(&[2]))),
            "copy",
            "f32[2]",
        ),
    ]
}
