//! Finding MLIR bytecode in a file: at its start, or inside the flatbuffer `jax.export`'s
//! `Exported.serialize()` writes (the module as MLIR bytecode in StableHLO's versioned VHLO
//! dialect, a byte vector whose `u32` length precedes it).

/// The header of an MLIR bytecode stream found in a file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BytecodeHeader {
    /// Offset of the magic number `ML\xefR` in the file (0 for a bare bytecode file,
    /// more inside a `jax.export` serialization).
    pub offset: usize,
    /// The bytecode format version.
    pub version: u64,
    /// The producer string (`StableHLO_v1.15.0` for JAX 0.10.2's exports).
    pub producer: String,
}

const MAGIC: &[u8] = b"ML\xefR";

/// MLIR's prefix varint: the count of trailing zero bits of the first byte is the number
/// of extra bytes, the value is the rest, little-endian.
pub(super) fn prefix_varint(bytes: &[u8]) -> Option<(u64, usize)> {
    let first = *bytes.first()?;
    let extra = first.trailing_zeros() as usize;
    if extra >= 8 {
        let v = bytes.get(1..9)?;
        let mut buf = [0u8; 8];
        buf.copy_from_slice(v);
        return Some((u64::from_le_bytes(buf), 9));
    }
    let mut buf = [0u8; 8];
    buf.get_mut(..=extra)?.copy_from_slice(bytes.get(..=extra)?);
    Some((u64::from_le_bytes(buf) >> (extra + 1), extra + 1))
}

/// The MLIR bytecode header in `bytes` (at its start, or inside a `jax.export`
/// flatbuffer), or `None` when there is none.
pub fn bytecode_header(bytes: &[u8]) -> Option<BytecodeHeader> {
    let offset = bytes.windows(MAGIC.len()).position(|w| w == MAGIC)?;
    let rest = bytes.get(offset + MAGIC.len()..)?;
    let (version, used) = prefix_varint(rest)?;
    let tail = rest.get(used..)?;
    let end = tail.iter().position(|&b| b == 0)?;
    let producer = String::from_utf8_lossy(tail.get(..end)?).into_owned();
    Some(BytecodeHeader {
        offset,
        version,
        producer,
    })
}

/// The bytecode stream in `bytes` that `header` found: up to the length the flatbuffer
/// vector states before it (when that fits), else to the end of the file.
pub(super) fn bytecode_slice<'a>(bytes: &'a [u8], header: &BytecodeHeader) -> &'a [u8] {
    let rest = bytes.get(header.offset..).unwrap_or_default();
    let stated = header
        .offset
        .checked_sub(4)
        .and_then(|at| bytes.get(at..header.offset))
        .and_then(|b| <[u8; 4]>::try_from(b).ok())
        .map(|b| u32::from_le_bytes(b) as usize);
    match stated {
        Some(n) if header.offset > 0 && n <= rest.len() => rest.get(..n).unwrap_or(rest),
        _ => rest,
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn prefix_varints_decode() {
        assert_eq!(prefix_varint(&[0x0d]), Some((6, 1)));
        // Two bytes: 0b10 marks one extra byte; 300 = 0b1_0010_1100 -> (300 << 2) | 2.
        let v = (300u16 << 2) | 2;
        assert_eq!(prefix_varint(&v.to_le_bytes()), Some((300, 2)));
        assert_eq!(prefix_varint(&[]), None);
    }

    #[test]
    fn header_is_found_in_a_jax_export() {
        let mut bytes = vec![0x3c, 0, 0, 0, 0x38, 0];
        bytes.extend_from_slice(b"ML\xefR\x0dStableHLO_v1.15.0\0\x01\x21");
        let h = bytecode_header(&bytes).unwrap();
        assert_eq!(
            h,
            BytecodeHeader {
                offset: 6,
                version: 6,
                producer: "StableHLO_v1.15.0".into()
            }
        );
        assert_eq!(bytecode_header(b"HloModule m"), None);
    }
}
