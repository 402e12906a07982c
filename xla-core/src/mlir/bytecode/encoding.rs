//! The bytecode's primitive encodings: bytes, prefix varints, zigzag signed varints,
//! varints carrying a flag in their low bit, and sections (an id byte whose high bit says an
//! alignment follows, a length, padding bytes `0xCB`). Every read is bounds checked and an
//! error names its byte offset.

use super::header::prefix_varint;
use super::BytecodeError;

/// Result of the bytecode reader's steps.
pub(crate) type BResult<T> = Result<T, BytecodeError>;

/// A cursor over a slice of the bytecode; `base` is the offset of the slice's first byte
/// from the start of the bytecode (alignment is relative to it, errors add the bytecode's
/// offset in the file later).
#[derive(Clone, Debug)]
pub(crate) struct Reader<'a> {
    data: &'a [u8],
    pos: usize,
    base: usize,
}

/// The padding byte of aligned sections.
const ALIGNMENT_BYTE: u8 = 0xCB;

impl<'a> Reader<'a> {
    /// A reader of `data`, which starts `base` bytes into the bytecode.
    pub(crate) fn new(data: &'a [u8], base: usize) -> Reader<'a> {
        Reader { data, pos: 0, base }
    }

    /// The offset of the next byte from the start of the bytecode.
    pub(crate) fn offset(&self) -> usize {
        self.base + self.pos
    }

    /// An error at the next byte.
    pub(crate) fn error(&self, message: impl Into<String>) -> BytecodeError {
        BytecodeError::at(self.offset(), message)
    }

    /// True when every byte has been read.
    pub(crate) fn is_empty(&self) -> bool {
        self.pos >= self.data.len()
    }

    /// The bytes not read yet.
    pub(crate) fn remaining(&self) -> &'a [u8] {
        self.data.get(self.pos..).unwrap_or_default()
    }

    /// The next byte.
    pub(crate) fn byte(&mut self) -> BResult<u8> {
        let b = *self
            .data
            .get(self.pos)
            .ok_or_else(|| self.error("unexpected end of the data"))?;
        self.pos += 1;
        Ok(b)
    }

    /// The next `n` bytes.
    pub(crate) fn bytes(&mut self, n: usize) -> BResult<&'a [u8]> {
        let end = self.pos.checked_add(n).filter(|&e| e <= self.data.len());
        let Some(end) = end else {
            return Err(self.error(format!(
                "{n} bytes are needed but {} are left",
                self.data.len().saturating_sub(self.pos)
            )));
        };
        let s = self.data.get(self.pos..end).unwrap_or_default();
        self.pos = end;
        Ok(s)
    }

    /// A prefix varint.
    pub(crate) fn varint(&mut self) -> BResult<u64> {
        let rest = self.data.get(self.pos..).unwrap_or_default();
        let (v, used) = prefix_varint(rest).ok_or_else(|| self.error("truncated varint"))?;
        self.pos += used;
        Ok(v)
    }

    /// A varint used as a count or index (must fit in memory's address range).
    pub(crate) fn count(&mut self, what: &str) -> BResult<usize> {
        let at = self.offset();
        let v = self.varint()?;
        usize::try_from(v)
            .ok()
            .filter(|&n| n <= self.data.len().max(1 << 20) * 8)
            .ok_or_else(|| BytecodeError::at(at, format!("{what} {v} is out of range")))
    }

    /// A zigzag-encoded signed varint.
    pub(crate) fn svarint(&mut self) -> BResult<i64> {
        let v = self.varint()?;
        Ok(((v >> 1) as i64) ^ -((v & 1) as i64))
    }

    /// A varint whose low bit is a flag: `(value >> 1, flag)`.
    pub(crate) fn varint_flag(&mut self) -> BResult<(u64, bool)> {
        let v = self.varint()?;
        Ok((v >> 1, v & 1 == 1))
    }

    /// A list of signed varints (count first).
    pub(crate) fn svarints(&mut self) -> BResult<Vec<i64>> {
        let n = self.count("list length")?;
        (0..n).map(|_| self.svarint()).collect()
    }

    /// A section: its id (without the alignment bit) and a reader of its data.
    pub(crate) fn section(&mut self) -> BResult<(u8, Reader<'a>)> {
        let id_at = self.offset();
        let id = self.byte()?;
        let len = self.count("section length")?;
        if id & 0x80 != 0 {
            let align = self.varint()?;
            if !align.is_power_of_two() || align > 1 << 16 {
                return Err(self.error(format!("section alignment {align} is not a power of two")));
            }
            while !(self.offset() as u64).is_multiple_of(align) {
                if self.byte()? != ALIGNMENT_BYTE {
                    return Err(BytecodeError::at(
                        self.offset() - 1,
                        "bad section padding byte (expected 0xCB)",
                    ));
                }
            }
        }
        let id = id & 0x7F;
        if id > 8 {
            return Err(BytecodeError::at(id_at, format!("unknown section id {id}")));
        }
        let base = self.offset();
        Ok((id, Reader::new(self.bytes(len)?, base)))
    }

    /// A blob: a length, then that many bytes.
    pub(crate) fn blob(&mut self) -> BResult<&'a [u8]> {
        let n = self.count("blob length")?;
        self.bytes(n)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn signed_varints_are_zigzag() {
        // 3 -> 6, -3 -> 5; one-byte varints are (v << 1) | 1.
        let mut r = Reader::new(&[(6 << 1) | 1, (5 << 1) | 1, (3 << 1) | 1], 0);
        assert_eq!(r.svarint().unwrap(), 3);
        assert_eq!(r.svarint().unwrap(), -3);
        assert_eq!(r.varint_flag().unwrap(), (1, true));
        assert!(r.is_empty());
        assert_eq!(r.byte().unwrap_err().offset, 3);
    }

    #[test]
    fn aligned_sections_skip_padding() {
        // id 4 | 0x80, length 1, alignment 4, two padding bytes, data.
        let data = [0x84, (1 << 1) | 1, (4 << 1) | 1, 0xCB, 0x2A];
        let (id, mut s) = Reader::new(&data, 0).section().unwrap();
        assert_eq!(id, 4);
        assert_eq!(s.byte().unwrap(), 0x2A);
        let bad = [0x84, (1 << 1) | 1, (4 << 1) | 1, 0x00, 0x2A];
        assert!(Reader::new(&bad, 0).section().is_err());
    }
}
