//! `dense<...>` values as literals of the declared tensor type: splats, element lists
//! (integers, decimal floats, hex bit patterns, `(re, im)` pairs) and hex byte strings.

use crate::literal::{ArrayData, Literal};
use crate::mlir::ast::{DenseBody, DenseElem};
use crate::shape::Shape;
use crate::types::PrimitiveType;
use half::{bf16, f16};
use num_complex::{Complex32, Complex64};

/// The literal of type `shape` a dense body denotes.
pub(crate) fn dense_literal(body: &DenseBody, shape: &Shape) -> Result<Literal, String> {
    let arr = shape
        .as_array()
        .ok_or_else(|| format!("a dense constant must be a tensor, not {shape}"))?;
    let count: usize = arr
        .dims
        .iter()
        .map(|&d| usize::try_from(d).unwrap_or(0))
        .product();
    let data = match body {
        DenseBody::Hex(bytes) => from_bytes(arr.ty, bytes, count)?,
        DenseBody::Splat(e) => from_elems(arr.ty, &vec![e.clone(); count])?,
        DenseBody::Elems(v) if v.len() == count => from_elems(arr.ty, v)?,
        DenseBody::Elems(v) => {
            return Err(format!("{} values for {shape} ({count} elements)", v.len()))
        }
    };
    Literal::from_array_data(Shape::array(arr.ty, arr.dims.clone()), data)
        .map_err(|e| e.to_string())
}

fn int_of(e: &DenseElem) -> Result<i128, String> {
    match e {
        DenseElem::Int(i) => Ok(*i),
        DenseElem::Bits(b) => Ok(i128::from(*b)),
        DenseElem::Bool(b) => Ok(i128::from(*b)),
        DenseElem::Float(f) => Err(format!("integer expected, found {f}")),
        DenseElem::Complex(..) => Err("integer expected, found a complex value".into()),
    }
}

fn float_of(e: &DenseElem, bits: u32) -> Result<f64, String> {
    match e {
        DenseElem::Float(f) => Ok(*f),
        DenseElem::Int(i) => Ok(*i as f64),
        DenseElem::Bits(b) => Ok(match bits {
            16 => f64::from(f16::from_bits(
                u16::try_from(*b).map_err(|_| "hex float too wide")?,
            )),
            17 => f64::from(bf16::from_bits(
                u16::try_from(*b).map_err(|_| "hex float too wide")?,
            )),
            32 => f64::from(f32::from_bits(
                u32::try_from(*b).map_err(|_| "hex float too wide")?,
            )),
            _ => f64::from_bits(*b),
        }),
        DenseElem::Bool(b) => Ok(f64::from(u8::from(*b))),
        DenseElem::Complex(..) => Err("real value expected, found a complex value".into()),
    }
}

/// Exact bits for hex floats (NaN payloads survive), converted values otherwise.
fn f32_of(e: &DenseElem) -> Result<f32, String> {
    match e {
        DenseElem::Bits(b) => Ok(f32::from_bits(
            u32::try_from(*b).map_err(|_| "hex float too wide")?,
        )),
        _ => Ok(float_of(e, 32)? as f32),
    }
}

fn complex_of(e: &DenseElem) -> Result<(f64, f64), String> {
    match e {
        DenseElem::Complex(re, im) => Ok((float_of(re, 64)?, float_of(im, 64)?)),
        _ => Ok((float_of(e, 64)?, 0.0)),
    }
}

fn complex32_of(e: &DenseElem) -> Result<Complex32, String> {
    match e {
        DenseElem::Complex(re, im) => Ok(Complex32::new(f32_of(re)?, f32_of(im)?)),
        _ => Ok(Complex32::new(f32_of(e)?, 0.0)),
    }
}

macro_rules! ints {
    ($v:expr, $t:ty, $u:ty) => {
        $v.iter()
            .map(|e| {
                let i = int_of(e)?;
                <$t>::try_from(i)
                    .or_else(|_| <$u>::try_from(i).map(|u| u as $t))
                    .map_err(|_| format!("{i} does not fit in {}", stringify!($t)))
            })
            .collect::<Result<Vec<$t>, String>>()?
    };
}

fn from_elems(ty: PrimitiveType, v: &[DenseElem]) -> Result<ArrayData, String> {
    use PrimitiveType as P;
    Ok(match ty {
        P::Pred => ArrayData::Pred(
            v.iter()
                .map(|e| int_of(e).map(|i| i != 0))
                .collect::<Result<_, _>>()?,
        ),
        P::S8 => ArrayData::S8(ints!(v, i8, u8)),
        P::S16 => ArrayData::S16(ints!(v, i16, u16)),
        P::S32 => ArrayData::S32(ints!(v, i32, u32)),
        P::S64 => ArrayData::S64(ints!(v, i64, u64)),
        P::U8 => ArrayData::U8(ints!(v, u8, i8)),
        P::U16 => ArrayData::U16(ints!(v, u16, i16)),
        P::U32 => ArrayData::U32(ints!(v, u32, i32)),
        P::U64 => ArrayData::U64(ints!(v, u64, i64)),
        P::F16 => ArrayData::F16(
            v.iter()
                .map(|e| half_of(e, 16).map(f16::from_bits))
                .collect::<Result<_, _>>()?,
        ),
        P::Bf16 => ArrayData::Bf16(
            v.iter()
                .map(|e| half_of(e, 17).map(bf16::from_bits))
                .collect::<Result<_, _>>()?,
        ),
        P::F32 => ArrayData::F32(v.iter().map(f32_of).collect::<Result<_, _>>()?),
        P::F64 => ArrayData::F64(
            v.iter()
                .map(|e| match e {
                    DenseElem::Bits(b) => Ok(f64::from_bits(*b)),
                    _ => float_of(e, 64),
                })
                .collect::<Result<_, _>>()?,
        ),
        P::C64 => ArrayData::C64(v.iter().map(complex32_of).collect::<Result<_, _>>()?),
        P::C128 => ArrayData::C128(
            v.iter()
                .map(|e| complex_of(e).map(|(r, i)| Complex64::new(r, i)))
                .collect::<Result<_, _>>()?,
        ),
        P::Tuple | P::Token => return Err(format!("no dense constant of type {ty}")),
    })
}

/// The bits of a 16-bit float element (`bits` 16 = f16, 17 = bf16).
fn half_of(e: &DenseElem, bits: u32) -> Result<u16, String> {
    match e {
        DenseElem::Bits(b) => u16::try_from(*b).map_err(|_| "hex float too wide".to_string()),
        _ => {
            let f = float_of(e, 64)?;
            Ok(if bits == 16 {
                f16::from_f64(f).to_bits()
            } else {
                bf16::from_f64(f).to_bits()
            })
        }
    }
}

fn from_bytes(ty: PrimitiveType, bytes: &[u8], count: usize) -> Result<ArrayData, String> {
    let size = ty.byte_size().max(1);
    let n = bytes.len() / size;
    if !bytes.len().is_multiple_of(size) || (n != count && n != 1) {
        return Err(format!(
            "a hex string of {} bytes does not hold {count} {ty} values",
            bytes.len()
        ));
    }
    let elems: Vec<DenseElem> = bytes
        .chunks(size)
        .map(|c| {
            let mut buf = [0u8; 8];
            for (d, s) in buf.iter_mut().zip(c) {
                *d = *s;
            }
            let raw = u64::from_le_bytes(buf);
            if ty.is_float() {
                DenseElem::Bits(raw)
            } else if ty.is_signed_int() {
                let shift = 64 - 8 * size as u32;
                DenseElem::Int(i128::from(((raw << shift) as i64) >> shift))
            } else {
                DenseElem::Int(i128::from(raw))
            }
        })
        .collect();
    if ty.is_complex() {
        return complex_from_bytes(ty, bytes, count);
    }
    let elems = if n == 1 {
        vec![elems.first().cloned().unwrap_or(DenseElem::Int(0)); count]
    } else {
        elems
    };
    from_elems(ty, &elems)
}

fn complex_from_bytes(ty: PrimitiveType, bytes: &[u8], count: usize) -> Result<ArrayData, String> {
    let half = ty.byte_size() / 2;
    let part = |c: &[u8]| {
        let mut buf = [0u8; 8];
        for (d, s) in buf.iter_mut().zip(c) {
            *d = *s;
        }
        DenseElem::Bits(u64::from_le_bytes(buf))
    };
    let mut elems: Vec<DenseElem> = bytes
        .chunks(ty.byte_size())
        .map(|c| {
            let (re, im) = c.split_at(half.min(c.len()));
            DenseElem::Complex(Box::new(part(re)), Box::new(part(im)))
        })
        .collect();
    if elems.len() == 1 {
        elems = vec![elems.first().cloned().unwrap_or(DenseElem::Int(0)); count];
    }
    if ty == PrimitiveType::C64 {
        return from_elems(ty, &elems);
    }
    let v = elems
        .iter()
        .map(|e| match e {
            DenseElem::Complex(r, i) => match (r.as_ref(), i.as_ref()) {
                (DenseElem::Bits(r), DenseElem::Bits(i)) => {
                    Ok(Complex64::new(f64::from_bits(*r), f64::from_bits(*i)))
                }
                _ => Err("bad complex bytes".to_string()),
            },
            _ => Err("bad complex bytes".to_string()),
        })
        .collect::<Result<_, _>>()?;
    Ok(ArrayData::C128(v))
}
