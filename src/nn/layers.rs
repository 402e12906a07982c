//! Layers: dense and layer norm.

use crate::computation;

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
#[computation]
pub fn embedding<const N: usize, const V: usize, const F: usize>(
    table: Tensor<f32, V, F>,
    ids: Tensor<i32, N>,
) -> Tensor<f32, N, F> {
    table.take(ids, 0)
}
