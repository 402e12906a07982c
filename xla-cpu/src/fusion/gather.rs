//! Gathers read in place by a fused kernel: a GNN's messages `gather(h, senders)` feed a
//! select or a segment sum directly, so the f32[edges, features] gather output is never
//! stored and streamed back (each such pass over 1.28 MB cost as much as the op reading
//! it; XLA fuses a gather into its consumers the same way).
//!
//! A fusible gather reads whole contiguous rows: its output's trailing dims are the
//! slice's window, the last of which runs along the operand's last dim. Per run, the
//! row offsets are made once from the indices (`kernels::indexing::gather_rows`, the
//! offsets the unfused gather copies from, clamped the same way); the kernel's load
//! then copies row pieces straight from the operand.

use super::run::In;
use crate::error::Result;
use crate::kernels::indexing::{gather_from_rows, gather_rows};
use xla_core::attrs::GatherDims;
use xla_core::Literal;

/// The shortest row worth reading in place.
const MIN_ROW: usize = 8;

/// The load of a fused gather: kernel input `input` (the operand, an [`In::Rows`] for
/// the run) read in rows of `len`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct GatherLoad {
    pub input: usize,
    pub len: usize,
}

/// What a run needs to make a fused gather's row offsets.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Spec {
    /// The kernel input holding the operand (read only through this gather).
    pub input: usize,
    /// The kernel input holding the start indices (never loaded as values).
    pub indices: usize,
    pub dims: GatherDims,
    /// The gather's output dims.
    pub out: Vec<usize>,
}

/// The row length of `gather` from an operand of `odims` to an output of `out` when it
/// reads whole contiguous rows (see the module docs): no batching dims, the offset dims
/// trailing in order, the last window dim the operand's last, rows of at least
/// [`MIN_ROW`].
pub(crate) fn row_len(g: &GatherDims, odims: &[i64], out: &[i64]) -> Option<usize> {
    let (rank, orank) = (out.len(), odims.len());
    let k = g.offset_dims.len();
    let trailing = g
        .offset_dims
        .iter()
        .enumerate()
        .all(|(i, &d)| usize::try_from(d).ok() == Some(rank - k + i));
    let last_kept = orank > 0
        && !g
            .collapsed_slice_dims
            .contains(&i64::try_from(orank - 1).ok()?);
    let len = usize::try_from(*out.last()?).ok()?;
    (k > 0
        && k <= rank
        && trailing
        && g.operand_batching_dims.is_empty()
        && g.start_indices_batching_dims.is_empty()
        && last_kept
        && len >= MIN_ROW)
        .then_some(len)
}

/// A fused gather's values for one run: the operand and its row offsets, or (when the
/// indices did not give whole contiguous rows after all) the gathered values.
pub(crate) enum Table<'a, L> {
    Rows(&'a [L], Vec<usize>),
    Values(Vec<L>),
}

/// Makes the table of `spec` from the run's arguments.
///
/// # Errors
/// If the dimension numbers do not fit the operands, or the run must stop.
pub(crate) fn table<'a, L: super::lane::Lane>(
    spec: &Spec,
    args: &[&'a Literal],
) -> Result<Table<'a, L>> {
    let internal = crate::error::CpuError::Internal;
    let (Some(operand), Some(indices)) = (args.get(spec.input), args.get(spec.indices)) else {
        return Err(internal(
            "a fused gather's operands are inputs (fusion plan)",
        ));
    };
    let (data, odims) = crate::index::array(operand)?;
    let vals = operand
        .data::<L>()
        .ok_or(internal("a fused gather's operand is of the kernel's type"))?;
    let rows = gather_rows(operand, &odims, indices, &spec.dims, &spec.out)?;
    if rows.step == 1 && Some(&rows.n) == spec.out.last() {
        let n = rows.n;
        let bases: Option<Vec<usize>> = rows
            .bases
            .iter()
            .map(|b| b.filter(|&b| b + n <= vals.len()))
            .collect();
        if let Some(bases) = bases {
            return Ok(Table::Rows(vals, bases));
        }
    }
    let dims: Vec<i64> = spec.out.iter().map(|&d| d as i64).collect();
    let shape = xla_core::Shape::array(operand.shape().element_type(), dims);
    let values = gather_from_rows(data, &rows, &shape)?;
    values
        .data::<L>()
        .map(|v| Table::Values(v.to_vec()))
        .ok_or(internal("a fused gather's operand is of the kernel's type"))
}

impl<L> Table<'_, L> {
    /// The kernel input this table stands for (rows of `len`).
    pub(crate) fn input(&self, len: usize) -> In<'_, L> {
        match self {
            Table::Rows(vals, bases) => In::Rows { vals, bases, len },
            Table::Values(v) => In::Val(v),
        }
    }
}

/// Reads elements `start..start + dst.len()` of a gather's output.
#[inline(always)]
pub(crate) fn load<L: Copy>(src: In<L>, start: usize, dst: &mut [L]) {
    match src {
        In::Val(v) => dst.copy_from_slice(&v[start..start + dst.len()]),
        In::Rows { vals, bases, len } => {
            let mut i = start;
            let mut o = 0;
            while o < dst.len() {
                let (r, c) = (i / len, i % len);
                let run = (len - c).min(dst.len() - o);
                let b = bases[r] + c;
                dst[o..o + run].copy_from_slice(&vals[b..b + run]);
                o += run;
                i += run;
            }
        }
        In::Pred(_) | In::Other => {}
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn dims(offset: &[i64], collapsed: &[i64]) -> GatherDims {
        GatherDims {
            offset_dims: offset.to_vec(),
            collapsed_slice_dims: collapsed.to_vec(),
            start_index_map: vec![0],
            index_vector_dim: 1,
            slice_sizes: vec![1, 64],
            ..GatherDims::default()
        }
    }

    #[test]
    fn row_gathers_are_recognised() {
        // An embedding lookup f32[1000,64] -> f32[5000,64].
        assert_eq!(
            row_len(&dims(&[1], &[0]), &[1000, 64], &[5000, 64]),
            Some(64)
        );
        // The window not trailing, or rows too short: not read in place.
        assert_eq!(row_len(&dims(&[0], &[0]), &[1000, 64], &[64, 5000]), None);
        assert_eq!(row_len(&dims(&[1], &[0]), &[1000, 4], &[5000, 4]), None);
        // The operand's last dim collapsed: rows are not contiguous.
        assert_eq!(row_len(&dims(&[1], &[1]), &[64, 1000], &[5000, 64]), None);
    }

    #[test]
    fn rows_load_across_row_ends() {
        let vals: Vec<f32> = (0..12).map(|x| x as f32).collect();
        let bases = [8usize, 0, 4];
        let src = In::Rows {
            vals: &vals,
            bases: &bases,
            len: 4,
        };
        let mut dst = [0f32; 6];
        load(src, 3, &mut dst);
        assert_eq!(dst, [11.0, 0.0, 1.0, 2.0, 3.0, 4.0]);
    }
}
