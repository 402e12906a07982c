//! The per-call streams of generated code: inputs read from an address the caller sets
//! for each call, because the element read is not the element computed — a broadcast onto
//! runs of dimensions ([`Spread`]) or a slice or pad read row by row ([`Remap`]). A call
//! covering `total` elements from `start` reads `total` contiguous values from
//! [`Stream::base`] as long as [`Stream::fits`] holds; a padded row reads a buffer of the
//! padding value instead (`None` from `base`).

use super::remap::{PadValue, Remap};
use super::spread::Spread;

/// A stream whose address is set per call.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Stream {
    /// A broadcast onto two runs of dimensions.
    Spread(Spread),
    /// A slice or pad read row by row.
    Remap(Remap),
}

impl Stream {
    /// The kernel input the stream reads.
    pub(crate) fn input(&self) -> usize {
        match self {
            Stream::Spread(s) => s.input,
            Stream::Remap(m) => m.input,
        }
    }

    /// The input elements the stream may read.
    pub(crate) fn need(&self) -> usize {
        match self {
            Stream::Spread(s) => s.need(),
            Stream::Remap(m) => m.need,
        }
    }

    /// True when elements `start..start + total` are read contiguously (or are all
    /// padding).
    #[inline(always)]
    pub(crate) fn fits(&self, start: usize, total: usize) -> bool {
        match self {
            Stream::Spread(s) => s.fits(start, total),
            Stream::Remap(m) => m.fits(start, total),
        }
    }

    /// The input element a call from `start` begins reading at; `None` when the call
    /// reads padding.
    #[inline(always)]
    pub(crate) fn base(&self, start: usize) -> Option<usize> {
        match self {
            Stream::Spread(s) => Some(s.base(start)),
            Stream::Remap(m) => m.base(start),
        }
    }

    /// The padding value and row length of a pad (for its buffer of padding).
    pub(crate) fn padding(&self) -> Option<(PadValue, usize)> {
        match self {
            Stream::Remap(m) => m.pad.map(|p| (p, m.len)),
            Stream::Spread(_) => None,
        }
    }
}
