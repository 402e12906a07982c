//! Hello world of training: softmax regression (one dense layer) on the UCI digits, with
//! `xla::nn::dense` and `xla::nn::softmax_cross_entropy`.
//!
//! ```sh
//! cargo run --release --example logistic_regression
//! ```

pub mod common;

use xla::train::{Rng, TrainArgs};
use xla::{computation, Literal};

/// The logits of `B` flattened 8×8 images (training runs batches of 32, evaluation the
/// test set at its own size).
#[computation]
pub fn predict<const B: usize>(
    w: Tensor<f32, 64, 10>,
    b: Tensor<f32, 10>,
    x: Tensor<f32, B, 64>,
) -> Tensor<f32, B, 10> {
    nn::dense(x, w, b)
}

/// Mean softmax cross-entropy against one-hot labels `y`, and its gradient w.r.t. `w`, `b`.
#[computation(grad(w, b))]
pub fn loss<const B: usize>(
    w: Tensor<f32, 64, 10>,
    b: Tensor<f32, 10>,
    x: Tensor<f32, B, 64>,
    y: Tensor<f32, B, 10>,
) -> f32 {
    nn::softmax_cross_entropy(predict(w, b, x), y)
}

/// Glorot-uniform weights, zero biases.
pub fn init(rng: &mut Rng) -> common::Result<Vec<Literal>> {
    let b = Literal::from_vec(&[10], vec![0f32; 10])?;
    Ok(vec![rng.glorot_uniform(&[64, 10])?, b])
}

#[allow(dead_code)]
fn main() -> std::process::ExitCode {
    let defaults = TrainArgs {
        epochs: 10,
        learning_rate: 0.01,
        plot: Some("logistic_regression.png".into()),
        ..TrainArgs::default()
    };
    let args = common::args(
        &defaults,
        "Softmax regression on the UCI digits, 80/20 split",
    );
    common::exit_code((|| {
        let (train, test) = common::digits(&args)?;
        let model = common::Plain::new(&["w", "b"], init, loss::value_and_grad::run, predict::run);
        let title = "softmax regression on the UCI digits";
        common::train_and_report(&model, &args, (&train, &test), title)
    })())
}
