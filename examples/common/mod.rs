//! What the training examples share: the command line (clap), running a gradient
//! computation, and turning errors into a message and an exit code.
#![allow(dead_code)] // each example uses a different part

pub mod cnn;
pub mod dp;

use clap::{Args, CommandFactory, FromArgMatches};
use std::path::PathBuf;
use std::process::ExitCode;
use xla::train::metrics::{self, argmax_literal};
use xla::train::optim::Adam;
use xla::train::tree;
use xla::train::{Dataset, Digits, Order, Progress, ProgressMode, Rng, Standardizer};
use xla::train::{TrainArgs, TrainLog};
use xla::{Literal, Shape};

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
            checkpoint: self
                .checkpoint
                .clone()
                .or_else(|| defaults.checkpoint.clone()),
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
    parse_with(defaults, args, |c| c)
}

/// [`parse`], with `edit` applied to the command first.
fn parse_with<A: CommandFactory + FromArgMatches>(
    defaults: &TrainArgs,
    args: impl IntoIterator<Item = String>,
    edit: impl FnOnce(clap::Command) -> clap::Command,
) -> A {
    // Training runs the same executables thousands of times: keep freed memory for reuse.
    xla::cpu::retain_freed_memory();
    // clap keeps `&'static str` defaults; these few strings live as long as the process.
    let show = |v: String| {
        let v: &'static str = Box::leak(v.into_boxed_str());
        move |a: clap::Arg| a.default_value(v)
    };
    let mut cmd = edit(A::command())
        .mut_arg("epochs", show(defaults.epochs.to_string()))
        .mut_arg("lr", show(defaults.learning_rate.to_string()))
        .mut_arg("seed", show(defaults.seed.to_string()));
    if let Some(plot) = &defaults.plot {
        cmd = cmd.mut_arg("plot", show(plot.display().to_string()));
    }
    let matches = cmd.get_matches_from(args);
    A::from_arg_matches(&matches).unwrap_or_else(|e| e.exit())
}

/// The command line of an example without options of its own.
#[derive(clap::Parser, Debug)]
struct Cli {
    #[command(flatten)]
    common: Common,
}

/// Parses the process's arguments into [`TrainArgs`] over `defaults`, with `about` as
/// the `--help` text's first line. Exits on `--help` and on a bad argument.
pub fn args(defaults: &TrainArgs, about: &'static str) -> TrainArgs {
    let cli: Cli = parse_with(defaults, std::env::args(), |c| c.about(about));
    cli.common.over(defaults)
}

/// A computation's `run` (`predict::run`, `loss::value_and_grad::run`, ...).
pub type Run = fn(&[Literal]) -> Result<Literal>;

/// Runs a `loss::value_and_grad` computation (`#[computation(grad(...))]`) on `args`: the
/// value and the gradients.
///
/// # Errors
/// If the computation fails or its result is not a tuple of a scalar and gradients.
pub fn value_and_grad(run: Run, args: &[Literal]) -> Result<(f64, Vec<Literal>)> {
    let mut parts = run(args)?.decompose_tuple()?;
    if parts.is_empty() {
        return Err("value_and_grad: empty result tuple".into());
    }
    let grads = parts.split_off(1);
    Ok((parts[0].get_as_f64(&[])?, grads))
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

/// A classifier trained by [`fit`]: its state is the trainable parameters followed by any
/// other state (batch-norm running statistics), all saved in the checkpoint. A state literal
/// may be a tuple (a model's per-layer parameters): the checkpoint holds its array leaves,
/// depth first ([`xla::train::tree`]), one name each.
pub trait Classifier {
    /// The training batch size. Its computations are generic over the batch size:
    /// evaluation runs the data at its own size (chunks of [`EVAL_CHUNK`], no padding).
    const BATCH: usize;
    /// The names of the state's leaves, depth first, trainable ones first (checkpoint names).
    fn names(&self) -> &[&'static str];
    /// How many leading literals of the state (arrays or tuples of them) the optimiser updates.
    fn trainable(&self) -> usize;
    /// The initial state.
    ///
    /// # Errors
    /// If a literal cannot be built.
    fn init(&self, seed: u64) -> Result<Vec<Literal>>;
    /// One training step on a batch: the loss and the gradients of the trainable tensors;
    /// may update the other state (running statistics) in place.
    ///
    /// # Errors
    /// If a computation fails.
    fn step(&self, state: &mut [Literal], x: Literal, y: Literal) -> Result<(f64, Vec<Literal>)>;
    /// The logits of a batch, `f32[BATCH, classes]`.
    ///
    /// # Errors
    /// If the computation fails.
    fn logits(&self, state: &[Literal], x: Literal) -> Result<Literal>;
}

/// [`TrainArgs::resume_checkpoint`], its error naming the file.
///
/// # Errors
/// The checkpoint cannot be read or does not match `expected`.
pub fn resume(
    args: &TrainArgs,
    expected: &[(&str, &Shape)],
) -> Result<Option<(Vec<Literal>, TrainLog)>> {
    args.resume_checkpoint(expected).map_err(|e| {
        let file = args
            .checkpoint
            .as_ref()
            .map_or(String::new(), |p| p.display().to_string());
        format!("--resume from {file}: {e}").into()
    })
}

/// The largest number of samples one evaluation call takes (each size is instantiated once).
pub const EVAL_CHUNK: usize = 1000;

/// The predicted class of every sample of `data`, in chunks of [`EVAL_CHUNK`] (the last at
/// whatever size is left).
///
/// # Errors
/// If a computation fails.
pub fn predictions<M: Classifier>(
    model: &M,
    state: &[Literal],
    data: &Dataset,
) -> Result<Vec<usize>> {
    let mut out = Vec::with_capacity(data.len());
    let indices: Vec<usize> = (0..data.len()).collect();
    for chunk in indices.chunks(EVAL_CHUNK) {
        let logits = model.logits(state, data.subset(chunk)?.features_literal()?)?;
        out.extend(argmax_literal(&logits)?);
    }
    Ok(out)
}

/// Accuracy of `state` on `data`, in percent.
///
/// # Errors
/// If a computation fails.
pub fn accuracy<M: Classifier>(model: &M, state: &[Literal], data: &Dataset) -> Result<f64> {
    Ok(metrics::accuracy(
        &predictions(model, state, data)?,
        data.labels(),
    )?)
}

/// Trains `model` on `train` with Adam as `args` says (resuming from and saving to
/// `--checkpoint`), measuring the accuracy on both (in test mode) after every epoch; returns the state and the log.
/// With `--plot`, draws the curves titled `title`.
///
/// # Errors
/// A checkpoint that does not match the model, a failing computation, a NaN loss.
pub fn fit<M: Classifier>(
    model: &M,
    args: &TrainArgs,
    (train, test): (&Dataset, &Dataset),
    title: &str,
) -> Result<(Vec<Literal>, TrainLog)> {
    let mut state = model.init(args.seed)?;
    let shapes: Vec<Shape> = tree::leaves(&state)
        .into_iter()
        .map(|(_, p)| p.shape().clone())
        .collect();
    let names = model.names();
    let expected: Vec<(&str, &Shape)> = names.iter().copied().zip(&shapes).collect();
    let mut log = TrainLog::default();
    if let Some((loaded, saved)) = resume(args, &expected)? {
        (state, log) = (tree::unflatten_like(&state, loaded)?, saved);
    }
    let mut adam = Adam::new(args.learning_rate);
    let steps = train.batches(M::BATCH, Order::Sequential)?.count_total();
    let first = log.epoch();
    let mode = ProgressMode::auto(args.quiet);
    let mut progress = Progress::new(args.epochs, steps, mode).resume(log);
    for epoch in first..args.epochs {
        for batch in train.batches(M::BATCH, Order::epoch(args.seed, epoch))? {
            let (x, y) = (batch.features_literal()?, batch.one_hot_literal()?);
            let (loss, grads) = model.step(&mut state, x, y)?;
            let at = || format!("epoch {} step {}", epoch + 1, progress.log().step() + 1);
            check_finite(loss, at)?;
            adam.step(&mut state[..model.trainable()], &grads)?;
            progress.step(loss, batch.len());
        }
        let train_accuracy = accuracy(model, &state, train)?;
        let test_accuracy = accuracy(model, &state, test)?;
        progress.end_epoch(Some(train_accuracy), Some(test_accuracy));
        let leaves = tree::leaves(&state).into_iter().map(|(_, l)| l);
        let named: Vec<(&str, &Literal)> = names.iter().copied().zip(leaves).collect();
        args.save_checkpoint(&named, progress.log())?;
    }
    let (log, _summary) = progress.finish();
    if let Some(path) = &args.plot {
        log.save_plot(path, title)?;
    }
    Ok((state, log))
}

/// Trains `model` for the first `steps` batches of epoch 0 of `train` (Adam at
/// `args.learning_rate`, initial state from `args.seed`), no evaluation; returns each step's
/// loss and the final state. `cnn_digits --steps K` prints these losses, to compare backends.
///
/// # Errors
/// A failing computation, a NaN loss.
pub fn train_steps<M: Classifier>(
    model: &M,
    args: &TrainArgs,
    train: &Dataset,
    steps: usize,
) -> Result<(Vec<f64>, Vec<Literal>)> {
    let mut state = model.init(args.seed)?;
    let mut adam = Adam::new(args.learning_rate);
    let mut losses = Vec::with_capacity(steps);
    for batch in train
        .batches(M::BATCH, Order::epoch(args.seed, 0))?
        .take(steps)
    {
        let (x, y) = (batch.features_literal()?, batch.one_hot_literal()?);
        let (loss, grads) = model.step(&mut state, x, y)?;
        check_finite(loss, || format!("step {}", losses.len() + 1))?;
        adam.step(&mut state[..model.trainable()], &grads)?;
        losses.push(loss);
    }
    Ok((losses, state))
}

/// A classifier whose state is trained whole: `value_and_grad` runs the gradient of
/// `loss(state..., x, y)` w.r.t. every state tensor (`loss::value_and_grad::run` of a
/// `#[computation(grad(...))]`), `predict` runs `predict(state..., x)`; both generic over
/// the batch size.
pub struct Plain {
    /// The state's tensor names (checkpoint names).
    pub names: &'static [&'static str],
    /// The initial state from a seeded generator.
    pub init: fn(&mut Rng) -> Result<Vec<Literal>>,
    /// `(loss, grads...)` of the loss.
    pub value_and_grad: Run,
    /// The logits.
    pub predict: Run,
}

impl Plain {
    /// The model of `names`, `init` and the two computations.
    pub fn new(
        names: &'static [&'static str],
        init: fn(&mut Rng) -> Result<Vec<Literal>>,
        value_and_grad: Run,
        predict: Run,
    ) -> Plain {
        Plain {
            names,
            init,
            value_and_grad,
            predict,
        }
    }
}

impl Classifier for Plain {
    const BATCH: usize = 32;

    fn names(&self) -> &[&'static str] {
        self.names
    }

    fn trainable(&self) -> usize {
        self.names.len()
    }

    fn init(&self, seed: u64) -> Result<Vec<Literal>> {
        (self.init)(&mut Rng::new(seed))
    }

    fn step(&self, state: &mut [Literal], x: Literal, y: Literal) -> Result<(f64, Vec<Literal>)> {
        let mut args = state.to_vec();
        args.extend([x, y]);
        value_and_grad(self.value_and_grad, &args)
    }

    fn logits(&self, state: &[Literal], x: Literal) -> Result<Literal> {
        let mut args = state.to_vec();
        args.push(x);
        (self.predict)(&args)
    }
}

/// The UCI digits split 80/20 with `args.seed`, the training part cut to `--limit`, both
/// standardised with the training part's statistics.
///
/// # Errors
/// Never for the embedded data (kept for the loader's checks).
pub fn digits(args: &TrainArgs) -> Result<(Dataset, Dataset)> {
    let (train, test) = Digits::embedded()?.split(0.8, args.seed)?;
    let train = args.limit.map_or(train.clone(), |n| train.take(n));
    let scale = Standardizer::fit(&train);
    Ok((scale.apply(train)?, scale.apply(test)?))
}

/// Trains `model` as [`fit`] does and prints the final `test accuracy 98.3%` line.
///
/// # Errors
/// As [`fit`].
pub fn train_and_report<M: Classifier>(
    model: &M,
    args: &TrainArgs,
    data: (&Dataset, &Dataset),
    title: &str,
) -> Result<()> {
    let (state, _) = fit(model, args, data, title)?;
    println!("test accuracy {:.1}%", accuracy(model, &state, data.1)?);
    Ok(())
}

/// A convolution kernel `f32[out, inp, 3, 3]` (OIHW), Glorot-uniform over its fans.
///
/// # Errors
/// Never for positive sizes.
pub fn conv_kernel(rng: &mut Rng, out: i64, inp: i64) -> Result<Literal> {
    // glorot_uniform reads the fans from HWIO dims; the same numbers laid out OIHW.
    Ok(rng
        .glorot_uniform(&[3, 3, inp, out])?
        .into_reshaped(&[out, inp, 3, 3])?)
}

/// How much of the running statistics each batch replaces.
pub const STATS_RATE: f32 = 0.1;

/// A network with batch norms: its state is the trainable parameters (tensors, or tuples
/// of them such as the CNN's per-layer tuples), then one running mean and variance per
/// batch norm. Each step runs `stats(trainable..., x)` for the batch's means and variances
/// (a tuple in the order of the running statistics) and moves the running statistics
/// towards them; `predict(state..., x)` uses them at test time.
pub struct BatchNormNet {
    inner: Plain,
    trainable: usize,
    stats: Run,
}

impl BatchNormNet {
    /// The model of a `loss(trainable..., x, y)` computation: `value_and_grad` is its
    /// gradient w.r.t. the `trainable` leading parameters (each gradient of its
    /// parameter's structure); `names` name the state's leaves.
    pub fn new(
        names: &'static [&'static str],
        trainable: usize,
        init: fn(&mut Rng) -> Result<Vec<Literal>>,
        value_and_grad: Run,
        stats: Run,
        predict: Run,
    ) -> BatchNormNet {
        let inner = Plain {
            names,
            init,
            value_and_grad,
            predict,
        };
        BatchNormNet {
            inner,
            trainable,
            stats,
        }
    }
}

impl Classifier for BatchNormNet {
    const BATCH: usize = 32;

    fn names(&self) -> &[&'static str] {
        self.inner.names
    }

    fn trainable(&self) -> usize {
        self.trainable
    }

    fn init(&self, seed: u64) -> Result<Vec<Literal>> {
        self.inner.init(seed)
    }

    fn step(&self, state: &mut [Literal], x: Literal, y: Literal) -> Result<(f64, Vec<Literal>)> {
        let (trained, running) = state.split_at_mut(self.trainable);
        let mut args = trained.to_vec();
        args.push(x.clone());
        let batch = (self.stats)(&args)?.decompose_tuple()?;
        update_running(running, &batch)?;
        self.inner.step(trained, x, y)
    }

    fn logits(&self, state: &[Literal], x: Literal) -> Result<Literal> {
        self.inner.logits(state, x)
    }
}

/// Moves the running statistics towards a batch's (by [`STATS_RATE`]).
///
/// # Errors
/// If the batch has another number of tensors, or they are not `f32`.
pub fn update_running(running: &mut [Literal], batch: &[Literal]) -> Result<()> {
    if batch.len() != running.len() {
        return Err(format!(
            "batch statistics: {} tensors for {} running ones",
            batch.len(),
            running.len()
        )
        .into());
    }
    for (running, batch) in running.iter_mut().zip(batch) {
        let running = running.typed_data_mut::<f32>()?;
        for (r, b) in running.iter_mut().zip(batch.typed_data::<f32>()?) {
            *r += STATS_RATE * (b - *r);
        }
    }
    Ok(())
}
