//! The bytecode's tables: the header, the sections, the string table, the dialects and
//! operation names, and the offsets of each attribute and type in the AttrType section.
//! The IR section is walked by `ir`, attributes and types are decoded by `values`.

use super::encoding::{BResult, Reader};
use super::BytecodeError;

/// Section ids of the format.
pub(crate) mod section {
    pub const STRING: u8 = 0;
    pub const DIALECT: u8 = 1;
    pub const ATTR_TYPE: u8 = 2;
    pub const ATTR_TYPE_OFFSET: u8 = 3;
    pub const IR: u8 = 4;
    pub const DIALECT_VERSIONS: u8 = 7;
    pub const PROPERTIES: u8 = 8;
}

/// Section names for messages.
const SECTION_NAMES: [&str; 9] = [
    "String",
    "Dialect",
    "AttrType",
    "AttrTypeOffset",
    "IR",
    "Resource",
    "ResourceOffset",
    "DialectVersions",
    "Properties",
];

/// The name of section `id`.
pub(crate) fn section_name(id: u8) -> &'static str {
    SECTION_NAMES
        .get(usize::from(id))
        .copied()
        .unwrap_or("unknown")
}

/// The oldest and newest bytecode versions read.
pub(crate) const VERSIONS: (u64, u64) = (4, 6);

/// One attribute or type: the dialect it belongs to and its encoded bytes.
#[derive(Clone, Debug)]
pub(crate) struct Entry<'a> {
    /// Index into [`File::dialects`].
    pub dialect: usize,
    /// The encoding: the dialect's own (custom) or the textual assembly form.
    pub custom: bool,
    /// The bytes, with their offset.
    pub data: Reader<'a>,
}

/// An operation name: its dialect and the name within it (`vhlo`, `add_v1`).
#[derive(Clone, Debug)]
pub(crate) struct OpName {
    /// Index into [`File::dialects`].
    pub dialect: usize,
    /// The name without the dialect.
    pub name: String,
}

/// The decoded tables of one bytecode stream.
#[derive(Debug)]
pub(crate) struct File<'a> {
    /// The string table.
    pub strings: Vec<&'a [u8]>,
    /// Dialect names.
    pub dialects: Vec<String>,
    /// Operation names.
    pub ops: Vec<OpName>,
    /// Attributes, in index order.
    pub attrs: Vec<Entry<'a>>,
    /// Types, in index order.
    pub types: Vec<Entry<'a>>,
    /// The IR section.
    pub ir: Reader<'a>,
    /// The encoded properties of operations (VHLO ops keep their attributes there).
    pub props: Vec<Reader<'a>>,
}

impl<'a> File<'a> {
    /// Reads the header and tables of `bytes` (which start with the magic number).
    pub(crate) fn read(bytes: &'a [u8]) -> BResult<File<'a>> {
        let mut r = Reader::new(bytes, 0);
        if r.bytes(4)? != b"ML\xefR" {
            return Err(BytecodeError::at(
                0,
                "not MLIR bytecode (no ML\\xefR magic)",
            ));
        }
        let at = r.offset();
        let version = r.varint()?;
        if version < VERSIONS.0 || version > VERSIONS.1 {
            return Err(BytecodeError::at(
                at,
                format!(
                    "bytecode version {version} is not read (versions {} to {} are)",
                    VERSIONS.0, VERSIONS.1
                ),
            ));
        }
        while r.byte()? != 0 {}
        let mut sections: [Option<Reader<'a>>; 9] = Default::default();
        while !r.is_empty() {
            let at = r.offset();
            let (id, data) = r.section()?;
            let slot = sections
                .get_mut(usize::from(id))
                .ok_or_else(|| BytecodeError::at(at, format!("unknown section id {id}")))?;
            if slot.replace(data).is_some() {
                return Err(BytecodeError::at(
                    at,
                    format!("the {} section appears twice", section_name(id)),
                ));
            }
        }
        let props = match sections
            .get_mut(usize::from(section::PROPERTIES))
            .and_then(Option::take)
        {
            Some(r) => read_props(r)?,
            None => Vec::new(),
        };
        let mut take = |id: u8| {
            sections
                .get_mut(usize::from(id))
                .and_then(Option::take)
                .ok_or_else(|| {
                    BytecodeError::at(
                        bytes.len(),
                        format!("the {} section is missing", section_name(id)),
                    )
                })
        };
        let strings = read_strings(take(section::STRING)?)?;
        let mut file = File {
            strings,
            dialects: Vec::new(),
            ops: Vec::new(),
            attrs: Vec::new(),
            types: Vec::new(),
            ir: take(section::IR)?,
            props,
        };
        file.read_dialects(take(section::DIALECT)?)?;
        file.read_attr_types(take(section::ATTR_TYPE_OFFSET)?, take(section::ATTR_TYPE)?)?;
        Ok(file)
    }

    /// String `i` of the table, as read by the reader `r` (for the error's offset).
    pub(crate) fn string(&self, r: &Reader<'_>, i: u64) -> BResult<&'a [u8]> {
        usize::try_from(i)
            .ok()
            .and_then(|i| self.strings.get(i))
            .copied()
            .ok_or_else(|| r.error(format!("string index {i} is out of range")))
    }

    /// The string whose index `r` reads next.
    pub(crate) fn read_string(&self, r: &mut Reader<'_>) -> BResult<&'a [u8]> {
        let i = r.varint()?;
        self.string(r, i)
    }

    fn read_dialects(&mut self, mut r: Reader<'a>) -> BResult<()> {
        let n = r.count("dialect count")?;
        for _ in 0..n {
            let (name, versioned) = r.varint_flag()?;
            let name = String::from_utf8_lossy(self.string(&r, name)?).into_owned();
            if versioned {
                let (id, _) = r.section()?;
                if id != section::DIALECT_VERSIONS {
                    return Err(r.error("expected a dialect version section"));
                }
            }
            self.dialects.push(name);
        }
        let _op_count = r.varint()?;
        while !r.is_empty() {
            let dialect = self.dialect_index(&mut r)?;
            let n = r.count("operation name count")?;
            for _ in 0..n {
                let (name, _registered) = r.varint_flag()?;
                let name = String::from_utf8_lossy(self.string(&r, name)?).into_owned();
                self.ops.push(OpName { dialect, name });
            }
        }
        Ok(())
    }

    fn dialect_index(&self, r: &mut Reader<'_>) -> BResult<usize> {
        let at = r.offset();
        let d = r.varint()?;
        usize::try_from(d)
            .ok()
            .filter(|&d| d < self.dialects.len())
            .ok_or_else(|| BytecodeError::at(at, format!("dialect index {d} is out of range")))
    }

    fn read_attr_types(&mut self, mut offsets: Reader<'a>, data: Reader<'a>) -> BResult<()> {
        let n_attrs = offsets.count("attribute count")?;
        let n_types = offsets.count("type count")?;
        let mut pos = 0usize;
        let all = data.remaining();
        for (n, is_type) in [(n_attrs, false), (n_types, true)] {
            let mut list = Vec::new();
            while list.len() < n {
                let dialect = self.dialect_index(&mut offsets)?;
                let k = offsets.count("entry count")?;
                for _ in 0..k {
                    let (size, custom) = offsets.varint_flag()?;
                    let end = usize::try_from(size)
                        .ok()
                        .and_then(|s| pos.checked_add(s))
                        .filter(|&e| e <= all.len())
                        .ok_or_else(|| {
                            offsets.error("an attribute or type runs past its section")
                        })?;
                    let bytes = all.get(pos..end).unwrap_or_default();
                    list.push(Entry {
                        dialect,
                        custom,
                        data: Reader::new(bytes, data.offset() + pos),
                    });
                    pos = end;
                }
            }
            if list.len() != n {
                return Err(offsets.error("more attribute or type entries than counted"));
            }
            if is_type {
                self.types = list;
            } else {
                self.attrs = list;
            }
        }
        Ok(())
    }
}

/// The properties section: a count, then each entry as a blob.
fn read_props(mut r: Reader<'_>) -> BResult<Vec<Reader<'_>>> {
    let n = r.count("properties count")?;
    let mut out = Vec::with_capacity(n.min(1 << 16));
    for _ in 0..n {
        let len = r.count("properties length")?;
        let base = r.offset();
        out.push(Reader::new(r.bytes(len)?, base));
    }
    Ok(out)
}

/// The string section: a count, the lengths (each with its NUL) in reverse order, then the
/// strings in order.
fn read_strings(mut r: Reader<'_>) -> BResult<Vec<&[u8]>> {
    let n = r.count("string count")?;
    let mut sizes = Vec::with_capacity(n.min(1 << 16));
    for _ in 0..n {
        sizes.push(r.count("string length")?);
    }
    let mut out = Vec::with_capacity(sizes.len());
    for &size in sizes.iter().rev() {
        let s = r.bytes(size)?;
        out.push(s.strip_suffix(&[0]).unwrap_or(s));
    }
    Ok(out)
}
