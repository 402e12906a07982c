//! Reading and writing `.npy` files (feature `npy`).
//!
//! ```
//! use xla_core::Literal;
//!
//! let lit = Literal::from_vec(&[2, 2], vec![1.0f32, 2.0, 3.0, 4.0]).unwrap();
//! let bytes = lit.to_npy_bytes().unwrap();
//! assert_eq!(Literal::from_npy_bytes(&bytes).unwrap(), lit);
//! ```
//!
//! # Format
//! The NumPy format (`numpy.lib.format`): the magic `\x93NUMPY`, a version byte pair (1.0,
//! 2.0 and 3.0 are read; 1.0 is written, 2.0 when the header needs more than 65535 bytes), the
//! header length (u16 for 1.0, u32 otherwise), a Python dict literal
//! `{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }` padded with spaces to a
//! multiple of 64 bytes and ending in a newline, then the elements.
//!
//! Element types (`descr`): `b1` → pred, `i1`/`i2`/`i4`/`i8` → s8..s64, `u1`..`u8` →
//! u8..u64, `f2`/`f4`/`f8` → f16/f32/f64, `c8`/`c16` → c64/c128, each little-endian (`<`),
//! big-endian (`>`), native (`=`) or without byte order (`|`, single bytes). Files in Fortran
//! order are transposed to row-major on reading. Files are always written little-endian in C
//! order.
//!
//! **bf16** has no NumPy dtype. `np.save` of an `ml_dtypes.bfloat16` array writes the
//! two-byte void descr `<V2` with the raw little-endian bits, so that is what bf16 literals
//! are written as, and a `V2` array is read as bf16 (the only two-byte opaque type XLA has).
//! `np.load` then gives a `V2` array that `.view(ml_dtypes.bfloat16)` turns back into bf16.
//!
//! # Why not a crate
//! `npyz` covers the format, but its header parser pulls in `py_literal` and through it the
//! `pest` parser generator, and `xla-core` is compiled by the proc macro, so every dependency
//! slows every user's build. The format is small enough to read and write here in a few
//! hundred lines, with our own error messages and the bf16 convention above.
//!
//! # Errors
//! Truncated or malformed files, unsupported dtypes (strings, objects, structured arrays) and
//! data whose size disagrees with the header are errors ([`LiteralError::Npy`], naming the
//! file), never panics. Writing goes through a temporary file in the same directory that is
//! renamed over the target, so a failed write leaves no partial file.

use super::{ArrayData, Literal, LiteralError, LiteralValue};
use crate::shape::Shape;
use crate::types::PrimitiveType;
use half::{bf16, f16};
use num_complex::{Complex32, Complex64};
use std::io::Write;
use std::path::Path;

mod header;
use header::parse_header;

const MAGIC: &[u8; 6] = b"\x93NUMPY";
/// The path shown in errors about in-memory buffers.
const BYTES: &str = "<bytes>";

fn npy_err(path: &str, reason: impl Into<String>) -> LiteralError {
    LiteralError::Npy {
        path: path.to_string(),
        reason: reason.into(),
    }
}

impl Literal {
    /// Reads an array literal from a `.npy` file.
    ///
    /// # Errors
    /// If the file cannot be read, is not a valid `.npy` file, or holds an unsupported dtype.
    pub fn read_npy(path: impl AsRef<Path>) -> Result<Literal, LiteralError> {
        let path = path.as_ref();
        let shown = path.display().to_string();
        let bytes = std::fs::read(path).map_err(|e| npy_err(&shown, e.to_string()))?;
        decode_npy(&bytes, &shown)
    }

    /// Reads an array literal from the bytes of a `.npy` file.
    ///
    /// # Errors
    /// If the bytes are not a valid `.npy` file or hold an unsupported dtype.
    pub fn from_npy_bytes(bytes: &[u8]) -> Result<Literal, LiteralError> {
        decode_npy(bytes, BYTES)
    }

    /// The bytes of a `.npy` file holding this array (little-endian, C order; bf16 as `<V2`).
    ///
    /// # Errors
    /// If this is a tuple or a token.
    pub fn to_npy_bytes(&self) -> Result<Vec<u8>, LiteralError> {
        encode_npy(self, BYTES)
    }

    /// Writes this array to a `.npy` file, through a temporary file renamed into place.
    ///
    /// # Errors
    /// If this is a tuple or a token, or the file cannot be written.
    pub fn write_npy(&self, path: impl AsRef<Path>) -> Result<(), LiteralError> {
        let path = path.as_ref();
        let shown = path.display().to_string();
        let bytes = encode_npy(self, &shown)?;
        write_atomically(path, &bytes).map_err(|e| npy_err(&shown, e.to_string()))
    }
}

/// Writes `bytes` to a temporary file next to `path`, then renames it over `path`.
fn write_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = path.with_file_name(format!(".{name}.{}.tmp", std::process::id()));
    let result = (|| {
        let mut file = std::fs::File::create(&tmp)?;
        file.write_all(bytes)?;
        file.sync_all()?;
        drop(file);
        std::fs::rename(&tmp, path)
    })();
    if result.is_err() {
        // Best effort: the temporary may not exist; the original error is what matters.
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

/// Byte order of the elements in a file.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Order {
    Little,
    Big,
}

/// What the header says.
#[derive(Debug)]
struct Header {
    ty: PrimitiveType,
    order: Order,
    fortran: bool,
    dims: Vec<usize>,
}

/// The `descr` XLA writes for an element type (`None` for TUPLE and TOKEN).
pub fn descr_of(ty: PrimitiveType) -> Option<&'static str> {
    Some(match ty {
        PrimitiveType::Pred => "|b1",
        PrimitiveType::S8 => "|i1",
        PrimitiveType::S16 => "<i2",
        PrimitiveType::S32 => "<i4",
        PrimitiveType::S64 => "<i8",
        PrimitiveType::U8 => "|u1",
        PrimitiveType::U16 => "<u2",
        PrimitiveType::U32 => "<u4",
        PrimitiveType::U64 => "<u8",
        PrimitiveType::F16 => "<f2",
        PrimitiveType::Bf16 => "<V2",
        PrimitiveType::F32 => "<f4",
        PrimitiveType::F64 => "<f8",
        PrimitiveType::C64 => "<c8",
        PrimitiveType::C128 => "<c16",
        PrimitiveType::Tuple | PrimitiveType::Token => return None,
    })
}

/// Parses a `descr` string such as `<f4`, `|b1`, `>c16`.
fn parse_descr(descr: &str, path: &str) -> Result<(PrimitiveType, Order), LiteralError> {
    let unsupported = || npy_err(path, format!("unsupported dtype '{descr}'"));
    let (order_char, code) = match descr.chars().next() {
        Some(c @ ('<' | '>' | '|' | '=')) => (c, &descr[1..]),
        _ => ('|', descr),
    };
    use PrimitiveType::*;
    let ty = match code {
        "b1" | "?" => Pred,
        "i1" => S8,
        "i2" => S16,
        "i4" => S32,
        "i8" => S64,
        "u1" => U8,
        "u2" => U16,
        "u4" => U32,
        "u8" => U64,
        "f2" => F16,
        "f4" => F32,
        "f8" => F64,
        "c8" => C64,
        "c16" => C128,
        "V2" => Bf16,
        _ => return Err(unsupported()),
    };
    let order = match order_char {
        '>' => Order::Big,
        '=' if cfg!(target_endian = "big") => Order::Big,
        '|' if ty.byte_size() > 1 && ty != Bf16 => {
            return Err(npy_err(
                path,
                format!("dtype '{descr}' needs a byte order ('<' or '>')"),
            ))
        }
        _ => Order::Little,
    };
    // bf16 (`V2`) is raw little-endian bits whatever the prefix says.
    Ok((ty, if ty == Bf16 { Order::Little } else { order }))
}

/// Splits a file into its header text and its data.
fn split_file<'a>(bytes: &'a [u8], path: &str) -> Result<(&'a str, &'a [u8]), LiteralError> {
    let magic = bytes
        .get(..6)
        .ok_or_else(|| npy_err(path, "file too short for a .npy header"))?;
    if magic != MAGIC {
        return Err(npy_err(path, "not a .npy file (bad magic bytes)"));
    }
    let (major, minor) = match bytes.get(6..8) {
        Some(&[a, b]) => (a, b),
        _ => return Err(npy_err(path, "file too short for a .npy header")),
    };
    let (len, start) = match major {
        1 => (
            bytes
                .get(8..10)
                .map(|b| usize::from(u16::from_le_bytes([b[0], b[1]]))),
            10,
        ),
        2 | 3 => (
            bytes
                .get(8..12)
                .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize),
            12,
        ),
        _ => {
            return Err(npy_err(
                path,
                format!("unsupported .npy format version {major}.{minor}"),
            ))
        }
    };
    let len = len.ok_or_else(|| npy_err(path, "file too short for a .npy header"))?;
    let end = start + len;
    let header = bytes.get(start..end).ok_or_else(|| {
        npy_err(
            path,
            format!(
                "header of {len} bytes runs past the end of the file ({} bytes)",
                bytes.len()
            ),
        )
    })?;
    let header = std::str::from_utf8(header).map_err(|_| npy_err(path, "header is not text"))?;
    Ok((header, bytes.get(end..).unwrap_or(&[])))
}

fn decode_npy(bytes: &[u8], path: &str) -> Result<Literal, LiteralError> {
    let (header_text, data) = split_file(bytes, path)?;
    let header = parse_header(header_text, path)?;
    let count = header
        .dims
        .iter()
        .try_fold(1usize, |acc, &d| acc.checked_mul(d))
        .filter(|&c| i64::try_from(c).is_ok())
        .ok_or_else(|| {
            npy_err(
                path,
                format!("shape {:?} has too many elements", header.dims),
            )
        })?;
    let size = count.checked_mul(header.ty.byte_size()).ok_or_else(|| {
        npy_err(
            path,
            format!("shape {:?} has too many elements", header.dims),
        )
    })?;
    if data.len() != size {
        let what = if data.len() < size {
            "truncated"
        } else {
            "has trailing bytes"
        };
        return Err(npy_err(
            path,
            format!(
                "data {what}: header says {} {:?} ({size} bytes) but the file holds {} bytes of data",
                header.ty,
                header.dims,
                data.len()
            ),
        ));
    }
    let mut array = decode_data(header.ty, header.order, data);
    if header.fortran && header.dims.len() > 1 {
        array = fortran_to_row_major(array, &header.dims);
    }
    let dims = header.dims.iter().map(|&d| d as i64).collect::<Vec<_>>();
    Literal::from_array_data(Shape::array(header.ty, dims), array)
        .map_err(|e| npy_err(path, e.to_string()))
}

/// `N` bytes starting a chunk, in little-endian order.
fn word<const N: usize>(chunk: &[u8], order: Order) -> [u8; N] {
    let mut w: [u8; N] = chunk
        .get(..N)
        .and_then(|c| c.try_into().ok())
        .unwrap_or([0; N]);
    if order == Order::Big {
        w.reverse();
    }
    w
}

macro_rules! decode_as {
    ($data:expr, $order:expr, $n:literal, $conv:expr) => {
        $data
            .chunks_exact($n)
            .map(|c| $conv(word::<$n>(c, $order)))
            .collect()
    };
}

/// Decodes `data` (whose length is a multiple of the element size) into elements of `ty`.
fn decode_data(ty: PrimitiveType, o: Order, data: &[u8]) -> ArrayData {
    let c64 = |c: &[u8]| {
        Complex32::new(
            f32::from_le_bytes(word::<4>(c, o)),
            f32::from_le_bytes(word::<4>(c.get(4..).unwrap_or(&[]), o)),
        )
    };
    let c128 = |c: &[u8]| {
        Complex64::new(
            f64::from_le_bytes(word::<8>(c, o)),
            f64::from_le_bytes(word::<8>(c.get(8..).unwrap_or(&[]), o)),
        )
    };
    match ty {
        PrimitiveType::Pred => ArrayData::Pred(data.iter().map(|&b| b != 0).collect()),
        PrimitiveType::S8 => ArrayData::S8(decode_as!(data, o, 1, i8::from_le_bytes)),
        PrimitiveType::S16 => ArrayData::S16(decode_as!(data, o, 2, i16::from_le_bytes)),
        PrimitiveType::S32 => ArrayData::S32(decode_as!(data, o, 4, i32::from_le_bytes)),
        PrimitiveType::S64 => ArrayData::S64(decode_as!(data, o, 8, i64::from_le_bytes)),
        PrimitiveType::U8 => ArrayData::U8(data.to_vec()),
        PrimitiveType::U16 => ArrayData::U16(decode_as!(data, o, 2, u16::from_le_bytes)),
        PrimitiveType::U32 => ArrayData::U32(decode_as!(data, o, 4, u32::from_le_bytes)),
        PrimitiveType::U64 => ArrayData::U64(decode_as!(data, o, 8, u64::from_le_bytes)),
        PrimitiveType::F16 => ArrayData::F16(decode_as!(data, o, 2, f16::from_le_bytes)),
        PrimitiveType::Bf16 => ArrayData::Bf16(decode_as!(data, o, 2, bf16::from_le_bytes)),
        PrimitiveType::F32 => ArrayData::F32(decode_as!(data, o, 4, f32::from_le_bytes)),
        PrimitiveType::F64 => ArrayData::F64(decode_as!(data, o, 8, f64::from_le_bytes)),
        PrimitiveType::C64 => ArrayData::C64(data.chunks_exact(8).map(c64).collect()),
        PrimitiveType::C128 => ArrayData::C128(data.chunks_exact(16).map(c128).collect()),
        // parse_descr never yields these; an empty PRED array keeps this total.
        PrimitiveType::Tuple | PrimitiveType::Token => ArrayData::Pred(Vec::new()),
    }
}

/// Reorders column-major elements of an array with `dims` into row-major order.
fn fortran_to_row_major(data: ArrayData, dims: &[usize]) -> ArrayData {
    fn reorder<T: Copy>(v: &[T], dims: &[usize]) -> Vec<T> {
        // Column-major strides: dim 0 varies fastest.
        let mut strides = Vec::with_capacity(dims.len());
        let mut s = 1usize;
        for &d in dims {
            strides.push(s);
            s = s.saturating_mul(d);
        }
        let mut out = Vec::with_capacity(v.len());
        let mut index = vec![0usize; dims.len()];
        for _ in 0..v.len() {
            let at: usize = index.iter().zip(&strides).map(|(i, s)| i * s).sum();
            if let Some(&x) = v.get(at) {
                out.push(x);
            }
            // Row-major odometer: the last dim varies fastest.
            for k in (0..dims.len()).rev() {
                index[k] += 1;
                if index[k] < dims[k] {
                    break;
                }
                index[k] = 0;
            }
        }
        out
    }
    match data {
        ArrayData::Pred(v) => ArrayData::Pred(reorder(&v, dims)),
        ArrayData::S8(v) => ArrayData::S8(reorder(&v, dims)),
        ArrayData::S16(v) => ArrayData::S16(reorder(&v, dims)),
        ArrayData::S32(v) => ArrayData::S32(reorder(&v, dims)),
        ArrayData::S64(v) => ArrayData::S64(reorder(&v, dims)),
        ArrayData::U8(v) => ArrayData::U8(reorder(&v, dims)),
        ArrayData::U16(v) => ArrayData::U16(reorder(&v, dims)),
        ArrayData::U32(v) => ArrayData::U32(reorder(&v, dims)),
        ArrayData::U64(v) => ArrayData::U64(reorder(&v, dims)),
        ArrayData::F16(v) => ArrayData::F16(reorder(&v, dims)),
        ArrayData::Bf16(v) => ArrayData::Bf16(reorder(&v, dims)),
        ArrayData::F32(v) => ArrayData::F32(reorder(&v, dims)),
        ArrayData::F64(v) => ArrayData::F64(reorder(&v, dims)),
        ArrayData::C64(v) => ArrayData::C64(reorder(&v, dims)),
        ArrayData::C128(v) => ArrayData::C128(reorder(&v, dims)),
    }
}

fn encode_npy(lit: &Literal, path: &str) -> Result<Vec<u8>, LiteralError> {
    let (data, descr) = match lit.value() {
        LiteralValue::Array(data) => (data, descr_of(data.element_type())),
        LiteralValue::Tuple(_) | LiteralValue::Token => (&ArrayData::Pred(Vec::new()), None),
    };
    let descr = descr.ok_or_else(|| {
        npy_err(
            path,
            format!("only arrays can be written, not {}", lit.shape()),
        )
    })?;
    let dims = lit.dims();
    let shape = match dims {
        [d] => format!("({d},)"),
        _ => format!(
            "({})",
            dims.iter()
                .map(i64::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        ),
    };
    let mut header = format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': {shape}, }}");
    // Magic, version and length take 10 bytes (v1) or 12 (v2); pad to a multiple of 64
    // including the final newline.
    let v1 = header.len() + 1 + 10 <= usize::from(u16::MAX);
    let prefix = if v1 { 10 } else { 12 };
    let total = (prefix + header.len() + 1).div_ceil(64) * 64;
    header.extend(std::iter::repeat_n(' ', total - prefix - header.len() - 1));
    header.push('\n');
    let mut out = Vec::with_capacity(total + data.len() * data.element_type().byte_size());
    out.extend_from_slice(MAGIC);
    if v1 {
        out.extend_from_slice(&[1, 0]);
        let len = u16::try_from(header.len()).map_err(|_| npy_err(path, "header too long"))?;
        out.extend_from_slice(&len.to_le_bytes());
    } else {
        out.extend_from_slice(&[2, 0]);
        let len = u32::try_from(header.len()).map_err(|_| npy_err(path, "header too long"))?;
        out.extend_from_slice(&len.to_le_bytes());
    }
    out.extend_from_slice(header.as_bytes());
    encode_data(data, &mut out);
    Ok(out)
}

macro_rules! encode_le {
    ($v:expr, $out:expr, $conv:expr) => {
        for x in $v {
            $out.extend_from_slice(&$conv(x));
        }
    };
}

/// Appends the elements little-endian.
fn encode_data(data: &ArrayData, out: &mut Vec<u8>) {
    match data {
        ArrayData::Pred(v) => out.extend(v.iter().map(|&b| u8::from(b))),
        ArrayData::S8(v) => encode_le!(v, out, |x: &i8| x.to_le_bytes()),
        ArrayData::S16(v) => encode_le!(v, out, |x: &i16| x.to_le_bytes()),
        ArrayData::S32(v) => encode_le!(v, out, |x: &i32| x.to_le_bytes()),
        ArrayData::S64(v) => encode_le!(v, out, |x: &i64| x.to_le_bytes()),
        ArrayData::U8(v) => out.extend_from_slice(v),
        ArrayData::U16(v) => encode_le!(v, out, |x: &u16| x.to_le_bytes()),
        ArrayData::U32(v) => encode_le!(v, out, |x: &u32| x.to_le_bytes()),
        ArrayData::U64(v) => encode_le!(v, out, |x: &u64| x.to_le_bytes()),
        ArrayData::F16(v) => encode_le!(v, out, |x: &f16| x.to_le_bytes()),
        ArrayData::Bf16(v) => encode_le!(v, out, |x: &bf16| x.to_le_bytes()),
        ArrayData::F32(v) => encode_le!(v, out, |x: &f32| x.to_le_bytes()),
        ArrayData::F64(v) => encode_le!(v, out, |x: &f64| x.to_le_bytes()),
        ArrayData::C64(v) => {
            for c in v {
                out.extend_from_slice(&c.re.to_le_bytes());
                out.extend_from_slice(&c.im.to_le_bytes());
            }
        }
        ArrayData::C128(v) => {
            for c in v {
                out.extend_from_slice(&c.re.to_le_bytes());
                out.extend_from_slice(&c.im.to_le_bytes());
            }
        }
    }
}
