//! Per-axis strides and dilations, asymmetric padding and non-square windows:
//! `nn::conv2d_general::<SH, SW, PT, PB, PL, PR, DH, DW>` and
//! `nn::max_pool_general` / `nn::avg_pool_general::<KH, KW, SH, SW, PT, PB, PL, PR>`
//! against flax (scripts/make_nn_conv_general_fixtures.py): values and the gradients of
//! `sum(y · r)` w.r.t. the input and the kernel, each at two sizes from one definition.
#![allow(clippy::unwrap_used)]

mod nn_common;

use nn_common::{check_value_and_grad, fixture};
use xla::computation;

const TOL: f32 = 2e-5;

/// `sum(conv2d_general(x, k) · r)`, generic over every size, the integers passed through.
#[computation(grad(x, k))]
fn conv2d_general_probe<
    const B: usize,
    const H: usize,
    const W: usize,
    const C: usize,
    const KH: usize,
    const KW: usize,
    const O: usize,
    const SH: usize,
    const SW: usize,
    const PT: usize,
    const PB: usize,
    const PL: usize,
    const PR: usize,
    const DH: usize,
    const DW: usize,
>(
    x: Tensor<f32, B, H, W, C>,
    k: Tensor<f32, KH, KW, C, O>,
    r: Tensor<
        f32,
        B,
        { (H + PT + PB - DH * (KH - 1) - 1) / SH + 1 },
        { (W + PL + PR - DW * (KW - 1) - 1) / SW + 1 },
        O,
    >,
) -> f32 {
    (nn::conv2d_general::<SH, SW, PT, PB, PL, PR, DH, DW>(x, k) * r).sum()
}

/// `sum(max_pool_general(x) · r)`: a 3×2 window, strides (1, 2), padding ((0, 1), (1, 0))
/// fixed by the caller.
#[computation(grad(x))]
fn max_pool_general_probe<const B: usize, const H: usize, const W: usize, const C: usize>(
    x: Tensor<f32, B, H, W, C>,
    r: Tensor<f32, B, { H - 1 }, { (W - 1) / 2 + 1 }, C>,
) -> f32 {
    (nn::max_pool_general::<3, 2, 1, 2, 0, 1, 1, 0>(x) * r).sum()
}

/// The same for `avg_pool_general`.
#[computation(grad(x))]
fn avg_pool_general_probe<const B: usize, const H: usize, const W: usize, const C: usize>(
    x: Tensor<f32, B, H, W, C>,
    r: Tensor<f32, B, { H - 1 }, { (W - 1) / 2 + 1 }, C>,
) -> f32 {
    (nn::avg_pool_general::<3, 2, 1, 2, 0, 1, 1, 0>(x) * r).sum()
}

#[test]
fn conv2d_per_axis_strides_padding_dilation_match_flax() {
    for size in ["2x9x7", "1x6x8"] {
        let f = fixture(&format!("conv2d_general_s21_p1201_d12_{size}"));
        let (x, k, r) = (f["x"].clone(), f["k"].clone(), f["r"].clone());
        let y =
            xla::nn::conv2d_general::apply::<2, 1, 1, 2, 0, 1, 1, 2>(x.clone(), k.clone()).unwrap();
        let vg =
            conv2d_general_probe::value_and_grad::apply::<2, 1, 1, 2, 0, 1, 1, 2>(x, k, r).unwrap();
        check_value_and_grad(&f, &y, &vg, TOL);
    }
}

#[test]
fn pools_with_non_square_windows_and_asymmetric_padding_match_flax() {
    for size in ["2x7x6", "1x5x8"] {
        let f = fixture(&format!("max_pool_general_k32_s12_p0110_{size}"));
        let (x, r) = (f["x"].clone(), f["r"].clone());
        let y = xla::nn::max_pool_general::apply::<3, 2, 1, 2, 0, 1, 1, 0>(x.clone()).unwrap();
        let vg = max_pool_general_probe::value_and_grad::apply(x, r).unwrap();
        check_value_and_grad(&f, &y, &vg, TOL);

        let f = fixture(&format!("avg_pool_general_k32_s12_p0110_{size}"));
        let (x, r) = (f["x"].clone(), f["r"].clone());
        let y = xla::nn::avg_pool_general::apply::<3, 2, 1, 2, 0, 1, 1, 0>(x.clone()).unwrap();
        let vg = avg_pool_general_probe::value_and_grad::apply(x, r).unwrap();
        check_value_and_grad(&f, &y, &vg, TOL);
    }
}

#[test]
fn a_window_larger_than_the_padded_image_is_an_error_naming_the_sizes() {
    let f = fixture("max_pool_general_k32_s12_p0110_1x5x8");
    // A 7-row window over 5 rows padded by 0 + 1.
    let e = xla::nn::max_pool_general::apply::<7, 2, 1, 2, 0, 1, 1, 0>(f["x"].clone())
        .unwrap_err()
        .to_string();
    assert!(e.contains("KH = 7") && e.contains("H = 5"), "{e}");
}
