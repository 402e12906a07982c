//! A small convolutional network on the UCI handwritten digits (8×8 images, compiled into
//! the crate), fixed 80/20 split:
//!
//! `conv 3×3 (16) → batch norm → ReLU → max-pool 2×2 → conv 3×3 (32) → batch norm → ReLU →
//! max-pool 2×2 → dense (128 → 10)`.
//!
//! Batch norm normalises with the batch's statistics while training
//! (`batch-norm-training`) and with running averages of them at test time
//! (`batch-norm-inference`); the running statistics are saved in the checkpoint with the
//! weights.
//!
//! ```sh
//! cargo run --release --example cnn_digits
//! ```

mod common;

use clap::Parser;
use common::{Classifier, Common, Result};
use std::sync::OnceLock;
use xla::computation;
use xla::cpu::Executable;
use xla::train::{Dataset, Digits, Rng, Standardizer, TrainArgs};
use xla::Literal;

/// The training loss: batch norm with the batch's statistics, mean softmax cross-entropy.
#[computation]
pub fn loss(
    k1: Tensor<f32, 16, 1, 3, 3>,
    g1: Tensor<f32, 16>,
    b1: Tensor<f32, 16>,
    k2: Tensor<f32, 32, 16, 3, 3>,
    g2: Tensor<f32, 32>,
    b2: Tensor<f32, 32>,
    w: Tensor<f32, 128, 10>,
    b: Tensor<f32, 10>,
    x: Tensor<f32, 32, 1, 8, 8>,
    y: Tensor<f32, 32, 10>,
) -> f32 {
    let h = x.conv(k1, [1, 1], SAME).batch_norm_training(g1, b1, 0.001, 1).0;
    let h = h.relu().max_pool([1, 1, 2, 2], [1, 1, 2, 2]);
    let h = h.conv(k2, [1, 1], SAME).batch_norm_training(g2, b2, 0.001, 1).0;
    let h = h.relu().max_pool([1, 1, 2, 2], [1, 1, 2, 2]);
    let logits = h.reshape([32, 128]).dot(w) + b;
    let z = logits - logits.max([1]).broadcast_in_dim([32, 10], [0]);
    (z.exp().sum([1]).ln() - (z * y).sum([1])).mean()
}

/// The batch's statistics (mean and variance per channel) of both batch norms, to update
/// the running averages.
#[computation]
pub fn batch_stats(
    k1: Tensor<f32, 16, 1, 3, 3>,
    g1: Tensor<f32, 16>,
    b1: Tensor<f32, 16>,
    k2: Tensor<f32, 32, 16, 3, 3>,
    g2: Tensor<f32, 32>,
    b2: Tensor<f32, 32>,
    x: Tensor<f32, 32, 1, 8, 8>,
) -> (Tensor<f32, 16>, Tensor<f32, 16>, Tensor<f32, 32>, Tensor<f32, 32>) {
    let (h, m1, v1) = x.conv(k1, [1, 1], SAME).batch_norm_training(g1, b1, 0.001, 1);
    let h = h.relu().max_pool([1, 1, 2, 2], [1, 1, 2, 2]);
    let (_, m2, v2) = h.conv(k2, [1, 1], SAME).batch_norm_training(g2, b2, 0.001, 1);
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
    w: Tensor<f32, 128, 10>,
    b: Tensor<f32, 10>,
    mean1: Tensor<f32, 16>,
    var1: Tensor<f32, 16>,
    mean2: Tensor<f32, 32>,
    var2: Tensor<f32, 32>,
    x: Tensor<f32, 32, 1, 8, 8>,
) -> Tensor<f32, 32, 10> {
    let h = x.conv(k1, [1, 1], SAME).batch_norm_inference(g1, b1, mean1, var1, 0.001, 1);
    let h = h.relu().max_pool([1, 1, 2, 2], [1, 1, 2, 2]);
    let h = h.conv(k2, [1, 1], SAME).batch_norm_inference(g2, b2, mean2, var2, 0.001, 1);
    let h = h.relu().max_pool([1, 1, 2, 2], [1, 1, 2, 2]);
    h.reshape([32, 128]).dot(w) + b
}

/// How much of the running statistics each batch replaces.
pub const STATS_RATE: f32 = 0.1;

/// The model: 8 trainable tensors, then the 4 running statistics.
#[derive(Default)]
pub struct Cnn {
    grad: OnceLock<Executable>,
}

/// The names of the state's tensors.
pub const NAMES: [&str; 12] = [
    "conv1", "gamma1", "beta1", "conv2", "gamma2", "beta2", "dense_w", "dense_b", "mean1",
    "var1", "mean2", "var2",
];

impl Classifier for Cnn {
    const BATCH: usize = 32;

    fn names(&self) -> &[&'static str] {
        &NAMES
    }

    fn trainable(&self) -> usize {
        8
    }

    fn init(&self, seed: u64) -> Result<Vec<Literal>> {
        let mut rng = Rng::new(seed);
        let full = |n: i64, v: f32| Literal::from_vec(&[n], vec![v; n as usize]);
        // glorot_uniform takes HWIO-style dims (fans from the last two); the kernels are OIHW.
        let kernel = |rng: &mut Rng, o: i64, i: i64| -> Result<Literal> {
            Ok(rng.glorot_uniform(&[3, 3, i, o])?.into_reshaped(&[o, i, 3, 3])?)
        };
        Ok(vec![
            kernel(&mut rng, 16, 1)?,
            full(16, 1.0)?,
            full(16, 0.0)?,
            kernel(&mut rng, 32, 16)?,
            full(32, 1.0)?,
            full(32, 0.0)?,
            rng.glorot_uniform(&[128, 10])?,
            full(10, 0.0)?,
            full(16, 0.0)?,
            full(16, 1.0)?,
            full(32, 0.0)?,
            full(32, 1.0)?,
        ])
    }

    fn step(&self, state: &mut [Literal], x: Literal, y: Literal) -> Result<(f64, Vec<Literal>)> {
        if self.grad.get().is_none() {
            let wrt: Vec<usize> = (0..8).collect();
            let m = xla::autodiff::value_and_grad_module(loss::module()?, Some(&wrt))?;
            let _ = self.grad.set(Executable::compile(&m)?);
        }
        let grad = self.grad.get().ok_or("value_and_grad of loss not compiled")?;
        let mut stats_args = state[..6].to_vec();
        stats_args.push(x.clone());
        let stats = batch_stats::run(&stats_args)?.decompose_tuple()?;
        for (running, batch) in state[8..].iter_mut().zip(&stats) {
            let running = running.typed_data_mut::<f32>()?;
            for (r, b) in running.iter_mut().zip(batch.typed_data::<f32>()?) {
                *r += STATS_RATE * (b - *r);
            }
        }
        let mut args = state[..8].to_vec();
        args.extend([x, y]);
        common::value_and_grad(grad, &args)
    }

    fn logits(&self, state: &[Literal], x: Literal) -> Result<Literal> {
        let mut args = state.to_vec();
        args.push(x);
        Ok(predict::run(&args)?)
    }
}

/// The example's defaults.
pub fn defaults() -> TrainArgs {
    TrainArgs {
        epochs: 15,
        learning_rate: 0.003,
        plot: Some("cnn_digits.png".into()),
        ..TrainArgs::default()
    }
}

/// The standardised training and test sets as `f32[1, 8, 8]` images.
pub fn data(args: &TrainArgs) -> Result<(Dataset, Dataset)> {
    let (train, test) = Digits::embedded()?.split(0.8, args.seed)?;
    let train = args.limit.map_or(train.clone(), |n| train.take(n));
    let scale = Standardizer::fit(&train);
    let image = |d: Dataset| d.reshaped(&[1, 8, 8]);
    Ok((image(scale.apply(train)?)?, image(scale.apply(test)?)?))
}

#[derive(Parser, Debug)]
#[command(about = "A CNN (conv-BN-ReLU-pool ×2, dense) on the UCI digits, 80/20 split")]
struct Cli {
    #[command(flatten)]
    common: Common,
}

#[allow(dead_code)]
fn main() -> std::process::ExitCode {
    let cli: Cli = common::parse(&defaults(), std::env::args());
    let args = cli.common.over(&defaults());
    common::exit_code((|| {
        let (train, test) = data(&args)?;
        let model = Cnn::default();
        let (state, _) = common::fit(&model, &args, (&train, &test), "CNN on the UCI digits")?;
        println!("test accuracy {:.1}%", common::accuracy(&model, &state, &test)?);
        Ok(())
    })())
}
