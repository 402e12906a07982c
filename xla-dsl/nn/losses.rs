//! Losses: softmax cross-entropy.
//! (Read by xla-dsl as text, not compiled as a module: `xla_macros::__nn!()` expands every
//! `#[computation]` here into `xla::nn`, and a computation calling `nn::NAME(..)` takes its
//! source from here.)

/// The softmax cross-entropy of `logits` against the distributions `labels` (one-hot or
/// soft), averaged over the batch: `optax.softmax_cross_entropy(logits, labels).mean()`.
/// With `grad(logits)`: `softmax_cross_entropy::grad` is its gradient.
///
/// ```
/// // Equal logits over 2 classes: the loss is ln 2; the gradient softmax - labels.
/// let loss = xla::nn::softmax_cross_entropy::call::<1, 2>(&[0.0, 0.0], &[1.0, 0.0])?;
/// assert!((loss - std::f32::consts::LN_2).abs() < 1e-6);
/// let g = xla::nn::softmax_cross_entropy::grad::call::<1, 2>(&[0.0, 0.0], &[1.0, 0.0])?;
/// assert!((g[0] + 0.5).abs() < 1e-6 && (g[1] - 0.5).abs() < 1e-6, "{g:?}");
/// # Ok::<(), xla::nn::softmax_cross_entropy::Error>(())
/// ```
#[computation(grad(logits))]
pub fn softmax_cross_entropy<const B: usize, const C: usize>(
    logits: Tensor<f32, B, C>,
    labels: Tensor<f32, B, C>,
) -> f32 {
    let shifted = logits - logits.max([1]).broadcast_in_dim([B, C], [0]);
    let log_sum = shifted.exp().sum([1]).log().broadcast_in_dim([B, C], [0]);
    -((shifted - log_sum) * labels).sum() / B
}

/// The mean squared error `mean((pred - target)²)` over every element (
/// `optax.squared_error(pred, target).mean()`), with its gradient w.r.t. `pred`.
///
/// ```
/// // (1² + 2²) / 2; the gradient 2·(pred - target) / 2.
/// assert_eq!(xla::nn::mse::call::<1, 2>(&[1.0, 2.0], &[0.0, 0.0])?, 2.5);
/// assert_eq!(xla::nn::mse::grad::call::<1, 2>(&[1.0, 2.0], &[0.0, 0.0])?, vec![1.0, 2.0]);
/// # Ok::<(), xla::nn::mse::Error>(())
/// ```
#[computation(grad(pred))]
pub fn mse<const B: usize, const F: usize>(
    pred: Tensor<f32, B, F>,
    target: Tensor<f32, B, F>,
) -> f32 {
    let e = pred - target;
    (e * e).mean()
}
