//! Everything around a model that training it end to end needs, so the examples stay short:
//!
//! - data: [`Digits`] (the UCI digits, compiled in), [`Mnist`] and the [`idx`] reader, a
//!   [`Dataset`] with a deterministic [`Dataset::split`], batches shuffled per epoch
//!   ([`Order::epoch`]), [`Standardizer`], and [`Rng`] (seeded PCG32, weight initialisers);
//! - [`checkpoint`]: named literals and the epoch/step in a safetensors file, written
//!   atomically and checked against the model's shapes when loaded;
//! - [`metrics`]: argmax, accuracy, softmax cross-entropy on the host;
//! - [`optim`]: SGD (with momentum) and Adam applied on the host, for computations that
//!   return gradients;
//! - [`Progress`] (bar / lines / quiet), [`Clock`], [`TrainLog`] and its PNG plot;
//! - [`TrainArgs`]: the shared command line (`--epochs --batch-size --lr --seed --limit
//!   --data --checkpoint --resume --plot --quiet`).
//!
//! The skeleton of a training example (the model's own computations go where the comments
//! say):
//!
//! ```no_run
//! use xla::train::metrics::AccuracyCounter;
//! use xla::train::{Digits, Order, Progress, ProgressMode, Rng, TrainArgs, TrainLog};
//! use xla::{Literal, PrimitiveType, Shape};
//!
//! let args = TrainArgs { epochs: 20, learning_rate: 0.1, ..TrainArgs::default() }
//!     .from_env("logistic regression on the UCI digits");
//! let (train, test) = Digits::embedded()?.split(0.8, args.seed)?;
//! let train = args.limit.map_or(train.clone(), |n| train.take(n));
//!
//! let names = ["w", "b"];
//! let mut rng = Rng::new(args.seed);
//! let mut params = vec![
//!     rng.glorot_uniform(&[64, 10])?,
//!     Literal::zeros(&Shape::array(PrimitiveType::F32, vec![10]))?,
//! ];
//! let shapes: Vec<Shape> = params.iter().map(|p| p.shape().clone()).collect();
//! let expected: Vec<(&str, &Shape)> = names.iter().copied().zip(&shapes).collect();
//! let mut log = TrainLog::default();
//! if let Some((loaded, saved_log)) = args.resume_checkpoint(&expected)? {
//!     (params, log) = (loaded, saved_log);
//! }
//!
//! let steps = train.batches(args.batch_size, Order::Sequential)?.count_total();
//! let first_epoch = log.epoch();
//! let mut progress = Progress::new(args.epochs, steps, ProgressMode::auto(args.quiet)).resume(log);
//! for epoch in first_epoch..args.epochs {
//!     for batch in train.batches(args.batch_size, Order::epoch(args.seed, epoch))? {
//!         let (x, y) = (batch.features_literal()?, batch.one_hot_literal()?);
//!         let loss = 0.0; // (params, loss) = train_step(params, x, y, args.learning_rate)
//!         progress.step(loss, batch.len());
//!     }
//!     let mut acc = AccuracyCounter::default();
//!     for (batch, real) in test.eval_batches(args.batch_size)? {
//!         let logits = batch.one_hot_literal()?; // logits = predict(params, batch.features_literal()?)
//!         acc.add_logits(&logits, batch.labels(), real)?;
//!     }
//!     progress.end_epoch(None, Some(acc.percent()));
//!     let named: Vec<(&str, &Literal)> = names.iter().copied().zip(&params).collect();
//!     args.save_checkpoint(&named, progress.log())?;
//! }
//! let (log, _summary) = progress.finish();
//! if let Some(path) = &args.plot {
//!     log.save_plot(path, "logistic regression on digits")?;
//! }
//! # Ok::<(), xla::train::TrainError>(())
//! ```

pub mod args;
pub mod checkpoint;
pub mod data;
pub mod digits;
mod error;
mod fsutil;
pub mod idx;
pub mod log;
pub mod metrics;
pub mod optim;
pub mod plot;
pub mod progress;
pub mod rng;
pub mod tree;

pub use args::TrainArgs;
pub use checkpoint::{load_checkpoint, save_checkpoint, Checkpoint, TrainState};
pub use data::{Batches, Dataset, Order, Standardizer};
pub use digits::{Digits, DIGIT_MAX_PIXEL, DIGIT_PIXELS};
pub use error::{Result, TrainError};
pub use idx::Mnist;
pub use log::{EpochRecord, TrainLog};
pub use progress::{format_duration, Clock, Progress, ProgressMode};
pub use rng::Rng;
