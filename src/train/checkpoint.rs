//! Checkpoints as [safetensors](https://github.com/huggingface/safetensors) files: named
//! literals plus the training state (epoch, step) in the file's metadata, written atomically.
//!
//! ```
//! use xla::train::{load_checkpoint, save_checkpoint, TrainState};
//! use xla::Literal;
//!
//! let dir = std::env::temp_dir().join(format!("xla-doc-ckpt-{}", std::process::id()));
//! std::fs::create_dir_all(&dir).unwrap();
//! let path = dir.join("model.safetensors");
//! let w = Literal::from_vec(&[2, 2], vec![1f32, 2., 3., 4.])?;
//! let b = Literal::vec1(&[0.5f32, -0.5]);
//! save_checkpoint(&path, &[("w", &w), ("b", &b)], TrainState { epoch: 3, step: 120 })?;
//!
//! // Load, checking names, types and shapes against the model's parameters.
//! let (params, state) = load_checkpoint(&path, &[("w", w.shape()), ("b", b.shape())])?;
//! assert_eq!(params, vec![w, b]);
//! assert_eq!(state, TrainState { epoch: 3, step: 120 });
//! # std::fs::remove_dir_all(&dir).unwrap();
//! # Ok::<(), xla::train::TrainError>(())
//! ```

use super::error::{Result, TrainError};
use super::fsutil::write_atomic;
use safetensors::tensor::{Dtype, SafeTensors, TensorView};
use std::collections::{BTreeMap, HashMap};
use std::path::Path;
use xla_core::literal::ArrayData;
use xla_core::{Literal, PrimitiveType, Shape};

/// Where training stopped, stored in the checkpoint's metadata (`epoch`, `step`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TrainState {
    /// Epochs completed.
    pub epoch: u64,
    /// Optimiser steps taken.
    pub step: u64,
}

/// The metadata key naming the writer.
const FORMAT_KEY: &str = "format";
const FORMAT: &str = "xla-rs.train/1";

/// A set of named literals and the training state, as read from or written to a file.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Checkpoint {
    /// The tensors by name.
    pub tensors: BTreeMap<String, Literal>,
    /// Epoch and step.
    pub state: TrainState,
    /// Other metadata strings (model name, hyper-parameters, ...).
    pub metadata: BTreeMap<String, String>,
}

impl Checkpoint {
    /// A checkpoint of copies of `tensors` at `state`, without other metadata.
    ///
    /// # Errors
    /// If a name repeats.
    pub fn new(tensors: &[(&str, &Literal)], state: TrainState) -> Result<Checkpoint> {
        let mut ckpt = Checkpoint {
            state,
            ..Checkpoint::default()
        };
        for (name, lit) in tensors {
            let previous = ckpt.tensors.insert((*name).to_string(), (*lit).clone());
            if previous.is_some() {
                return Err(checkpoint_err(name, "name given twice"));
            }
        }
        Ok(ckpt)
    }

    /// Writes the checkpoint atomically: a temporary file in the same directory renamed over
    /// `path`, so a failure never leaves a partial file (an existing `path` stays as it was).
    ///
    /// # Errors
    /// If a literal is a tuple or token, or c128 (safetensors has no such dtype), or the file
    /// cannot be written.
    pub fn save(&self, path: impl AsRef<Path>) -> Result<()> {
        let path = path.as_ref();
        let bytes = self
            .tensors
            .iter()
            .map(|(name, lit)| Ok((name.as_str(), dtype_of(name, lit)?, to_le_bytes(lit))))
            .collect::<Result<Vec<_>>>()?;
        let views = bytes
            .iter()
            .map(|(name, dtype, data)| {
                let shape = self.tensors.get(*name).map_or(&[][..], Literal::dims);
                let shape = shape.iter().map(|&d| d as usize).collect();
                TensorView::new(*dtype, shape, data)
                    .map(|v| (*name, v))
                    .map_err(|e| checkpoint_err(name, e.to_string()))
            })
            .collect::<Result<Vec<_>>>()?;
        let mut meta: HashMap<String, String> = self.metadata.clone().into_iter().collect();
        meta.insert(FORMAT_KEY.into(), FORMAT.into());
        meta.insert("epoch".into(), self.state.epoch.to_string());
        meta.insert("step".into(), self.state.step.to_string());
        let file = safetensors::serialize(views, Some(meta))
            .map_err(|e| checkpoint_err(&path.display().to_string(), e.to_string()))?;
        write_atomic(path, &file)
    }

    /// Reads a safetensors file (tensors, state and metadata).
    ///
    /// # Errors
    /// If the file cannot be read, is not a valid safetensors file, holds a dtype without an
    /// XLA element type (f8, ...), or its `epoch`/`step` metadata are not integers.
    pub fn load(path: impl AsRef<Path>) -> Result<Checkpoint> {
        let path = path.as_ref();
        let bytes = std::fs::read(path).map_err(|e| TrainError::io(path, e))?;
        Checkpoint::from_bytes(&bytes, &path.display().to_string())
    }

    /// Reads a checkpoint from the bytes of a safetensors file; `file` names it in errors.
    ///
    /// # Errors
    /// As [`Checkpoint::load`], but for reading the file.
    pub fn from_bytes(bytes: &[u8], file: &str) -> Result<Checkpoint> {
        let file = file.to_string();
        let st = SafeTensors::deserialize(bytes)
            .map_err(|e| TrainError::format(&file, format!("not a valid safetensors file: {e}")))?;
        let (_, header) = SafeTensors::read_metadata(bytes)
            .map_err(|e| TrainError::format(&file, format!("not a valid safetensors file: {e}")))?;
        let mut metadata: BTreeMap<String, String> = header
            .metadata()
            .clone()
            .unwrap_or_default()
            .into_iter()
            .collect();
        metadata.remove(FORMAT_KEY);
        let state = TrainState {
            epoch: take_u64(&mut metadata, "epoch", &file)?,
            step: take_u64(&mut metadata, "step", &file)?,
        };
        let tensors = st
            .iter()
            .map(|(name, view)| Ok((name.to_string(), from_view(name, &view)?)))
            .collect::<Result<_>>()?;
        Ok(Checkpoint {
            tensors,
            state,
            metadata,
        })
    }

    /// Takes the tensors `expected` names, in that order, checking each one's element type
    /// and dims, and that the file holds no other tensor.
    ///
    /// # Errors
    /// `checkpoint w1: expected f32[784,128], file has f32[784,64]`, or a name missing from
    /// the file, or a tensor in the file the model does not expect.
    pub fn take_expected(&mut self, expected: &[(&str, &Shape)]) -> Result<Vec<Literal>> {
        let have: Vec<String> = self.tensors.keys().cloned().collect();
        let mut out = Vec::with_capacity(expected.len());
        for (name, shape) in expected {
            let lit = self.tensors.remove(*name).ok_or_else(|| {
                checkpoint_err(
                    name,
                    format!("missing from the file (it has: {})", have.join(", ")),
                )
            })?;
            let same = lit.element_type() == shape.element_type() && lit.dims() == shape.dims();
            if !same {
                return Err(checkpoint_err(
                    name,
                    format!(
                        "expected {}, file has {}",
                        shape.without_layout(),
                        lit.shape().without_layout()
                    ),
                ));
            }
            out.push(lit);
        }
        if let Some(extra) = self.tensors.keys().next() {
            return Err(checkpoint_err(
                extra,
                "in the file but not expected by the model",
            ));
        }
        Ok(out)
    }
}

/// Saves `tensors` and `state` to `path` (see [`Checkpoint::save`]).
///
/// # Errors
/// As [`Checkpoint::save`]; also if a name repeats.
pub fn save_checkpoint(
    path: impl AsRef<Path>,
    tensors: &[(&str, &Literal)],
    state: TrainState,
) -> Result<()> {
    Checkpoint::new(tensors, state)?.save(path)
}

/// Loads the tensors `expected` names (in that order, each checked against its shape) and
/// the training state from `path`.
///
/// # Errors
/// As [`Checkpoint::load`] and [`Checkpoint::take_expected`].
pub fn load_checkpoint(
    path: impl AsRef<Path>,
    expected: &[(&str, &Shape)],
) -> Result<(Vec<Literal>, TrainState)> {
    let mut ckpt = Checkpoint::load(path)?;
    let tensors = ckpt.take_expected(expected)?;
    Ok((tensors, ckpt.state))
}

fn checkpoint_err(name: &str, reason: impl Into<String>) -> TrainError {
    TrainError::Checkpoint {
        name: name.to_string(),
        reason: reason.into(),
    }
}

/// Removes `key` from the metadata and parses it (0 when absent).
fn take_u64(meta: &mut BTreeMap<String, String>, key: &str, file: &str) -> Result<u64> {
    match meta.remove(key) {
        None => Ok(0),
        Some(v) => v.parse().map_err(|_| {
            TrainError::format(
                file,
                format!("metadata {key} = `{v}` is not a non-negative integer"),
            )
        }),
    }
}

/// The safetensors dtype of an array literal.
fn dtype_of(name: &str, lit: &Literal) -> Result<Dtype> {
    let unsupported = |what: &str| checkpoint_err(name, format!("{} {what}", lit.shape()));
    Ok(match lit.element_type() {
        PrimitiveType::Pred => Dtype::BOOL,
        PrimitiveType::S8 => Dtype::I8,
        PrimitiveType::S16 => Dtype::I16,
        PrimitiveType::S32 => Dtype::I32,
        PrimitiveType::S64 => Dtype::I64,
        PrimitiveType::U8 => Dtype::U8,
        PrimitiveType::U16 => Dtype::U16,
        PrimitiveType::U32 => Dtype::U32,
        PrimitiveType::U64 => Dtype::U64,
        PrimitiveType::F16 => Dtype::F16,
        PrimitiveType::Bf16 => Dtype::BF16,
        PrimitiveType::F32 => Dtype::F32,
        PrimitiveType::F64 => Dtype::F64,
        PrimitiveType::C64 => Dtype::C64,
        PrimitiveType::C128 => return Err(unsupported("has no safetensors dtype")),
        PrimitiveType::Tuple => {
            return Err(unsupported(
                "is a tuple: store its elements under separate names",
            ))
        }
        PrimitiveType::Token => return Err(unsupported("is a token and holds no data")),
    })
}

/// The literal's elements as little-endian bytes (PRED as one byte 0/1).
fn to_le_bytes(lit: &Literal) -> Vec<u8> {
    fn le<T, const N: usize>(v: &[T], f: impl Fn(&T) -> [u8; N]) -> Vec<u8> {
        v.iter().flat_map(f).collect()
    }
    let Some(data) = lit.array_data() else {
        return Vec::new();
    };
    match data {
        ArrayData::Pred(v) => v.iter().map(|&b| u8::from(b)).collect(),
        ArrayData::S8(v) => le(v, |x| x.to_le_bytes()),
        ArrayData::S16(v) => le(v, |x| x.to_le_bytes()),
        ArrayData::S32(v) => le(v, |x| x.to_le_bytes()),
        ArrayData::S64(v) => le(v, |x| x.to_le_bytes()),
        ArrayData::U8(v) => v.clone(),
        ArrayData::U16(v) => le(v, |x| x.to_le_bytes()),
        ArrayData::U32(v) => le(v, |x| x.to_le_bytes()),
        ArrayData::U64(v) => le(v, |x| x.to_le_bytes()),
        ArrayData::F16(v) => le(v, |x| x.to_bits().to_le_bytes()),
        ArrayData::Bf16(v) => le(v, |x| x.to_bits().to_le_bytes()),
        ArrayData::F32(v) => le(v, |x| x.to_le_bytes()),
        ArrayData::F64(v) => le(v, |x| x.to_le_bytes()),
        ArrayData::C64(v) => le(v, |x| {
            let mut b = [0u8; 8];
            b[..4].copy_from_slice(&x.re.to_le_bytes());
            b[4..].copy_from_slice(&x.im.to_le_bytes());
            b
        }),
        ArrayData::C128(v) => le(v, |x| {
            let mut b = [0u8; 16];
            b[..8].copy_from_slice(&x.re.to_le_bytes());
            b[8..].copy_from_slice(&x.im.to_le_bytes());
            b
        }),
    }
}

/// Little-endian `N`-byte chunks of `bytes` decoded with `f`.
fn chunks<T, const N: usize>(bytes: &[u8], f: impl Fn([u8; N]) -> T) -> Vec<T> {
    bytes
        .chunks_exact(N)
        .map(|c| {
            let mut b = [0u8; N];
            b.copy_from_slice(c);
            f(b)
        })
        .collect()
}

/// A literal from a tensor of the file.
fn from_view(name: &str, view: &TensorView<'_>) -> Result<Literal> {
    use half::{bf16, f16};
    let b = view.data();
    let data = match view.dtype() {
        Dtype::BOOL => ArrayData::Pred(b.iter().map(|&x| x != 0).collect()),
        Dtype::I8 => ArrayData::S8(chunks(b, i8::from_le_bytes)),
        Dtype::I16 => ArrayData::S16(chunks(b, i16::from_le_bytes)),
        Dtype::I32 => ArrayData::S32(chunks(b, i32::from_le_bytes)),
        Dtype::I64 => ArrayData::S64(chunks(b, i64::from_le_bytes)),
        Dtype::U8 => ArrayData::U8(b.to_vec()),
        Dtype::U16 => ArrayData::U16(chunks(b, u16::from_le_bytes)),
        Dtype::U32 => ArrayData::U32(chunks(b, u32::from_le_bytes)),
        Dtype::U64 => ArrayData::U64(chunks(b, u64::from_le_bytes)),
        Dtype::F16 => ArrayData::F16(chunks(b, |x| f16::from_bits(u16::from_le_bytes(x)))),
        Dtype::BF16 => ArrayData::Bf16(chunks(b, |x| bf16::from_bits(u16::from_le_bytes(x)))),
        Dtype::F32 => ArrayData::F32(chunks(b, f32::from_le_bytes)),
        Dtype::F64 => ArrayData::F64(chunks(b, f64::from_le_bytes)),
        Dtype::C64 => ArrayData::C64(chunks(b, |x: [u8; 8]| {
            let (re, im) = x.split_at(4);
            let f = |s: &[u8]| f32::from_le_bytes(s.try_into().unwrap_or_default());
            num_complex::Complex32::new(f(re), f(im))
        })),
        other => {
            return Err(checkpoint_err(
                name,
                format!("dtype {other:?} has no XLA element type"),
            ))
        }
    };
    let dims: Vec<i64> = view.shape().iter().map(|&d| d as i64).collect();
    let shape = Shape::array(data.element_type(), dims);
    Literal::from_array_data(shape, data).map_err(|e| checkpoint_err(name, e.to_string()))
}
