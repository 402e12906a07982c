//! A two-layer perceptron (64 → 128 → 10, ReLU) classifying the UCI handwritten digits
//! (8×8 images, compiled into the crate) on a fixed 80/20 split, trained with Adam.
//!
//! ```sh
//! cargo run --release --example mlp_digits -- --plot mlp_digits.png
//! ```

mod common;

use clap::Parser;
use common::{exit_code, Common, Result};
use xla::computation;
use xla::train::metrics::AccuracyCounter;
use xla::train::optim::Adam;
use xla::train::{Dataset, Digits, Order, Progress, ProgressMode, Rng, Standardizer};
use xla::train::{TrainArgs, TrainLog};
use xla::{Literal, PrimitiveType, Shape};

/// The batch size the computations are compiled for (shapes are static).
pub const BATCH: usize = 32;
/// The parameters, in the order of the computations' leading parameters.
pub const NAMES: [&str; 4] = ["w1", "b1", "w2", "b2"];

/// The logits of a batch of flattened images.
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

/// The example's defaults.
pub fn defaults() -> TrainArgs {
    TrainArgs {
        epochs: 20,
        batch_size: BATCH,
        learning_rate: 0.001,
        seed: 0,
        plot: Some("mlp_digits.png".into()),
        ..TrainArgs::default()
    }
}

#[derive(Parser, Debug)]
#[command(about = "MLP (64-128-10) on the UCI digits, 80/20 split")]
struct Cli {
    #[command(flatten)]
    common: Common,
}

/// The standardised training and test sets (statistics of the training set).
pub fn data(args: &TrainArgs) -> Result<(Dataset, Dataset)> {
    let (train, test) = Digits::embedded()?.split(0.8, args.seed)?;
    let train = args.limit.map_or(train.clone(), |n| train.take(n));
    let scale = Standardizer::fit(&train);
    Ok((scale.apply(train)?, scale.apply(test)?))
}

/// Glorot-initialised weights and zero biases.
pub fn init(seed: u64) -> Result<Vec<Literal>> {
    let mut rng = Rng::new(seed);
    let zeros = |n: i64| Literal::zeros(&Shape::array(PrimitiveType::F32, vec![n]));
    Ok(vec![rng.glorot_uniform(&[64, 128])?, zeros(128)?, rng.glorot_uniform(&[128, 10])?, zeros(10)?])
}

/// The predicted class of every sample of `data`.
pub fn predictions(params: &[Literal], data: &Dataset) -> Result<Vec<usize>> {
    let mut out = Vec::with_capacity(data.len());
    for (batch, real) in data.eval_batches(BATCH)? {
        let mut args = params.to_vec();
        args.push(batch.features_literal()?);
        let logits = predict::run(&args)?;
        out.extend(xla::train::metrics::argmax_literal(&logits)?.into_iter().take(real));
    }
    Ok(out)
}

/// Test accuracy in percent.
pub fn accuracy(params: &[Literal], test: &Dataset) -> Result<f64> {
    let predicted = predictions(params, test)?;
    Ok(xla::train::metrics::accuracy(&predicted, test.labels())?)
}

/// Trains as `args` says; returns the parameters and the log.
pub fn train(args: &TrainArgs) -> Result<(Vec<Literal>, TrainLog)> {
    let (train, test) = data(args)?;
    let mut params = init(args.seed)?;
    let shapes: Vec<Shape> = params.iter().map(|p| p.shape().clone()).collect();
    let expected: Vec<(&str, &Shape)> = NAMES.iter().copied().zip(&shapes).collect();
    let mut log = TrainLog::default();
    if let Some((loaded, saved)) = args.resume_checkpoint(&expected)? {
        (params, log) = (loaded, saved);
    }
    let grad = xla::cpu::Executable::compile(&xla::autodiff::value_and_grad_module(
        loss::module()?,
        Some(&[0, 1, 2, 3]),
    )?)?;
    let mut adam = Adam::new(args.learning_rate);
    let steps = train.batches(BATCH, Order::Sequential)?.count_total();
    let first = log.epoch();
    let mut progress = Progress::new(args.epochs, steps, ProgressMode::auto(args.quiet)).resume(log);
    for epoch in first..args.epochs {
        for batch in train.batches(BATCH, Order::epoch(args.seed, epoch))? {
            let mut inputs = params.clone();
            inputs.extend([batch.features_literal()?, batch.one_hot_literal()?]);
            let at = || format!("epoch {} step {}", epoch + 1, progress.log().step() + 1);
            let (loss, grads) = common::value_and_grad(&grad, &inputs, at)?;
            adam.step(&mut params, &grads)?;
            progress.step(loss, batch.len());
        }
        let mut acc = AccuracyCounter::default();
        for (batch, real) in test.eval_batches(BATCH)? {
            let mut inputs = params.clone();
            inputs.push(batch.features_literal()?);
            acc.add_logits(&predict::run(&inputs)?, batch.labels(), real)?;
        }
        progress.end_epoch(None, Some(acc.percent()));
        let named: Vec<(&str, &Literal)> = NAMES.iter().copied().zip(&params).collect();
        args.save_checkpoint(&named, progress.log())?;
    }
    let (log, _summary) = progress.finish();
    Ok((params, log))
}

fn run(args: &TrainArgs) -> Result<()> {
    let (params, log) = train(args)?;
    if let Some(path) = &args.plot {
        log.save_plot(path, "MLP on the UCI digits")?;
    }
    let (_, test) = data(args)?;
    println!("test accuracy {:.1}%", accuracy(&params, &test)?);
    Ok(())
}

#[allow(dead_code)]
fn main() -> std::process::ExitCode {
    let cli: Cli = common::parse(&defaults(), std::env::args());
    exit_code(run(&cli.common.over(&defaults())))
}
