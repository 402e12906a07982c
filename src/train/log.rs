//! [`TrainLog`]: the losses and accuracies of a run, for the summary line and the plot.

use super::error::{Result, TrainError};
use std::path::Path;

/// What one epoch ended with.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EpochRecord {
    /// The epoch, counted from 1.
    pub epoch: usize,
    /// The global step at the end of the epoch.
    pub step: u64,
    /// Accuracy on the training set, percent.
    pub train_accuracy: Option<f64>,
    /// Accuracy on the test set, percent.
    pub test_accuracy: Option<f64>,
}

/// The loss of every step and the accuracies of every epoch.
///
/// ```
/// use xla::train::TrainLog;
///
/// let mut log = TrainLog::default();
/// log.record_loss(2.30);
/// log.record_loss(1.10);
/// log.record_epoch(Some(71.0), Some(69.5));
/// assert_eq!(log.step(), 2);
/// assert_eq!(log.last_loss(), Some(1.10));
/// assert_eq!(log.best_test_accuracy(), Some(69.5));
/// assert!(log.to_csv().starts_with("kind,index,step,value\nstart,0,0,0\nloss,1,1,2.3\n"));
/// ```
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TrainLog {
    /// `(step, loss)` for every recorded step (steps counted from 1).
    pub losses: Vec<(u64, f64)>,
    /// One record per finished epoch.
    pub epochs: Vec<EpochRecord>,
    /// The step count the log started from (non-zero after `--resume`).
    pub start_step: u64,
    /// The epoch count the log started from (non-zero after `--resume`).
    pub start_epoch: usize,
}

impl TrainLog {
    /// An empty log continuing a run that had finished `epoch` epochs and taken `step` steps
    /// (for `--resume`): numbering goes on from there.
    pub fn resumed(epoch: usize, step: u64) -> TrainLog {
        TrainLog {
            start_epoch: epoch,
            start_step: step,
            ..TrainLog::default()
        }
    }

    /// The number of steps taken so far (including those before a resume).
    pub fn step(&self) -> u64 {
        self.losses.last().map_or(self.start_step, |&(s, _)| s)
    }

    /// The number of epochs finished so far.
    pub fn epoch(&self) -> usize {
        self.epochs.last().map_or(self.start_epoch, |e| e.epoch)
    }

    /// Records the loss of the next step; returns that step's number.
    pub fn record_loss(&mut self, loss: f64) -> u64 {
        let step = self.step() + 1;
        self.losses.push((step, loss));
        step
    }

    /// Records the end of the next epoch; returns its number (from 1).
    pub fn record_epoch(
        &mut self,
        train_accuracy: Option<f64>,
        test_accuracy: Option<f64>,
    ) -> usize {
        let epoch = self.epoch() + 1;
        self.epochs.push(EpochRecord {
            epoch,
            step: self.step(),
            train_accuracy,
            test_accuracy,
        });
        epoch
    }

    /// The most recent loss.
    pub fn last_loss(&self) -> Option<f64> {
        self.losses.last().map(|&(_, l)| l)
    }

    /// The mean loss of the steps after `step`.
    pub fn mean_loss_since(&self, step: u64) -> Option<f64> {
        let recent: Vec<f64> = self
            .losses
            .iter()
            .filter(|&&(s, _)| s > step)
            .map(|&(_, l)| l)
            .collect();
        (!recent.is_empty()).then(|| recent.iter().sum::<f64>() / recent.len() as f64)
    }

    /// The highest test accuracy of any epoch.
    pub fn best_test_accuracy(&self) -> Option<f64> {
        self.epochs
            .iter()
            .filter_map(|e| e.test_accuracy)
            .fold(None, |best: Option<f64>, a| {
                Some(best.map_or(a, |b| b.max(a)))
            })
    }

    /// The log as CSV: `kind,index,step,value` rows: `start,EPOCH,STEP,0` (where the log
    /// began), then `loss` per step, then `train_acc` and `test_acc` per epoch.
    pub fn to_csv(&self) -> String {
        let mut out = String::from("kind,index,step,value\n");
        out.push_str(&format!(
            "start,{},{},0\n",
            self.start_epoch, self.start_step
        ));
        for (i, &(step, loss)) in self.losses.iter().enumerate() {
            out.push_str(&format!("loss,{},{step},{loss}\n", i + 1));
        }
        for e in &self.epochs {
            let rows = [
                ("train_acc", e.train_accuracy),
                ("test_acc", e.test_accuracy),
            ];
            for (kind, value) in rows {
                if let Some(v) = value {
                    out.push_str(&format!("{kind},{},{},{v}\n", e.epoch, e.step));
                }
            }
        }
        out
    }

    /// Reads the CSV of [`TrainLog::to_csv`] back (e.g. from a checkpoint's metadata).
    ///
    /// # Errors
    /// A line that is not `kind,index,step,value` with a known kind and numbers (the error
    /// names `name` and the line).
    pub fn from_csv(text: &str, name: &str) -> Result<TrainLog> {
        let mut log = TrainLog::default();
        for (i, line) in text.lines().enumerate().skip(1) {
            let err = |reason: &str| TrainError::Parse {
                file: name.to_string(),
                line: i + 1,
                reason: format!("{reason}: `{line}`"),
            };
            let fields: Vec<&str> = line.split(',').collect();
            let &[kind, index, step, value] = fields.as_slice() else {
                return Err(err("expected kind,index,step,value"));
            };
            let index: usize = index.parse().map_err(|_| err("bad index"))?;
            let step: u64 = step.parse().map_err(|_| err("bad step"))?;
            let value: f64 = value.parse().map_err(|_| err("bad value"))?;
            match kind {
                "start" => (log.start_epoch, log.start_step) = (index, step),
                "loss" => log.losses.push((step, value)),
                "train_acc" | "test_acc" => {
                    let pos = log.epochs.iter().position(|e| e.epoch == index);
                    let pos = pos.unwrap_or_else(|| {
                        log.epochs.push(EpochRecord {
                            epoch: index,
                            step,
                            train_accuracy: None,
                            test_accuracy: None,
                        });
                        log.epochs.len() - 1
                    });
                    if let Some(e) = log.epochs.get_mut(pos) {
                        if kind == "train_acc" {
                            e.train_accuracy = Some(value);
                        } else {
                            e.test_accuracy = Some(value);
                        }
                    }
                }
                _ => return Err(err("unknown kind")),
            }
        }
        Ok(log)
    }

    /// Writes [`TrainLog::to_csv`] to `path` (atomically).
    ///
    /// # Errors
    /// If the file cannot be written.
    pub fn save_csv(&self, path: impl AsRef<Path>) -> Result<()> {
        super::fsutil::write_atomic(path.as_ref(), self.to_csv().as_bytes())
    }

    /// Draws the loss curve and the accuracies to a PNG (see [`super::plot::save_plot`]).
    ///
    /// # Errors
    /// If the image cannot be drawn or written.
    pub fn save_plot(&self, path: impl AsRef<Path>, title: &str) -> Result<()> {
        super::plot::save_plot(self, path.as_ref(), title)
    }
}
