//! Labelled data sets held on the host as `f32` features and `u8` class labels: a
//! deterministic train/test split, batches shuffled per epoch from a seed, standardisation,
//! and conversion of a data set or batch to [`Literal`]s.
//!
//! ```
//! use xla::train::{Dataset, Order};
//!
//! // Four samples of two features each, two classes.
//! let data = Dataset::new(vec![0., 1., 2., 3., 4., 5., 6., 7.], vec![0, 1, 0, 1], &[2], 2)?;
//! let (train, test) = data.split(0.75, 42)?;
//! assert_eq!((train.len(), test.len()), (3, 1));
//! for batch in train.batches(2, Order::epoch(42, 0))? {
//!     let x = batch.features_literal()?; // f32[2,2]
//!     let y = batch.one_hot_literal()?;  // f32[2,2]
//!     assert_eq!((x.dims(), y.dims()), (&[2i64, 2][..], &[2i64, 2][..]));
//! }
//! # Ok::<(), xla::train::TrainError>(())
//! ```

use super::error::{Result, TrainError};
use super::rng::Rng;
use std::io::Read;
use std::path::Path;
use xla_core::Literal;

/// Samples with `f32` features of a fixed shape and a class label each.
#[derive(Clone, Debug, PartialEq)]
pub struct Dataset {
    features: Vec<f32>,
    labels: Vec<u8>,
    sample_dims: Vec<i64>,
    num_classes: usize,
}

/// The order in which [`Dataset::batches`] visits samples.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Order {
    /// Sample 0, 1, 2, ...
    Sequential,
    /// A permutation drawn from this seed.
    Shuffled(u64),
}

impl Order {
    /// A different shuffle for every epoch, reproducible from `seed`.
    pub fn epoch(seed: u64, epoch: usize) -> Order {
        Order::Shuffled(Rng::with_stream(seed, epoch as u64 + 1).next_u64())
    }
}

impl Dataset {
    /// A data set of `labels.len()` samples whose features (row-major, `sample_dims` each) are
    /// `features`.
    ///
    /// # Errors
    /// If `features.len()` is not `labels.len()` times the size of `sample_dims`, a dim is not
    /// positive, or a label is not below `num_classes`.
    pub fn new(
        features: Vec<f32>,
        labels: Vec<u8>,
        sample_dims: &[i64],
        num_classes: usize,
    ) -> Result<Dataset> {
        let sample_len = sample_len("Dataset::new", sample_dims)?;
        if Some(features.len()) != labels.len().checked_mul(sample_len) {
            return Err(TrainError::invalid(
                "Dataset::new",
                format!(
                    "{} labels of {sample_len} features each need {} features, got {}",
                    labels.len(),
                    labels.len().saturating_mul(sample_len),
                    features.len()
                ),
            ));
        }
        if let Some((i, l)) = labels
            .iter()
            .enumerate()
            .find(|(_, &l)| usize::from(l) >= num_classes)
        {
            return Err(TrainError::invalid(
                "Dataset::new",
                format!("label {l} of sample {i} is not below num_classes {num_classes}"),
            ));
        }
        Ok(Dataset {
            features,
            labels,
            sample_dims: sample_dims.to_vec(),
            num_classes,
        })
    }

    /// Number of samples.
    pub fn len(&self) -> usize {
        self.labels.len()
    }

    /// True when there are no samples.
    pub fn is_empty(&self) -> bool {
        self.labels.is_empty()
    }

    /// The dims of one sample's features (`[64]` for digits, `[784]` for MNIST).
    pub fn sample_dims(&self) -> &[i64] {
        &self.sample_dims
    }

    /// Number of features per sample.
    pub fn sample_len(&self) -> usize {
        self.features.len().checked_div(self.len()).unwrap_or(0)
    }

    /// Number of classes (labels are `0..num_classes`).
    pub fn num_classes(&self) -> usize {
        self.num_classes
    }

    /// All features, row-major, sample after sample.
    pub fn features(&self) -> &[f32] {
        &self.features
    }

    /// All labels.
    pub fn labels(&self) -> &[u8] {
        &self.labels
    }

    /// The features and label of sample `i`.
    pub fn sample(&self, i: usize) -> Option<(&[f32], u8)> {
        let n = self.sample_len();
        let label = *self.labels.get(i)?;
        Some((self.features.get(i * n..(i + 1) * n)?, label))
    }

    /// How many samples each class has.
    pub fn class_counts(&self) -> Vec<usize> {
        let mut counts = vec![0; self.num_classes];
        for &l in &self.labels {
            if let Some(c) = counts.get_mut(usize::from(l)) {
                *c += 1;
            }
        }
        counts
    }

    /// The same samples with features of `dims` per sample (e.g. `[8, 8, 1]` for a
    /// convolution over the digits' 8×8 images).
    ///
    /// # Errors
    /// If `dims` holds a different number of features.
    pub fn reshaped(mut self, dims: &[i64]) -> Result<Dataset> {
        let n = sample_len("Dataset::reshaped", dims)?;
        if n != self.sample_len() && !self.is_empty() {
            return Err(TrainError::invalid(
                "Dataset::reshaped",
                format!(
                    "samples of dims {:?} have {} features, {dims:?} has {n}",
                    self.sample_dims,
                    self.sample_len()
                ),
            ));
        }
        self.sample_dims = dims.to_vec();
        Ok(self)
    }

    /// The samples at `indices`, in that order.
    ///
    /// # Errors
    /// If an index is out of range.
    pub fn subset(&self, indices: &[usize]) -> Result<Dataset> {
        let mut features = Vec::with_capacity(indices.len() * self.sample_len());
        let mut labels = Vec::with_capacity(indices.len());
        for &i in indices {
            let (x, y) = self.sample(i).ok_or_else(|| {
                TrainError::invalid(
                    "Dataset::subset",
                    format!("index {i} is out of range for {} samples", self.len()),
                )
            })?;
            features.extend_from_slice(x);
            labels.push(y);
        }
        Ok(Dataset {
            features,
            labels,
            sample_dims: self.sample_dims.clone(),
            num_classes: self.num_classes,
        })
    }

    /// The first `n` samples (all of them when there are fewer).
    pub fn take(&self, n: usize) -> Dataset {
        let n = n.min(self.len());
        let indices: Vec<usize> = (0..n).collect();
        // Indices below len() are always in range.
        self.subset(&indices).unwrap_or_else(|_| self.clone())
    }

    /// A deterministic split: the samples are permuted with [`Rng::new`]`(seed)`, the first
    /// `floor(len * train_fraction)` go to the training set and the rest to the test set
    /// (1797 digits at 0.8 give 1437 / 360).
    ///
    /// # Errors
    /// If `train_fraction` is not in `(0, 1)` or either part would be empty.
    pub fn split(&self, train_fraction: f64, seed: u64) -> Result<(Dataset, Dataset)> {
        if !(train_fraction > 0.0 && train_fraction < 1.0) {
            return Err(TrainError::invalid(
                "Dataset::split",
                format!("train fraction {train_fraction} is not between 0 and 1"),
            ));
        }
        let n_train = (self.len() as f64 * train_fraction).floor() as usize;
        if n_train == 0 || n_train >= self.len() {
            return Err(TrainError::invalid(
                "Dataset::split",
                format!(
                    "{} samples at {train_fraction} leave an empty part",
                    self.len()
                ),
            ));
        }
        let perm = Rng::new(seed).permutation(self.len());
        let (train, test) = perm.split_at(n_train);
        Ok((self.subset(train)?, self.subset(test)?))
    }

    /// Batches of `batch_size` samples in `order`. Only full batches are produced (XLA
    /// computations have static shapes); call [`Batches::keep_partial`] to also get the
    /// smaller last one.
    ///
    /// # Errors
    /// If `batch_size` is 0.
    pub fn batches(&self, batch_size: usize, order: Order) -> Result<Batches<'_>> {
        if batch_size == 0 {
            return Err(TrainError::invalid("Dataset::batches", "batch size is 0"));
        }
        let order = match order {
            Order::Sequential => (0..self.len()).collect(),
            Order::Shuffled(seed) => Rng::new(seed).permutation(self.len()),
        };
        Ok(Batches {
            data: self,
            order,
            batch_size,
            next: 0,
            keep_partial: false,
        })
    }

    /// Sequential batches of exactly `batch_size` samples covering every sample once, for
    /// evaluating with a computation of static batch size: the last batch is filled up with
    /// copies of the first samples. Each batch comes with the number of its real samples
    /// (count only the first that many predictions).
    ///
    /// ```
    /// # use xla::train::Dataset;
    /// let d = Dataset::new(vec![0., 1., 2., 3., 4.], vec![0, 1, 0, 1, 0], &[1], 2)?;
    /// let b = d.eval_batches(2)?;
    /// let sizes: Vec<(usize, usize)> = b.iter().map(|(b, real)| (b.len(), *real)).collect();
    /// assert_eq!(sizes, vec![(2, 2), (2, 2), (2, 1)]);
    /// assert_eq!(b[2].0.features(), &[4., 0.]);
    /// # Ok::<(), xla::train::TrainError>(())
    /// ```
    ///
    /// # Errors
    /// If `batch_size` is 0.
    pub fn eval_batches(&self, batch_size: usize) -> Result<Vec<(Dataset, usize)>> {
        if batch_size == 0 {
            return Err(TrainError::invalid(
                "Dataset::eval_batches",
                "batch size is 0",
            ));
        }
        let n = self.len();
        (0..n.div_ceil(batch_size))
            .map(|b| {
                let start = b * batch_size;
                let indices: Vec<usize> = (start..start + batch_size).map(|i| i % n).collect();
                Ok((self.subset(&indices)?, batch_size.min(n - start)))
            })
            .collect()
    }

    /// All features as one literal `f32[len, sample_dims...]`.
    ///
    /// # Errors
    /// Never for a data set built by this module (kept for the literal's own checks).
    pub fn features_literal(&self) -> Result<Literal> {
        let mut dims = Vec::with_capacity(self.sample_dims.len() + 1);
        dims.push(self.len() as i64);
        dims.extend_from_slice(&self.sample_dims);
        Ok(Literal::from_vec(&dims, self.features.clone())?)
    }

    /// The labels as `s32[len]`.
    pub fn labels_literal(&self) -> Literal {
        let labels: Vec<i32> = self.labels.iter().map(|&l| i32::from(l)).collect();
        Literal::vec1(&labels)
    }

    /// The labels one-hot encoded as `f32[len, num_classes]`.
    ///
    /// # Errors
    /// Never for a data set built by this module.
    pub fn one_hot_literal(&self) -> Result<Literal> {
        let c = self.num_classes;
        let mut values = vec![0f32; self.len() * c];
        for (i, &l) in self.labels.iter().enumerate() {
            if let Some(v) = values.get_mut(i * c + usize::from(l)) {
                *v = 1.0;
            }
        }
        Ok(Literal::from_vec(&[self.len() as i64, c as i64], values)?)
    }

    /// Applies `f` to every feature (e.g. to scale pixels).
    pub fn map_features(mut self, f: impl Fn(f32) -> f32) -> Dataset {
        self.features.iter_mut().for_each(|x| *x = f(*x));
        self
    }
}

/// The product of `dims`, checked to be positive.
fn sample_len(op: &'static str, dims: &[i64]) -> Result<usize> {
    dims.iter()
        .try_fold(1usize, |n, &d| {
            usize::try_from(d)
                .ok()
                .filter(|&d| d > 0)
                .and_then(|d| n.checked_mul(d))
        })
        .ok_or_else(|| TrainError::invalid(op, format!("sample dims {dims:?} must be positive")))
}

/// Iterator over the batches of a [`Dataset`] (each batch is a small `Dataset`).
#[derive(Debug)]
pub struct Batches<'a> {
    data: &'a Dataset,
    order: Vec<usize>,
    batch_size: usize,
    next: usize,
    keep_partial: bool,
}

impl Batches<'_> {
    /// Also yield the last batch when it has fewer than `batch_size` samples.
    pub fn keep_partial(mut self) -> Self {
        self.keep_partial = true;
        self
    }

    /// Number of batches this iterator yields in all.
    pub fn count_total(&self) -> usize {
        let full = self.order.len() / self.batch_size;
        let partial = self.keep_partial && !self.order.len().is_multiple_of(self.batch_size);
        full + usize::from(partial)
    }
}

impl Iterator for Batches<'_> {
    type Item = Dataset;

    fn next(&mut self) -> Option<Dataset> {
        let rest = self.order.get(self.next..)?;
        if rest.is_empty() || (rest.len() < self.batch_size && !self.keep_partial) {
            return None;
        }
        let take = rest.len().min(self.batch_size);
        let indices = rest.get(..take)?;
        self.next += take;
        self.data.subset(indices).ok()
    }
}

/// Per-feature standardisation `(x - mean) / std`, fitted on a training set and applied to
/// the training and test sets alike (features with zero spread are only centred).
#[derive(Clone, Debug, PartialEq)]
pub struct Standardizer {
    /// Mean of each feature.
    pub mean: Vec<f32>,
    /// Standard deviation of each feature (1 where it was 0).
    pub std: Vec<f32>,
}

impl Standardizer {
    /// Mean and deviation of each feature of `data`.
    pub fn fit(data: &Dataset) -> Standardizer {
        let d = data.sample_len();
        let n = data.len().max(1) as f64;
        let mut sum = vec![0f64; d];
        let mut sq = vec![0f64; d];
        for row in data.features.chunks_exact(d.max(1)) {
            for ((s, q), &x) in sum.iter_mut().zip(&mut sq).zip(row) {
                *s += f64::from(x);
                *q += f64::from(x) * f64::from(x);
            }
        }
        let mean: Vec<f64> = sum.iter().map(|s| s / n).collect();
        let std = sq
            .iter()
            .zip(&mean)
            .map(|(q, m)| {
                let s = (q / n - m * m).max(0.0).sqrt();
                if s > 1e-12 {
                    s as f32
                } else {
                    1.0
                }
            })
            .collect();
        Standardizer {
            mean: mean.iter().map(|&m| m as f32).collect(),
            std,
        }
    }

    /// `data` standardised.
    ///
    /// # Errors
    /// If `data` has a different number of features than the fitted set.
    pub fn apply(&self, mut data: Dataset) -> Result<Dataset> {
        let d = self.mean.len();
        if data.sample_len() != d && !data.is_empty() {
            return Err(TrainError::invalid(
                "Standardizer::apply",
                format!("fitted on {d} features, got {}", data.sample_len()),
            ));
        }
        for row in data.features.chunks_exact_mut(d.max(1)) {
            for ((x, m), s) in row.iter_mut().zip(&self.mean).zip(&self.std) {
                *x = (*x - m) / s;
            }
        }
        Ok(data)
    }
}

/// The bytes of `path`, gunzipped when they start with the gzip magic number.
pub(crate) fn read_maybe_gz(path: &Path) -> Result<Vec<u8>> {
    let bytes = std::fs::read(path).map_err(|e| TrainError::io(path, e))?;
    gunzip_if_gz(bytes, &path.display().to_string())
}

/// `bytes` gunzipped when they start with the gzip magic number, else unchanged.
pub(crate) fn gunzip_if_gz(bytes: Vec<u8>, name: &str) -> Result<Vec<u8>> {
    if !bytes.starts_with(&[0x1f, 0x8b]) {
        return Ok(bytes);
    }
    let mut out = Vec::with_capacity(bytes.len() * 4);
    flate2::read::GzDecoder::new(bytes.as_slice())
        .read_to_end(&mut out)
        .map_err(|e| TrainError::format(name, format!("corrupt or truncated gzip data: {e}")))?;
    Ok(out)
}
