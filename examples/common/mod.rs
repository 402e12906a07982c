//! What the training examples share: the command line (clap), running a gradient
//! computation, and turning errors into a message and an exit code.
#![allow(dead_code)] // each example uses a different part

use clap::{Args, CommandFactory, FromArgMatches};
use std::path::PathBuf;
use std::process::ExitCode;
use xla::train::TrainArgs;
use xla::Literal;

/// The error type of the examples.
pub type Error = Box<dyn std::error::Error + Send + Sync>;
/// The result type of the examples.
pub type Result<T> = std::result::Result<T, Error>;

/// The options every training example takes. Defaults come from the example's
/// [`TrainArgs`] (see [`parse`]), so `--help` shows the example's own values.
#[derive(Args, Debug, Clone)]
pub struct Common {
    /// Epochs to train
    #[arg(long, value_name = "N")]
    pub epochs: Option<usize>,
    /// Learning rate
    #[arg(long, value_name = "X")]
    pub lr: Option<f64>,
    /// Seed of the 80/20 split, the shuffles and the initial weights
    #[arg(long, value_name = "N")]
    pub seed: Option<u64>,
    /// Use only the first N training samples (quick runs)
    #[arg(long, value_name = "N")]
    pub limit: Option<usize>,
    /// Save the parameters (safetensors) there after every epoch
    #[arg(long, value_name = "FILE")]
    pub checkpoint: Option<PathBuf>,
    /// Continue from --checkpoint FILE if it exists
    #[arg(long, requires = "checkpoint")]
    pub resume: bool,
    /// Draw the loss and accuracy curves to this PNG
    #[arg(long, value_name = "FILE.png")]
    pub plot: Option<PathBuf>,
    /// No progress output (the final line is still printed)
    #[arg(long, short)]
    pub quiet: bool,
}

impl Common {
    /// These options over `defaults`.
    pub fn over(&self, defaults: &TrainArgs) -> TrainArgs {
        TrainArgs {
            epochs: self.epochs.unwrap_or(defaults.epochs),
            learning_rate: self.lr.unwrap_or(defaults.learning_rate),
            seed: self.seed.unwrap_or(defaults.seed),
            limit: self.limit.or(defaults.limit),
            checkpoint: self.checkpoint.clone().or_else(|| defaults.checkpoint.clone()),
            resume: self.resume,
            plot: self.plot.clone().or_else(|| defaults.plot.clone()),
            quiet: self.quiet,
            ..defaults.clone()
        }
    }
}

/// Parses `args` (the program name first) into the example's clap struct `A`, showing the
/// example's `defaults` in `--help`. Exits on `--help` and on a bad argument, as clap does.
pub fn parse<A: CommandFactory + FromArgMatches>(
    defaults: &TrainArgs,
    args: impl IntoIterator<Item = String>,
) -> A {
    // clap keeps `&'static str` defaults; these few strings live as long as the process.
    let show = |v: String| {
        let v: &'static str = Box::leak(v.into_boxed_str());
        move |a: clap::Arg| a.default_value(v)
    };
    let mut cmd = A::command()
        .mut_arg("epochs", show(defaults.epochs.to_string()))
        .mut_arg("lr", show(defaults.learning_rate.to_string()))
        .mut_arg("seed", show(defaults.seed.to_string()));
    if let Some(plot) = &defaults.plot {
        cmd = cmd.mut_arg("plot", show(plot.display().to_string()));
    }
    let matches = cmd.get_matches_from(args);
    A::from_arg_matches(&matches).unwrap_or_else(|e| e.exit())
}

/// Runs a `(value, grad...)` executable on `args`: the loss (checked to be finite) and the
/// gradients. `at` says where in the run this happened, for the NaN message.
///
/// # Errors
/// If the executable fails, its result is not a tuple of a scalar and gradients, or the
/// loss is NaN or infinite.
pub fn value_and_grad(
    exe: &xla::cpu::Executable,
    args: &[Literal],
    at: impl FnOnce() -> String,
) -> Result<(f64, Vec<Literal>)> {
    let mut parts = exe.execute(args)?.decompose_tuple()?;
    if parts.is_empty() {
        return Err("value_and_grad: empty result tuple".into());
    }
    let grads = parts.split_off(1);
    let loss = parts[0].get_as_f64(&[])?;
    check_finite(loss, at)?;
    Ok((loss, grads))
}

/// An error naming where the loss stopped being a number.
///
/// # Errors
/// If `loss` is NaN or infinite.
pub fn check_finite(loss: f64, at: impl FnOnce() -> String) -> Result<()> {
    if loss.is_finite() {
        Ok(())
    } else {
        Err(format!(
            "the loss is {loss} at {}: training diverged (try a smaller --lr); \
             the last checkpoint, if any, is the one of the previous epoch",
            at()
        )
        .into())
    }
}

/// `main`'s tail: prints the error (with its causes) to stderr and exits with status 1.
pub fn exit_code(result: Result<()>) -> ExitCode {
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            let mut msg = format!("error: {e}");
            let mut source = e.source();
            while let Some(s) = source {
                msg.push_str(&format!("\n  caused by: {s}"));
                source = s.source();
            }
            eprintln!("{msg}");
            ExitCode::FAILURE
        }
    }
}
