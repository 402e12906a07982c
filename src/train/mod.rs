//! Everything around a model that training it end to end needs, so the examples stay short:
//!
//! - data: [`Digits`] (the UCI digits, compiled in), [`Mnist`] and the [`idx`] reader, a
//!   [`Dataset`] with a deterministic [`Dataset::split`], batches shuffled per epoch
//!   ([`Order::epoch`]), [`Standardizer`], and [`Rng`] (seeded PCG32, weight initialisers);
//! - [`checkpoint`]: named literals and the epoch/step in a safetensors file, written
//!   atomically and checked against the model's shapes when loaded;
//! - [`metrics`]: argmax, accuracy, softmax cross-entropy on the host;
//! - [`Progress`] (bar / lines / quiet), [`Clock`], [`TrainLog`] and its PNG plot.
//!
//! ```no_run
//! use xla::train::{metrics, save_checkpoint, Digits, Order, Progress, ProgressMode, Rng, TrainState};
//!
//! let (train, test) = Digits::embedded()?.split(0.8, 0)?;
//! let mut rng = Rng::new(0);
//! let w = rng.glorot_uniform(&[64, 10])?;
//! let epochs = 10;
//! let batches = train.batches(32, Order::Sequential)?.count_total();
//! let mut progress = Progress::new(epochs, batches, ProgressMode::auto(false));
//! for epoch in 0..epochs {
//!     for batch in train.batches(32, Order::epoch(0, epoch))? {
//!         let (x, y) = (batch.features_literal()?, batch.one_hot_literal()?);
//!         let loss = 0.0; // run the model's training step on (w, x, y) here
//!         progress.step(loss, batch.len());
//!     }
//!     let logits = test.features_literal()?; // the model's logits on the test set
//!     let test_acc = metrics::accuracy_from_logits(&logits, test.labels()).ok();
//!     progress.end_epoch(None, test_acc);
//! }
//! let (log, _summary) = progress.finish();
//! log.save_plot("training.png", "logistic regression on digits")?;
//! save_checkpoint("model.safetensors", &[("w", &w)], TrainState { epoch: 10, step: log.step() })?;
//! # Ok::<(), xla::train::TrainError>(())
//! ```

pub mod checkpoint;
pub mod data;
pub mod digits;
mod error;
mod fsutil;
pub mod idx;
pub mod log;
pub mod metrics;
pub mod plot;
pub mod progress;
pub mod rng;

pub use checkpoint::{load_checkpoint, save_checkpoint, Checkpoint, TrainState};
pub use data::{Batches, Dataset, Order, Standardizer};
pub use digits::{Digits, DIGIT_MAX_PIXEL, DIGIT_PIXELS};
pub use error::{Result, TrainError};
pub use idx::Mnist;
pub use log::{EpochRecord, TrainLog};
pub use progress::{format_duration, Clock, Progress, ProgressMode};
pub use rng::Rng;
