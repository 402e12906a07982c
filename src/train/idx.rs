//! The IDX format of the MNIST files (`train-images-idx3-ubyte`, ...), gzipped or not, and
//! the MNIST loader built on it.
//!
//! An IDX file is `0 0 TYPE RANK`, then `RANK` big-endian `u32` dims, then the elements
//! big-endian, row-major. TYPE is `0x08` u8, `0x09` i8, `0x0B` i16, `0x0C` i32, `0x0D` f32 or
//! `0x0E` f64.
//!
//! ```
//! use xla::train::idx::{IdxArray, IdxData};
//!
//! let bytes = [0, 0, 0x08, 2, 0, 0, 0, 2, 0, 0, 0, 3, 1, 2, 3, 4, 5, 6];
//! let a = IdxArray::parse(&bytes, "tiny")?;
//! assert_eq!(a.dims, vec![2, 3]);
//! assert_eq!(a.data, IdxData::U8(vec![1, 2, 3, 4, 5, 6]));
//! assert_eq!(a.to_bytes(), bytes);
//! # Ok::<(), xla::train::TrainError>(())
//! ```

use super::data::{gunzip_if_gz, read_maybe_gz, Dataset};
use super::error::{Result, TrainError};
use std::path::{Path, PathBuf};
use xla_core::Literal;

/// The elements of an IDX file.
#[derive(Clone, Debug, PartialEq)]
pub enum IdxData {
    /// Type `0x08`.
    U8(Vec<u8>),
    /// Type `0x09`.
    I8(Vec<i8>),
    /// Type `0x0B`.
    I16(Vec<i16>),
    /// Type `0x0C`.
    I32(Vec<i32>),
    /// Type `0x0D`.
    F32(Vec<f32>),
    /// Type `0x0E`.
    F64(Vec<f64>),
}

/// An IDX array: its dims and elements (row-major).
#[derive(Clone, Debug, PartialEq)]
pub struct IdxArray {
    /// The dims, outermost first.
    pub dims: Vec<usize>,
    /// The elements.
    pub data: IdxData,
}

macro_rules! decode {
    ($body:expr, $t:ty, $n:literal) => {
        $body
            .chunks_exact($n)
            .map(|c| {
                let mut b = [0u8; $n];
                b.copy_from_slice(c);
                <$t>::from_be_bytes(b)
            })
            .collect::<Vec<$t>>()
    };
}

impl IdxArray {
    /// Reads an IDX file, gzipped or not.
    ///
    /// # Errors
    /// If the file cannot be read or is not a complete IDX file (the error names the file).
    pub fn read(path: impl AsRef<Path>) -> Result<IdxArray> {
        let path = path.as_ref();
        IdxArray::parse(&read_maybe_gz(path)?, &path.display().to_string())
    }

    /// Parses IDX bytes (gzipped or not); `name` appears in error messages.
    ///
    /// # Errors
    /// If the magic number, element type or size is wrong, or the data is truncated or has
    /// trailing bytes.
    pub fn parse(bytes: &[u8], name: &str) -> Result<IdxArray> {
        let bytes = gunzip_if_gz(bytes.to_vec(), name)?;
        let bad = |reason: String| TrainError::format(name, reason);
        let [z0, z1, ty, rank] = *bytes.first_chunk::<4>().ok_or_else(|| {
            bad(format!(
                "{} bytes is too short for an IDX header",
                bytes.len()
            ))
        })?;
        if (z0, z1) != (0, 0) {
            return Err(bad(format!(
                "not an IDX file (magic {z0:#04x} {z1:#04x} {ty:#04x} {rank:#04x})"
            )));
        }
        let width: usize = match ty {
            0x08 | 0x09 => 1,
            0x0B => 2,
            0x0C | 0x0D => 4,
            0x0E => 8,
            other => return Err(bad(format!("unknown IDX element type {other:#04x}"))),
        };
        let header_len = 4 + 4 * usize::from(rank);
        let header = bytes.get(4..header_len).ok_or_else(|| {
            bad(format!(
                "truncated header: {rank} dims need {header_len} bytes, file has {}",
                bytes.len()
            ))
        })?;
        let dims: Vec<usize> = decode!(header, u32, 4)
            .into_iter()
            .map(|d: u32| d as usize)
            .collect();
        let expected = dims
            .iter()
            .try_fold(width, |n, &d| n.checked_mul(d))
            .ok_or_else(|| bad(format!("dims {dims:?} overflow")))?;
        let body = bytes.get(header_len..).unwrap_or_default();
        if body.len() != expected {
            let what = if body.len() < expected {
                "truncated"
            } else {
                "trailing bytes"
            };
            return Err(bad(format!(
                "{what}: dims {dims:?} need {expected} data bytes, file has {}",
                body.len()
            )));
        }
        let data = match ty {
            0x08 => IdxData::U8(body.to_vec()),
            0x09 => IdxData::I8(body.iter().map(|&b| b as i8).collect()),
            0x0B => IdxData::I16(decode!(body, i16, 2)),
            0x0C => IdxData::I32(decode!(body, i32, 4)),
            0x0D => IdxData::F32(decode!(body, f32, 4)),
            _ => IdxData::F64(decode!(body, f64, 8)),
        };
        Ok(IdxArray { dims, data })
    }

    /// The IDX encoding (uncompressed).
    pub fn to_bytes(&self) -> Vec<u8> {
        let (ty, body): (u8, Vec<u8>) = match &self.data {
            IdxData::U8(v) => (0x08, v.clone()),
            IdxData::I8(v) => (0x09, v.iter().map(|&x| x as u8).collect()),
            IdxData::I16(v) => (0x0B, v.iter().flat_map(|x| x.to_be_bytes()).collect()),
            IdxData::I32(v) => (0x0C, v.iter().flat_map(|x| x.to_be_bytes()).collect()),
            IdxData::F32(v) => (0x0D, v.iter().flat_map(|x| x.to_be_bytes()).collect()),
            IdxData::F64(v) => (0x0E, v.iter().flat_map(|x| x.to_be_bytes()).collect()),
        };
        let mut out = vec![0, 0, ty, self.dims.len() as u8];
        for &d in &self.dims {
            out.extend((d as u32).to_be_bytes());
        }
        out.extend(body);
        out
    }

    /// The array as a literal of the same element type (u8 → `u8[...]`, ...).
    ///
    /// # Errors
    /// If the element count disagrees with the dims (not for parsed files).
    pub fn to_literal(&self) -> Result<Literal> {
        let dims: Vec<i64> = self.dims.iter().map(|&d| d as i64).collect();
        Ok(match &self.data {
            IdxData::U8(v) => Literal::from_vec(&dims, v.clone()),
            IdxData::I8(v) => Literal::from_vec(&dims, v.clone()),
            IdxData::I16(v) => Literal::from_vec(&dims, v.clone()),
            IdxData::I32(v) => Literal::from_vec(&dims, v.clone()),
            IdxData::F32(v) => Literal::from_vec(&dims, v.clone()),
            IdxData::F64(v) => Literal::from_vec(&dims, v.clone()),
        }?)
    }
}

/// MNIST: 60,000 training and 10,000 test images of 28×28 pixels, features scaled to
/// `[0, 1]` (pixel / 255) and shaped `[rows * cols]` (784); labels `0..=9`.
#[derive(Clone, Debug, PartialEq)]
pub struct Mnist {
    /// From `train-images-idx3-ubyte` and `train-labels-idx1-ubyte`.
    pub train: Dataset,
    /// From `t10k-images-idx3-ubyte` and `t10k-labels-idx1-ubyte`.
    pub test: Dataset,
}

impl Mnist {
    /// Reads the four MNIST files from `dir`, each gzipped (`*.gz`) or not; the names with a
    /// dot (`train-images.idx3-ubyte`) are accepted too.
    ///
    /// # Errors
    /// If a file is missing (the error lists the names tried) or malformed, or images and
    /// labels disagree (the error names the file).
    pub fn load(dir: impl AsRef<Path>) -> Result<Mnist> {
        let dir = dir.as_ref();
        Ok(Mnist {
            train: load_pair(dir, "train")?,
            test: load_pair(dir, "t10k")?,
        })
    }
}

/// The images and labels of one MNIST part (`train` or `t10k`).
fn load_pair(dir: &Path, part: &str) -> Result<Dataset> {
    let images_path = find(dir, part, "images", 3)?;
    let labels_path = find(dir, part, "labels", 1)?;
    let images = IdxArray::read(&images_path)?;
    let labels = IdxArray::read(&labels_path)?;
    let images_name = images_path.display().to_string();
    let labels_name = labels_path.display().to_string();
    let (IdxData::U8(pixels), [n, rows, cols]) = (images.data, images.dims.as_slice()) else {
        return Err(TrainError::format(
            images_name,
            "expected u8 images of dims [n, rows, cols]",
        ));
    };
    let (IdxData::U8(labels), [m]) = (labels.data, labels.dims.as_slice()) else {
        return Err(TrainError::format(
            labels_name,
            "expected u8 labels of dims [n]",
        ));
    };
    if n != m {
        return Err(TrainError::format(
            labels_name,
            format!("{m} labels for the {n} images of {images_name}"),
        ));
    }
    if let Some((i, l)) = labels.iter().enumerate().find(|(_, &l)| l > 9) {
        return Err(TrainError::format(
            labels_name,
            format!("label {l} of image {i} is not a digit"),
        ));
    }
    let features = pixels.iter().map(|&p| f32::from(p) / 255.0).collect();
    Dataset::new(features, labels, &[(rows * cols) as i64], 10)
}

/// The first existing file among the accepted names of one MNIST file.
fn find(dir: &Path, part: &str, what: &str, rank: u8) -> Result<PathBuf> {
    let names = [
        format!("{part}-{what}-idx{rank}-ubyte"),
        format!("{part}-{what}.idx{rank}-ubyte"),
    ];
    let candidates: Vec<PathBuf> = names
        .iter()
        .flat_map(|n| [dir.join(n), dir.join(format!("{n}.gz"))])
        .collect();
    candidates
        .iter()
        .find(|p| p.is_file())
        .cloned()
        .ok_or_else(|| {
            TrainError::format(
                dir.join(&names[0]).display().to_string(),
                format!(
                    "MNIST file not found (also tried {}.gz and {}[.gz])",
                    names[0], names[1]
                ),
            )
        })
}
