//! Values as bytes for MPI messages: a tag, then `.npy` bytes for an array, the elements for a
//! tuple, nothing for a token; strings and lengths as little-endian `u64`-prefixed bytes.

use crate::error::{CpuError, Result};
use xla_core::Literal;

pub(super) fn bad(what: &str) -> CpuError {
    CpuError::Transport(format!("mpi exchange: {what}"))
}

pub(super) fn put_u64(out: &mut Vec<u8>, v: u64) {
    out.extend_from_slice(&v.to_le_bytes());
}

pub(super) fn get_u64(b: &[u8], at: &mut usize) -> Result<u64> {
    let s = b
        .get(*at..*at + 8)
        .ok_or_else(|| bad("truncated message"))?;
    *at += 8;
    let mut w = [0u8; 8];
    w.copy_from_slice(s);
    Ok(u64::from_le_bytes(w))
}

pub(super) fn put_str(out: &mut Vec<u8>, s: &str) {
    put_u64(out, s.len() as u64);
    out.extend_from_slice(s.as_bytes());
}

fn get_bytes<'b>(b: &'b [u8], at: &mut usize) -> Result<&'b [u8]> {
    let n = usize::try_from(get_u64(b, at)?).map_err(|_| bad("length"))?;
    let s = b
        .get(*at..*at + n)
        .ok_or_else(|| bad("truncated message"))?;
    *at += n;
    Ok(s)
}

pub(super) fn get_str(b: &[u8], at: &mut usize) -> Result<String> {
    Ok(String::from_utf8_lossy(get_bytes(b, at)?).into_owned())
}

/// A literal as bytes: `0` + npy bytes for an array, `1` + count + elements for a tuple,
/// `2` for a token.
pub(super) fn encode(l: &Literal, out: &mut Vec<u8>) -> Result<()> {
    if let Some(t) = l.tuple_elements() {
        out.push(1);
        put_u64(out, t.len() as u64);
        return t.iter().try_for_each(|e| encode(e, out));
    }
    if l.shape().is_token() {
        out.push(2);
        return Ok(());
    }
    out.push(0);
    let npy = l.to_npy_bytes()?;
    put_u64(out, npy.len() as u64);
    out.extend_from_slice(&npy);
    Ok(())
}

pub(super) fn decode(b: &[u8], at: &mut usize) -> Result<Literal> {
    let kind = *b.get(*at).ok_or_else(|| bad("truncated message"))?;
    *at += 1;
    match kind {
        0 => Ok(Literal::from_npy_bytes(get_bytes(b, at)?)?),
        1 => {
            let n = get_u64(b, at)?;
            let elems = (0..n).map(|_| decode(b, at)).collect::<Result<Vec<_>>>()?;
            Ok(Literal::tuple(elems))
        }
        2 => Ok(Literal::token()),
        k => Err(bad(&format!("unknown value kind {k}"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_round_trip_through_bytes() {
        let v = Literal::tuple(vec![
            Literal::vec1(&[1f32, 2.]),
            Literal::tuple(vec![Literal::scalar(3u8), Literal::token()]),
            Literal::vec1(&[half::bf16::from_f32(1.5)]),
        ]);
        let mut b = Vec::new();
        encode(&v, &mut b).unwrap();
        let mut at = 0;
        assert_eq!(decode(&b, &mut at).unwrap(), v);
        assert_eq!(at, b.len());
        assert!(decode(&b[..b.len() - 1], &mut 0).is_err());
    }
}
