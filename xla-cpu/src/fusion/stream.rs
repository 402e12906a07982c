//! The per-call streams of generated code: inputs read from an address the caller sets
//! for each call, because the element read is not the element computed — a broadcast onto
//! runs of dimensions ([`Spread`]) or a slice or pad read row by row ([`Remap`]). A call
//! covering `total` elements from `start` reads `total` contiguous values from
//! [`Stream::base`] as long as [`Stream::fits`] holds; a padded row reads a buffer of the
//! padding value instead (`None` from `base`). Rows of a multiple of 16 values are read
//! through a table of addresses of their pieces ([`pieces`]), so one call may cover many
//! rows. Any other load is
//! staged: its values for the call are computed into a buffer (`stage`), which the call
//! then reads.

use super::remap::{PadValue, Remap};
use super::run::In;
use super::spread::Spread;
use super::Load;

/// A stream whose address is set per call.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Stream {
    /// A broadcast onto two runs of dimensions.
    Spread(Spread),
    /// A slice or pad read row by row.
    Remap(Remap),
    /// A slice or pad whose rows hold a multiple of 16 values: read through a table of
    /// addresses, one per piece of a row the call covers ([`pieces`]), so a call may
    /// cover many rows.
    Pieces(Remap),
    /// A broadcast onto runs of a multiple of 16 values: the same table, one address per
    /// piece of each run the call covers ([`repeats`]).
    Repeats(Spread),
    /// Any other load (a broadcast along runs shorter than a call, a pred mask read as
    /// 0/1, a spread or remap whose runs are short): computed per call into a buffer by
    /// the interpreter's `run::load` ([`stage`]), so every kernel whose operations have
    /// code runs as code.
    Staged(Load),
}

impl Stream {
    /// The kernel input the stream reads in place (`None` for a staged load, whose
    /// buffer [`stage`] fills).
    pub(crate) fn input(&self) -> Option<usize> {
        match self {
            Stream::Spread(s) | Stream::Repeats(s) => Some(s.input),
            Stream::Remap(m) | Stream::Pieces(m) => Some(m.input),
            Stream::Staged(_) => None,
        }
    }

    /// The input elements the stream may read.
    pub(crate) fn need(&self) -> usize {
        match self {
            Stream::Spread(s) | Stream::Repeats(s) => s.need(),
            Stream::Remap(m) | Stream::Pieces(m) => m.need,
            Stream::Staged(_) => 0,
        }
    }

    /// True when elements `start..start + total` are read contiguously (or are all
    /// padding).
    #[inline(always)]
    pub(crate) fn fits(&self, start: usize, total: usize) -> bool {
        match self {
            Stream::Spread(s) => s.fits(start, total),
            Stream::Remap(m) => m.fits(start, total),
            Stream::Pieces(_) | Stream::Repeats(_) | Stream::Staged(_) => true,
        }
    }

    /// The input element a call from `start` begins reading at; `None` when the call
    /// reads padding.
    #[inline(always)]
    pub(crate) fn base(&self, start: usize) -> Option<usize> {
        match self {
            Stream::Spread(s) => Some(s.base(start)),
            Stream::Remap(m) => m.base(start),
            Stream::Pieces(_) | Stream::Repeats(_) | Stream::Staged(_) => None,
        }
    }

    /// The padding value and row length of a pad (for its buffer of padding).
    pub(crate) fn padding(&self) -> Option<(PadValue, usize)> {
        match self {
            Stream::Remap(m) | Stream::Pieces(m) => m.pad.map(|p| (p, m.len)),
            Stream::Spread(_) | Stream::Repeats(_) | Stream::Staged(_) => None,
        }
    }
}

/// The values one table entry of a `Stream::Pieces` covers: the largest power of two
/// dividing the row length `len`, at most `V` (so any call starting on a block reads whole
/// pieces), or 0 when that is under 16 (a row would not hold whole 16-lane steps).
pub(crate) fn piece_len(len: usize) -> usize {
    let p = (len & len.wrapping_neg()).min(super::kern::V);
    if p >= 16 {
        p
    } else {
        0
    }
}

/// Points `table` at the pieces ([`piece_len`] values each) of the rows of remap `m` that
/// a call for `total` values from `start` reads: addresses in the operand row in `src`,
/// or in `pad` (a row of the padding value) for a padded row. `None` (the caller falls
/// back) when `start` is not at a piece's start, a row would leave `src`, or a padded row
/// has no `pad` row. Each address it gives holds `piece_len(m.len)` readable values.
pub(crate) fn pieces(
    m: &Remap,
    src: &[f32],
    pad: &[f32],
    at: (usize, usize),
    table: &mut Vec<*const f32>,
) -> Option<*const f32> {
    piece_table(m.len, at, table, |first, rows| {
        m.row_bases(first, rows).map(|b| match b {
            Some(b) => src.get(b..b.checked_add(m.len)?),
            None => pad.get(..m.len),
        })
    })
}

/// [`pieces`] for a broadcast onto runs: the pieces of the operand runs in `src` that a
/// call for `total` values from `start` reads.
pub(crate) fn repeats(
    s: &Spread,
    src: &[f32],
    at: (usize, usize),
    table: &mut Vec<*const f32>,
) -> Option<*const f32> {
    piece_table(s.len, at, table, |first, rows| {
        s.row_bases(first, rows)
            .map(|b| src.get(b..b.checked_add(s.len)?))
    })
}

/// Fills `table` with the addresses of the pieces of rows of `len` values covering
/// `total` values from `start`, `rows(first, count)` giving `count` rows from row `first`
/// in order (`None` for one it cannot give); returns the table's address, or `None`.
#[inline(always)]
fn piece_table<'a, I: Iterator<Item = Option<&'a [f32]>>>(
    len: usize,
    (start, total): (usize, usize),
    table: &mut Vec<*const f32>,
    rows: impl FnOnce(usize, usize) -> I,
) -> Option<*const f32> {
    let p = piece_len(len);
    if p == 0 || start % p != 0 {
        return None;
    }
    let (first, count) = (start / p, total.div_ceil(p));
    table.clear();
    table.try_reserve(count).ok()?;
    if p == len {
        // A row per piece (rows of up to `V` values, a power of two): the common case.
        for row in rows(first, count) {
            table.push(row?.as_ptr());
        }
        return Some(table.as_ptr().cast());
    }
    let per_row = len / p;
    let row0 = first / per_row;
    let mut skip = first % per_row;
    for row in rows(row0, (first + count).div_ceil(per_row) - row0) {
        let left = count - table.len();
        table.extend(
            row?.chunks_exact(p)
                .skip(skip)
                .take(left)
                .map(<[f32]>::as_ptr),
        );
        skip = 0;
    }
    (table.len() == count).then(|| table.as_ptr().cast())
}

/// The most values one call stages per load: a call over a longer range (fold code over
/// a whole long row) falls back to the interpreter, which works block by block, rather
/// than staging the whole range out of cache.
pub(crate) const STAGE_MAX: usize = 4096;

/// Computes load `l`'s values at `start..start + total` into `buf` (grown as needed) and
/// returns them; `None` (the caller falls back to the interpreter) when an input is too
/// short for them, the range is longer than [`STAGE_MAX`] or the buffer cannot grow.
pub(crate) fn stage<'b>(
    l: Load,
    ins: &[In<f32>],
    (start, total): (usize, usize),
    buf: &'b mut Vec<f32>,
) -> Option<&'b [f32]> {
    if total > STAGE_MAX {
        return None;
    }
    let end = start.checked_add(total)?;
    super::run::load_reads(&l, ins, end).ok()?;
    if buf.len() < total {
        buf.try_reserve(total - buf.len()).ok()?;
        buf.resize(total, 0.0);
    }
    let dst = buf.get_mut(..total)?;
    super::run::load(l, ins, start, dst);
    Some(dst)
}

/// For a staged bias (a broadcast along the leading dims of a row of `len < n` elements):
/// the row repeated to cover any call of up to `min(n, STAGE_MAX)` values from any phase,
/// made once per run, so a call reads from `start % len` with nothing staged; `None` for
/// any other load (or when the buffer cannot be had).
pub(crate) fn tile(l: &Load, ins: &[In<f32>], n: usize) -> Option<(usize, Vec<f32>)> {
    let Load::Bcast {
        input,
        inner: 1,
        len,
    } = *l
    else {
        return None;
    };
    let row = match ins.get(input)? {
        In::Val(v) => v.get(..len)?,
        In::Pred(_) | In::Rows(_) | In::Other => return None,
    };
    if len == 0 || len >= n {
        return None;
    }
    let total = (n.min(STAGE_MAX).div_ceil(len) + 1).checked_mul(len)?;
    let mut t = Vec::new();
    t.try_reserve_exact(total).ok()?;
    t.resize(total, 0.0);
    super::spread::fill_cyclic(&mut t, row, 0);
    Some((len, t))
}
