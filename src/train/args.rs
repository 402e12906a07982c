//! The command-line options the training examples share, parsed without a dependency:
//! `--epochs N --batch-size N --lr X --seed N --limit N --data PATH --checkpoint FILE
//! --resume --plot FILE.png --quiet` (also as `--name=value`).
//!
//! ```
//! use xla::train::TrainArgs;
//!
//! let defaults = TrainArgs { epochs: 20, learning_rate: 0.1, ..TrainArgs::default() };
//! let args: Vec<String> = ["--epochs", "3", "--lr=0.5", "--quiet"].map(String::from).into();
//! let a = defaults.parse(args)?.expect("not --help");
//! assert_eq!((a.epochs, a.learning_rate, a.quiet, a.batch_size), (3, 0.5, true, 32));
//! # Ok::<(), xla::train::TrainError>(())
//! ```

use super::checkpoint::{Checkpoint, TrainState};
use super::error::{Result, TrainError};
use super::log::TrainLog;
use std::path::PathBuf;
use std::str::FromStr;
use xla_core::{Literal, Shape};

/// The checkpoint metadata key holding the training log as CSV.
const LOG_KEY: &str = "train_log";

/// Options of a training run. `Default` gives 10 epochs, batch 32, learning rate 0.01,
/// seed 0 and nothing else set; an example states its own defaults with struct update
/// syntax and calls [`TrainArgs::from_env`].
#[derive(Clone, Debug, PartialEq)]
pub struct TrainArgs {
    /// `--epochs N`: epochs to train.
    pub epochs: usize,
    /// `--batch-size N`: samples per step.
    pub batch_size: usize,
    /// `--lr X` (or `--learning-rate X`): step size.
    pub learning_rate: f64,
    /// `--seed N`: seed of the split, shuffles and initial weights.
    pub seed: u64,
    /// `--limit N`: use only the first N training samples (quick runs, smoke tests).
    pub limit: Option<usize>,
    /// `--data PATH`: where the data set is (MNIST directory, digits CSV).
    pub data: Option<PathBuf>,
    /// `--checkpoint FILE`: save the parameters there after every epoch.
    pub checkpoint: Option<PathBuf>,
    /// `--resume`: start from `--checkpoint FILE` when it exists.
    pub resume: bool,
    /// `--plot FILE.png`: draw the loss and accuracy curves there at the end.
    pub plot: Option<PathBuf>,
    /// `--quiet`: no progress output.
    pub quiet: bool,
}

impl Default for TrainArgs {
    fn default() -> TrainArgs {
        TrainArgs {
            epochs: 10,
            batch_size: 32,
            learning_rate: 0.01,
            seed: 0,
            limit: None,
            data: None,
            checkpoint: None,
            resume: false,
            plot: None,
            quiet: false,
        }
    }
}

/// Parses the value of `--name`.
fn value<T: FromStr>(name: &str, v: Option<String>) -> Result<T> {
    let v = v.ok_or_else(|| bad(format!("--{name} needs a value")))?;
    v.parse()
        .map_err(|_| bad(format!("--{name}: `{v}` is not a valid value")))
}

fn bad(reason: String) -> TrainError {
    TrainError::invalid("arguments", reason)
}

impl TrainArgs {
    /// Parses `args` (without the program name) over these defaults; `Ok(None)` for
    /// `--help`/`-h`.
    ///
    /// # Errors
    /// An unknown option, a missing or invalid value, a zero batch size, or `--resume`
    /// without `--checkpoint`.
    pub fn parse(&self, args: impl IntoIterator<Item = String>) -> Result<Option<TrainArgs>> {
        let mut out = self.clone();
        let mut args = args.into_iter();
        while let Some(arg) = args.next() {
            let (name, inline) = match arg.split_once('=') {
                Some((n, v)) if n.starts_with("--") => (n.to_string(), Some(v.to_string())),
                _ => (arg.clone(), None),
            };
            let is_flag = matches!(
                name.as_str(),
                "-h" | "--help" | "--resume" | "--quiet" | "-q"
            );
            if is_flag && inline.is_some() {
                return Err(bad(format!("{name} takes no value")));
            }
            let mut val = || inline.clone().or_else(|| args.next());
            match name.as_str() {
                "-h" | "--help" => return Ok(None),
                "--epochs" => out.epochs = value("epochs", val())?,
                "--batch-size" => out.batch_size = value("batch-size", val())?,
                "--lr" | "--learning-rate" => out.learning_rate = value("lr", val())?,
                "--seed" => out.seed = value("seed", val())?,
                "--limit" => out.limit = Some(value("limit", val())?),
                "--data" => out.data = Some(value("data", val())?),
                "--checkpoint" => out.checkpoint = Some(value("checkpoint", val())?),
                "--plot" => out.plot = Some(value("plot", val())?),
                "--resume" => out.resume = true,
                "--quiet" | "-q" => out.quiet = true,
                other => return Err(bad(format!("unknown option `{other}` (see --help)"))),
            }
        }
        if out.batch_size == 0 {
            return Err(bad("--batch-size must be at least 1".into()));
        }
        if out.resume && out.checkpoint.is_none() {
            return Err(bad("--resume needs --checkpoint FILE".into()));
        }
        Ok(Some(out))
    }

    /// The help text: `about`, then every option with these defaults.
    pub fn usage(&self, about: &str) -> String {
        let opt = |p: &Option<PathBuf>| {
            p.as_ref()
                .map_or("none".into(), |p| p.display().to_string())
        };
        format!(
            "{about}\n\nOptions:\n  --epochs N          epochs to train [{}]\n  --batch-size N      samples per step [{}]\n  --lr X              learning rate [{}]\n  --seed N            seed of split, shuffles, initial weights [{}]\n  --limit N           use only the first N training samples [{}]\n  --data PATH         data set location [{}]\n  --checkpoint FILE   save parameters (safetensors) after every epoch [{}]\n  --resume            continue from --checkpoint FILE if it exists\n  --plot FILE.png     draw loss and accuracy curves [{}]\n  --quiet, -q         no progress output\n  --help, -h          this text\n",
            self.epochs,
            self.batch_size,
            self.learning_rate,
            self.seed,
            self.limit.map_or("all".into(), |l| l.to_string()),
            opt(&self.data),
            opt(&self.checkpoint),
            opt(&self.plot),
        )
    }

    /// With `--resume` and an existing `--checkpoint` file: the parameters `expected` names
    /// (checked against their shapes) and the training log to continue (the one saved by
    /// [`TrainArgs::save_checkpoint`], or an empty log at the file's epoch and step). `None`
    /// otherwise.
    ///
    /// # Errors
    /// As [`Checkpoint::load`] and [`Checkpoint::take_expected`]; a damaged saved log.
    pub fn resume_checkpoint(
        &self,
        expected: &[(&str, &Shape)],
    ) -> Result<Option<(Vec<Literal>, TrainLog)>> {
        let path = match (&self.checkpoint, self.resume) {
            (Some(path), true) if path.exists() => path,
            _ => return Ok(None),
        };
        let mut ckpt = Checkpoint::load(path)?;
        let params = ckpt.take_expected(expected)?;
        let log = match ckpt.metadata.get(LOG_KEY) {
            Some(csv) => {
                TrainLog::from_csv(csv, &format!("{} (metadata {LOG_KEY})", path.display()))?
            }
            None => TrainLog::resumed(ckpt.state.epoch as usize, ckpt.state.step),
        };
        Ok(Some((params, log)))
    }

    /// Saves `tensors`, the epoch and step of `log`, and `log` itself (so a resumed run
    /// plots its whole history) to the `--checkpoint` file, if one was given.
    ///
    /// # Errors
    /// As [`Checkpoint::new`] and [`Checkpoint::save`].
    pub fn save_checkpoint(&self, tensors: &[(&str, &Literal)], log: &TrainLog) -> Result<()> {
        let Some(path) = &self.checkpoint else {
            return Ok(());
        };
        let state = TrainState {
            epoch: log.epoch() as u64,
            step: log.step(),
        };
        let mut ckpt = Checkpoint::new(tensors, state)?;
        ckpt.metadata.insert(LOG_KEY.into(), log.to_csv());
        ckpt.save(path)
    }

    /// Parses the process's arguments over these defaults. For use in `main`: prints the
    /// usage and exits with status 0 on `--help`, or prints the error and the usage to
    /// stderr and exits with status 2 on a bad argument.
    pub fn from_env(&self, about: &str) -> TrainArgs {
        match self.parse(std::env::args().skip(1)) {
            Ok(Some(args)) => args,
            Ok(None) => {
                print!("{}", self.usage(about));
                std::process::exit(0)
            }
            Err(e) => {
                eprintln!("error: {e}\n\n{}", self.usage(about));
                std::process::exit(2)
            }
        }
    }
}
