//! Layers of `xla::nn`: dense, convolutions, pooling, normalisations, embedding.
//! (Read by xla-dsl as text, not compiled as a module: `xla_macros::__nn!()` expands every
//! `#[computation]` here into `xla::nn`, and a computation calling `nn::NAME(..)` takes its
//! source from here.)

/// `x·w + b` on a batch of `B` rows (flax's `nn.Dense`: `w` is `[in, out]`).
#[computation]
pub fn dense<const B: usize, const I: usize, const O: usize>(
    x: Tensor<f32, B, I>,
    w: Tensor<f32, I, O>,
    b: Tensor<f32, O>,
) -> Tensor<f32, B, O> {
    x.dot(w) + b
}

/// Layer normalisation over the last axis, then `scale` and `bias` (flax's `nn.LayerNorm`
/// with its default `epsilon = 1e-6`): `(x - mean) / sqrt(var + 1e-6) * scale + bias`, with
/// the biased variance `mean((x - mean)²)`.
///
/// ```
/// // One row [1, 3]: mean 2, variance 1, so [-1, 1] (up to the epsilon).
/// let y = xla::nn::layer_norm::call::<1, 2>(&[1.0, 3.0], &[1.0, 1.0], &[0.0, 0.0])?;
/// assert!((y[0] + 1.0).abs() < 1e-5 && (y[1] - 1.0).abs() < 1e-5, "{y:?}");
/// # Ok::<(), xla::nn::layer_norm::Error>(())
/// ```
#[computation]
pub fn layer_norm<const B: usize, const F: usize>(
    x: Tensor<f32, B, F>,
    scale: Tensor<f32, F>,
    bias: Tensor<f32, F>,
) -> Tensor<f32, B, F> {
    let mean = x.mean([1]).broadcast_in_dim([B, F], [0]);
    let centred = x - mean;
    let var = (centred * centred).mean([1]).broadcast_in_dim([B, F], [0]);
    centred * (var + 1e-6).rsqrt() * scale + bias
}

/// RMS normalisation over the last axis, then `scale` (flax's `nn.RMSNorm` with its default
/// `epsilon = 1e-6`): `x / sqrt(mean(x²) + 1e-6) * scale`.
///
/// ```
/// // [3, 4]: mean square 12.5, so [3, 4] / √12.5.
/// let y = xla::nn::rms_norm::call::<1, 2>(&[3.0, 4.0], &[1.0, 1.0])?;
/// let r = 12.5f32.sqrt();
/// assert!((y[0] - 3.0 / r).abs() < 1e-5 && (y[1] - 4.0 / r).abs() < 1e-5, "{y:?}");
/// # Ok::<(), xla::nn::rms_norm::Error>(())
/// ```
#[computation]
pub fn rms_norm<const B: usize, const F: usize>(
    x: Tensor<f32, B, F>,
    scale: Tensor<f32, F>,
) -> Tensor<f32, B, F> {
    let ms = (x * x).mean([1]).broadcast_in_dim([B, F], [0]);
    x * (ms + 1e-6).rsqrt() * scale
}

/// The rows of `table` at `ids` (flax's `nn.Embed`): `f32[N, F]` for `N` ids into a
/// `V`-row table; an out-of-range id is clamped (XLA's gather).
///
/// ```
/// // A table of 3 rows of 2 features; ids 2 and 0 pick rows 2 and 0 (sizes N, V, F).
/// let table = [0.0f32, 1.0, 2.0, 3.0, 4.0, 5.0];
/// let y = xla::nn::embedding::call::<2, 3, 2>(&table, &[2, 0])?;
/// assert_eq!(y, vec![4.0, 5.0, 0.0, 1.0]);
/// # Ok::<(), xla::nn::embedding::Error>(())
/// ```
#[computation]
pub fn embedding<const N: usize, const V: usize, const F: usize>(
    table: Tensor<f32, V, F>,
    ids: Tensor<i32, N>,
) -> Tensor<f32, N, F> {
    table.take(ids, 0)
}

/// A 2-D convolution of `B` NHWC images (`H`×`W`, `C` channels) with an HWIO kernel of
/// `O` filters, 3×3, stride 1, `SAME` padding (flax's `nn.Conv(O, (3, 3))` without its
/// bias): `f32[B, H, W, O]`.
///
/// ```
/// // A 1×1 image: with `SAME` padding only the kernel's centre (index 4 of 9) meets it.
/// let mut k = [0.0f32; 9];
/// k[4] = 3.0;
/// assert_eq!(xla::nn::conv2d_nhwc::call::<1, 1, 1, 1, 1>(&[2.0], &k)?, vec![6.0]);
/// # Ok::<(), xla::nn::conv2d_nhwc::Error>(())
/// ```
#[computation]
pub fn conv2d_nhwc<
    const B: usize,
    const H: usize,
    const W: usize,
    const C: usize,
    const O: usize,
>(
    x: Tensor<f32, B, H, W, C>,
    k: Tensor<f32, 3, 3, C, O>,
) -> Tensor<f32, B, H, W, O> {
    x.conv_general(k, padding = SAME, dimension_numbers = "b01f_01io->b01f")
}

/// A 2-D convolution of `B` NCHW images with an OIHW kernel, 3×3, stride 1, `SAME` padding:
/// `f32[B, O, H, W]` (the layout of `x.conv`).
///
/// ```
/// // A 1×1 image: with `SAME` padding only the kernel's centre (index 4 of 9) meets it.
/// let mut k = [0.0f32; 9];
/// k[4] = 3.0;
/// assert_eq!(xla::nn::conv2d_nchw::call::<1, 1, 1, 1, 1>(&[2.0], &k)?, vec![6.0]);
/// # Ok::<(), xla::nn::conv2d_nchw::Error>(())
/// ```
#[computation]
pub fn conv2d_nchw<
    const B: usize,
    const C: usize,
    const H: usize,
    const W: usize,
    const O: usize,
>(
    x: Tensor<f32, B, C, H, W>,
    k: Tensor<f32, O, C, 3, 3>,
) -> Tensor<f32, B, O, H, W> {
    x.conv(k, [1, 1], SAME)
}

/// 2×2 max pooling with stride 2 of NHWC images (flax's `nn.max_pool(x, (2, 2), (2, 2))`):
/// `f32[B, H/2, W/2, C]`, an odd last row or column dropped (`VALID`).
///
/// ```
/// // One 2×2 image of one channel: its maximum.
/// assert_eq!(xla::nn::max_pool_2x2::call::<1, 2, 2, 1>(&[1.0, 5.0, 3.0, 2.0])?, vec![5.0]);
/// # Ok::<(), xla::nn::max_pool_2x2::Error>(())
/// ```
#[computation]
pub fn max_pool_2x2<const B: usize, const H: usize, const W: usize, const C: usize>(
    x: Tensor<f32, B, H, W, C>,
) -> Tensor<f32, B, { H / 2 }, { W / 2 }, C> {
    x.max_pool([1, 2, 2, 1], [1, 2, 2, 1])
}

/// 2×2 average pooling with stride 2 of NHWC images (flax's `nn.avg_pool(x, (2, 2),
/// (2, 2))`).
///
/// ```
/// // One 2×2 image of one channel: its mean.
/// assert_eq!(xla::nn::avg_pool_2x2::call::<1, 2, 2, 1>(&[1.0, 5.0, 3.0, 2.0])?, vec![2.75]);
/// # Ok::<(), xla::nn::avg_pool_2x2::Error>(())
/// ```
#[computation]
pub fn avg_pool_2x2<const B: usize, const H: usize, const W: usize, const C: usize>(
    x: Tensor<f32, B, H, W, C>,
) -> Tensor<f32, B, { H / 2 }, { W / 2 }, C> {
    x.avg_pool([1, 2, 2, 1], [1, 2, 2, 1])
}

/// Batch normalisation of NHWC images in training mode (flax's `nn.BatchNorm` with
/// `use_running_average=False`, `momentum = 0.99`, `epsilon = 1e-5`): normalised with the
/// batch's mean and (biased) variance per channel; also returns the running mean and
/// variance moved towards them (`0.99·running + 0.01·batch`).
///
/// ```
/// // Two 1×1 images of one channel, 1 and 3: mean 2, variance 1, so [-1, 1]; the running
/// // statistics move 1% of the way: mean 0 → 0.02, variance 1 → 1.
/// let (y, mean, var) =
///     xla::nn::batch_norm_train::call::<2, 1, 1, 1>(&[1.0, 3.0], &[1.0], &[0.0], &[0.0], &[1.0])?;
/// assert!((y[0] + 1.0).abs() < 1e-5 && (y[1] - 1.0).abs() < 1e-5, "{y:?}");
/// assert!((mean[0] - 0.02).abs() < 1e-7 && (var[0] - 1.0).abs() < 1e-7);
/// # Ok::<(), xla::nn::batch_norm_train::Error>(())
/// ```
#[computation]
pub fn batch_norm_train<const B: usize, const H: usize, const W: usize, const C: usize>(
    x: Tensor<f32, B, H, W, C>,
    scale: Tensor<f32, C>,
    bias: Tensor<f32, C>,
    running_mean: Tensor<f32, C>,
    running_var: Tensor<f32, C>,
) -> (Tensor<f32, B, H, W, C>, Tensor<f32, C>, Tensor<f32, C>) {
    let (y, mean, var) = x.batch_norm_training(scale, bias, 1e-5, 3);
    (
        y,
        running_mean * 0.99 + mean * 0.01,
        running_var * 0.99 + var * 0.01,
    )
}

/// Batch normalisation of NHWC images at inference (flax's `nn.BatchNorm` with
/// `use_running_average=True`, `epsilon = 1e-5`): normalised with the running statistics.
///
/// ```
/// // (3 - mean 1) / √(variance 4) · scale 2 + bias 1 = 3 (up to the epsilon).
/// let y = xla::nn::batch_norm_infer::call::<1, 1, 1, 1>(&[3.0], &[2.0], &[1.0], &[1.0], &[4.0])?;
/// assert!((y[0] - 3.0).abs() < 1e-5, "{y:?}");
/// # Ok::<(), xla::nn::batch_norm_infer::Error>(())
/// ```
#[computation]
pub fn batch_norm_infer<const B: usize, const H: usize, const W: usize, const C: usize>(
    x: Tensor<f32, B, H, W, C>,
    scale: Tensor<f32, C>,
    bias: Tensor<f32, C>,
    mean: Tensor<f32, C>,
    var: Tensor<f32, C>,
) -> Tensor<f32, B, H, W, C> {
    x.batch_norm_inference(scale, bias, mean, var, 1e-5, 3)
}
