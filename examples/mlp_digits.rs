//! A two-layer perceptron (64 → 128 → 10, ReLU) classifying the UCI handwritten digits
//! (8×8 images, compiled into the crate) on a fixed 80/20 split, trained with Adam; the
//! layers and the loss are `xla::nn`'s. The computations are generic over the batch size:
//! training runs batches of 32, evaluation the test set at its own size.
//!
//! ```sh
//! cargo run --release --example mlp_digits -- --plot mlp_digits.png
//! ```

pub mod common;

use common::{Plain, Result};
use xla::computation;
use xla::train::{Rng, TrainArgs};
use xla::Literal;

/// The logits of a batch of `B` flattened images.
#[computation]
pub fn predict<const B: usize>(
    w1: Tensor<f32, 64, 128>,
    b1: Tensor<f32, 128>,
    w2: Tensor<f32, 128, 10>,
    b2: Tensor<f32, 10>,
    x: Tensor<f32, B, 64>,
) -> Tensor<f32, B, 10> {
    let h = nn::dense(x, w1, b1).relu();
    nn::dense(h, w2, b2)
}

/// Mean softmax cross-entropy of the batch against one-hot labels `y`; `loss::value_and_grad`
/// also gives its gradient w.r.t. the weights and biases.
#[computation(grad(w1, b1, w2, b2))]
pub fn loss<const B: usize>(
    w1: Tensor<f32, 64, 128>,
    b1: Tensor<f32, 128>,
    w2: Tensor<f32, 128, 10>,
    b2: Tensor<f32, 10>,
    x: Tensor<f32, B, 64>,
    y: Tensor<f32, B, 10>,
) -> f32 {
    nn::softmax_cross_entropy(predict(w1, b1, w2, b2, x), y)
}

/// The state's names, in the order of the computations' leading parameters.
pub const NAMES: &[&str] = &["w1", "b1", "w2", "b2"];

/// Glorot-uniform weights, zero biases.
pub fn init(rng: &mut Rng) -> Result<Vec<Literal>> {
    let zeros = |n: usize| Literal::from_vec(&[n as i64], vec![0f32; n]);
    let (w1, w2) = (
        rng.glorot_uniform(&[64, 128])?,
        rng.glorot_uniform(&[128, 10])?,
    );
    Ok(vec![w1, zeros(128)?, w2, zeros(10)?])
}

/// The model: the gradient of `loss` for training, `predict` for testing.
pub fn model() -> Plain {
    Plain::new(NAMES, init, loss::value_and_grad::run, predict::run)
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

#[allow(dead_code)]
fn main() -> std::process::ExitCode {
    let args = common::args(
        &defaults(),
        "MLP (64-128-10) on the UCI digits, 80/20 split",
    );
    common::exit_code((|| {
        let (train, test) = common::digits(&args)?;
        let title = "MLP on the UCI digits";
        common::train_and_report(&model(), &args, (&train, &test), title)
    })())
}
