//! The CNN of `cnn_digits` on MNIST (28×28 images): `conv 3×3 (16) → batch norm → ReLU →
//! max-pool 2×2 → conv 3×3 (32) → batch norm → ReLU → max-pool 2×2 → dense (1568 → 10)`,
//! trained on the 60,000 training images and tested on the 10,000 test images. The network
//! is `common/cnn.rs`, one definition generic over the batch and image size, shared with
//! `cnn_digits`; the test set is evaluated at its own size (in chunks of 1000).
//!
//! MNIST is not shipped with the crate: pass the directory holding
//! `train-images-idx3-ubyte`, `train-labels-idx1-ubyte`, `t10k-images-idx3-ubyte` and
//! `t10k-labels-idx1-ubyte` (gzipped `.gz` files work too).
//!
//! ```sh
//! cargo run --release --example mnist -- --data ~/data/mnist
//! ```

pub mod common;

use clap::Parser;
use common::{BatchNormNet, Common, Result};
use std::path::PathBuf;
use xla::train::{Dataset, Mnist, Rng, TrainArgs};
use xla::Literal;

/// The initial state at 28×28: the dense layer takes 32·7·7 = 1568 features.
pub fn init(rng: &mut Rng) -> Result<Vec<Literal>> {
    common::cnn::init(rng, 1568)
}

/// The model: the CNN of `common/cnn.rs` (generic over the image size), at 28×28.
pub fn model() -> BatchNormNet {
    common::cnn::model(init)
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
