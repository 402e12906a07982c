//! Sizes in bytes: of the values of a shape, in human units for messages, and parsed from
//! the text of a setting (`512M`, `8GiB`).

use xla_core::Shape;

/// Bytes of a value of `shape` (tuples: the sum of their elements; saturating).
pub(crate) fn shape_bytes(shape: &Shape) -> u64 {
    match shape {
        Shape::Array(a) => {
            let bits = a.ty.bit_width().max(8) as u64;
            let n = a.element_count().map_or(u64::MAX, |n| n.max(0) as u64);
            n.saturating_mul(bits / 8)
        }
        Shape::Tuple(t) => t.iter().map(shape_bytes).fold(0, u64::saturating_add),
        Shape::Token => 0,
    }
}

/// Bytes in human units (`1.5 GiB`), for error messages.
pub(crate) fn human_bytes(b: u64) -> String {
    const UNITS: [&str; 6] = ["bytes", "KiB", "MiB", "GiB", "TiB", "PiB"];
    let mut v = b as f64;
    let mut u = 0;
    while v >= 1024.0 && u + 1 < UNITS.len() {
        v /= 1024.0;
        u += 1;
    }
    match (u, UNITS.get(u)) {
        (0, _) | (_, None) => format!("{b} bytes"),
        (_, Some(unit)) => format!("{v:.1} {unit} ({b} bytes)"),
    }
}

/// Parses a memory size as [`MEMORY_LIMIT_ENV`](super::MEMORY_LIMIT_ENV) takes it: `512`, `512K`, `64M`, `8G`,
/// `1T` (powers of 1024; an optional `iB`/`B`); `None` when it is not one.
pub fn parse_memory_size(text: &str) -> Option<u64> {
    parse_bytes(text)
}

pub(crate) fn parse_bytes(text: &str) -> Option<u64> {
    let t = text.trim();
    let t = t
        .strip_suffix("iB")
        .or_else(|| t.strip_suffix('B'))
        .unwrap_or(t);
    let (digits, shift) = match t.char_indices().last() {
        Some((i, 'K' | 'k')) => (t.get(..i)?, 10),
        Some((i, 'M' | 'm')) => (t.get(..i)?, 20),
        Some((i, 'G' | 'g')) => (t.get(..i)?, 30),
        Some((i, 'T' | 't')) => (t.get(..i)?, 40),
        _ => (t, 0),
    };
    digits
        .trim()
        .parse::<u64>()
        .ok()?
        .checked_mul(1u64 << shift)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::parse_bytes;

    #[test]
    fn byte_sizes_parse() {
        assert_eq!(parse_bytes("512"), Some(512));
        assert_eq!(parse_bytes("64M"), Some(64 << 20));
        assert_eq!(parse_bytes("8GiB"), Some(8 << 30));
        assert_eq!(parse_bytes("2 KB"), Some(2048));
        assert_eq!(parse_bytes("lots"), None);
        assert_eq!(parse_bytes("99999999999T"), None);
    }
}
