//! A small convolutional network on the UCI handwritten digits (8×8 images, compiled into
//! the crate), fixed 80/20 split:
//!
//! `conv 3×3 (16) → batch norm → ReLU → max-pool 2×2 → conv 3×3 (32) → batch norm → ReLU →
//! max-pool 2×2 → dense (128 → 10)`.
//!
//! The network is `common/cnn.rs`, one definition generic over the batch and image size,
//! shared with `mnist`; the test set is evaluated at its own size.
//!
//! Batch norm normalises with the batch's statistics while training
//! (`batch-norm-training`) and with running averages of them at test time
//! (`batch-norm-inference`); the running statistics are saved in the checkpoint with the
//! weights.
//!
//! ```sh
//! cargo run --release --example cnn_digits
//! cargo run --release --example cnn_digits -- --replicas 2   # data-parallel, 2 threads
//! cargo run --release --example cnn_digits -- --replicas 2 --steps 3   # 3 steps' losses
//! ```
//!
//! With `--replicas N`, each batch of 32 is split over `N` devices (one thread each), with
//! synchronised batch norm and the gradients averaged by an all-reduce inside the step
//! (`common/dp.rs`); the loss curve is the single-device one up to float rounding.

pub mod common;

use common::{BatchNormNet, Result};
use xla::train::{Dataset, Rng, TrainArgs};
use xla::Literal;

/// The initial state at 8×8: the dense layer takes 32·2·2 = 128 features.
pub fn init(rng: &mut Rng) -> Result<Vec<Literal>> {
    common::cnn::init(rng, 128)
}

/// The model: the CNN of `common/cnn.rs` (generic over the image size), at 8×8.
pub fn model() -> BatchNormNet {
    common::cnn::model(init)
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
    let (train, test) = common::digits(args)?;
    Ok((train.reshaped(&[1, 8, 8])?, test.reshaped(&[1, 8, 8])?))
}

/// The model on `replicas` thread devices (data-parallel).
///
/// # Errors
/// Never on threads (kept for the MPI backend's rank check).
pub fn data_parallel(replicas: usize) -> Result<common::dp::DataParallel> {
    common::dp::DataParallel::new(model(), replicas, common::dp::Backend::Threads)
}

/// The command line: the common options, `--replicas` and `--backend`.
#[derive(clap::Parser, Debug)]
#[command(about = "A CNN (conv-BN-ReLU-pool x2, dense) on the UCI digits, 80/20 split")]
struct Cli {
    #[command(flatten)]
    common: common::Common,
    /// Train data-parallel on N devices: each batch split N ways, batch norm over the
    /// global batch, gradients averaged by an all-reduce
    #[arg(long, value_name = "N", default_value_t = 1)]
    replicas: usize,
    /// Where the replicas run: `threads`, or `mpi` (one per rank, under
    /// `mpirun -np N`; needs the `mpi` feature)
    #[arg(long, default_value = "threads")]
    backend: String,
    /// Train only the first K batches of the first epoch and print each step's loss (with
    /// its f64 bits, to compare backends), no evaluation
    #[arg(long, value_name = "K")]
    steps: Option<usize>,
}

/// `--steps K`: trains K steps and prints `step I loss VALUE bits HEX` (rank 0 only).
fn print_steps<M: common::Classifier>(
    model: &M,
    args: &TrainArgs,
    train: &Dataset,
    steps: usize,
    rank: usize,
) -> Result<()> {
    let (losses, _) = common::train_steps(model, args, train, steps)?;
    if rank == 0 {
        for (i, loss) in losses.iter().enumerate() {
            println!("step {} loss {loss:.9} bits {:016x}", i + 1, loss.to_bits());
        }
    }
    Ok(())
}

/// The backend `--backend` names.
fn backend(name: &str) -> Result<common::dp::Backend> {
    match name {
        "threads" => Ok(common::dp::Backend::Threads),
        #[cfg(feature = "mpi")]
        "mpi" => {
            let timeout = xla::cpu::devices::ReplicaOptions::default().timeout;
            Ok(common::dp::Backend::Mpi(
                xla::cpu::devices::mpi::MpiWorld::initialize(timeout)?,
            ))
        }
        #[cfg(not(feature = "mpi"))]
        "mpi" => Err("--backend mpi: built without MPI (cargo build --release --features mpi --example cnn_digits)".into()),
        other => Err(format!("--backend {other}: expected `threads` or `mpi`").into()),
    }
}

#[allow(dead_code)]
fn main() -> std::process::ExitCode {
    let cli: Cli = common::parse(&defaults(), std::env::args());
    let mut args = cli.common.over(&defaults());
    common::exit_code((|| {
        let (train, test) = data(&args)?;
        let title = "CNN on the UCI digits";
        if cli.replicas <= 1 && cli.backend == "threads" {
            if let Some(steps) = cli.steps {
                return print_steps(&model(), &args, &train, steps, 0);
            }
            return common::train_and_report(&model(), &args, (&train, &test), title);
        }
        let backend = backend(&cli.backend)?;
        if let Some(steps) = cli.steps {
            let rank = backend.rank();
            let model = common::dp::DataParallel::new(model(), cli.replicas, backend)?;
            return print_steps(&model, &args, &train, steps, rank);
        }
        if backend.rank() != 0 {
            // Every rank trains the same weights; rank 0 alone prints and writes.
            (args.quiet, args.plot, args.checkpoint) = (true, None, None);
            let model = common::dp::DataParallel::new(model(), cli.replicas, backend)?;
            return common::fit(&model, &args, (&train, &test), title).map(|_| ());
        }
        let model = common::dp::DataParallel::new(model(), cli.replicas, backend)?;
        common::train_and_report(&model, &args, (&train, &test), title)
    })())
}
