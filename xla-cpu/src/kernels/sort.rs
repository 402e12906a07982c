//! Sorting: `sort` (any comparator, several operands, any dimension; always stable) and
//! `topk` (ties: lower index first).

use crate::error::{attribute, internal, operand_count, operand_kind, operand_shapes, Result};
use crate::index::{array, count, make, results, scalar_at};
use crate::kernels::combiner::Combiner;
use crate::kernels::comparator::{canonical, Key};
use crate::kernels::host::Host;
use crate::limits::scratch;
use crate::limits::stop::{Poll, POLL_EVERY};
use crate::scalar::{Elem, Kind};
use xla_core::attrs::{ComparisonDirection, ComparisonType};
use xla_core::ir::CompId;
use xla_core::literal::ArrayData;
use xla_core::{with_array_data, Literal, Shape};

use super::elementwise::total_key;
use super::sort_polled::sort_by_key_polled;
use super::structural::{take, take_polled, vector};
use std::cmp::Reverse;

/// Stable bottom-up merge sort of `idx` with a fallible "a before b" predicate; an
/// inconsistent predicate gives some order, never a panic.
pub(crate) fn merge_sort(
    idx: &mut Vec<usize>,
    less: &mut dyn FnMut(usize, usize) -> Result<bool>,
) -> Result<()> {
    let n = idx.len();
    let mut buf = idx.clone();
    let mut width = 1;
    while width < n {
        let mut lo = 0;
        while lo < n {
            let mid = (lo + width).min(n);
            let hi = (lo + 2 * width).min(n);
            let (mut i, mut j, mut k) = (lo, mid, lo);
            while i < mid && j < hi {
                if less(idx[j], idx[i])? {
                    buf[k] = idx[j];
                    j += 1;
                } else {
                    buf[k] = idx[i];
                    i += 1;
                }
                k += 1;
            }
            buf[k..k + (mid - i)].copy_from_slice(&idx[i..mid]);
            k += mid - i;
            buf[k..k + (hi - j)].copy_from_slice(&idx[j..hi]);
            lo = hi;
        }
        std::mem::swap(idx, &mut buf);
        width *= 2;
    }
    Ok(())
}

/// `less(x[i], y[i])` for every `i` by one vectorised run of the comparator `f`.
fn less_vec(
    cx: &dyn Host,
    ds: &[&ArrayData],
    f: CompId,
    xs: &[usize],
    ys: &[usize],
) -> Result<Vec<bool>> {
    let mut args = Vec::with_capacity(2 * ds.len());
    for d in ds {
        args.push(vector(take(d, xs))?);
        args.push(vector(take(d, ys))?);
    }
    let r = cx.call_vec(f, args, xs.len())?;
    r.data::<bool>()
        .map(<[bool]>::to_vec)
        .ok_or_else(|| operand_kind("sort", "a comparator that returns pred[]", r.shape()))
}

/// Sorts every slice (offsets in `slices`) with a bitonic network, evaluating the comparator
/// on all compare-exchange pairs of a stage at once. Ties are broken by the original offset,
/// so for a comparator that is a strict weak order the result is the stable sort's.
fn sort_network(
    cx: &dyn Host,
    ds: &[&ArrayData],
    f: CompId,
    slices: &mut [Vec<usize>],
) -> Result<()> {
    let n = slices.first().map_or(0, Vec::len);
    let p = n.next_power_of_two();
    // Padding positions (None) sort after every element.
    let mut perm: Vec<Option<usize>> = slices
        .iter()
        .flat_map(|s| {
            s.iter()
                .map(|&o| Some(o))
                .chain(std::iter::repeat_n(None, p - n))
        })
        .collect();
    let mut k = 2;
    while k <= p {
        let mut j = k / 2;
        while j > 0 {
            bitonic_stage(cx, ds, f, &mut perm, p, [k, j])?;
            j /= 2;
        }
        k *= 2;
    }
    for (s, slice) in slices.iter_mut().enumerate() {
        for (q, slot) in slice.iter_mut().enumerate() {
            *slot = perm
                .get(s * p + q)
                .copied()
                .flatten()
                .ok_or_else(|| internal("sort: the padding sorts after every element"))?;
        }
    }
    Ok(())
}

/// One stage of the bitonic network: compare-exchange `i` with `i ^ j` in blocks of `k`.
fn bitonic_stage(
    cx: &dyn Host,
    ds: &[&ArrayData],
    f: CompId,
    perm: &mut [Option<usize>],
    p: usize,
    [k, j]: [usize; 2],
) -> Result<()> {
    // (position that must hold the smaller, position that must hold the larger).
    let mut pairs = Vec::new();
    let mut real = Vec::new();
    for base in (0..perm.len()).step_by(p) {
        for i in 0..p {
            let l = i ^ j;
            if l > i {
                let (a, b) = if i & k == 0 {
                    (base + i, base + l)
                } else {
                    (base + l, base + i)
                };
                match (perm[a], perm[b]) {
                    (Some(_), Some(_)) => real.push((a, b)),
                    (None, Some(_)) => pairs.push((a, b)),
                    (Some(_), None) | (None, None) => {}
                }
            }
        }
    }
    for (a, b) in pairs {
        perm.swap(a, b);
    }
    if real.is_empty() {
        return Ok(());
    }
    let xa: Vec<usize> = real.iter().filter_map(|&(a, _)| perm[a]).collect();
    let xb: Vec<usize> = real.iter().filter_map(|&(_, b)| perm[b]).collect();
    let b_first = less_vec(cx, ds, f, &xb, &xa)?;
    let a_first = less_vec(cx, ds, f, &xa, &xb)?;
    for (i, &(a, b)) in real.iter().enumerate() {
        if b_first[i] || (!a_first[i] && xb[i] < xa[i]) {
            perm.swap(a, b);
        }
    }
    Ok(())
}

/// Sort keys whose integer order is the element order (floats: the IEEE total order),
/// made in blocks with a poll of the run's stop between them.
///
/// # Errors
/// [`crate::CpuError::Stopped`] when the run must stop.
fn keys_k<T: Elem>(v: &[T], key: Key, poll: &mut Poll) -> Result<Vec<i128>> {
    let one = |x: T| match T::KIND {
        Kind::Float => i128::from(total_key(canonical(key, x.to_f64()))),
        Kind::Unsigned => i128::from(x.to_u64()),
        Kind::Signed | Kind::Pred => i128::from(x.to_i64()),
        Kind::Complex => i128::from(total_key(x.to_c128().re)),
    };
    let mut out = Vec::with_capacity(v.len());
    for part in v.chunks(POLL_EVERY) {
        poll.tick(part.len())?;
        out.extend(part.iter().map(|&x| one(x)));
    }
    Ok(out)
}

/// A comparator run without the interpreter: `compare(key(a), key(b))` on the first
/// operand (the others follow its order), as that operand's keys in its total order and
/// the direction; `None` for a float compare that is not a total order, or complex keys.
///
/// # Errors
/// [`crate::CpuError::Stopped`] when the run must stop while the keys are made.
fn native_keys(
    d: &ArrayData,
    (dir, ct): (ComparisonDirection, Option<ComparisonType>),
    key: Key,
    poll: &mut Poll,
) -> Result<Option<(Vec<i128>, ComparisonDirection)>> {
    let total = ct == Some(ComparisonType::TotalOrder) || !d.element_type().is_float();
    if !total || d.element_type().is_complex() {
        return Ok(None);
    }
    Ok(Some((with_array_data!(d, v => keys_k(v, key, poll))?, dir)))
}

/// `compare(keys[a], keys[b])` in direction `dir`.
fn less(keys: &[i128], dir: ComparisonDirection, a: usize, b: usize) -> bool {
    let (x, y) = (
        crate::invariant::at(keys, a, "sort keys"),
        crate::invariant::at(keys, b, "sort keys"),
    );
    match dir {
        ComparisonDirection::Lt => x < y,
        ComparisonDirection::Gt => x > y,
        ComparisonDirection::Le => x <= y,
        ComparisonDirection::Ge => x >= y,
        ComparisonDirection::Eq => x == y,
        ComparisonDirection::Ne => x != y,
    }
}

/// `sort` along `dim` by comparator `f` over `(a0, b0, a1, b1, ...)`; always stable.
///
/// # Errors
/// If the operands differ in dims or the comparator fails.
pub fn sort(cx: &dyn Host, a: &[&Literal], dim: i64, f: CompId, out: &Shape) -> Result<Literal> {
    let first = a
        .first()
        .ok_or_else(|| operand_count("sort", "at least 1 operand", 0))?;
    let (_, dims) = array(first)?;
    let ds = a
        .iter()
        .map(|l| {
            array(l).and_then(|(d, ds)| {
                if ds == dims {
                    Ok(d)
                } else {
                    Err(operand_shapes(
                        "sort",
                        [first.shape(), l.shape()],
                        "differ in dims",
                    ))
                }
            })
        })
        .collect::<Result<Vec<_>>>()?;
    let dim = usize::try_from(dim)
        .ok()
        .filter(|&d| d < dims.len())
        .ok_or_else(|| crate::error::out_of_range("sort", "dimension", dim, dims.len()))?;
    let n = dims[dim];
    let inner = count(&dims[dim + 1..]);
    let outer = count(&dims[..dim]);
    // The set-up (keys, slices, the final map and copy) polls the run's stop every
    // `POLL_EVERY` elements (`limits/stop.rs`).
    let mut poll = Poll::new(count(&dims));
    let native = match (cx.combiner(f), ds.as_slice()) {
        (Some(Combiner::Compare(dir, ct)), [d]) => {
            native_keys(d, (dir, ct), Key::Plain, &mut poll)?
        }
        (Some(Combiner::KeyCompare(dir, ct, key)), [d, ..]) => {
            native_keys(d, (dir, ct), key, &mut poll)?
        }
        _ => None,
    };
    // The permutation (each slice's offsets, then their map) is the sort's scratch.
    let (total, nslices) = (count(&dims), outer * inner);
    let per_slice = std::mem::size_of::<Vec<usize>>() as u64;
    scratch::admit(
        "sort (permutation)",
        scratch::bytes_of::<usize>(total)
            .saturating_mul(2)
            .saturating_add((nslices as u64).saturating_mul(per_slice)),
    )?;
    // slices[s] lists the offsets of slice s in order (offsets grow along the slice).
    let mut slices: Vec<Vec<usize>> = Vec::with_capacity(nslices);
    for s in 0..nslices {
        poll.tick(n)?;
        let base = (s / inner.max(1)) * n * inner + s % inner.max(1);
        slices.push((0..n).map(|k| base + k * inner).collect());
    }
    // A strict order on the keys: the standard library's stable sort gives what the merge
    // sort gives for it (a stable sort's result is unique), faster; the run's stop is
    // polled between slices (`limits/stop.rs`).
    let stop = crate::limits::stop::Stop::current();
    let strict = native
        .as_ref()
        .filter(|(_, dir)| matches!(dir, ComparisonDirection::Lt | ComparisonDirection::Gt));
    if let Some((keys, dir)) = strict {
        let k = |i: usize| crate::invariant::at(keys, i, "sort keys");
        // A slice longer than a poll interval, in a run that can be stopped, is sorted
        // in polled runs and merges (`sort_polled.rs`: the same order).
        let polled = |idx: &Vec<usize>| idx.len() > POLL_EVERY && stop.is_active();
        for idx in &mut slices {
            stop.check()?;
            match (*dir == ComparisonDirection::Gt, polled(idx)) {
                (true, true) => sort_by_key_polled(idx, |a| Reverse(k(a)), &mut poll)?,
                (false, true) => sort_by_key_polled(idx, k, &mut poll)?,
                (true, false) => idx.sort_by_key(|&a| Reverse(k(a))),
                (false, false) => idx.sort_by_key(|&a| k(a)),
            }
        }
    } else if native.is_none() && cx.vectorizable(f) {
        sort_network(cx, &ds, f, &mut slices)?;
    } else {
        // The native comparator polls the run's stop every 2^16 comparisons (a comparator
        // computation is polled by its own instructions); `limits/stop.rs`.
        let mut calls = 0u32;
        for idx in &mut slices {
            match &native {
                Some((keys, dir)) => merge_sort(idx, &mut |x, y| {
                    calls = calls.wrapping_add(1);
                    if calls & 0xffff == 0 {
                        stop.check()?;
                    }
                    Ok(less(keys, *dir, x, y))
                })?,
                None => merge_sort(idx, &mut |x, y| {
                    let args = ds
                        .iter()
                        .flat_map(|d| [scalar_at(d, x), scalar_at(d, y)])
                        .collect::<Result<_>>()?;
                    let r = cx.call(f, args)?;
                    match r.data::<bool>() {
                        Some([b]) => Ok(*b),
                        _ => Err(operand_kind(
                            "sort",
                            "a comparator that returns pred[]",
                            r.shape(),
                        )),
                    }
                })?,
            }
        }
    }
    let mut map = vec![0usize; count(&dims)];
    for (s, idx) in slices.iter().enumerate() {
        poll.tick(n)?;
        let base = (s / inner.max(1)) * n * inner + s % inner.max(1);
        for (k, &src) in idx.iter().enumerate() {
            map[base + k * inner] = src;
        }
    }
    let sorted = ds
        .iter()
        .map(|d| take_polled(d, &map, &mut poll))
        .collect::<Result<Vec<ArrayData>>>()?;
    results(out, sorted)
}

/// `topk` along the last dim → `(values, s32 indices)`; ties keep the lower index first.
///
/// # Errors
/// If `k` exceeds the last dim or the output is not a pair.
pub fn top_k(x: &Literal, k: i64, largest: bool, out: &Shape) -> Result<Literal> {
    let (d, dims) = array(x)?;
    let n = dims.last().copied().unwrap_or(1);
    let k = usize::try_from(k).ok().filter(|&k| k <= n).ok_or_else(|| {
        attribute(
            "topk",
            "k",
            k.to_string(),
            format!("exceeds the last dimension of {}", x.shape()),
        )
    })?;
    let rows = count(&dims) / n.max(1);
    let mut poll = Poll::new(count(&dims));
    let keys = with_array_data!(d, v => keys_k(v, Key::Plain, &mut poll))?;
    let mut map = Vec::with_capacity(rows * k);
    let mut idx_out = Vec::with_capacity(rows * k);
    let stop = crate::limits::stop::Stop::current();
    for r in 0..rows {
        if r % 64 == 0 {
            stop.check()?;
        }
        let mut idx: Vec<usize> = (0..n).collect();
        let row = &keys[r * n..(r + 1) * n];
        if largest {
            idx.sort_by(|&a, &b| row[b].cmp(&row[a]));
        } else {
            idx.sort_by(|&a, &b| row[a].cmp(&row[b]));
        }
        for &i in &idx[..k] {
            map.push(r * n + i);
            idx_out.push(i as i32);
        }
    }
    let [vs, is] = out.tuple_elements().unwrap_or(&[]) else {
        let pair = "a (values, indices) pair";
        return Err(crate::error::result_shape("topk", pair, out));
    };
    Ok(Literal::tuple(vec![
        make(vs, take_polled(d, &map, &mut poll)?)?,
        make(is, ArrayData::S32(idx_out))?,
    ]))
}
