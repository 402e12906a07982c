//! The CNN of `cnn_digits` on MNIST (28×28 images): `conv 3×3 (16) → batch norm → ReLU →
//! max-pool 2×2 → conv 3×3 (32) → batch norm → ReLU → max-pool 2×2 → dense (1568 → 10)`,
//! trained on the 60,000 training images and tested on the 10,000 test images.
//!
//! MNIST is not shipped with the crate: pass the directory holding
//! `train-images-idx3-ubyte`, `train-labels-idx1-ubyte`, `t10k-images-idx3-ubyte` and
//! `t10k-labels-idx1-ubyte` (gzipped `.gz` files work too).
//!
//! ```sh
//! cargo run --release --example mnist -- --data ~/data/mnist
//! ```

// A network's computations take every weight as a parameter.
#![allow(clippy::too_many_arguments)]

pub mod common;

use clap::Parser;
use common::{BatchNormNet, Common, Result};
use std::path::PathBuf;
use xla::computation;
use xla::train::{Dataset, Mnist, Rng, TrainArgs};
use xla::Literal;

/// The training loss: batch norm with the batch's statistics, mean softmax cross-entropy;
/// `loss::value_and_grad` also gives its gradient w.r.t. the 8 trainable tensors.
#[computation(grad(k1, g1, b1, k2, g2, b2, w, b))]
pub fn loss(
    k1: Tensor<f32, 16, 1, 3, 3>,
    g1: Tensor<f32, 16>,
    b1: Tensor<f32, 16>,
    k2: Tensor<f32, 32, 16, 3, 3>,
    g2: Tensor<f32, 32>,
    b2: Tensor<f32, 32>,
    w: Tensor<f32, 1568, 10>,
    b: Tensor<f32, 10>,
    x: Tensor<f32, 32, 1, 28, 28>,
    y: Tensor<f32, 32, 10>,
) -> f32 {
    let h = x
        .conv(k1, [1, 1], SAME)
        .batch_norm_training(g1, b1, 0.001, 1)
        .0;
    let h = h.relu().max_pool([1, 1, 2, 2], [1, 1, 2, 2]);
    let h = h
        .conv(k2, [1, 1], SAME)
        .batch_norm_training(g2, b2, 0.001, 1)
        .0;
    let h = h.relu().max_pool([1, 1, 2, 2], [1, 1, 2, 2]);
    let logits = h.reshape([32, 1568]).dot(w) + b;
    let z = logits - logits.max([1]).broadcast_in_dim([32, 10], [0]);
    (z.exp().sum([1]).ln() - (z * y).sum([1])).mean()
}

/// The batch's statistics (mean and variance per channel) of both batch norms, to update
/// the running averages (the dense layer's `_w`, `_b` are not used).
#[computation]
pub fn batch_stats(
    k1: Tensor<f32, 16, 1, 3, 3>,
    g1: Tensor<f32, 16>,
    b1: Tensor<f32, 16>,
    k2: Tensor<f32, 32, 16, 3, 3>,
    g2: Tensor<f32, 32>,
    b2: Tensor<f32, 32>,
    _w: Tensor<f32, 1568, 10>,
    _b: Tensor<f32, 10>,
    x: Tensor<f32, 32, 1, 28, 28>,
) -> (
    Tensor<f32, 16>,
    Tensor<f32, 16>,
    Tensor<f32, 32>,
    Tensor<f32, 32>,
) {
    let (h, m1, v1) = x
        .conv(k1, [1, 1], SAME)
        .batch_norm_training(g1, b1, 0.001, 1);
    let h = h.relu().max_pool([1, 1, 2, 2], [1, 1, 2, 2]);
    let (_, m2, v2) = h
        .conv(k2, [1, 1], SAME)
        .batch_norm_training(g2, b2, 0.001, 1);
    (m1, v1, m2, v2)
}

/// The logits at test time: batch norm with the running statistics.
#[computation]
pub fn predict(
    k1: Tensor<f32, 16, 1, 3, 3>,
    g1: Tensor<f32, 16>,
    b1: Tensor<f32, 16>,
    k2: Tensor<f32, 32, 16, 3, 3>,
    g2: Tensor<f32, 32>,
    b2: Tensor<f32, 32>,
    w: Tensor<f32, 1568, 10>,
    b: Tensor<f32, 10>,
    mean1: Tensor<f32, 16>,
    var1: Tensor<f32, 16>,
    mean2: Tensor<f32, 32>,
    var2: Tensor<f32, 32>,
    x: Tensor<f32, 32, 1, 28, 28>,
) -> Tensor<f32, 32, 10> {
    let h = x
        .conv(k1, [1, 1], SAME)
        .batch_norm_inference(g1, b1, mean1, var1, 0.001, 1);
    let h = h.relu().max_pool([1, 1, 2, 2], [1, 1, 2, 2]);
    let h = h
        .conv(k2, [1, 1], SAME)
        .batch_norm_inference(g2, b2, mean2, var2, 0.001, 1);
    let h = h.relu().max_pool([1, 1, 2, 2], [1, 1, 2, 2]);
    h.reshape([32, 1568]).dot(w) + b
}

/// The names of the state's tensors: 8 trainable, then the 4 running statistics.
pub const NAMES: &[&str] = &[
    "conv1", "gamma1", "beta1", "conv2", "gamma2", "beta2", "dense_w", "dense_b", "mean1", "var1",
    "mean2", "var2",
];

/// Glorot-uniform kernels and dense weights, unit scales, zero offsets and biases; running
/// means 0 and variances 1.
pub fn init(rng: &mut Rng) -> Result<Vec<Literal>> {
    let full = |n: usize, v: f32| Literal::from_vec(&[n as i64], vec![v; n]);
    let (k1, k2) = (
        common::conv_kernel(rng, 16, 1)?,
        common::conv_kernel(rng, 32, 16)?,
    );
    let w = rng.glorot_uniform(&[1568, 10])?;
    let (g1, b1, g2, b2) = (
        full(16, 1.0)?,
        full(16, 0.0)?,
        full(32, 1.0)?,
        full(32, 0.0)?,
    );
    let (m1, v1, m2, v2) = (b1.clone(), g1.clone(), b2.clone(), g2.clone());
    Ok(vec![
        k1,
        g1,
        b1,
        k2,
        g2,
        b2,
        w,
        full(10, 0.0)?,
        m1,
        v1,
        m2,
        v2,
    ])
}

/// The model: the gradient of `loss`, `batch_stats` for the
/// running statistics, `predict` at test time.
pub fn model() -> BatchNormNet {
    let grad = loss::value_and_grad::run;
    BatchNormNet::new(NAMES, 8, init, grad, batch_stats::run, predict::run)
}

/// The example's defaults.
pub fn defaults() -> TrainArgs {
    TrainArgs {
        epochs: 2,
        learning_rate: 0.002,
        plot: Some("mnist.png".into()),
        ..TrainArgs::default()
    }
}

/// MNIST from `dir` as `f32[1, 28, 28]` images in `[0, 1]`, the training part cut to
/// `--limit`.
pub fn data(dir: Option<&std::path::Path>, args: &TrainArgs) -> Result<(Dataset, Dataset)> {
    let Some(dir) = dir else {
        return Err(
            "mnist needs --data DIR: a directory with train-images-idx3-ubyte, \
                    train-labels-idx1-ubyte, t10k-images-idx3-ubyte and t10k-labels-idx1-ubyte \
                    (or the same names with .gz), as distributed by the MNIST authors"
                .into(),
        );
    };
    if !dir.is_dir() {
        return Err(format!("--data {}: not a directory", dir.display()).into());
    }
    let Mnist { train, test } = Mnist::load(dir)?;
    let train = args.limit.map_or(train.clone(), |n| train.take(n));
    Ok((train.reshaped(&[1, 28, 28])?, test.reshaped(&[1, 28, 28])?))
}

/// The CNN of cnn_digits on MNIST (needs --data DIR with the four MNIST IDX files)
#[derive(Parser, Debug)]
struct Cli {
    /// Directory with the MNIST IDX files (train-images-idx3-ubyte[.gz], ...)
    #[arg(long, value_name = "DIR")]
    data: Option<PathBuf>,
    #[command(flatten)]
    common: Common,
}

#[allow(dead_code)]
fn main() -> std::process::ExitCode {
    let cli: Cli = common::parse(&defaults(), std::env::args());
    let args = cli.common.over(&defaults());
    common::exit_code((|| {
        let (train, test) = data(cli.data.as_deref(), &args)?;
        let title = "CNN on MNIST";
        common::train_and_report(&model(), &args, (&train, &test), title)
    })())
}
