//! Decoding attributes and types: the VHLO dialect's own encodings (`VhloBytecode.cpp`:
//! tensor types, dense tensors, integers, floats, strings, arrays, dictionaries, enums) and
//! the few builtin ones an operation's attribute dictionary is made of. Each entry is
//! decoded once, on first use, and kept.

use super::encoding::{BResult, Reader};
use super::file::File;
use super::BytecodeError;
use crate::mlir::MAX_NESTING;
use crate::shape::Shape;
use crate::types::PrimitiveType;
use std::rc::Rc;

/// A decoded type.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Ty {
    /// A tensor, tuple or token.
    Shape(Shape),
    /// An element type (`vhlo.f32_v1`), or its name when we have no element type for it.
    Elem(Result<PrimitiveType, &'static str>),
    /// `index`.
    Index,
    /// A function type: inputs and results.
    Function(Vec<Shape>, Vec<Shape>),
    /// `none` and other types that only appear as markers.
    Other(&'static str),
}

impl Ty {
    /// The MLIR spelling of an integer or float element type, for attribute text.
    pub(crate) fn mlir_name(&self) -> String {
        match self {
            Ty::Elem(Ok(t)) => match t {
                PrimitiveType::Pred => "i1".to_string(),
                PrimitiveType::S8 => "i8".to_string(),
                PrimitiveType::S16 => "i16".to_string(),
                PrimitiveType::S32 => "i32".to_string(),
                PrimitiveType::S64 => "i64".to_string(),
                PrimitiveType::U8 => "ui8".to_string(),
                PrimitiveType::U16 => "ui16".to_string(),
                PrimitiveType::U32 => "ui32".to_string(),
                PrimitiveType::U64 => "ui64".to_string(),
                other => other.to_string(),
            },
            Ty::Elem(Err(n)) | Ty::Other(n) => (*n).to_string(),
            Ty::Index => "index".to_string(),
            Ty::Shape(s) => s.to_string(),
            Ty::Function(..) => "function".to_string(),
        }
    }
}

/// A decoded attribute.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Val {
    /// `vhlo.array_v1` / builtin array.
    Array(Vec<Rc<Val>>),
    /// `vhlo.bool_v1`.
    Bool(bool),
    /// An enum (`LT`, `DEFAULT`, `TOTALORDER`) with its numeric code.
    Enum(&'static str, u64),
    /// A dictionary: names and values.
    Dict(Vec<(Vec<u8>, Rc<Val>)>),
    /// `vhlo.float_v1`.
    Float(f64, Ty),
    /// `vhlo.integer_v1` with its type.
    Int(i128, Ty),
    /// A string.
    Str(Vec<u8>),
    /// A dense tensor: its type and raw little-endian element bytes (one element for a
    /// splat; `i1` one byte per element).
    Tensor(Shape, Vec<u8>),
    /// A type used as an attribute.
    Type(Ty),
    /// `@name`.
    Symbol(Vec<u8>),
    /// `unit`.
    Unit,
    /// Anything else, by what it is (output-operand aliases, locations, textual forms).
    Other(String),
}

/// Decodes the attributes and types of a [`File`], caching each.
pub(crate) struct Decoder<'f, 'a> {
    file: &'f File<'a>,
    attrs: Vec<Option<Rc<Val>>>,
    types: Vec<Option<Ty>>,
    depth: usize,
}

impl<'f, 'a> Decoder<'f, 'a> {
    /// A decoder of `file`'s entries.
    pub(crate) fn new(file: &'f File<'a>) -> Decoder<'f, 'a> {
        Decoder {
            file,
            attrs: vec![None; file.attrs.len()],
            types: vec![None; file.types.len()],
            depth: 0,
        }
    }

    /// The file's tables.
    pub(crate) fn file(&self) -> &'f File<'a> {
        self.file
    }

    fn enter(&mut self, r: &Reader<'_>) -> BResult<()> {
        self.depth += 1;
        if self.depth > MAX_NESTING {
            return Err(r.error(format!(
                "attributes and types nest deeper than {MAX_NESTING} levels"
            )));
        }
        Ok(())
    }

    /// Attribute `i` (an index read at `r`).
    pub(crate) fn attr(&mut self, r: &Reader<'_>, i: u64) -> BResult<Rc<Val>> {
        let slot = usize::try_from(i).ok().filter(|&k| k < self.attrs.len());
        let Some(k) = slot else {
            return Err(r.error(format!("attribute index {i} is out of range")));
        };
        if let Some(Some(v)) = self.attrs.get(k) {
            return Ok(v.clone());
        }
        let entry = self
            .file
            .attrs
            .get(k)
            .cloned()
            .ok_or_else(|| r.error("no attribute"))?;
        self.enter(r)?;
        let v = self.decode_attr(entry.dialect, entry.custom, entry.data);
        self.depth -= 1;
        let v = Rc::new(v?);
        if let Some(s) = self.attrs.get_mut(k) {
            *s = Some(v.clone());
        }
        Ok(v)
    }

    /// Type `i` (an index read at `r`).
    pub(crate) fn ty(&mut self, r: &Reader<'_>, i: u64) -> BResult<Ty> {
        let slot = usize::try_from(i).ok().filter(|&k| k < self.types.len());
        let Some(k) = slot else {
            return Err(r.error(format!("type index {i} is out of range")));
        };
        if let Some(Some(t)) = self.types.get(k) {
            return Ok(t.clone());
        }
        let entry = self
            .file
            .types
            .get(k)
            .cloned()
            .ok_or_else(|| r.error("no type"))?;
        self.enter(r)?;
        let t = self.decode_type(entry.dialect, entry.custom, entry.data);
        self.depth -= 1;
        let t = t?;
        if let Some(s) = self.types.get_mut(k) {
            *s = Some(t.clone());
        }
        Ok(t)
    }

    /// The attribute whose index `r` reads next.
    pub(crate) fn read_attr(&mut self, r: &mut Reader<'_>) -> BResult<Rc<Val>> {
        let i = r.varint()?;
        self.attr(r, i)
    }

    /// The type whose index `r` reads next.
    pub(crate) fn read_ty(&mut self, r: &mut Reader<'_>) -> BResult<Ty> {
        let i = r.varint()?;
        self.ty(r, i)
    }

    /// The type whose index `r` reads next, as a shape.
    pub(crate) fn read_shape(&mut self, r: &mut Reader<'_>) -> BResult<Shape> {
        let at = r.offset();
        match self.read_ty(r)? {
            Ty::Shape(s) => Ok(s),
            t => Err(BytecodeError::at(
                at,
                format!("expected a tensor type but found {}", t.mlir_name()),
            )),
        }
    }

    fn read_shapes(&mut self, r: &mut Reader<'_>) -> BResult<Vec<Shape>> {
        let n = r.count("type count")?;
        (0..n).map(|_| self.read_shape(r)).collect()
    }

    fn dialect(&self, d: usize) -> &str {
        self.file.dialects.get(d).map_or("?", String::as_str)
    }

    fn decode_attr(&mut self, dialect: usize, custom: bool, mut r: Reader<'_>) -> BResult<Val> {
        if !custom {
            let text = r.remaining();
            let text = text.strip_suffix(&[0]).unwrap_or(text);
            return Ok(Val::Other(String::from_utf8_lossy(text).into_owned()));
        }
        match self.dialect(dialect) {
            "vhlo" => self.vhlo_attr(&mut r),
            "builtin" => self.builtin_attr(&mut r),
            d => Ok(Val::Other(format!("an attribute of dialect '{d}'"))),
        }
    }

    fn decode_type(&mut self, dialect: usize, custom: bool, mut r: Reader<'_>) -> BResult<Ty> {
        let name = self.dialect(dialect).to_string();
        if custom && name == "builtin" {
            return self.builtin_type(&mut r);
        }
        if !custom || name != "vhlo" {
            let text = String::from_utf8_lossy(r.remaining()).into_owned();
            return Err(r.error(format!(
                "type of dialect '{name}' is not read ({})",
                text.trim_end_matches('\0')
            )));
        }
        self.vhlo_type(&mut r)
    }

    /// The builtin attributes an op's attribute dictionary uses: array (0), dictionary
    /// (1), string (2), flat symbol reference (4), unit (7); locations and others are kept
    /// opaque (they are never needed).
    fn builtin_attr(&mut self, r: &mut Reader<'_>) -> BResult<Val> {
        let code = r.varint()?;
        Ok(match code {
            0 => Val::Array(self.attr_list(r)?),
            1 => Val::Dict(self.named_list(r)?),
            2 => Val::Str(self.file.read_string(r)?.to_vec()),
            4 => Val::Symbol(self.file.read_string(r)?.to_vec()),
            7 => Val::Unit,
            c => Val::Other(format!("builtin attribute kind {c}")),
        })
    }

    fn attr_list(&mut self, r: &mut Reader<'_>) -> BResult<Vec<Rc<Val>>> {
        let n = r.count("attribute count")?;
        (0..n).map(|_| self.read_attr(r)).collect()
    }

    fn named_list(&mut self, r: &mut Reader<'_>) -> BResult<Vec<(Vec<u8>, Rc<Val>)>> {
        let n = r.count("attribute count")?;
        let mut out = Vec::with_capacity(n.min(1024));
        for _ in 0..n {
            let at = r.offset();
            let name = match &*self.read_attr(r)? {
                Val::Str(s) => s.clone(),
                _ => return Err(BytecodeError::at(at, "an attribute name is not a string")),
            };
            out.push((name, self.read_attr(r)?));
        }
        Ok(out)
    }

    /// VHLO attributes by their code in `VhloBytecode.cpp`.
    fn vhlo_attr(&mut self, r: &mut Reader<'_>) -> BResult<Val> {
        let at = r.offset();
        let code = r.varint()?;
        Ok(match code {
            1 => Val::Array(self.attr_list(r)?),
            2 => Val::Bool(r.varint()? == 1),
            3 => enum_val(r, &["EQ", "NE", "GE", "GT", "LE", "LT"])?,
            4 => enum_val(r, &["NOTYPE", "FLOAT", "TOTALORDER", "SIGNED", "UNSIGNED"])?,
            5 => {
                let v = r.varint()?;
                Val::Int(i128::from(v), Ty::Elem(Ok(PrimitiveType::S32)))
            }
            6 => Val::Dict(self.named_list(r)?),
            7 => enum_val(r, &["FFT", "IFFT", "RFFT", "IRFFT"])?,
            8 => self.float_attr(r)?,
            9 => self.int_attr(r)?,
            10 => {
                let out = r.svarints()?;
                let operand = r.svarint()?;
                let inner = r.svarints()?;
                Val::Other(format!("output_operand_alias {out:?} {operand} {inner:?}"))
            }
            11 => enum_val(r, &["DEFAULT", "HIGH", "HIGHEST"])?,
            12 => enum_val(r, &["DEFAULT", "THREE_FRY", "PHILOX"])?,
            13 => enum_val(r, &["UNSPECIFIED", "UNIFORM", "NORMAL"])?,
            14 => Val::Str(self.file.read_string(r)?.to_vec()),
            15 => self.tensor_attr(r)?,
            16 => enum_val(
                r,
                &["TRANSPOSE_INVALID", "NO_TRANSPOSE", "TRANSPOSE", "ADJOINT"],
            )?,
            17 => Val::Type(self.read_ty(r)?),
            18 => Val::Other(format!("type extensions {:?}", r.svarints()?)),
            19 => enum_val(r, &["DEFAULT", "HIGHEST", "TOLERANCE"])?,
            20 => {
                let _atol = r.svarint()?;
                let _rtol = r.svarint()?;
                let _ulps = r.svarint()?;
                let _mode = self.read_attr(r)?;
                Val::Other("result_accuracy".into())
            }
            c => {
                return Err(BytecodeError::at(
                    at,
                    format!("VHLO attribute kind {c} is not read"),
                ))
            }
        })
    }

    fn int_attr(&mut self, r: &mut Reader<'_>) -> BResult<Val> {
        let at = r.offset();
        let ty = self.read_ty(r)?;
        let (width, signed) = match &ty {
            Ty::Index => (64, true),
            Ty::Elem(Ok(t)) if t.is_integer() => (
                u32::try_from(t.bit_width()).unwrap_or(64),
                t.is_signed_int(),
            ),
            Ty::Elem(Ok(PrimitiveType::Pred)) => (1, false),
            t => {
                return Err(BytecodeError::at(
                    at,
                    format!("an integer attribute of type {}", t.mlir_name()),
                ))
            }
        };
        let v = ap_int(r, width)?;
        let v = if signed {
            i128::from(sign_extend(v, width))
        } else {
            i128::from(v)
        };
        Ok(Val::Int(v, ty))
    }

    fn float_attr(&mut self, r: &mut Reader<'_>) -> BResult<Val> {
        let at = r.offset();
        let ty = self.read_ty(r)?;
        let v = match &ty {
            Ty::Elem(Ok(PrimitiveType::F16)) => {
                f64::from(half::f16::from_bits(ap_int(r, 16)? as u16))
            }
            Ty::Elem(Ok(PrimitiveType::Bf16)) => {
                f64::from(half::bf16::from_bits(ap_int(r, 16)? as u16))
            }
            Ty::Elem(Ok(PrimitiveType::F32)) => f64::from(f32::from_bits(ap_int(r, 32)? as u32)),
            Ty::Elem(Ok(PrimitiveType::F64)) => f64::from_bits(ap_int(r, 64)?),
            t => {
                return Err(BytecodeError::at(
                    at,
                    format!("a float attribute of type {} is not read", t.mlir_name()),
                ))
            }
        };
        Ok(Val::Float(v, ty))
    }

    /// `vhlo.tensor_v1`: the type, then the raw data as a blob (`i1` packed 8 a byte, a
    /// splat of `true` as one `0xFF` byte).
    fn tensor_attr(&mut self, r: &mut Reader<'_>) -> BResult<Val> {
        let shape = self.read_shape(r)?;
        let at = r.offset();
        let blob = r.blob()?;
        let Some(arr) = shape.as_array() else {
            return Err(BytecodeError::at(
                at,
                format!("a tensor attribute of type {shape}"),
            ));
        };
        if arr.ty != PrimitiveType::Pred {
            return Ok(Val::Tensor(shape, blob.to_vec()));
        }
        let n = arr
            .dims
            .iter()
            .try_fold(1usize, |acc, &d| acc.checked_mul(usize::try_from(d).ok()?))
            .ok_or_else(|| BytecodeError::at(at, format!("bad tensor type {shape}")))?;
        let data = match blob {
            [0xFF] => vec![1],
            b if b.len() == n.div_ceil(8) && b.len() != n => (0..n)
                .map(|i| {
                    let byte = b.get(i / 8).copied().unwrap_or(0);
                    (byte >> (i % 8)) & 1
                })
                .collect(),
            b => b.to_vec(),
        };
        Ok(Val::Tensor(shape, data))
    }

    /// Builtin types by their code in `BuiltinDialectBytecode.td` (the result types of
    /// non-VHLO ops, e.g. Shardy's `sdy.sharding_constraint`): integers, index, functions,
    /// bf16/f16/f32/f64, complex, none, ranked tensors and tuples.
    fn builtin_type(&mut self, r: &mut Reader<'_>) -> BResult<Ty> {
        use PrimitiveType as P;
        let at = r.offset();
        let code = r.varint()?;
        let elem = |t: P| Ty::Elem(Ok(t));
        Ok(match code {
            0 => {
                let w = r.varint()?;
                match (w >> 2, w & 3) {
                    (1, _) => elem(P::Pred),
                    (8, 2) => elem(P::U8),
                    (16, 2) => elem(P::U16),
                    (32, 2) => elem(P::U32),
                    (64, 2) => elem(P::U64),
                    (8, _) => elem(P::S8),
                    (16, _) => elem(P::S16),
                    (32, _) => elem(P::S32),
                    (64, _) => elem(P::S64),
                    _ => Ty::Elem(Err("an integer of this width")),
                }
            }
            1 => Ty::Index,
            2 => Ty::Function(self.read_shapes(r)?, self.read_shapes(r)?),
            3 => elem(P::Bf16),
            4 => elem(P::F16),
            5 => elem(P::F32),
            6 => elem(P::F64),
            9 => match self.read_ty(r)? {
                Ty::Elem(Ok(P::F32)) => elem(P::C64),
                Ty::Elem(Ok(P::F64)) => elem(P::C128),
                _ => Ty::Elem(Err("complex")),
            },
            12 => Ty::Other("none"),
            13 | 14 => self.tensor_type(r, code == 14)?,
            15 => Ty::Shape(Shape::tuple(self.read_shapes(r)?)),
            c => {
                return Err(BytecodeError::at(
                    at,
                    format!("builtin type kind {c} is not read"),
                ))
            }
        })
    }

    /// VHLO types by their code in `VhloBytecode.cpp`.
    fn vhlo_type(&mut self, r: &mut Reader<'_>) -> BResult<Ty> {
        use PrimitiveType as P;
        let at = r.offset();
        let code = r.varint()?;
        let elem = |t: P| Ty::Elem(Ok(t));
        Ok(match code {
            0 => elem(P::Pred),
            1 => match self.read_ty(r)? {
                Ty::Elem(Ok(P::F32)) => elem(P::C64),
                Ty::Elem(Ok(P::F64)) => elem(P::C128),
                t => Ty::Elem(Err(if t == Ty::Index {
                    "complex<index>"
                } else {
                    "complex"
                })),
            },
            2 => elem(P::Bf16),
            3 => elem(P::F16),
            4 => elem(P::F32),
            5 => elem(P::F64),
            8 => Ty::Function(self.read_shapes(r)?, self.read_shapes(r)?),
            9 => Ty::Index,
            11 => elem(P::S8),
            12 => elem(P::S16),
            13 => elem(P::S32),
            14 => elem(P::S64),
            16 => elem(P::U8),
            17 => elem(P::U16),
            18 => elem(P::U32),
            19 => elem(P::U64),
            20 | 21 => self.tensor_type(r, code == 21)?,
            22 => Ty::Shape(Shape::Token),
            23 => Ty::Shape(Shape::tuple(self.read_shapes(r)?)),
            33 => Ty::Other("none"),
            6 | 7 | 27 | 28 | 29 | 34..=40 => Ty::Elem(Err("an 8-bit or smaller float")),
            10 | 15 | 31 | 32 => Ty::Elem(Err("a 2- or 4-bit integer")),
            24 | 30 => Ty::Elem(Err("a quantized type")),
            c => {
                return Err(BytecodeError::at(
                    at,
                    format!("VHLO type kind {c} is not read"),
                ))
            }
        })
    }

    fn tensor_type(&mut self, r: &mut Reader<'_>, encoded: bool) -> BResult<Ty> {
        if encoded {
            let _encoding = self.read_attr(r)?;
        }
        let at = r.offset();
        let dims = r.svarints()?;
        if dims.iter().any(|&d| d < 0) {
            return Err(BytecodeError::at(
                at,
                "dynamic dimensions are not supported",
            ));
        }
        match self.read_ty(r)? {
            Ty::Elem(Ok(t)) => Ok(Ty::Shape(Shape::array(t, dims))),
            // Only attributes (custom-call layouts) use index tensors; 64-bit is their size.
            Ty::Index => Ok(Ty::Shape(Shape::array(PrimitiveType::S64, dims))),
            t => Err(BytecodeError::at(
                at,
                format!("tensors of {} are not supported", t.mlir_name()),
            )),
        }
    }
}

/// An enum attribute: its code names one of `names`.
fn enum_val(r: &mut Reader<'_>, names: &[&'static str]) -> BResult<Val> {
    let at = r.offset();
    let v = r.varint()?;
    usize::try_from(v)
        .ok()
        .and_then(|i| names.get(i))
        .map(|n| Val::Enum(n, v))
        .ok_or_else(|| BytecodeError::at(at, format!("enum value {v} is out of range")))
}

/// An integer of known bit width: one byte up to 8 bits, a zigzag varint up to 64.
fn ap_int(r: &mut Reader<'_>, width: u32) -> BResult<u64> {
    if width <= 8 {
        return Ok(u64::from(r.byte()?));
    }
    if width <= 64 {
        let v = r.svarint()? as u64;
        return Ok(if width == 64 {
            v
        } else {
            v & ((1u64 << width) - 1)
        });
    }
    Err(r.error(format!("{width}-bit integers are not read")))
}

fn sign_extend(v: u64, width: u32) -> i64 {
    if width == 0 || width >= 64 {
        return v as i64;
    }
    let shift = 64 - width;
    ((v << shift) as i64) >> shift
}
