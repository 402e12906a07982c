//! Gather and scatter (with batching dims). Gather clamps start indices so each slice
//! fits; scatter skips an update window that does not fit entirely.
//!
//! Both compute, from the shapes and the index values only, which operand element each
//! output (gather) or update (scatter) element maps to; then one typed copy or combine.

use crate::compile::Combiner;
use crate::error::{invalid, Result};
use crate::exec::{scalar_at, set_scalar, Ctx};
use crate::index::{array, data, dims_of, make, strides};
use crate::scalar::{index_value, Combine};
use xla_core::attrs::{BinaryOp, GatherDims, ScatterDims};
use xla_core::ir::CompId;
use xla_core::literal::ArrayData;
use xla_core::{with_array_data, Literal, Shape};

/// Index values as i64 (unsigned values saturate).
fn indices_i64(d: &ArrayData) -> Vec<i64> {
    with_array_data!(d, v => v.iter().map(|&x| index_value(x)).collect())
}

fn udims(v: &[i64], rank: usize, what: &str) -> Result<Vec<usize>> {
    v.iter()
        .map(|&d| usize::try_from(d).ok().filter(|&d| d < rank).ok_or_else(|| invalid(format!("{what}: dimension {d} out of range"))))
        .collect()
}

/// Reads index vectors out of `start_indices` for a batch position.
struct IndexReader {
    values: Vec<i64>,
    strides: Vec<usize>,
    /// `index_vector_dim`, or `None` when it is the implicit trailing dim.
    ivd: Option<usize>,
    /// Components per index vector.
    len: usize,
}

impl IndexReader {
    fn new(l: &Literal, ivd: i64, what: &str) -> Result<IndexReader> {
        let (d, dims) = array(l)?;
        if !d.element_type().is_integer() {
            return Err(invalid(format!("{what}: indices must be integers, found {}", l.shape())));
        }
        let ivd = usize::try_from(ivd).ok().filter(|&v| v <= dims.len()).ok_or_else(|| invalid(format!("{what}: index_vector_dim {ivd} out of range")))?;
        let (ivd, len) = if ivd == dims.len() { (None, 1) } else { (Some(ivd), dims[ivd]) };
        Ok(IndexReader { values: indices_i64(d), strides: strides(&dims), ivd, len })
    }

    /// The index vector at batch position `g` (the indices' dims without the vector dim).
    fn read(&self, g: &[usize], out: &mut Vec<i64>) {
        out.clear();
        let mut base = 0;
        let mut gi = g.iter();
        for (d, &s) in self.strides.iter().enumerate() {
            if Some(d) != self.ivd {
                base += gi.next().copied().unwrap_or(0) * s;
            }
        }
        let vs = self.ivd.map_or(0, |v| self.strides[v]);
        out.extend((0..self.len).map(|k| self.values.get(base + k * vs).copied().unwrap_or(0)));
    }

    /// Position in the batch index of indices dim `d`.
    fn batch_pos(&self, d: usize) -> usize {
        match self.ivd {
            Some(v) if d > v => d - 1,
            _ => d,
        }
    }
}

/// `gather`.
///
/// # Errors
/// If the dimension numbers do not fit the operands.
pub fn gather(operand: &Literal, indices: &Literal, g: &GatherDims, out: &Shape) -> Result<Literal> {
    let (d, odims) = array(operand)?;
    let rank = odims.len();
    let out_dims = dims_of(out)?;
    let rd = IndexReader::new(indices, g.index_vector_dim, "gather")?;
    let offset_dims = udims(&g.offset_dims, out_dims.len(), "gather")?;
    let collapsed = udims(&g.collapsed_slice_dims, rank, "gather")?;
    let start_map = udims(&g.start_index_map, rank, "gather")?;
    let obatch = udims(&g.operand_batching_dims, rank, "gather")?;
    let ibatch: Vec<usize> = g.start_indices_batching_dims.iter().map(|&x| rd.batch_pos(x.max(0) as usize)).collect();
    let sizes: Vec<usize> = g.slice_sizes.iter().map(|&s| s.max(0) as usize).collect();
    let window_operand: Vec<usize> = (0..rank).filter(|d| !collapsed.contains(d) && !obatch.contains(d)).collect();
    if sizes.len() != rank || start_map.len() != rd.len || window_operand.len() != offset_dims.len() || sizes.iter().zip(&odims).any(|(s, o)| s > o) {
        return Err(invalid(format!("gather: dimension numbers do not fit operand {} and indices {}", operand.shape(), indices.shape())));
    }
    let batch_out: Vec<usize> = (0..out_dims.len()).filter(|d| !offset_dims.contains(d)).collect();
    let ost = strides(&odims);
    let (mut gidx, mut sv, mut start) = (Vec::new(), Vec::new(), vec![0i64; rank]);
    let map = super::structural::index_map(&out_dims, |o| {
        gidx.clear();
        gidx.extend(batch_out.iter().map(|&b| o[b]));
        rd.read(&gidx, &mut sv);
        start.iter_mut().for_each(|s| *s = 0);
        for (k, &m) in start_map.iter().enumerate() {
            start[m] = sv[k];
        }
        for (&od, &ib) in obatch.iter().zip(&ibatch) {
            start[od] = gidx.get(ib).copied().unwrap_or(0) as i64;
        }
        let mut off = 0;
        for dd in 0..rank {
            off += start[dd].clamp(0, (odims[dd] - sizes[dd]) as i64) as usize * ost[dd];
        }
        for (j, &wd) in window_operand.iter().enumerate() {
            off += o[offset_dims[j]] * ost[wd];
        }
        off
    });
    make(out, super::structural::take(d, &map))
}

/// For each update element, the operand offset it combines into (`None`: window skipped).
fn scatter_targets(odims: &[usize], indices: &Literal, udims_: &[usize], s: &ScatterDims) -> Result<Vec<Option<usize>>> {
    let rank = odims.len();
    let rd = IndexReader::new(indices, s.index_vector_dim, "scatter")?;
    let uwd = udims(&s.update_window_dims, udims_.len(), "scatter")?;
    let inserted = udims(&s.inserted_window_dims, rank, "scatter")?;
    let to_operand = udims(&s.scatter_dims_to_operand_dims, rank, "scatter")?;
    let ibatch = udims(&s.input_batching_dims, rank, "scatter")?;
    let sbatch: Vec<usize> = s.scatter_indices_batching_dims.iter().map(|&x| rd.batch_pos(x.max(0) as usize)).collect();
    let window_operand: Vec<usize> = (0..rank).filter(|d| !inserted.contains(d) && !ibatch.contains(d)).collect();
    if to_operand.len() != rd.len || window_operand.len() != uwd.len() {
        return Err(invalid(format!("scatter: dimension numbers do not fit indices {}", indices.shape())));
    }
    let mut wsize = vec![1usize; rank];
    for (j, &wd) in window_operand.iter().enumerate() {
        wsize[wd] = udims_[uwd[j]];
    }
    let scatter_dims: Vec<usize> = (0..udims_.len()).filter(|d| !uwd.contains(d)).collect();
    let ost = strides(odims);
    let (mut gidx, mut sv, mut start) = (Vec::new(), Vec::new(), vec![0i64; rank]);
    let mut targets = Vec::new();
    crate::index::for_each_index(udims_, |u| {
        gidx.clear();
        gidx.extend(scatter_dims.iter().map(|&d| u[d]));
        rd.read(&gidx, &mut sv);
        start.iter_mut().for_each(|x| *x = 0);
        for (k, &m) in to_operand.iter().enumerate() {
            start[m] = sv[k];
        }
        for (&od, &ib) in ibatch.iter().zip(&sbatch) {
            start[od] = gidx.get(ib).copied().unwrap_or(0) as i64;
        }
        let fits = (0..rank).all(|d| start[d] >= 0 && start[d] + wsize[d] as i64 <= odims[d] as i64);
        targets.push(fits.then(|| {
            let mut off: usize = (0..rank).map(|d| start[d] as usize * ost[d]).sum();
            for (j, &wd) in window_operand.iter().enumerate() {
                off += u[uwd[j]] * ost[wd];
            }
            off
        }));
    });
    Ok(targets)
}

fn scatter_native<T: Combine>(v: &mut [T], upd: &ArrayData, targets: &[Option<usize>], op: Option<BinaryOp>) -> bool {
    let Some(u) = T::slice(upd) else { return false };
    let f: fn(T, T) -> T = match op {
        None => |_, b| b,
        Some(op) => match T::native(op) {
            Some(f) => f,
            None => return false,
        },
    };
    for (t, &x) in targets.iter().zip(u) {
        if let Some(slot) = t.and_then(|t| v.get_mut(t)) {
            *slot = f(*slot, x);
        }
    }
    true
}

/// `scatter` (variadic): `scatter(operands..., indices, updates...)`.
///
/// # Errors
/// If the dimension numbers do not fit or the combiner fails.
pub fn scatter(cx: &Ctx, a: &[&Literal], s: &ScatterDims, f: CompId, out: &Shape) -> Result<Literal> {
    let n = a.len().saturating_sub(1) / 2;
    if n == 0 || a.len() != 2 * n + 1 {
        return Err(invalid("scatter: expected N operands, indices and N updates"));
    }
    let (_, odims) = array(a[0])?;
    let (_, updims) = array(a[n + 1])?;
    let targets = scatter_targets(&odims, a[n], &updims, s)?;
    let mut outs = a[..n].iter().map(|l| data(l).cloned()).collect::<Result<Vec<_>>>()?;
    let upds = a[n + 1..].iter().map(|l| data(l)).collect::<Result<Vec<_>>>()?;
    let native = match cx.combiner(f) {
        Some(Combiner::Binary(op)) => Some(Some(op)),
        Some(Combiner::Second) => Some(None),
        _ => None,
    };
    if let (Some(op), [o], [u]) = (native, outs.as_mut_slice(), upds.as_slice()) {
        if with_array_data!(o, v => scatter_native(v, u, &targets, op)) {
            return make(out, outs.pop().ok_or_else(|| invalid("scatter: no result"))?);
        }
    }
    for (i, t) in targets.iter().enumerate() {
        let Some(t) = *t else { continue };
        let mut args: Vec<Literal> = outs.iter().map(|o| scalar_at(o, t)).collect();
        args.extend(upds.iter().map(|u| scalar_at(u, i)));
        let r = cx.call(f, args)?;
        let rs = match r.tuple_elements() {
            Some(t) => t.to_vec(),
            None => vec![r],
        };
        for (o, v) in outs.iter_mut().zip(&rs) {
            set_scalar(o, t, v)?;
        }
    }
    match out.tuple_elements() {
        Some(shapes) => Ok(Literal::tuple(shapes.iter().zip(outs).map(|(sh, d)| make(sh, d)).collect::<Result<_>>()?)),
        None => make(out, outs.pop().ok_or_else(|| invalid("scatter: no result"))?),
    }
}
