//! Progress of a training run: an `indicatif` bar (epoch, step, loss, samples/s) on a
//! terminal, plain per-epoch lines when stdout is not a terminal (logs, CI), nothing with
//! `--quiet`; and a [`Clock`] for timing.
//!
//! ```
//! use xla::train::{Progress, ProgressMode};
//!
//! // Lines mode writes one line per epoch to the given writer (stdout by default).
//! let mut p = Progress::new(2, 3, ProgressMode::Lines).with_writer(std::io::sink());
//! for _epoch in 0..2 {
//!     for _ in 0..3 {
//!         p.step(0.5, 32);
//!     }
//!     p.end_epoch(Some(90.0), Some(88.5));
//! }
//! let (log, summary) = p.finish();
//! assert_eq!(log.step(), 6);
//! assert!(summary.starts_with("trained 2 epochs (6 steps)"));
//! ```

use super::log::TrainLog;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::{IsTerminal, Write};
use std::time::{Duration, Instant};

/// A stopwatch with laps.
#[derive(Clone, Copy, Debug)]
pub struct Clock {
    start: Instant,
    lap: Instant,
}

impl Clock {
    /// A clock started now.
    pub fn start() -> Clock {
        let now = Instant::now();
        Clock {
            start: now,
            lap: now,
        }
    }

    /// Time since the start.
    pub fn elapsed(&self) -> Duration {
        self.start.elapsed()
    }

    /// Time since the last lap (or the start), without starting a new one.
    pub fn since_lap(&self) -> Duration {
        self.lap.elapsed()
    }

    /// Time since the last lap (or the start); starts a new lap.
    pub fn lap(&mut self) -> Duration {
        let now = Instant::now();
        let d = now - self.lap;
        self.lap = now;
        d
    }

    /// `count` per second over `elapsed` (0 when no time has passed).
    pub fn rate(count: usize, elapsed: Duration) -> f64 {
        let s = elapsed.as_secs_f64();
        if s > 0.0 {
            count as f64 / s
        } else {
            0.0
        }
    }
}

/// `1.23 s`, `45 ms`, `2 min 03 s`.
pub fn format_duration(d: Duration) -> String {
    let s = d.as_secs_f64();
    if s < 1.0 {
        format!("{:.0} ms", s * 1000.0)
    } else if s < 60.0 {
        format!("{s:.2} s")
    } else {
        let secs = d.as_secs();
        format!("{} min {:02} s", secs / 60, secs % 60)
    }
}

/// How [`Progress`] reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProgressMode {
    /// An animated bar on stdout (a terminal) plus a line per epoch.
    Bar,
    /// One plain line per epoch and the summary (no escape codes).
    Lines,
    /// Nothing.
    Quiet,
}

impl ProgressMode {
    /// `Quiet` when `quiet`, else `Bar` when stdout is a terminal, else `Lines`.
    pub fn auto(quiet: bool) -> ProgressMode {
        if quiet {
            ProgressMode::Quiet
        } else if std::io::stdout().is_terminal() {
            ProgressMode::Bar
        } else {
            ProgressMode::Lines
        }
    }
}

/// Reports a run's progress and records it in a [`TrainLog`].
pub struct Progress {
    mode: ProgressMode,
    bar: Option<ProgressBar>,
    out: Box<dyn Write + Send>,
    log: TrainLog,
    epochs: usize,
    steps_per_epoch: u64,
    clock: Clock,
    epoch_clock: Clock,
    epoch_samples: usize,
    epoch_first_step: u64,
    samples: usize,
    /// Epoch and step when this session began (for the summary).
    session_start: (usize, u64),
}

impl std::fmt::Debug for Progress {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Progress")
            .field("mode", &self.mode)
            .field("epochs", &self.epochs)
            .field("log", &self.log)
            .finish_non_exhaustive()
    }
}

impl Progress {
    /// Progress of `epochs` epochs of `steps_per_epoch` steps each.
    pub fn new(epochs: usize, steps_per_epoch: usize, mode: ProgressMode) -> Progress {
        let bar = (mode == ProgressMode::Bar).then(|| {
            let total = epochs.saturating_mul(steps_per_epoch) as u64;
            let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stdout());
            let style = ProgressStyle::with_template(
                "{prefix} [{bar:30.cyan/blue}] step {pos}/{len} {msg} ({elapsed}, eta {eta})",
            );
            if let Ok(style) = style {
                bar.set_style(style.progress_chars("=> "));
            }
            bar
        });
        let p = Progress {
            mode,
            bar,
            out: Box::new(std::io::stdout()),
            log: TrainLog::default(),
            epochs,
            steps_per_epoch: steps_per_epoch as u64,
            clock: Clock::start(),
            epoch_clock: Clock::start(),
            epoch_samples: 0,
            epoch_first_step: 0,
            samples: 0,
            session_start: (0, 0),
        };
        p.set_prefix();
        p
    }

    /// Writes the per-epoch lines and the summary to `out` instead of stdout.
    pub fn with_writer(mut self, out: impl Write + Send + 'static) -> Progress {
        self.out = Box::new(out);
        self
    }

    /// Continues the run `log` records (after `--resume`): numbering goes on from its last
    /// epoch and step, and the plot will show the whole run.
    pub fn resume(mut self, log: TrainLog) -> Progress {
        self.epoch_first_step = log.step();
        self.session_start = (log.epoch(), log.step());
        if let Some(bar) = &self.bar {
            bar.set_position((self.log_epoch_of(&log) as u64).saturating_mul(self.steps_per_epoch));
            bar.reset_eta();
        }
        self.log = log;
        self.set_prefix();
        self
    }

    fn log_epoch_of(&self, log: &TrainLog) -> usize {
        log.epoch().min(self.epochs)
    }

    /// The mode in use.
    pub fn mode(&self) -> ProgressMode {
        self.mode
    }

    /// The log recorded so far.
    pub fn log(&self) -> &TrainLog {
        &self.log
    }

    fn set_prefix(&self) {
        if let Some(bar) = &self.bar {
            bar.set_prefix(format!("epoch {}/{}", self.log.epoch() + 1, self.epochs));
        }
    }

    /// Records one step's `loss` over a batch of `samples`; returns the global step number.
    pub fn step(&mut self, loss: f64, samples: usize) -> u64 {
        let step = self.log.record_loss(loss);
        self.epoch_samples += samples;
        self.samples += samples;
        if let Some(bar) = &self.bar {
            let rate = Clock::rate(self.epoch_samples, self.epoch_clock.since_lap());
            bar.set_message(format!("loss {loss:.4}, {rate:.0} samples/s"));
            bar.inc(1);
        }
        step
    }

    /// Ends the current epoch with its accuracies (percent) and reports it:
    /// `epoch 3/10: loss 0.1234, train 97.50%, test 96.11%, 12345 samples/s, 0.42 s`.
    /// Returns the line.
    pub fn end_epoch(&mut self, train_accuracy: Option<f64>, test_accuracy: Option<f64>) -> String {
        let loss = self.log.mean_loss_since(self.epoch_first_step);
        let epoch = self.log.record_epoch(train_accuracy, test_accuracy);
        let took = self.epoch_clock.lap();
        let mut line = format!("epoch {epoch}/{}:", self.epochs);
        if let Some(l) = loss {
            line.push_str(&format!(" loss {l:.4},"));
        }
        for (name, acc) in [("train", train_accuracy), ("test", test_accuracy)] {
            if let Some(a) = acc {
                line.push_str(&format!(" {name} {a:.2}%,"));
            }
        }
        let rate = Clock::rate(self.epoch_samples, took);
        line.push_str(&format!(" {rate:.0} samples/s, {}", format_duration(took)));
        self.epoch_samples = 0;
        self.epoch_first_step = self.log.step();
        self.print(&line);
        self.set_prefix();
        line
    }

    /// Prints a line (above the bar when there is one; nothing when quiet).
    pub fn println(&mut self, line: &str) {
        self.print(line);
    }

    fn print(&mut self, line: &str) {
        match (&self.bar, self.mode) {
            (Some(bar), _) => bar.println(line),
            (None, ProgressMode::Quiet) => {}
            (None, _) => {
                // Progress output is best effort: a closed stdout must not stop training.
                let _ = writeln!(self.out, "{line}");
            }
        }
    }

    /// Ends the run: clears the bar, prints the summary line
    /// (`trained 10 epochs (450 steps) in 3.21 s, 14000 samples/s: final loss 0.0912,
    /// test accuracy 97.22%`) unless quiet, and returns the log and that line.
    pub fn finish(mut self) -> (TrainLog, String) {
        if let Some(bar) = self.bar.take() {
            bar.finish_and_clear();
        }
        let took = self.clock.elapsed();
        let epochs = self.log.epoch().saturating_sub(self.session_start.0);
        let steps = self.log.step().saturating_sub(self.session_start.1);
        let mut line = format!(
            "trained {epochs} epoch{} ({steps} steps) in {}, {:.0} samples/s",
            if epochs == 1 { "" } else { "s" },
            format_duration(took),
            Clock::rate(self.samples, took)
        );
        if let Some(l) = self.log.last_loss() {
            line.push_str(&format!(": final loss {l:.4}"));
        }
        if let Some(a) = self.log.epochs.last().and_then(|e| e.test_accuracy) {
            line.push_str(&format!(", test accuracy {a:.2}%"));
        }
        self.print(&line);
        let _ = self.out.flush();
        (std::mem::take(&mut self.log), line)
    }
}
