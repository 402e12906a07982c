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
//!
//! A gather in JAX's default `mode="fill"` (`x[idx]` with `idx` possibly out of range)
//! arrives as `select(broadcast(in_bounds), gather, broadcast(fill))`: a predicate that
//! holds per gathered row, and a constant. Such a select is the gather itself with a
//! [`Fill`]: the rows the predicate rejects read a row of the constant (selecting copies
//! values, so the results are those of the select, bit for bit).

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
    /// Where the rows start.
    pub starts: Starts,
    /// The gather's output dims.
    pub out: Vec<usize>,
    /// The select folded into the gather, if any.
    pub fill: Option<Fill>,
}

/// Where a fused gather's rows start: the kernel inputs holding its start indices (never
/// loaded as values) and how they are read.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Starts {
    /// A `gather`'s index array and dimension numbers.
    Gather { indices: usize, dims: GatherDims },
    /// A `dynamic-slice`'s scalar starts, one per operand dim: the slice is read in place
    /// (a scan's backward step reading its saved activations at step `t` no longer copies
    /// each f32[16,256] slab out of its f32[64,16,256] stack; XLA fuses such slices into
    /// their consumers the same way).
    Slice(Vec<usize>),
}

impl Spec {
    /// True when kernel input `j` holds start indices of this gather.
    pub(crate) fn reads_starts(&self, j: usize) -> bool {
        match &self.starts {
            Starts::Gather { indices, .. } => *indices == j,
            Starts::Slice(s) => s.contains(&j),
        }
    }
}

/// The row length of a `dynamic-slice` of `sizes` read in place: its last size, when at
/// least [`MIN_ROW`] (each row of the slice is a contiguous run of the operand).
pub(crate) fn slice_row_len(sizes: &[i64]) -> Option<usize> {
    let len = usize::try_from(*sizes.last()?).ok()?;
    (len >= MIN_ROW).then_some(len)
}

/// `select(broadcast(mask), gather, c)` (or with `gather` and `c` swapped) read as the
/// gather: output row `r` (of the output's last dim) is the gathered row when
/// `mask[r / per] == keep`, else a row of `value`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Fill {
    /// The kernel input holding the mask (pred, one element per `per` rows).
    pub mask: usize,
    /// The mask value that keeps the gathered row.
    pub keep: bool,
    /// Rows per mask element.
    pub per: usize,
    /// The constant of the rejected rows (exact for f32 and f64).
    pub value: f64,
}

/// Marks a row that reads the fill row in [`GatherRows::bases`].
pub(crate) const FILL: usize = usize::MAX;

/// A fused gather's operand read by rows: row `r` is `vals[bases[r]..][..len]`, or
/// `fill` (a row of `len` copies of a constant) where `bases[r] == FILL`. Every other
/// base has a whole row inside `vals` ([`table`] checks).
pub(crate) struct GatherRows<'a, L> {
    pub vals: &'a [L],
    pub fill: &'a [L],
    pub bases: &'a [usize],
    pub len: usize,
}

// Derived `Clone`/`Copy` would demand `L: Copy` needlessly.
impl<L> Clone for GatherRows<'_, L> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<L> Copy for GatherRows<'_, L> {}

impl<'a, L> GatherRows<'a, L> {
    /// Row `r`, `None` past the last.
    #[inline(always)]
    pub(crate) fn row(&self, r: usize) -> Option<&'a [L]> {
        match *self.bases.get(r)? {
            FILL => self.fill.get(..self.len),
            b => self.vals.get(b..b + self.len),
        }
    }
    /// Elements covered (rows times their length).
    pub(crate) fn elems(&self) -> usize {
        self.bases.len() * self.len
    }

    /// The rows as one run of the operand, when each starts where the one before ends
    /// (no fill row).
    pub(crate) fn contiguous(&self) -> Option<&'a [L]> {
        let &first = self.bases.first()?;
        let follows = self
            .bases
            .iter()
            .enumerate()
            .all(|(r, &b)| b != FILL && Some(b) == r.checked_mul(self.len).map(|o| first + o));
        let end = first.checked_add(self.elems())?;
        follows.then(|| self.vals.get(first..end)).flatten()
    }
}

impl<'a, L: super::lane::Lane> GatherRows<'a, L> {
    /// The same rows as f32, when `L` is.
    pub(crate) fn as_f32(self) -> Option<GatherRows<'a, f32>> {
        Some(GatherRows {
            vals: L::as_f32(self.vals)?,
            fill: L::as_f32(self.fill)?,
            bases: self.bases,
            len: self.len,
        })
    }
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

/// A fused gather's values for one run: the operand, its row offsets and the fill row,
/// or (when the indices did not give whole contiguous rows after all) the gathered
/// values.
pub(crate) enum Table<'a, L> {
    Rows(&'a [L], Vec<usize>, Vec<L>),
    Values(Vec<L>),
}

/// Makes the table of `spec` from the run's arguments.
///
/// # Errors
/// If the dimension numbers do not fit the operands, the mask does not cover the rows,
/// or the run must stop.
pub(crate) fn table<'a, L: super::lane::Lane>(
    spec: &Spec,
    args: &[&'a Literal],
) -> Result<Table<'a, L>> {
    let mut t = unfilled(spec, args)?;
    let Some(f) = spec.fill else {
        return Ok(t);
    };
    let len = spec.out.last().copied().unwrap_or(1).max(1);
    let mask = args.get(f.mask).and_then(|m| m.data::<bool>());
    let rows = spec.out.iter().product::<usize>() / len;
    let Some(mask) = mask.filter(|m| m.len().checked_mul(f.per) == Some(rows)) else {
        return Err(crate::error::CpuError::Internal(
            "a gather's fill mask holds one value per `per` rows (fusion plan)",
        ));
    };
    let value = L::of(f.value);
    let rejected = |r: usize| mask.get(r / f.per) != Some(&f.keep);
    match &mut t {
        Table::Rows(_, bases, fill) => {
            for (r, b) in bases.iter_mut().enumerate() {
                if rejected(r) {
                    *b = FILL;
                }
            }
            *fill = crate::limits::alloc::try_with_capacity(len, "gather")?;
            fill.resize(len, value);
        }
        Table::Values(v) => {
            for (r, row) in v.chunks_mut(len).enumerate() {
                if rejected(r) {
                    row.fill(value);
                }
            }
        }
    }
    Ok(t)
}

/// The table of `spec` without its fill.
fn unfilled<'a, L: super::lane::Lane>(spec: &Spec, args: &[&'a Literal]) -> Result<Table<'a, L>> {
    let internal = crate::error::CpuError::Internal;
    let operand = args.get(spec.input).ok_or(internal(
        "a fused gather's operands are inputs (fusion plan)",
    ))?;
    let (data, odims) = crate::index::array(operand)?;
    let vals = operand
        .data::<L>()
        .ok_or(internal("a fused gather's operand is of the kernel's type"))?;
    let dims = match &spec.starts {
        Starts::Gather { indices, dims } => Some((*indices, dims)),
        Starts::Slice(_) => None,
    };
    let Some((indices, dims)) = dims else {
        return slice_rows(spec, args, vals, &odims);
    };
    let indices = args.get(indices).ok_or(internal(
        "a fused gather's operands are inputs (fusion plan)",
    ))?;
    let rows = gather_rows(operand, &odims, indices, dims, &spec.out)?;
    if rows.step == 1 && Some(&rows.n) == spec.out.last() {
        let n = rows.n;
        let bases: Option<Vec<usize>> = rows
            .bases
            .iter()
            .map(|b| b.filter(|&b| b + n <= vals.len()))
            .collect();
        if let Some(bases) = bases {
            return Ok(Table::Rows(vals, bases, Vec::new()));
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

/// The rows of a fused `dynamic-slice` (starts clamped as the unfused op clamps them): one
/// per index of every output dim but the last, each a whole run of the operand.
fn slice_rows<'a, L: Copy>(
    spec: &Spec,
    args: &[&'a Literal],
    vals: &'a [L],
    odims: &[usize],
) -> Result<Table<'a, L>> {
    let Starts::Slice(inputs) = &spec.starts else {
        return Err(crate::error::CpuError::Internal(
            "a fused slice has scalar starts",
        ));
    };
    let starts = inputs
        .iter()
        .map(|&j| args.get(j).copied())
        .collect::<Option<Vec<&Literal>>>()
        .ok_or(crate::error::CpuError::Internal(
            "a fused slice's starts are inputs (fusion plan)",
        ))?;
    let at = crate::kernels::structural::clamped_starts(&starts, odims, &spec.out)?;
    let st = crate::index::strides(odims);
    let len = spec.out.last().copied().unwrap_or(1);
    let first: usize = at.iter().zip(&st).map(|(a, s)| a * s).sum();
    let lead = spec
        .out
        .get(..spec.out.len().saturating_sub(1))
        .unwrap_or_default();
    let bases = crate::kernels::structural::index_map(lead, |idx| {
        first + idx.iter().zip(&st).map(|(i, s)| i * s).sum::<usize>()
    });
    if bases.iter().any(|&b| b + len > vals.len()) {
        return Err(crate::error::CpuError::Internal(
            "a fused slice's rows lie inside its operand",
        ));
    }
    Ok(Table::Rows(vals, bases, Vec::new()))
}

impl<L> Table<'_, L> {
    /// The kernel input this table stands for (rows of `len`): the operand's elements
    /// themselves when the rows are one contiguous run of it (a `dynamic-slice` along the
    /// leading dims, as a scan's step reads its saved activations), which generated code
    /// then reads in place instead of copying row by row per call.
    pub(crate) fn input(&self, len: usize) -> In<'_, L> {
        match self {
            Table::Rows(vals, bases, fill) => {
                let rows = GatherRows {
                    vals,
                    fill,
                    bases,
                    len,
                };
                match rows.contiguous() {
                    Some(run) => In::Val(run),
                    None => In::Rows(rows),
                }
            }
            Table::Values(v) => In::Val(v),
        }
    }
}

/// Reads elements `start..start + dst.len()` of a gather's output.
#[inline(always)]
pub(crate) fn load<L: Copy>(src: In<L>, start: usize, dst: &mut [L]) {
    match src {
        In::Val(v) => dst.copy_from_slice(&v[start..start + dst.len()]),
        In::Rows(rows) => {
            let len = rows.len;
            let mut i = start;
            let mut o = 0;
            while o < dst.len() {
                let (r, c) = (i / len, i % len);
                let run = (len - c).min(dst.len() - o);
                let Some(row) = rows.row(r) else { return };
                dst[o..o + run].copy_from_slice(&row[c..c + run]);
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
    fn rows_one_after_another_are_one_run() {
        let vals: Vec<f32> = (0..16).map(|x| x as f32).collect();
        let rows = |bases: &'static [usize]| {
            GatherRows {
                vals: &vals,
                fill: &[],
                bases,
                len: 4,
            }
            .contiguous()
            .map(<[f32]>::to_vec)
        };
        assert_eq!(rows(&[4, 8, 12]), Some((4..16).map(|x| x as f32).collect()));
        assert_eq!(rows(&[6]), Some(vec![6.0, 7.0, 8.0, 9.0]));
        // Out of order, overlapping, a fill row, past the end, none: not one run.
        assert_eq!(rows(&[8, 0, 4]), None);
        assert_eq!(rows(&[0, 2]), None);
        assert_eq!(rows(&[0, FILL]), None);
        assert_eq!(rows(&[8, 12, 16]), None);
        assert_eq!(rows(&[]), None);
    }

    #[test]
    fn rows_load_across_row_ends() {
        let vals: Vec<f32> = (0..12).map(|x| x as f32).collect();
        let bases = [8usize, 0, 4];
        let src = In::Rows(GatherRows {
            vals: &vals,
            fill: &[],
            bases: &bases,
            len: 4,
        });
        let mut dst = [0f32; 6];
        load(src, 3, &mut dst);
        assert_eq!(dst, [11.0, 0.0, 1.0, 2.0, 3.0, 4.0]);
        // A rejected row reads the fill row.
        let bases = [8usize, FILL, 4];
        let fill = [-0.0f32; 4];
        let src = In::Rows(GatherRows {
            vals: &vals,
            fill: &fill,
            bases: &bases,
            len: 4,
        });
        load(src, 3, &mut dst);
        assert_eq!(
            dst.map(f32::to_bits),
            [11.0, -0.0, -0.0, -0.0, -0.0, 4.0].map(f32::to_bits)
        );
    }
}
