//! Moving literals in and out of the state buffer (little-endian element bytes; PRED as
//! one byte 0 or 1).

use super::program::{Slot, Ty, Val};
use crate::error::{CpuError, Result};
use crate::scalar::Elem;
use xla_core::literal::ArrayData;
use xla_core::{Literal, PrimitiveType, Shape};

/// The element bytes of `d`, when its type has a native slot type.
pub(crate) fn bytes_of(d: &ArrayData) -> Option<Vec<u8>> {
    Ty::of(d.element_type())?;
    if let Some(b) = raw_bytes(d) {
        return Some(b.to_vec());
    }
    let mut out = Vec::with_capacity(d.len() * d.element_type().byte_size());
    xla_core::with_array_data!(d, v => v.iter().for_each(|&e| e.write_le(&mut out)));
    Some(out)
}

/// The memory of `d` as bytes when that is its little-endian element bytes (every slot
/// type on a little-endian host; PRED is one byte 0 or 1 either way): one `memcpy` per
/// value instead of a write per element (which took a third of a CG solve's time, its
/// state holding a 256×256 matrix).
fn raw_bytes(d: &ArrayData) -> Option<&[u8]> {
    if cfg!(target_endian = "big") {
        return None;
    }
    Some(match d {
        ArrayData::Pred(v) => bytemuck::cast_slice(v),
        ArrayData::S8(v) => bytemuck::cast_slice(v),
        ArrayData::U8(v) => v,
        ArrayData::S16(v) => bytemuck::cast_slice(v),
        ArrayData::U16(v) => bytemuck::cast_slice(v),
        ArrayData::S32(v) => bytemuck::cast_slice(v),
        ArrayData::U32(v) => bytemuck::cast_slice(v),
        ArrayData::S64(v) => bytemuck::cast_slice(v),
        ArrayData::U64(v) => bytemuck::cast_slice(v),
        ArrayData::F32(v) => bytemuck::cast_slice(v),
        ArrayData::F64(v) => bytemuck::cast_slice(v),
        ArrayData::F16(_) | ArrayData::Bf16(_) | ArrayData::C64(_) | ArrayData::C128(_) => {
            return None
        }
    })
}

/// Elements of `T` from their little-endian bytes `b`: one copy on a little-endian host.
fn from_le<T: Elem + bytemuck::Pod>(b: &[u8]) -> Vec<T> {
    if cfg!(target_endian = "big") {
        return from_bytes(b);
    }
    let w = std::mem::size_of::<T>().max(1);
    let mut v = vec![T::zeroed(); b.len() / w];
    let dst: &mut [u8] = bytemuck::cast_slice_mut(&mut v);
    match b.get(..dst.len()) {
        Some(src) => dst.copy_from_slice(src),
        None => return from_bytes(b),
    }
    v
}

fn from_bytes<T: Elem>(b: &[u8]) -> Vec<T> {
    let w = T::TYPE.byte_size().max(1);
    b.chunks_exact(w).map(T::read_le).collect()
}

fn data_of(ty: PrimitiveType, b: &[u8]) -> Option<ArrayData> {
    use PrimitiveType as P;
    Some(match ty {
        P::Pred => ArrayData::Pred(from_bytes(b)),
        P::S8 => ArrayData::S8(from_le(b)),
        P::U8 => ArrayData::U8(b.to_vec()),
        P::S16 => ArrayData::S16(from_le(b)),
        P::U16 => ArrayData::U16(from_le(b)),
        P::S32 => ArrayData::S32(from_le(b)),
        P::U32 => ArrayData::U32(from_le(b)),
        P::S64 => ArrayData::S64(from_le(b)),
        P::U64 => ArrayData::U64(from_le(b)),
        P::F32 => ArrayData::F32(from_le(b)),
        P::F64 => ArrayData::F64(from_le(b)),
        P::F16 | P::Bf16 | P::C64 | P::C128 | P::Tuple | P::Token => return None,
    })
}

fn slot(slots: &[Slot], s: usize) -> Result<&Slot> {
    slots
        .get(s)
        .ok_or(CpuError::Internal("a native loop's values name its slots"))
}

/// Writes the leaves of `l` into the slots of `v` in `buf`.
///
/// # Errors
/// If `l` does not have the structure, types and sizes of `v`.
pub(crate) fn pack(l: &Literal, v: &Val, slots: &[Slot], buf: &mut [u8]) -> Result<()> {
    match (v, l.tuple_elements()) {
        (Val::Tuple(vs), Some(ls)) if vs.len() == ls.len() => vs
            .iter()
            .zip(ls)
            .try_for_each(|(v, l)| pack(l, v, slots, buf)),
        (Val::Leaf(s), None) => {
            let s = slot(slots, *s)?;
            let d = l
                .array_data()
                .filter(|d| Ty::of(d.element_type()) == Some(s.ty) && d.len() == s.n)
                .ok_or(CpuError::Internal("a native loop's state fits its slots"))?;
            let b = raw_bytes(d)
                .map(std::borrow::Cow::Borrowed)
                .or_else(|| bytes_of(d).map(std::borrow::Cow::Owned))
                .ok_or(CpuError::Internal(
                    "native loops hold only types they can pack",
                ))?;
            buf.get_mut(s.off..s.off + b.len())
                .ok_or(CpuError::Internal(
                    "a native loop's slots are inside its buffer",
                ))?
                .copy_from_slice(&b);
            Ok(())
        }
        _ => Err(CpuError::Internal("a native loop's state fits its slots")),
    }
}

/// Reads the value `v` of `shape` out of `buf`.
///
/// # Errors
/// If `shape` does not have the structure of `v`.
pub(crate) fn unpack(v: &Val, shape: &Shape, slots: &[Slot], buf: &[u8]) -> Result<Literal> {
    match (v, shape) {
        (Val::Tuple(vs), Shape::Tuple(ss)) if vs.len() == ss.len() => Ok(Literal::tuple(
            vs.iter()
                .zip(ss)
                .map(|(v, s)| unpack(v, s, slots, buf))
                .collect::<Result<_>>()?,
        )),
        (Val::Leaf(s), Shape::Array(a)) => {
            let s = slot(slots, *s)?;
            let b = buf
                .get(s.off..s.off + s.n * s.ty.size())
                .ok_or(CpuError::Internal(
                    "a native loop's slots are inside its buffer",
                ))?;
            let d = data_of(a.ty, b).ok_or(CpuError::Internal(
                "native loops hold only types they can pack",
            ))?;
            crate::index::make(shape, d)
        }
        _ => Err(CpuError::Internal("a native loop's result fits its shape")),
    }
}
