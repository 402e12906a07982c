//! The general convolutions and pooling of `xla::nn` (stride, padding, dilation, groups,
//! NHWC and NCHW; window, stride and padding of max/avg pooling) against flax and
//! `jax.lax.conv_general_dilated` (scripts/make_nn_conv_fixtures.py), values and the
//! gradients of `sum(y · r)` w.r.t. the input and the kernel, each at two sizes from one
//! definition. The integers (stride `S`, padding `P`, dilation `D`, ...) are given with a
//! turbofish, from Rust (`conv2d::apply::<2, 1, 2>(x, k)`) and, passed through a caller's
//! own integer sizes, inside a computation (`nn::conv2d::<S, P, D>(x, k)`).
#![allow(clippy::unwrap_used)]

mod nn_common;

use nn_common::{check_value_and_grad, close, fixture};
use std::collections::HashMap;
use xla::computation;
use xla::Literal;

/// `sum(conv2d(x, k) · r)`, generic over every size, the integers passed through.
#[computation(grad(x, k))]
fn conv2d_probe<
    const B: usize,
    const H: usize,
    const W: usize,
    const C: usize,
    const KH: usize,
    const KW: usize,
    const O: usize,
    const S: usize,
    const P: usize,
    const D: usize,
>(
    x: Tensor<f32, B, H, W, C>,
    k: Tensor<f32, KH, KW, C, O>,
    r: Tensor<
        f32,
        B,
        { (H + 2 * P - D * (KH - 1) - 1) / S + 1 },
        { (W + 2 * P - D * (KW - 1) - 1) / S + 1 },
        O,
    >,
) -> f32 {
    (nn::conv2d::<S, P, D>(x, k) * r).sum()
}

/// `sum(conv2d_same(x, k) · r)`.
#[computation(grad(x, k))]
fn conv2d_same_probe<
    const B: usize,
    const H: usize,
    const W: usize,
    const C: usize,
    const KH: usize,
    const KW: usize,
    const O: usize,
    const S: usize,
    const D: usize,
>(
    x: Tensor<f32, B, H, W, C>,
    k: Tensor<f32, KH, KW, C, O>,
    r: Tensor<f32, B, { (H + S - 1) / S }, { (W + S - 1) / S }, O>,
) -> f32 {
    (nn::conv2d_same::<S, D>(x, k) * r).sum()
}

/// `sum(conv2d_grouped(x, k) · r)`.
#[computation(grad(x, k))]
fn conv2d_grouped_probe<
    const B: usize,
    const H: usize,
    const W: usize,
    const KH: usize,
    const KW: usize,
    const I: usize,
    const S: usize,
    const P: usize,
    const D: usize,
    const G: usize,
    const M: usize,
>(
    x: Tensor<f32, B, H, W, { G * I }>,
    k: Tensor<f32, KH, KW, I, { G * M }>,
    r: Tensor<
        f32,
        B,
        { (H + 2 * P - D * (KH - 1) - 1) / S + 1 },
        { (W + 2 * P - D * (KW - 1) - 1) / S + 1 },
        { G * M },
    >,
) -> f32 {
    (nn::conv2d_grouped::<S, P, D, G, M>(x, k) * r).sum()
}

/// `sum(conv2d_nchw_padded(x, k) · r)` with stride 2 and padding 1 fixed by the caller.
#[computation(grad(x, k))]
fn conv2d_nchw_probe<const B: usize, const H: usize, const W: usize>(
    x: Tensor<f32, B, 3, H, W>,
    k: Tensor<f32, 4, 3, 3, 3>,
    r: Tensor<f32, B, 4, { (H + 2 - 3) / 2 + 1 }, { (W + 2 - 3) / 2 + 1 }>,
) -> f32 {
    (nn::conv2d_nchw_padded::<2, 1, 1>(x, k) * r).sum()
}

/// `sum(conv2d_nchw_same(x, k) · r)` with stride 2 and dilation 2 fixed by the caller.
#[computation(grad(x, k))]
fn conv2d_nchw_same_probe<const B: usize, const H: usize, const W: usize>(
    x: Tensor<f32, B, 3, H, W>,
    k: Tensor<f32, 2, 3, 3, 3>,
    r: Tensor<f32, B, 2, { (H + 1) / 2 }, { (W + 1) / 2 }>,
) -> f32 {
    (nn::conv2d_nchw_same::<2, 2>(x, k) * r).sum()
}

/// `sum(max_pool(x) · r)` and the same for `avg_pool`, 3×3 windows, stride 2, padding 1.
#[computation(grad(x))]
fn max_pool_probe<const B: usize, const H: usize, const W: usize, const C: usize>(
    x: Tensor<f32, B, H, W, C>,
    r: Tensor<f32, B, { (H - 1) / 2 + 1 }, { (W - 1) / 2 + 1 }, C>,
) -> f32 {
    (nn::max_pool::<3, 2, 1>(x) * r).sum()
}

#[computation(grad(x))]
fn avg_pool_probe<const B: usize, const H: usize, const W: usize, const C: usize>(
    x: Tensor<f32, B, H, W, C>,
    r: Tensor<f32, B, { (H - 1) / 2 + 1 }, { (W - 1) / 2 + 1 }, C>,
) -> f32 {
    (nn::avg_pool::<3, 2, 1>(x) * r).sum()
}

/// `sum(max_pool_same(x) · r)` and the same for `avg_pool_same`, window `K`, stride 2.
#[computation(grad(x))]
fn max_pool_same_probe<
    const B: usize,
    const H: usize,
    const W: usize,
    const C: usize,
    const K: usize,
>(
    x: Tensor<f32, B, H, W, C>,
    r: Tensor<f32, B, { (H + 1) / 2 }, { (W + 1) / 2 }, C>,
) -> f32 {
    (nn::max_pool_same::<K, 2>(x) * r).sum()
}

#[computation(grad(x))]
fn avg_pool_same_probe<
    const B: usize,
    const H: usize,
    const W: usize,
    const C: usize,
    const K: usize,
>(
    x: Tensor<f32, B, H, W, C>,
    r: Tensor<f32, B, { (H + 1) / 2 }, { (W + 1) / 2 }, C>,
) -> f32 {
    (nn::avg_pool_same::<K, 2>(x) * r).sum()
}

const TOL: f32 = 2e-5;

/// The value and the gradients against the fixture.
fn check(f: &HashMap<String, Literal>, y: &Literal, vg: &Literal) {
    check_value_and_grad(f, y, vg, TOL);
}

fn xkr(f: &HashMap<String, Literal>) -> (Literal, Literal, Literal) {
    (f["x"].clone(), f["k"].clone(), f["r"].clone())
}

#[test]
fn conv2d_stride_padding_dilation_matches_flax() {
    for name in ["conv2d_s2p1d2_2x9x7", "conv2d_s2p1d2_1x6x8"] {
        let f = fixture(name);
        let (x, k, r) = xkr(&f);
        let y = xla::nn::conv2d::apply::<2, 1, 2>(x.clone(), k.clone()).unwrap();
        let vg = conv2d_probe::value_and_grad::apply::<2, 1, 2>(x, k, r).unwrap();
        check(&f, &y, &vg);
    }
    let f = fixture("conv2d_s1p0d1_2x5x5");
    let (x, k, r) = xkr(&f);
    let y = xla::nn::conv2d::apply::<1, 0, 1>(x.clone(), k.clone()).unwrap();
    let vg = conv2d_probe::value_and_grad::apply::<1, 0, 1>(x, k, r).unwrap();
    check(&f, &y, &vg);
}

#[test]
fn conv2d_same_matches_flax() {
    for name in ["conv2d_same_s2d1_2x7x6", "conv2d_same_s2d1_1x4x5"] {
        let f = fixture(name);
        let (x, k, r) = xkr(&f);
        let y = xla::nn::conv2d_same::apply::<2, 1>(x.clone(), k.clone()).unwrap();
        let vg = conv2d_same_probe::value_and_grad::apply::<2, 1>(x, k, r).unwrap();
        check(&f, &y, &vg);
    }
    // An even kernel dilated by 2: the padding is split unevenly, as flax splits it.
    let f = fixture("conv2d_same_s1d2_2x5x4");
    let (x, k, r) = xkr(&f);
    let y = xla::nn::conv2d_same::apply::<1, 2>(x.clone(), k.clone()).unwrap();
    let vg = conv2d_same_probe::value_and_grad::apply::<1, 2>(x, k, r).unwrap();
    check(&f, &y, &vg);
}

#[test]
fn conv2d_grouped_and_depthwise_match_flax() {
    let f = fixture("conv2d_grouped_s1p1d1g2m3_2x5x4");
    let (x, k, r) = xkr(&f);
    let y = xla::nn::conv2d_grouped::apply::<1, 1, 1, 2, 3>(x.clone(), k.clone()).unwrap();
    let vg = conv2d_grouped_probe::value_and_grad::apply::<1, 1, 1, 2, 3>(x, k, r).unwrap();
    check(&f, &y, &vg);
    let f = fixture("conv2d_grouped_s2p0d1g3m2_1x7x6");
    let (x, k, r) = xkr(&f);
    let y = xla::nn::conv2d_grouped::apply::<2, 0, 1, 3, 2>(x.clone(), k.clone()).unwrap();
    let vg = conv2d_grouped_probe::value_and_grad::apply::<2, 0, 1, 3, 2>(x, k, r).unwrap();
    check(&f, &y, &vg);
}

#[test]
fn conv2d_nchw_matches_lax() {
    for name in [
        "conv2d_nchw_padded_s2p1d1_2x8x7",
        "conv2d_nchw_padded_s2p1d1_1x5x6",
    ] {
        let f = fixture(name);
        let (x, k, r) = xkr(&f);
        let y = xla::nn::conv2d_nchw_padded::apply::<2, 1, 1>(x.clone(), k.clone()).unwrap();
        let vg = conv2d_nchw_probe::value_and_grad::apply(x, k, r).unwrap();
        check(&f, &y, &vg);
    }
    let f = fixture("conv2d_nchw_same_s2d2_2x7x6");
    let (x, k, r) = xkr(&f);
    let y = xla::nn::conv2d_nchw_same::apply::<2, 2>(x.clone(), k.clone()).unwrap();
    let vg = conv2d_nchw_same_probe::value_and_grad::apply(x, k, r).unwrap();
    check(&f, &y, &vg);
}

#[test]
fn pooling_with_window_stride_and_padding_matches_flax() {
    for size in ["2x7x6", "1x5x8"] {
        let f = fixture(&format!("max_pool_k3s2p1_{size}"));
        let (x, r) = (f["x"].clone(), f["r"].clone());
        let y = xla::nn::max_pool::apply::<3, 2, 1>(x.clone()).unwrap();
        check(
            &f,
            &y,
            &max_pool_probe::value_and_grad::apply(x, r).unwrap(),
        );
        let f = fixture(&format!("avg_pool_k3s2p1_{size}"));
        let (x, r) = (f["x"].clone(), f["r"].clone());
        let y = xla::nn::avg_pool::apply::<3, 2, 1>(x.clone()).unwrap();
        check(
            &f,
            &y,
            &avg_pool_probe::value_and_grad::apply(x, r).unwrap(),
        );
    }
}

/// `xla::nn::$layer::apply::<$k, 2>` and the gradients of `$probe::<$k>` (stride 2)
/// against the fixture `$name`.
macro_rules! check_same_pool {
    ($name:expr, $layer:ident, $probe:ident, $k:literal) => {{
        let f = fixture($name);
        let (x, r) = (f["x"].clone(), f["r"].clone());
        let y = xla::nn::$layer::apply::<$k, 2>(x.clone()).unwrap();
        check(&f, &y, &$probe::value_and_grad::apply::<$k>(x, r).unwrap());
    }};
}

#[test]
fn same_pooling_matches_flax() {
    check_same_pool!(
        "max_pool_same_k3s2_2x7x6",
        max_pool_same,
        max_pool_same_probe,
        3
    );
    check_same_pool!(
        "max_pool_same_k2s2_1x5x5",
        max_pool_same,
        max_pool_same_probe,
        2
    );
    check_same_pool!(
        "avg_pool_same_k3s2_2x7x6",
        avg_pool_same,
        avg_pool_same_probe,
        3
    );
    check_same_pool!(
        "avg_pool_same_k2s2_1x5x5",
        avg_pool_same,
        avg_pool_same_probe,
        2
    );
}

#[test]
fn integer_sizes_bad_input_is_an_error_naming_the_size() {
    let f = fixture("conv2d_s1p0d1_2x5x5");
    let (x, k) = (f["x"].clone(), f["k"].clone());
    // Stride 0: the output dims divide by zero.
    let e = xla::nn::conv2d::apply::<0, 0, 1>(x.clone(), k.clone())
        .unwrap_err()
        .to_string();
    assert!(e.contains("conv2d at") && e.contains("S = 0"), "{e}");
    assert!(e.contains("divides by zero"), "{e}");
    // A dilated kernel larger than the image: a negative intermediate, named.
    let e = xla::nn::conv2d::apply::<1, 0, 3>(x.clone(), k.clone())
        .unwrap_err()
        .to_string();
    assert!(e.contains("D = 3"), "{e}");
    assert!(e.contains("cannot") || e.contains("negative"), "{e}");
    // `run` cannot read the integers from the shapes.
    let e = xla::nn::conv2d::run(&[x.clone(), k.clone()])
        .unwrap_err()
        .to_string();
    assert!(e.contains("size `S`") && e.contains("apply::<..>"), "{e}");
    // The cache is left consistent: a good call still works after the failures.
    let y = xla::nn::conv2d::apply::<1, 0, 1>(x, k).unwrap();
    close(&y, &f["y"], TOL);
}
