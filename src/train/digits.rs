//! The UCI handwritten digits (E. Alpaydin, C. Kaynak, 1998; CC BY 4.0): 1,797 8×8 images
//! with pixels `0..=16`, shipped with this crate as `data/digits.csv.gz` (one row per image:
//! 64 pixels then the label, comma-separated).
//!
//! ```
//! use xla::train::Digits;
//!
//! let digits = Digits::embedded()?; // works from any directory: the file is compiled in
//! assert_eq!((digits.len(), digits.sample_len(), digits.num_classes()), (1797, 64, 10));
//! let (train, test) = digits.split(0.8, 0)?;
//! assert_eq!((train.len(), test.len()), (1437, 360));
//! # Ok::<(), xla::train::TrainError>(())
//! ```

use super::data::{gunzip_if_gz, read_maybe_gz, Dataset};
use super::error::{Result, TrainError};
use std::path::Path;

/// The compressed CSV, compiled into the library.
const EMBEDDED: &[u8] = include_bytes!("../../data/digits.csv.gz");

/// Pixels per image.
pub const DIGIT_PIXELS: usize = 64;
/// Largest pixel value.
pub const DIGIT_MAX_PIXEL: u8 = 16;

/// Loader for the digits data set. Features are scaled to `[0, 1]` (pixel / 16) and shaped
/// `[64]`; use [`Dataset::reshaped`] for `[8, 8, 1]` images.
#[derive(Clone, Copy, Debug)]
pub struct Digits;

impl Digits {
    /// The copy compiled into the library.
    ///
    /// # Errors
    /// Only if the embedded file were damaged.
    pub fn embedded() -> Result<Dataset> {
        Digits::parse(EMBEDDED.to_vec(), "<embedded digits.csv.gz>")
    }

    /// Reads a digits CSV file, gzipped or not.
    ///
    /// # Errors
    /// If the file cannot be read, is a damaged gzip stream, or a line is malformed (the
    /// error names the line and what is wrong).
    pub fn load(path: impl AsRef<Path>) -> Result<Dataset> {
        let path = path.as_ref();
        let bytes = read_maybe_gz(path)?;
        Digits::parse(bytes, &path.display().to_string())
    }

    /// Parses CSV bytes (gzipped or not); `name` appears in error messages.
    ///
    /// # Errors
    /// As [`Digits::load`].
    pub fn parse(bytes: Vec<u8>, name: &str) -> Result<Dataset> {
        let bytes = gunzip_if_gz(bytes, name)?;
        let text = String::from_utf8(bytes).map_err(|e| {
            TrainError::format(
                name,
                format!("not UTF-8 text (byte {})", e.utf8_error().valid_up_to()),
            )
        })?;
        let mut features = Vec::new();
        let mut labels = Vec::new();
        for (i, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() {
                continue;
            }
            let (pixels, label) = parse_row(line).map_err(|reason| TrainError::Parse {
                file: name.to_string(),
                line: i + 1,
                reason,
            })?;
            features.extend(
                pixels
                    .iter()
                    .map(|&p| f32::from(p) / f32::from(DIGIT_MAX_PIXEL)),
            );
            labels.push(label);
        }
        if labels.is_empty() {
            return Err(TrainError::format(name, "no data rows"));
        }
        Dataset::new(features, labels, &[DIGIT_PIXELS as i64], 10)
    }
}

/// One row: 64 pixels `0..=16` and a label `0..=9`.
fn parse_row(line: &str) -> std::result::Result<([u8; DIGIT_PIXELS], u8), String> {
    let fields: Vec<&str> = line.split(',').map(str::trim).collect();
    if fields.len() != DIGIT_PIXELS + 1 {
        return Err(format!(
            "expected {} comma-separated values (64 pixels and a label), found {}",
            DIGIT_PIXELS + 1,
            fields.len()
        ));
    }
    let mut pixels = [0u8; DIGIT_PIXELS];
    for (col, (field, slot)) in fields.iter().zip(pixels.iter_mut()).enumerate() {
        *slot = parse_int(field, col + 1, DIGIT_MAX_PIXEL, "pixel")?;
    }
    let label = fields.last().copied().unwrap_or_default();
    Ok((pixels, parse_int(label, DIGIT_PIXELS + 1, 9, "label")?))
}

/// An integer field in `0..=max`.
fn parse_int(field: &str, col: usize, max: u8, what: &str) -> std::result::Result<u8, String> {
    let value: i64 = field
        .parse()
        .map_err(|_| format!("column {col}: {what} `{field}` is not an integer"))?;
    u8::try_from(value)
        .ok()
        .filter(|&v| v <= max)
        .ok_or_else(|| format!("column {col}: {what} {value} is outside 0..={max}"))
}
