//! The CNN of `cnn_digits` and `mnist`, one definition generic over the batch size `B` and
//! the image size `H`×`W`:
//!
//! `conv 3×3 (16) → batch norm → ReLU → max-pool 2×2 → conv 3×3 (32) → batch norm → ReLU →
//! max-pool 2×2 → dense (32·⌊H/4⌋·⌊W/4⌋ → 10)`.
//!
//! Training runs at batch 32; evaluation runs the test set at its own size (in chunks of
//! [`super::EVAL_CHUNK`], the last one at whatever size is left), each size instantiated
//! once.

// A network's computations take every weight as a parameter.
#![allow(clippy::too_many_arguments)]

use super::Result;
use xla::computation;
use xla::train::Rng;
use xla::Literal;

/// Batch norm (feature dim 1, epsilon 0.001) with the batch's own statistics: the
/// normalised value, the mean and the variance (`dp.rs` has the synchronised one).
#[computation]
pub fn batch_norm<const B: usize, const C: usize, const H: usize, const W: usize>(
    c: Tensor<f32, B, C, H, W>,
    gamma: Tensor<f32, C>,
    beta: Tensor<f32, C>,
) -> (Tensor<f32, B, C, H, W>, Tensor<f32, C>, Tensor<f32, C>) {
    let (n, mean, var) = c.batch_norm_training(gamma, beta, 0.001, 1);
    (n, mean, var)
}

/// The two training computations of the network, written once for one device and for the
/// replicas of `dp.rs`. Both take the trainable parameters as one tuple of per-layer
/// tuples, `params: ((conv1, gamma1, beta1), (conv2, gamma2, beta2), (dense_w, dense_b))`.
/// `cnn_training!(LOSS, STATS, BN)` defines the loss `LOSS` (mean softmax cross-entropy,
/// with its gradient w.r.t. `params`: a tuple of the same structure) and `STATS` (the mean and variance per channel of both batch norms, to update
/// the running averages; the dense layer is not used), both normalising with the
/// computation `BN`. `cnn_training!(LOSS, STATS, BN, count1, count2)` adds two `f32`
/// parameters after the images (and labels), passed to `BN` as its fourth argument (the
/// synchronised batch norm's global count of values per channel).
macro_rules! cnn_training {
    ($loss:ident, $stats:ident, $bn:ident $(, $c1:ident, $c2:ident)?) => {
        /// The training loss of a batch (see `cnn_training!`).
        #[computation(grad(params))]
        #[allow(clippy::type_complexity)]
        pub fn $loss<const B: usize, const H: usize, const W: usize>(
            params: (
                (Tensor<f32, 16, 1, 3, 3>, Tensor<f32, 16>, Tensor<f32, 16>),
                (Tensor<f32, 32, 16, 3, 3>, Tensor<f32, 32>, Tensor<f32, 32>),
                (Tensor<f32, { 32 * (H / 4) * (W / 4) }, 10>, Tensor<f32, 10>),
            ),
            x: Tensor<f32, B, 1, H, W>,
            y: Tensor<f32, B, 10>
            $(, $c1: f32, $c2: f32)?
        ) -> f32 {
            let ((k1, g1, b1), (k2, g2, b2), (w, b)) = params;
            let h = $bn(x.conv(k1, [1, 1], SAME), g1, b1 $(, $c1)?).0;
            let h = h.relu().max_pool([1, 1, 2, 2], [1, 1, 2, 2]);
            let h = $bn(h.conv(k2, [1, 1], SAME), g2, b2 $(, $c2)?).0;
            let h = h.relu().max_pool([1, 1, 2, 2], [1, 1, 2, 2]);
            let logits = h.reshape([B, { 32 * (H / 4) * (W / 4) }]).dot(w) + b;
            let z = logits - logits.max([1]).broadcast_in_dim([B, 10], [0]);
            (z.exp().sum([1]).ln() - (z * y).sum([1])).mean()
        }

        /// The batch's statistics of both batch norms (see `cnn_training!`).
        #[computation]
        #[allow(clippy::type_complexity)]
        pub fn $stats<const B: usize, const H: usize, const W: usize>(
            params: (
                (Tensor<f32, 16, 1, 3, 3>, Tensor<f32, 16>, Tensor<f32, 16>),
                (Tensor<f32, 32, 16, 3, 3>, Tensor<f32, 32>, Tensor<f32, 32>),
                (Tensor<f32, { 32 * (H / 4) * (W / 4) }, 10>, Tensor<f32, 10>),
            ),
            x: Tensor<f32, B, 1, H, W>
            $(, $c1: f32, $c2: f32)?
        ) -> (
            Tensor<f32, 16>,
            Tensor<f32, 16>,
            Tensor<f32, 32>,
            Tensor<f32, 32>,
        ) {
            let ((k1, g1, b1), (k2, g2, b2), _dense) = params;
            let (h, m1, v1) = $bn(x.conv(k1, [1, 1], SAME), g1, b1 $(, $c1)?);
            let h = h.relu().max_pool([1, 1, 2, 2], [1, 1, 2, 2]);
            let (_, m2, v2) = $bn(h.conv(k2, [1, 1], SAME), g2, b2 $(, $c2)?);
            (m1, v1, m2, v2)
        }
    };
}
pub(crate) use cnn_training;

// The loss and statistics on one device: batch norm over the batch.
cnn_training!(loss, batch_stats, batch_norm);

/// The logits at test time: batch norm with the running statistics.
#[computation]
#[allow(clippy::type_complexity)]
pub fn predict<const B: usize, const H: usize, const W: usize>(
    params: (
        (Tensor<f32, 16, 1, 3, 3>, Tensor<f32, 16>, Tensor<f32, 16>),
        (Tensor<f32, 32, 16, 3, 3>, Tensor<f32, 32>, Tensor<f32, 32>),
        (Tensor<f32, { 32 * (H / 4) * (W / 4) }, 10>, Tensor<f32, 10>),
    ),
    mean1: Tensor<f32, 16>,
    var1: Tensor<f32, 16>,
    mean2: Tensor<f32, 32>,
    var2: Tensor<f32, 32>,
    x: Tensor<f32, B, 1, H, W>,
) -> Tensor<f32, B, 10> {
    let ((k1, g1, b1), (k2, g2, b2), (w, b)) = params;
    let h = x
        .conv(k1, [1, 1], SAME)
        .batch_norm_inference(g1, b1, mean1, var1, 0.001, 1);
    let h = h.relu().max_pool([1, 1, 2, 2], [1, 1, 2, 2]);
    let h = h
        .conv(k2, [1, 1], SAME)
        .batch_norm_inference(g2, b2, mean2, var2, 0.001, 1);
    let h = h.relu().max_pool([1, 1, 2, 2], [1, 1, 2, 2]);
    h.reshape([B, { 32 * (H / 4) * (W / 4) }]).dot(w) + b
}

/// The names of the state's leaves (the checkpoint's tensors): the 8 trainable ones of
/// `params`, depth first, then the 4 running statistics.
pub const NAMES: &[&str] = &[
    "conv1", "gamma1", "beta1", "conv2", "gamma2", "beta2", "dense_w", "dense_b", "mean1", "var1",
    "mean2", "var2",
];

/// Glorot-uniform kernels and dense weights (`features` = 32·⌊H/4⌋·⌊W/4⌋ inputs), unit
/// scales, zero offsets and biases; running means 0 and variances 1. The state is
/// `[params, mean1, var1, mean2, var2]`, `params` the tuple of per-layer tuples.
pub fn init(rng: &mut Rng, features: i64) -> Result<Vec<Literal>> {
    let full = |n: usize, v: f32| Literal::from_vec(&[n as i64], vec![v; n]);
    let (k1, k2) = (
        super::conv_kernel(rng, 16, 1)?,
        super::conv_kernel(rng, 32, 16)?,
    );
    let w = rng.glorot_uniform(&[features, 10])?;
    let (g1, b1, g2, b2) = (
        full(16, 1.0)?,
        full(16, 0.0)?,
        full(32, 1.0)?,
        full(32, 0.0)?,
    );
    let (m1, v1, m2, v2) = (b1.clone(), g1.clone(), b2.clone(), g2.clone());
    let params = Literal::tuple(vec![
        Literal::tuple(vec![k1, g1, b1]),
        Literal::tuple(vec![k2, g2, b2]),
        Literal::tuple(vec![w, full(10, 0.0)?]),
    ]);
    Ok(vec![params, m1, v1, m2, v2])
}

/// The model: the gradient of `loss`, `batch_stats` for the running statistics, `predict`
/// at test time; `init` gives the initial state for the image size.
pub fn model(init: fn(&mut Rng) -> Result<Vec<Literal>>) -> super::BatchNormNet {
    let grad = loss::value_and_grad::run;
    super::BatchNormNet::new(NAMES, 1, init, grad, batch_stats::run, predict::run)
}
