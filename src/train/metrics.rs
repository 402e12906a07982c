//! Host-side metrics for checking a model: argmax over rows of logits, accuracy, softmax
//! cross-entropy.
//!
//! ```
//! use xla::train::metrics::{accuracy, argmax_rows, softmax_cross_entropy};
//!
//! let logits = [2.0f32, 1.0, 0.1, /* row 2 */ 0.0, 0.0, 3.0];
//! let pred = argmax_rows(&logits, 3)?;
//! assert_eq!(pred, vec![0, 2]);
//! assert_eq!(accuracy(&pred, &[0, 1])?, 50.0);
//! let uniform = softmax_cross_entropy(&[0.0f32; 4], &[1, 0], 2)?;
//! assert!((uniform - std::f64::consts::LN_2).abs() < 1e-12);
//! # Ok::<(), xla::train::TrainError>(())
//! ```

use super::error::{Result, TrainError};
use xla_core::Literal;

/// Checks that `len` values form rows of `cols` and returns the row count.
fn rows(op: &'static str, len: usize, cols: usize) -> Result<usize> {
    if cols == 0 || !len.is_multiple_of(cols) {
        return Err(TrainError::invalid(
            op,
            format!("{len} values do not form rows of {cols}"),
        ));
    }
    Ok(len / cols)
}

/// The index of the largest value of one row: the first maximum; a NaN counts as larger
/// than any number (like `jnp.argmax`).
fn argmax<T: Copy + PartialOrd>(row: &[T], is_nan: impl Fn(T) -> bool) -> usize {
    let mut best = 0;
    for (i, &v) in row.iter().enumerate() {
        let Some(&b) = row.get(best) else { break };
        if is_nan(b) {
            break;
        }
        if is_nan(v) || v > b {
            best = i;
        }
    }
    best
}

/// The argmax of each row of `values` (row-major, `cols` per row).
///
/// # Errors
/// If `cols` is 0 or does not divide `values.len()`.
pub fn argmax_rows(values: &[f32], cols: usize) -> Result<Vec<usize>> {
    rows("argmax_rows", values.len(), cols)?;
    Ok(values
        .chunks_exact(cols)
        .map(|r| argmax(r, f32::is_nan))
        .collect())
}

/// The argmax of each row of a rank-2 literal of a real or integer type.
///
/// # Errors
/// If the literal is not rank 2, has zero columns, or is complex / a tuple.
pub fn argmax_literal(logits: &Literal) -> Result<Vec<usize>> {
    let &[_, cols] = logits.dims() else {
        return Err(TrainError::invalid(
            "argmax_literal",
            format!("expected a rank-2 array of logits, got {}", logits.shape()),
        ));
    };
    let data = logits
        .array_data()
        .filter(|d| !d.element_type().is_complex());
    let data = data.ok_or_else(|| {
        TrainError::invalid(
            "argmax_literal",
            format!("expected real logits, got {}", logits.shape()),
        )
    })?;
    let values: Vec<f64> = (0..data.len()).filter_map(|i| data.get_as_f64(i)).collect();
    rows("argmax_literal", values.len(), cols as usize)?;
    Ok(values
        .chunks_exact(cols as usize)
        .map(|r| argmax(r, f64::is_nan))
        .collect())
}

/// Percentage (0..=100) of `predictions` equal to `labels`; 0 for no samples.
///
/// # Errors
/// If the lengths differ.
pub fn accuracy(predictions: &[usize], labels: &[u8]) -> Result<f64> {
    if predictions.len() != labels.len() {
        return Err(TrainError::invalid(
            "accuracy",
            format!(
                "{} predictions for {} labels",
                predictions.len(),
                labels.len()
            ),
        ));
    }
    if labels.is_empty() {
        return Ok(0.0);
    }
    Ok(100.0 * count_correct(predictions, labels) as f64 / labels.len() as f64)
}

/// How many of `predictions` equal their label (pairs beyond the shorter slice are ignored,
/// so the predictions of a padded evaluation batch can be passed whole).
pub fn count_correct(predictions: &[usize], labels: &[u8]) -> usize {
    predictions
        .iter()
        .zip(labels)
        .filter(|(&p, &l)| p == usize::from(l))
        .count()
}

/// Accuracy (percent) of the rank-2 `logits` literal against `labels`.
///
/// # Errors
/// As [`argmax_literal`] and [`accuracy`].
pub fn accuracy_from_logits(logits: &Literal, labels: &[u8]) -> Result<f64> {
    accuracy(&argmax_literal(logits)?, labels)
}

/// Mean softmax cross-entropy `mean_i(logsumexp(z_i) - z_i[label_i])` of `logits` (rows of
/// `classes`), computed in f64 with the max subtracted.
///
/// # Errors
/// If the logits do not form one row of `classes` per label, or a label is not below
/// `classes`.
pub fn softmax_cross_entropy(logits: &[f32], labels: &[u8], classes: usize) -> Result<f64> {
    let n = rows("softmax_cross_entropy", logits.len(), classes)?;
    if n != labels.len() {
        return Err(TrainError::invalid(
            "softmax_cross_entropy",
            format!("{n} rows of logits for {} labels", labels.len()),
        ));
    }
    let mut total = 0.0;
    for (row, &label) in logits.chunks_exact(classes).zip(labels) {
        let z = row.get(usize::from(label)).ok_or_else(|| {
            TrainError::invalid(
                "softmax_cross_entropy",
                format!("label {label} is not below {classes} classes"),
            )
        })?;
        let max = row
            .iter()
            .fold(f64::NEG_INFINITY, |m, &v| m.max(f64::from(v)));
        let sum: f64 = row.iter().map(|&v| (f64::from(v) - max).exp()).sum();
        total += max + sum.ln() - f64::from(*z);
    }
    Ok(if n == 0 { 0.0 } else { total / n as f64 })
}

/// Counts correct predictions over several (possibly padded) batches.
///
/// ```
/// use xla::train::metrics::AccuracyCounter;
/// use xla::Literal;
///
/// let mut acc = AccuracyCounter::default();
/// let logits = Literal::from_vec(&[2, 2], vec![0.9f32, 0.1, 0.2, 0.8])?;
/// acc.add_logits(&logits, &[0, 0], 2)?; // one of two right
/// acc.add_logits(&logits, &[0, 0], 1)?; // a padded batch: only the first row is real
/// assert_eq!((acc.correct, acc.total), (2, 3));
/// # Ok::<(), xla::train::TrainError>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AccuracyCounter {
    /// Correct predictions so far.
    pub correct: usize,
    /// Predictions counted so far.
    pub total: usize,
}

impl AccuracyCounter {
    /// Counts the first `real` rows of `logits` (rank 2) against `labels`.
    ///
    /// # Errors
    /// As [`argmax_literal`]; also if `real` exceeds the rows or the labels.
    pub fn add_logits(&mut self, logits: &Literal, labels: &[u8], real: usize) -> Result<()> {
        let predictions = argmax_literal(logits)?;
        if real > predictions.len() || real > labels.len() {
            return Err(TrainError::invalid(
                "AccuracyCounter::add_logits",
                format!(
                    "{real} real rows, but {} rows of logits and {} labels",
                    predictions.len(),
                    labels.len()
                ),
            ));
        }
        self.correct += count_correct(&predictions[..real], labels);
        self.total += real;
        Ok(())
    }

    /// The accuracy in percent (0 before anything was counted).
    pub fn percent(&self) -> f64 {
        if self.total == 0 {
            0.0
        } else {
            100.0 * self.correct as f64 / self.total as f64
        }
    }
}
