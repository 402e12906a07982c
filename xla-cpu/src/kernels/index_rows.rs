//! Where gather reads and scatter writes, one operand offset per row rather than per
//! element: a row is a run along the last output (gather) or update (scatter) dimension,
//! which advances through the operand by a fixed step.
//!
//! A GNN's segment sum scatters f32[5000,64] into f32[1000,64]: per element, the targets
//! were a 5 MB `Vec<Option<usize>>` walked again to find the runs (0.95 ms a scatter); per
//! row they are 5,000 offsets.

use crate::error::Result;
use crate::limits::stop::Poll;

/// The operand offsets of rows of `n` elements: row `r` starts at `bases[r]` (`None`:
/// a scatter window that does not fit, skipped) and advances by `step`.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Rows {
    pub bases: Vec<Option<usize>>,
    pub n: usize,
    pub step: usize,
}

impl Rows {
    /// One row per element (`n = 1`): for targets that follow no row pattern.
    pub fn elements(targets: Vec<Option<usize>>) -> Rows {
        Rows {
            bases: targets,
            n: 1,
            step: 1,
        }
    }

    /// The number of elements the rows cover.
    pub fn len(&self) -> usize {
        self.bases.len() * self.n
    }

    /// Each element's operand offset, in element order.
    pub fn each(&self) -> impl Iterator<Item = Option<usize>> + '_ {
        let (n, step) = (self.n, self.step);
        self.bases
            .iter()
            .flat_map(move |b| (0..n).map(move |k| b.map(|b| b + k * step)))
    }
}

/// The layout that makes row offsets cheap: the rows' leading dims are the index batch
/// (the start-index vectors in row-major order, no batching dims), the trailing ones the
/// window (its last dim is the run).
pub(crate) struct Simple<'a> {
    /// Index values, `len` components per start vector, vectors in row-major order.
    pub values: &'a [i64],
    pub len: usize,
    /// The operand dim each component addresses.
    pub to_operand: &'a [usize],
    /// Operand strides.
    pub ost: &'a [usize],
    /// Per operand dim: the highest start that keeps the window inside (gather clamps to
    /// `0..=hi`; scatter skips a window whose start is outside it).
    pub hi: &'a [i64],
    /// Whether starts are clamped (gather) or out-of-range windows skipped (scatter).
    pub clamp: bool,
    /// The window dims before the last (sizes) and the operand stride of each.
    pub window: &'a [(usize, usize)],
}

/// Row bases for the [`Simple`] layout: per start vector one sum of `len` products, then
/// one add per window row (rows of `n`, ticked on `poll`). `None` if the indices do not
/// hold `groups` vectors.
///
/// # Errors
/// [`crate::CpuError::Stopped`] when the run must stop.
pub(crate) fn simple_bases(
    s: &Simple,
    groups: usize,
    n: usize,
    poll: &mut Poll,
) -> Result<Option<Vec<Option<usize>>>> {
    if Some(s.values.len()) != groups.checked_mul(s.len) {
        return Ok(None);
    }
    let mut woff = vec![0usize];
    for &(size, stride) in s.window.iter().rev() {
        woff = (0..size)
            .flat_map(|i| woff.iter().map(move |w| i * stride + w))
            .collect();
    }
    let Some(cap) = groups.checked_mul(woff.len()) else {
        return Ok(None);
    };
    let mut bases = Vec::with_capacity(cap);
    if let ([m], [0], 1) = (s.to_operand, woff.as_slice(), s.len) {
        // One component, one row per vector (an embedding lookup, a segment sum): a
        // loop the compiler vectorises.
        let (hi, st, clamp) = (
            s.hi.get(*m).copied().unwrap_or(-1),
            s.ost.get(*m).copied().unwrap_or(0),
            s.clamp,
        );
        poll.tick(groups.saturating_mul(n))?;
        bases.extend(s.values.iter().map(|&v| {
            let v = if clamp { v.clamp(0, hi.max(0)) } else { v };
            (0..=hi).contains(&v).then(|| v as usize * st)
        }));
        return Ok(Some(bases));
    }
    for g in 0..groups {
        poll.tick(woff.len() * n)?;
        let mut base = Some(0usize);
        for (k, &m) in s.to_operand.iter().enumerate() {
            let v = s.values[g * s.len + k];
            let hi = s.hi[m];
            let v = if s.clamp {
                v.clamp(0, hi.max(0))
            } else if (0..=hi).contains(&v) {
                v
            } else {
                base = None;
                break;
            };
            base = base.map(|b| b + v as usize * s.ost[m]);
        }
        bases.extend(woff.iter().map(|w| base.map(|b| b + w)));
    }
    Ok(Some(bases))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn rows_expand_to_their_elements() {
        let r = Rows {
            bases: vec![Some(10), None, Some(0)],
            n: 2,
            step: 3,
        };
        let e: Vec<_> = r.each().collect();
        assert_eq!(e, [Some(10), Some(13), None, None, Some(0), Some(3)]);
        assert_eq!(r.len(), 6);
    }

    #[test]
    fn simple_bases_clamp_for_gather_and_skip_for_scatter() {
        // operand f32[4,3,5]; index component addresses dim 0; window rows over dim 1
        // (size 2, stride 5); a start may be at most 4 - 1 = 3 along dim 0.
        let values = [-1i64, 2, 7];
        let s = |clamp| Simple {
            values: &values,
            len: 1,
            to_operand: &[0],
            ost: &[15, 5, 1],
            hi: &[3, 1, 0],
            clamp,
            window: &[(2, 5)],
        };
        let mut poll = Poll::new(0);
        let g = simple_bases(&s(true), 3, 5, &mut poll).unwrap();
        assert_eq!(
            g,
            Some(vec![
                Some(0),
                Some(5),
                Some(30),
                Some(35),
                Some(45),
                Some(50)
            ])
        );
        let sc = simple_bases(&s(false), 3, 5, &mut poll).unwrap();
        assert_eq!(sc, Some(vec![None, None, Some(30), Some(35), None, None]));
        assert_eq!(simple_bases(&s(true), 2, 5, &mut poll).unwrap(), None);
    }
}
