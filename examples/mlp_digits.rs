//! A two-layer perceptron (64 → 128 → 10, ReLU) classifying the UCI handwritten digits
//! (8×8 images, compiled into the crate) on a fixed 80/20 split, trained with Adam.
//!
//! ```sh
//! cargo run --release --example mlp_digits -- --plot mlp_digits.png
//! ```

mod common;

use clap::Parser;
use common::{Classifier, Common, Result};
use std::sync::OnceLock;
use xla::computation;
use xla::cpu::Executable;
use xla::train::{Dataset, Digits, Rng, Standardizer, TrainArgs};
use xla::{Literal, PrimitiveType, Shape};

/// The logits of a batch of 32 flattened images.
#[computation]
pub fn predict(
    w1: Tensor<f32, 64, 128>,
    b1: Tensor<f32, 128>,
    w2: Tensor<f32, 128, 10>,
    b2: Tensor<f32, 10>,
    x: Tensor<f32, 32, 64>,
) -> Tensor<f32, 32, 10> {
    let h = (x.dot(w1) + b1).relu();
    h.dot(w2) + b2
}

/// Mean softmax cross-entropy of the batch against one-hot labels `y`.
#[computation]
pub fn loss(
    w1: Tensor<f32, 64, 128>,
    b1: Tensor<f32, 128>,
    w2: Tensor<f32, 128, 10>,
    b2: Tensor<f32, 10>,
    x: Tensor<f32, 32, 64>,
    y: Tensor<f32, 32, 10>,
) -> f32 {
    let logits = predict(w1, b1, w2, b2, x);
    let z = logits - logits.max([1]).broadcast_in_dim([32, 10], [0]);
    let log_sum = z.exp().sum([1]).ln();
    (log_sum - (z * y).sum([1])).mean()
}

/// The model: its state is `w1, b1, w2, b2`.
#[derive(Default)]
pub struct Mlp {
    grad: OnceLock<Executable>,
}

impl Classifier for Mlp {
    const BATCH: usize = 32;

    fn names(&self) -> &[&'static str] {
        &["w1", "b1", "w2", "b2"]
    }

    fn trainable(&self) -> usize {
        4
    }

    fn init(&self, seed: u64) -> Result<Vec<Literal>> {
        let mut rng = Rng::new(seed);
        let zeros = |n: i64| Literal::zeros(&Shape::array(PrimitiveType::F32, vec![n]));
        Ok(vec![rng.glorot_uniform(&[64, 128])?, zeros(128)?, rng.glorot_uniform(&[128, 10])?, zeros(10)?])
    }

    fn step(&self, state: &mut [Literal], x: Literal, y: Literal) -> Result<(f64, Vec<Literal>)> {
        if self.grad.get().is_none() {
            let m = xla::autodiff::value_and_grad_module(loss::module()?, Some(&[0, 1, 2, 3]))?;
            let _ = self.grad.set(Executable::compile(&m)?);
        }
        let grad = self.grad.get().ok_or("value_and_grad of loss not compiled")?;
        let mut args = state.to_vec();
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
        epochs: 20,
        learning_rate: 0.001,
        plot: Some("mlp_digits.png".into()),
        ..TrainArgs::default()
    }
}

/// The standardised training and test sets (statistics of the training set).
pub fn data(args: &TrainArgs) -> Result<(Dataset, Dataset)> {
    let (train, test) = Digits::embedded()?.split(0.8, args.seed)?;
    let train = args.limit.map_or(train.clone(), |n| train.take(n));
    let scale = Standardizer::fit(&train);
    Ok((scale.apply(train)?, scale.apply(test)?))
}

#[derive(Parser, Debug)]
#[command(about = "MLP (64-128-10) on the UCI digits, 80/20 split")]
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
        let model = Mlp::default();
        let (state, _) = common::fit(&model, &args, (&train, &test), "MLP on the UCI digits")?;
        println!("test accuracy {:.1}%", common::accuracy(&model, &state, &test)?);
        Ok(())
    })())
}
