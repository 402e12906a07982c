//! Data movement: broadcast, reshape, transpose, reverse, slice, dynamic-slice,
//! dynamic-update-slice, concatenate, pad, iota.
//!
//! Transpose, broadcast, slice, reverse and dynamic-slice are one strided copy each
//! (`strided.rs`: output element → `base + Σ index·stride` in the operand). The rest build an
//! index map (output element → source element) from the dims alone, then one typed copy
//! ([`take`]).

use crate::error::{
    attribute, element_types, internal, operand_count, operand_kind, operand_shapes, out_of_range,
    Result,
};
use crate::index::{advance, array, count, dims_of, make, scalar_i64, strides};
use crate::invariant;
use crate::limits::stop::{Poll, POLL_EVERY};
use crate::parallel::Parallel;
use xla_core::attrs::PadDim;
use xla_core::literal::{ArrayData, NativeData};
use xla_core::{with_array_data, Literal, Shape};

fn take_k<T: NativeData>(v: &[T], map: &[usize]) -> ArrayData {
    T::wrap(
        map.iter()
            .map(|&i| invariant::at(v, i, "gather map"))
            .collect(),
    )
}

/// The elements of `d` at the positions `map` (out-of-range positions give zero).
pub(crate) fn take(d: &ArrayData, map: &[usize]) -> ArrayData {
    with_array_data!(d, v => take_k(v, map))
}

fn take_polled_k<T: NativeData>(v: &[T], map: &[usize], poll: &mut Poll) -> Result<ArrayData> {
    let mut out = Vec::with_capacity(map.len());
    for part in map.chunks(POLL_EVERY) {
        poll.tick(part.len())?;
        out.extend(part.iter().map(|&i| invariant::at(v, i, "gather map")));
    }
    Ok(T::wrap(out))
}

/// [`take`] of a long map, polling the run's stop between blocks of `map`.
///
/// # Errors
/// [`crate::CpuError::Stopped`] when the run must stop.
pub(crate) fn take_polled(d: &ArrayData, map: &[usize], poll: &mut Poll) -> Result<ArrayData> {
    with_array_data!(d, v => take_polled_k(v, map, poll))
}

fn take_rows_k<T: NativeData>(v: &[T], bases: &[usize], n: usize) -> Option<ArrayData> {
    let mut out = Vec::with_capacity(bases.len() * n);
    for &b in bases {
        out.extend_from_slice(v.get(b..b.checked_add(n)?)?);
    }
    Some(T::wrap(out))
}

/// The rows of `n` contiguous elements of `d` starting at `bases`, one after another (a
/// [`take`] whose map is runs of consecutive offsets); `None` if a row runs past the end.
pub(crate) fn take_rows(d: &ArrayData, bases: &[usize], n: usize) -> Option<ArrayData> {
    with_array_data!(d, v => take_rows_k(v, bases, n))
}

fn put_k<T: NativeData>(dst: &mut [T], at: &[usize], src: &ArrayData) -> Result<()> {
    let src = T::slice(src).ok_or_else(|| element_types("put", T::TYPE, src.element_type()))?;
    for (&i, &v) in at.iter().zip(src) {
        if let Some(slot) = dst.get_mut(i) {
            *slot = v;
        }
    }
    Ok(())
}

/// Writes the elements of `src` to the positions `at` of `dst` (the inverse of [`take`]).
///
/// # Errors
/// If the element types differ.
pub(crate) fn put(dst: &mut ArrayData, at: &[usize], src: &ArrayData) -> Result<()> {
    with_array_data!(dst, v => put_k(v, at, src))
}

/// A rank-1 literal holding `d`.
///
/// # Errors
/// Never for array data (the shape is built from the data).
pub(crate) fn vector(d: ArrayData) -> Result<Literal> {
    let n = d.len() as i64;
    make(&Shape::array(d.element_type(), vec![n]), d)
}

/// The arrays of a literal that is an array or a tuple of arrays, in order.
///
/// # Errors
/// If an element is not an array.
pub(crate) fn leaves(l: &Literal) -> Result<Vec<&ArrayData>> {
    match l.tuple_elements() {
        Some(t) => t.iter().map(crate::index::data).collect(),
        None => Ok(vec![crate::index::data(l)?]),
    }
}

/// The strided copy of `d` (see `strided.rs`) as a literal of shape `out`.
fn strided_copy(
    d: &ArrayData,
    base: isize,
    dims: &[usize],
    st: &[isize],
    par: Parallel<'_>,
    out: &Shape,
    what: &str,
) -> Result<Literal> {
    let r = super::strided::copy(d, base, dims, st, par)
        .ok_or_else(|| operand_shapes(what, [out], "reads outside its operand"))?;
    make(out, r)
}

/// Builds the index map of an output of `out_dims` whose element at multi-index `o` comes
/// from source offset `f(o)`.
pub(crate) fn index_map(out_dims: &[usize], mut f: impl FnMut(&[usize]) -> usize) -> Vec<usize> {
    let n = count(out_dims);
    let mut map = Vec::with_capacity(n);
    if n == 0 {
        return map;
    }
    let mut idx = vec![0usize; out_dims.len()];
    loop {
        map.push(f(&idx));
        if !advance(&mut idx, out_dims) {
            break;
        }
    }
    map
}

fn to_usize(v: &[i64], what: &str) -> Result<Vec<usize>> {
    v.iter()
        .map(|&x| {
            usize::try_from(x)
                .map_err(|_| attribute(what, "dimension", x.to_string(), "is negative"))
        })
        .collect()
}

fn check_perm(perm: &[usize], rank: usize, what: &str) -> Result<()> {
    let mut seen = vec![false; rank];
    if perm.len() != rank {
        return Err(attribute(
            what,
            "dimensions",
            format!("{perm:?}"),
            format!("has {} entries for an operand of rank {rank}", perm.len()),
        ));
    }
    for &p in perm {
        match seen.get_mut(p) {
            Some(s) if !*s => *s = true,
            _ => {
                return Err(attribute(
                    what,
                    "dimensions",
                    format!("{perm:?}"),
                    format!("is not a permutation of 0..{rank}"),
                ))
            }
        }
    }
    Ok(())
}

/// `transpose`: result dim i is operand dim `perm[i]`.
///
/// # Errors
/// If `perm` is not a permutation of the operand's dims.
pub fn transpose(x: &Literal, perm: &[i64], out: &Shape, par: Parallel<'_>) -> Result<Literal> {
    let (d, dims) = array(x)?;
    let perm = to_usize(perm, "transpose")?;
    check_perm(&perm, dims.len(), "transpose")?;
    let st = strides(&dims);
    let out_dims: Vec<usize> = perm.iter().map(|&p| dims[p]).collect();
    let pst: Vec<isize> = perm.iter().map(|&p| st[p] as isize).collect();
    strided_copy(d, 0, &out_dims, &pst, par, out, "transpose")
}

/// `broadcast`: operand dim j maps to result dim `dims[j]`; size-1 operand dims expand.
///
/// # Errors
/// If a mapped dim is out of range or its size differs (and is not 1).
pub fn broadcast(x: &Literal, bdims: &[i64], out: &Shape, par: Parallel<'_>) -> Result<Literal> {
    let (d, dims) = array(x)?;
    let out_dims = dims_of(out)?;
    let bdims = to_usize(bdims, "broadcast")?;
    if bdims.len() != dims.len() {
        return Err(attribute(
            "broadcast",
            "dimensions",
            format!("{bdims:?}"),
            format!(
                "does not have one entry per dimension of operand {}",
                x.shape()
            ),
        ));
    }
    let st = strides(&dims);
    let mut ost = vec![0isize; out_dims.len()];
    for (j, &bd) in bdims.iter().enumerate() {
        match out_dims.get(bd) {
            Some(&n) if n == dims[j] => ost[bd] = st[j] as isize,
            Some(_) if dims[j] == 1 => {}
            _ => {
                return Err(operand_shapes(
                    "broadcast",
                    [x.shape(), out],
                    format!("do not map onto each other with dimensions={bdims:?}"),
                ))
            }
        }
    }
    strided_copy(d, 0, &out_dims, &ost, par, out, "broadcast")
}

/// `reshape` (and `bitcast`, `copy`): the same elements under new dims.
///
/// # Errors
/// If the element counts differ.
pub fn reshape(x: &Literal, out: &Shape) -> Result<Literal> {
    let (d, _) = array(x)?;
    make(out, d.clone())
}

/// `reverse` along `rdims`.
///
/// # Errors
/// If a dim is out of range.
pub fn reverse(x: &Literal, rdims: &[i64], par: Parallel<'_>) -> Result<Literal> {
    let (d, dims) = array(x)?;
    let mut rev = vec![false; dims.len()];
    for &r in &to_usize(rdims, "reverse")? {
        let index = r as i64;
        *rev.get_mut(r).ok_or_else(|| {
            crate::error::out_of_range("reverse", "dimension", index, dims.len())
        })? = true;
    }
    let st = strides(&dims);
    let mut base = 0isize;
    let mut rst = Vec::with_capacity(dims.len());
    for i in 0..dims.len() {
        let s = st[i] as isize;
        if rev[i] && dims[i] > 0 {
            base += (dims[i] as isize - 1) * s;
            rst.push(-s);
        } else {
            rst.push(s);
        }
    }
    strided_copy(d, base, &dims, &rst, par, x.shape(), "reverse")
}

/// Strided `slice`.
///
/// # Errors
/// If the bounds do not fit the operand.
pub fn slice(
    x: &Literal,
    start: &[i64],
    limit: &[i64],
    stride: &[i64],
    out: &Shape,
    par: Parallel<'_>,
) -> Result<Literal> {
    let (d, dims) = array(x)?;
    let start = to_usize(start, "slice")?;
    let stride = to_usize(stride, "slice")?;
    let limit = to_usize(limit, "slice")?;
    let out_dims = dims_of(out)?;
    let ok = start.len() == dims.len()
        && stride.len() == dims.len()
        && limit.len() == dims.len()
        && out_dims.len() == dims.len()
        && (0..dims.len()).all(|i| {
            stride[i] > 0
                && start[i] <= limit[i]
                && limit[i] <= dims[i]
                && out_dims[i] == (limit[i] - start[i]).div_ceil(stride[i])
        });
    if !ok {
        return Err(operand_shapes(
            "slice",
            [x.shape(), out],
            format!("do not fit slice bounds {start:?}..{limit:?} step {stride:?}"),
        ));
    }
    let st = strides(&dims);
    let base: usize = (0..dims.len()).map(|i| start[i] * st[i]).sum();
    let sst: Vec<isize> = (0..dims.len())
        .map(|i| (stride[i] * st[i]) as isize)
        .collect();
    strided_copy(d, base as isize, &out_dims, &sst, par, out, "slice")
}

/// Start indices clamped into `[0, dim - size]`.
pub(crate) fn clamped_starts(
    starts: &[&Literal],
    dims: &[usize],
    sizes: &[usize],
) -> Result<Vec<usize>> {
    if starts.len() != dims.len() || sizes.len() != dims.len() {
        return Err(operand_count(
            "dynamic-slice",
            "one start index per operand dimension",
            starts.len(),
        ));
    }
    let mut out = Vec::with_capacity(dims.len());
    for i in 0..dims.len() {
        let s = scalar_i64(starts[i])?;
        if sizes[i] > dims[i] {
            return Err(attribute(
                "dynamic-slice",
                "dynamic_slice_sizes",
                format!("{sizes:?}"),
                format!("exceeds the operand's dimensions {dims:?}"),
            ));
        }
        let hi = (dims[i] - sizes[i]) as i64;
        out.push(s.clamp(0, hi) as usize);
    }
    Ok(out)
}

/// `dynamic-slice` with starts clamped so the slice fits.
///
/// # Errors
/// If the starts are not integer scalars or the sizes do not fit.
pub fn dynamic_slice(
    x: &Literal,
    starts: &[&Literal],
    sizes: &[i64],
    out: &Shape,
    par: Parallel<'_>,
) -> Result<Literal> {
    let (d, dims) = array(x)?;
    let sizes = to_usize(sizes, "dynamic-slice")?;
    let st0 = clamped_starts(starts, &dims, &sizes)?;
    let st = strides(&dims);
    let base: usize = (0..dims.len()).map(|i| st0[i] * st[i]).sum();
    let ist: Vec<isize> = st.iter().map(|&s| s as isize).collect();
    strided_copy(d, base as isize, &sizes, &ist, par, out, "dynamic-slice")
}

/// Copies `upd` (dims `udims`) into `dst` (row-major strides `st`) at `at`, one innermost
/// run at a time.
fn update_k<T: NativeData>(
    dst: &mut [T],
    upd: &ArrayData,
    udims: &[usize],
    st: &[usize],
    at: &[usize],
) -> Result<()> {
    let u = T::slice(upd)
        .ok_or_else(|| element_types("dynamic-update-slice", T::TYPE, upd.element_type()))?;
    let run = udims.last().copied().unwrap_or(1);
    if run == 0 || u.is_empty() {
        return Ok(());
    }
    let rows = &udims[..udims.len().saturating_sub(1)];
    let mut idx = vec![0usize; rows.len()];
    for src in u.chunks(run) {
        // `idx` indexes the rows (every dim but the last); along the last dim each chunk
        // is a whole run from its start, index 0.
        let off: usize = (0..udims.len())
            .map(|i| (at[i] + idx.get(i).copied().unwrap_or(0)) * st[i])
            .sum();
        let d = dst
            .get_mut(off..off + run)
            .ok_or_else(|| internal("clamped starts keep the update inside the operand"))?;
        d.copy_from_slice(src);
        advance(&mut idx, rows);
    }
    Ok(())
}

/// `dynamic-update-slice` with starts clamped so the update fits.
///
/// # Errors
/// If the starts are not integer scalars or the update does not fit.
pub fn dynamic_update_slice(x: &Literal, upd: &Literal, starts: &[&Literal]) -> Result<Literal> {
    let mut out = make(x.shape(), array(x)?.0.clone())?;
    dynamic_update_slice_in_place(&mut out, upd, starts)?;
    Ok(out)
}

/// `dynamic-update-slice` writing into the operand's own buffer: what a loop-carried buffer
/// whose last reader is the update gets (no copy of the operand).
///
/// # Errors
/// As [`dynamic_update_slice`].
pub fn dynamic_update_slice_in_place(
    x: &mut Literal,
    upd: &Literal,
    starts: &[&Literal],
) -> Result<()> {
    let shape = x.shape().clone();
    let dims = dims_of(&shape)?;
    let (u, udims) = array(upd)?;
    let at = clamped_starts(starts, &dims, &udims)?;
    let st = strides(&dims);
    let d = x
        .array_data_mut()
        .ok_or_else(|| operand_kind("dynamic-update-slice", "an array", &shape))?;
    with_array_data!(d, v => update_k(v, u, &udims, &st, &at))
}

fn concat_k<T: NativeData>(
    first: &[T],
    parts: &[(&ArrayData, usize)],
    outer: usize,
) -> Result<ArrayData> {
    let _ = first;
    let slices: Vec<(&[T], usize)> = parts
        .iter()
        .map(|(d, blk)| {
            T::slice(d)
                .map(|s| (s, *blk))
                .ok_or_else(|| element_types("concatenate", T::TYPE, d.element_type()))
        })
        .collect::<Result<_>>()?;
    let mut out = Vec::with_capacity(slices.iter().map(|(s, _)| s.len()).sum());
    for o in 0..outer {
        for (s, blk) in &slices {
            out.extend_from_slice(invariant::span(
                s,
                o * blk..(o + 1) * blk,
                "concatenate blocks",
            ));
        }
    }
    Ok(T::wrap(out))
}

/// `concatenate` along `dim`.
///
/// # Errors
/// If the operands differ in rank, type or in a dim other than `dim`.
pub fn concatenate(xs: &[&Literal], dim: i64, out: &Shape) -> Result<Literal> {
    let first = xs
        .first()
        .ok_or_else(|| operand_count("concatenate", "at least 1 operand", 0))?;
    let (d0, dims0) = array(first)?;
    let dim = usize::try_from(dim)
        .ok()
        .filter(|&d| d < dims0.len())
        .ok_or_else(|| out_of_range("concatenate", "dimension", dim, dims0.len()))?;
    let outer = count(&dims0[..dim]);
    let mut parts = Vec::with_capacity(xs.len());
    for x in xs {
        let (d, dims) = array(x)?;
        if dims.len() != dims0.len() || (0..dims.len()).any(|i| i != dim && dims[i] != dims0[i]) {
            return Err(operand_shapes(
                "concatenate",
                [first.shape(), x.shape()],
                format!("differ in a dimension other than {dim}"),
            ));
        }
        parts.push((d, count(&dims[dim..])));
    }
    make(out, with_array_data!(d0, v => concat_k(v, &parts, outer))?)
}

/// `out[at..at + src.len()] = src`, which the caller's plan proves in bounds.
fn copy_block<T: Copy>(out: &mut [T], at: usize, src: &[T]) {
    let dst = at
        .checked_add(src.len())
        .and_then(|end| out.get_mut(at..end));
    debug_assert!(dst.is_some(), "xla-cpu invariant broken: pad block at {at}");
    if let Some(dst) = dst {
        dst.copy_from_slice(src);
    }
}

fn pad_k<T: NativeData>(
    v: &[T],
    fill: &ArrayData,
    dims: &[usize],
    pads: &[PadDim],
    out_dims: &[usize],
) -> Result<ArrayData> {
    let fill = T::slice(fill)
        .and_then(|f| f.first().copied())
        .ok_or_else(|| element_types("pad", T::TYPE, fill.element_type()))?;
    let mut out = crate::limits::alloc::try_filled(count(out_dims), fill, "pad")?;
    if v.is_empty() {
        return Ok(T::wrap(out));
    }
    // The trailing dims without padding are one contiguous block in both operand and
    // output; the last padded dim is a strided row of such blocks (`step` apart).
    let rank = dims.len();
    let plain = |d: &usize| {
        pads.get(*d)
            .is_some_and(|p| p.low == 0 && p.high == 0 && p.interior == 0)
    };
    let split = (0..rank).rev().take_while(plain).last().unwrap_or(rank);
    let block = count(&dims[split..]);
    let Some(row) = split.checked_sub(1) else {
        copy_block(&mut out, 0, v);
        return Ok(T::wrap(out));
    };
    let ost = strides(out_dims);
    let pr = pads[row];
    let step = (pr.interior + 1) as usize * ost[row];
    // Operand positions along `row` that land inside the output.
    let first = usize::try_from((-pr.low).max(0)).unwrap_or(0);
    let first = first.div_ceil(pr.interior as usize + 1);
    let reach = |j: usize| pr.low + j as i64 * (pr.interior + 1) < out_dims[row] as i64;
    let last = (first..dims[row]).take_while(|&j| reach(j)).last();
    let mut idx = vec![0usize; row];
    for src in v.chunks_exact(dims[row] * block) {
        let mut base = Some(0i64);
        for i in 0..row {
            let p = pads[i].low + idx[i] as i64 * (pads[i].interior + 1);
            base = base
                .filter(|_| p >= 0 && p < out_dims[i] as i64)
                .map(|b| b + p * ost[i] as i64);
        }
        advance(&mut idx, &dims[..row]);
        let (Some(base), Some(last)) = (base, last) else {
            continue;
        };
        let start = base + (pr.low + first as i64 * (pr.interior + 1)) * ost[row] as i64;
        if pr.interior == 0 {
            // No interior padding: the row's kept elements are one contiguous piece.
            let kept = invariant::span(src, first * block..(last + 1) * block, "pad");
            copy_block(&mut out, start as usize, kept);
            continue;
        }
        for (k, j) in (first..=last).enumerate() {
            let o = start as usize + k * step;
            copy_block(
                &mut out,
                o,
                invariant::span(src, j * block..(j + 1) * block, "pad"),
            );
        }
    }
    Ok(T::wrap(out))
}

/// `pad` with low/high (possibly negative) and interior padding.
///
/// # Errors
/// If the padding does not match the operand's rank or the output shape.
pub fn pad(x: &Literal, value: &Literal, pads: &[PadDim], out: &Shape) -> Result<Literal> {
    let (d, dims) = array(x)?;
    let (f, _) = array(value)?;
    let out_dims = dims_of(out)?;
    let ok = pads.len() == dims.len()
        && out_dims.len() == dims.len()
        && pads.iter().zip(&dims).zip(&out_dims).all(|((p, &n), &o)| {
            let interior = if n == 0 {
                0
            } else {
                (n as i64 - 1) * p.interior
            };
            p.interior >= 0 && p.low + p.high + n as i64 + interior == o as i64
        });
    if !ok {
        return Err(operand_shapes(
            "pad",
            [x.shape(), out],
            format!("do not fit padding {pads:?}"),
        ));
    }
    make(
        out,
        with_array_data!(d, v => pad_k(v, f, &dims, pads, &out_dims))?,
    )
}

/// `iota` along `dim` of the output shape.
///
/// # Errors
/// If the dimension is out of range or the type is not numeric.
pub fn iota(dim: i64, out: &Shape) -> Result<Literal> {
    let dims = dims_of(out)?;
    let dim = usize::try_from(dim)
        .ok()
        .filter(|&d| d < dims.len())
        .ok_or_else(|| out_of_range("iota", "dimension", dim, dims.len()))?;
    let mut v: Vec<i64> = crate::limits::alloc::try_with_capacity(count(&dims), "iota")?;
    crate::index::for_each_index(&dims, |o| v.push(o[dim] as i64));
    let data = super::elementwise::convert(&ArrayData::S64(v), out.element_type())?;
    make(out, data)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    const SEQ: Parallel<'static> = Parallel::SEQ;
    use xla_core::PrimitiveType::{F32, S32};

    fn f32s(l: &Literal) -> Vec<f32> {
        l.data::<f32>().unwrap().to_vec()
    }

    #[test]
    fn transpose_and_broadcast() {
        let x = Literal::from_vec(&[2, 3], vec![1f32, 2., 3., 4., 5., 6.]).unwrap();
        let t = transpose(&x, &[1, 0], &Shape::array(F32, vec![3, 2]), SEQ).unwrap();
        assert_eq!(f32s(&t), vec![1., 4., 2., 5., 3., 6.]);
        // Degenerate broadcast f32[3,1] -> f32[2,3,4], dimensions={1,2}.
        let y = Literal::from_vec(&[3, 1], vec![1f32, 2., 3.]).unwrap();
        let b = broadcast(&y, &[1, 2], &Shape::array(F32, vec![2, 3, 4]), SEQ).unwrap();
        let v = f32s(&b);
        assert_eq!(&v[..12], &[1., 1., 1., 1., 2., 2., 2., 2., 3., 3., 3., 3.]);
        assert_eq!(&v[12..], &v[..12]);
    }

    /// The block-copying pad against the definition, element by element, on random
    /// shapes with negative, zero and positive edges and interior padding on any dim.
    #[test]
    fn pad_matches_its_definition_on_random_paddings() {
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut rnd = |n: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % n
        };
        for _ in 0..300 {
            let rank = 1 + rnd(4) as usize;
            let dims: Vec<usize> = (0..rank).map(|_| 1 + rnd(4) as usize).collect();
            let pads: Vec<PadDim> = (0..rank)
                .map(|_| {
                    let plain = rnd(3) == 0;
                    PadDim {
                        low: if plain { 0 } else { rnd(5) as i64 - 2 },
                        high: if plain { 0 } else { rnd(5) as i64 - 2 },
                        interior: if plain { 0 } else { rnd(3) as i64 },
                    }
                })
                .collect();
            let out_dims: Vec<i64> = dims
                .iter()
                .zip(&pads)
                .map(|(&n, p)| p.low + p.high + n as i64 + (n as i64 - 1) * p.interior)
                .collect();
            if out_dims.iter().any(|&o| o < 0) {
                continue;
            }
            let n: usize = dims.iter().product();
            let v: Vec<f32> = (1..=n).map(|i| i as f32).collect();
            let di: Vec<i64> = dims.iter().map(|&d| d as i64).collect();
            let x = Literal::from_vec(&di, v.clone()).unwrap();
            let out_u: Vec<usize> = out_dims.iter().map(|&o| o as usize).collect();
            let got = pad(
                &x,
                &Literal::scalar(-1f32),
                &pads,
                &Shape::array(F32, out_dims),
            )
            .unwrap();
            let mut want = vec![-1f32; out_u.iter().product()];
            let ost = strides(&out_u);
            let mut idx = vec![0usize; rank];
            for &e in &v {
                let pos: Vec<i64> = (0..rank)
                    .map(|d| pads[d].low + idx[d] as i64 * (pads[d].interior + 1))
                    .collect();
                if pos
                    .iter()
                    .zip(&out_u)
                    .all(|(&p, &o)| p >= 0 && p < o as i64)
                {
                    let off: usize = pos.iter().zip(&ost).map(|(&p, &s)| p as usize * s).sum();
                    want[off] = e;
                }
                advance(&mut idx, &dims);
            }
            assert_eq!(f32s(&got), want, "dims {dims:?} pads {pads:?}");
        }
    }

    #[test]
    fn pad_negative_and_interior() {
        // Spec example: pad [1,2,3] with low=-1 high=2 interior=1 -> [0, 2, 0, 3, 0, 0]... low -1
        // drops the first element: full = [1,0,2,0,3] then low -1 -> [0,2,0,3], high 2.
        let x = Literal::vec1(&[1f32, 2., 3.]);
        let p = pad(
            &x,
            &Literal::scalar(0f32),
            &[PadDim {
                low: -1,
                high: 2,
                interior: 1,
            }],
            &Shape::array(F32, vec![6]),
        )
        .unwrap();
        assert_eq!(f32s(&p), vec![0., 2., 0., 3., 0., 0.]);
    }

    #[test]
    fn dynamic_slice_clamps() {
        let x = Literal::vec1(&[0f32, 1., 2., 3., 4.]);
        for (start, want) in [
            (-5i32, vec![0f32, 1.]),
            (4, vec![3., 4.]),
            (2, vec![2., 3.]),
        ] {
            let s = Literal::scalar(start);
            let r = dynamic_slice(&x, &[&s], &[2], &Shape::array(F32, vec![2]), SEQ).unwrap();
            assert_eq!(f32s(&r), want);
        }
        let u = Literal::vec1(&[9f32, 9.]);
        let s = Literal::scalar(u32::MAX);
        let r = dynamic_update_slice(&x, &u, &[&s]).unwrap();
        assert_eq!(f32s(&r), vec![0., 1., 2., 9., 9.]);
    }

    #[test]
    fn slice_concat_iota_reverse() {
        let x = Literal::vec1(&[0f32, 1., 2., 3., 4., 5., 6.]);
        let s = slice(&x, &[1], &[7], &[3], &Shape::array(F32, vec![2]), SEQ).unwrap();
        assert_eq!(f32s(&s), vec![1., 4.]);
        let a = Literal::from_vec(&[2, 1], vec![1f32, 2.]).unwrap();
        let b = Literal::from_vec(&[2, 2], vec![3f32, 4., 5., 6.]).unwrap();
        let c = concatenate(&[&a, &b], 1, &Shape::array(F32, vec![2, 3])).unwrap();
        assert_eq!(f32s(&c), vec![1., 3., 4., 2., 5., 6.]);
        let i = iota(1, &Shape::array(S32, vec![2, 3])).unwrap();
        assert_eq!(i.data::<i32>().unwrap(), &[0, 1, 2, 0, 1, 2]);
        let r = reverse(&b, &[0, 1], SEQ).unwrap();
        assert_eq!(f32s(&r), vec![6., 5., 4., 3.]);
    }
}
