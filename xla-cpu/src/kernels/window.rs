//! Reductions and windows: reduce, reduce-window, select-and-scatter.
//!
//! Each output element folds a group of operand elements (a [`Groups`] list of offsets,
//! computed from the shapes alone) in row-major window order. A recognised combiner (add,
//! multiply, maximum, ...) runs natively, and so does an argmax/argmin comparator of a
//! two-operand reduce (`arg_reduce.rs`); any other computation runs through the
//! interpreter on scalars. `reduce-window` and `select-and-scatter` with a recognised
//! combiner first try the direct loops (`window_fast.rs` for NCHW pooling, `window_nd.rs`
//! for any window), which give the same results as the groups here.

use super::structural::{leaves, put, take, vector};
use crate::error::{attribute, internal, operand_count, operand_kind, operand_shapes, Result};
use crate::index::{array, count, dims_of, results, scalar_at, set_scalar, strides};
use crate::invariant;
use crate::kernels::combiner::Combiner;
use crate::kernels::host::Host;
use crate::scalar::Combine;
use xla_core::attrs::{BinaryOp, ComparisonDirection, Window};
use xla_core::ir::CompId;
use xla_core::literal::{ArrayData, NativeData};
use xla_core::{with_array_data, Literal, Shape};

/// For each output element, the operand offsets it folds, in order (CSR form).
pub(crate) struct Groups {
    starts: Vec<usize>,
    offsets: Vec<usize>,
}

impl Groups {
    pub(crate) fn group(&self, o: usize) -> &[usize] {
        let what = "reduce-window groups";
        let (a, b) = (
            invariant::at(&self.starts, o, what),
            invariant::at(&self.starts, o + 1, what),
        );
        invariant::span(&self.offsets, a..b, what)
    }
    pub(crate) fn len(&self) -> usize {
        self.starts.len().saturating_sub(1)
    }
}

/// The operands and init values of a variadic reduce-like op, checked.
fn split_variadic<'a>(
    a: &'a [&'a Literal],
    what: &str,
) -> Result<(Vec<&'a ArrayData>, Vec<usize>, Vec<&'a ArrayData>)> {
    let n = a.len() / 2;
    if n == 0 || !a.len().is_multiple_of(2) {
        return Err(operand_count(what, "N operands and N init values", a.len()));
    }
    let (d0, dims) = array(a[0])?;
    let mut xs = vec![d0];
    for x in &a[1..n] {
        let (d, ds) = array(x)?;
        if ds != dims {
            return Err(operand_shapes(
                what,
                [a[0].shape(), x.shape()],
                "differ in dims",
            ));
        }
        xs.push(d);
    }
    let inits = a[n..]
        .iter()
        .map(|l| crate::index::data(l))
        .collect::<Result<Vec<_>>>()?;
    for (x, i) in xs.iter().zip(&inits) {
        if i.len() != 1 || i.element_type() != x.element_type() {
            let shapes = a[..n].iter().chain(&a[n..]).map(|l| l.shape());
            return Err(operand_shapes(
                what,
                shapes,
                "do not fit: the init values must be scalars of the operands' types",
            ));
        }
    }
    Ok((xs, dims, inits))
}

pub(crate) fn fold_native<T: Combine>(
    v: &[T],
    init: &ArrayData,
    g: &Groups,
    op: BinaryOp,
) -> Option<ArrayData> {
    let f = T::native(op)?;
    let init = *T::slice(init)?.first()?;
    let out = (0..g.len())
        .map(|o| {
            g.group(o).iter().fold(init, |acc, &i| {
                f(acc, invariant::at(v, i, "reduce-window group offsets"))
            })
        })
        .collect();
    Some(T::wrap(out))
}

/// Folds every group with the vectorizable computation `f`, all groups in lockstep: step
/// `t` combines element `t` of every group that long (the same order as one at a time).
fn fold_vec(
    cx: &dyn Host,
    xs: &[&ArrayData],
    inits: &[&ArrayData],
    g: &Groups,
    f: CompId,
) -> Result<Vec<ArrayData>> {
    let nout = g.len();
    let mut accs: Vec<ArrayData> = inits.iter().map(|i| take(i, &vec![0; nout])).collect();
    let longest = (0..nout).map(|o| g.group(o).len()).max().unwrap_or(0);
    for t in 0..longest {
        let active: Vec<usize> = (0..nout).filter(|&o| g.group(o).len() > t).collect();
        let src: Vec<usize> = active
            .iter()
            .filter_map(|&o| g.group(o).get(t).copied())
            .collect();
        let all = active.len() == nout;
        let mut args = Vec::with_capacity(accs.len() + xs.len());
        for a in &accs {
            args.push(vector(if all { a.clone() } else { take(a, &active) })?);
        }
        for x in xs {
            args.push(vector(take(x, &src))?);
        }
        let r = cx.call_vec(f, args, active.len())?;
        for (acc, part) in accs.iter_mut().zip(leaves(&r)?) {
            if all {
                *acc = part.clone();
            } else {
                put(acc, &active, part)?;
            }
        }
    }
    Ok(accs)
}

/// Folds every group with computation `f`; one output array per operand.
fn fold(
    cx: &dyn Host,
    xs: &[&ArrayData],
    inits: &[&ArrayData],
    g: &Groups,
    f: CompId,
) -> Result<Vec<ArrayData>> {
    if let (Some(Combiner::Binary(op)), [x], [init]) = (cx.combiner(f), xs, inits) {
        if let Some(r) = with_array_data!(x, v => fold_native(v, init, g, op)) {
            return Ok(vec![r]);
        }
    }
    if let ([x0, x1], [i0, i1], Some(a)) = (xs, inits, cx.arg_fold(f)) {
        let groups = |o: usize| g.group(o);
        if let Some(r) = a.fold([x0, x1], [i0, i1], &groups, g.len()) {
            return Ok(r);
        }
    }
    if cx.vectorizable(f) {
        return fold_vec(cx, xs, inits, g, f);
    }
    let mut outs = xs
        .iter()
        .map(|x| {
            ArrayData::zeros(x.element_type(), g.len())
                .ok_or_else(|| internal("array data has an array element type"))
        })
        .collect::<Result<Vec<_>>>()?;
    for o in 0..g.len() {
        let mut acc: Vec<Literal> = inits
            .iter()
            .map(|i| scalar_at(i, 0))
            .collect::<Result<_>>()?;
        for &i in g.group(o) {
            let mut args = acc;
            for x in xs {
                args.push(scalar_at(x, i)?);
            }
            let r = cx.call(f, args)?;
            acc = match r.tuple_elements() {
                Some(t) => t.to_vec(),
                None => vec![r],
            };
        }
        for (out, a) in outs.iter_mut().zip(&acc) {
            set_scalar(out, o, a)?;
        }
    }
    Ok(outs)
}

/// `reduce` over `rdims` with `f`, variadic.
///
/// # Errors
/// If the dims are out of range, the operands disagree, or `f` fails.
pub fn reduce(
    cx: &dyn Host,
    a: &[&Literal],
    rdims: &[i64],
    f: CompId,
    out: &Shape,
) -> Result<Literal> {
    let (xs, dims, inits) = split_variadic(a, "reduce")?;
    let mut red = vec![false; dims.len()];
    let rank = dims.len();
    for &r in rdims {
        *usize::try_from(r)
            .ok()
            .and_then(|r| red.get_mut(r))
            .ok_or_else(|| crate::error::out_of_range("reduce", "dimension", r, rank))? = true;
    }
    if let (Some(Combiner::Binary(op)), [x], [init]) = (cx.combiner(f), &xs[..], &inits[..]) {
        if let Some(r) = super::reduce_fast::reduce(x, init, &dims, &red, op, cx.parallel()) {
            return results(out, vec![r]);
        }
    }
    let st = strides(&dims);
    let keep: Vec<usize> = (0..dims.len()).filter(|&d| !red[d]).collect();
    let redd: Vec<usize> = (0..dims.len()).filter(|&d| red[d]).collect();
    let order: Vec<usize> = keep.iter().chain(&redd).copied().collect();
    let odims: Vec<usize> = order.iter().map(|&d| dims[d]).collect();
    let ost: Vec<usize> = order.iter().map(|&d| st[d]).collect();
    let nout = count(&keep.iter().map(|&d| dims[d]).collect::<Vec<_>>());
    let r = count(&redd.iter().map(|&d| dims[d]).collect::<Vec<_>>());
    let offsets = super::structural::index_map(&odims, |o| crate::index::offset(o, &ost));
    let g = Groups {
        starts: (0..=nout).map(|o| o * r).collect(),
        offsets,
    };
    results(out, fold(cx, &xs, &inits, &g, f)?)
}

/// Source offset of window element `k` for output `o`, or `None` in padding or a dilation hole.
fn window_source(
    o: &[usize],
    k: &[usize],
    w: &Window,
    dims: &[usize],
    st: &[usize],
) -> Option<usize> {
    let mut off = 0usize;
    for d in 0..dims.len() {
        let wd = &w.dims[d];
        let p = o[d] as i64 * wd.stride + k[d] as i64 * wd.window_dilation - wd.padding_low;
        let dilated = if dims[d] == 0 {
            0
        } else {
            (dims[d] as i64 - 1) * wd.base_dilation + 1
        };
        if p < 0 || p >= dilated || p % wd.base_dilation != 0 {
            return None;
        }
        off += (p / wd.base_dilation) as usize * st[d];
    }
    Some(off)
}

fn check_window(w: &Window, rank: usize, what: &str) -> Result<Vec<usize>> {
    if w.dims.len() != rank {
        return Err(attribute(
            what,
            "window",
            format!("of {} dimensions", w.dims.len()),
            format!("does not fit an operand of rank {rank}"),
        ));
    }
    w.dims
        .iter()
        .map(|d| {
            if d.stride < 1 || d.window_dilation < 1 || d.base_dilation < 1 || d.size < 0 {
                Err(attribute(
                    what,
                    "window dimension",
                    format!("{d:?}"),
                    "is invalid (stride and dilations >= 1, size >= 0)",
                ))
            } else {
                Ok(d.size as usize)
            }
        })
        .collect()
}

pub(crate) fn window_groups(
    dims: &[usize],
    out_dims: &[usize],
    w: &Window,
    what: &str,
) -> Result<Groups> {
    let wsize = check_window(w, dims.len(), what)?;
    let st = strides(dims);
    let mut starts = vec![0usize];
    let mut offsets = Vec::new();
    crate::index::for_each_index(out_dims, |o| {
        crate::index::for_each_index(&wsize, |k| {
            offsets.extend(window_source(o, k, w, dims, &st))
        });
        starts.push(offsets.len());
    });
    Ok(Groups { starts, offsets })
}

/// `reduce-window`, variadic, with padding and base/window dilation; padding elements are
/// skipped.
///
/// # Errors
/// If the window does not match the operands or `f` fails.
pub fn reduce_window(
    cx: &dyn Host,
    a: &[&Literal],
    w: &Window,
    f: CompId,
    out: &Shape,
) -> Result<Literal> {
    let (xs, dims, inits) = split_variadic(a, "reduce-window")?;
    let first_out = out.tuple_elements().and_then(|t| t.first()).unwrap_or(out);
    let out_dims = dims_of(first_out)?;
    if let ([x], [init]) = (xs.as_slice(), inits.as_slice()) {
        // A window along the last dimension alone is a scan (`window_scan.rs`, reached
        // through `window_nd`); the 2-D pooling loops would take it one output at a time.
        let scan = super::window_scan::Scan::new(w, &dims, &out_dims).is_some();
        let fast = (!scan).then(|| {
            super::window_fast::reduce_window(
                x,
                init,
                &dims,
                &out_dims,
                w,
                cx.combiner(f),
                cx.parallel(),
            )
        });
        if let Some(r) = fast.flatten() {
            return results(out, vec![r]);
        }
        if let Some(Combiner::Binary(op)) = cx.combiner(f) {
            let par = cx.parallel();
            if let Some(r) = super::window_nd::reduce_window(x, init, &dims, &out_dims, w, op, par)
            {
                return results(out, vec![r]);
            }
        }
    }
    let g = window_groups(&dims, &out_dims, w, "reduce-window")?;
    results(out, fold(cx, &xs, &inits, &g, f)?)
}

pub(crate) fn select_native<T: NativeData + PartialOrd>(
    v: &[T],
    g: &[usize],
    dir: ComparisonDirection,
) -> Option<usize> {
    let mut it = g.iter().copied();
    let mut cur = it.next()?;
    for e in it {
        let (a, b) = (v.get(cur)?, v.get(e)?);
        let keep = match dir {
            ComparisonDirection::Ge => a >= b,
            ComparisonDirection::Gt => a > b,
            ComparisonDirection::Le => a <= b,
            ComparisonDirection::Lt => a < b,
            ComparisonDirection::Eq => a == b,
            ComparisonDirection::Ne => a != b,
        };
        if !keep {
            cur = e;
        }
    }
    Some(cur)
}

fn select_generic(cx: &dyn Host, d: &ArrayData, g: &[usize], sel: CompId) -> Result<Option<usize>> {
    let mut it = g.iter().copied();
    let Some(mut cur) = it.next() else {
        return Ok(None);
    };
    for e in it {
        let r = cx.call(sel, vec![scalar_at(d, cur)?, scalar_at(d, e)?])?;
        match r.data::<bool>() {
            Some([true]) => {}
            Some([false]) => cur = e,
            _ => {
                return Err(operand_kind(
                    "select-and-scatter",
                    "a select computation that returns pred[]",
                    r.shape(),
                ))
            }
        }
    }
    Ok(Some(cur))
}

/// The selected element of every window: natively for a plain `compare`, vectorised over
/// all windows in lockstep for an elementwise selector, else one window at a time.
fn select_all(cx: &dyn Host, d: &ArrayData, g: &Groups, sel: CompId) -> Result<Vec<Option<usize>>> {
    use xla_core::attrs::ComparisonType;
    if let Some(Combiner::Compare(dir, None | Some(ComparisonType::Float))) = cx.combiner(sel) {
        let all =
            |f: &dyn Fn(&[usize]) -> Option<usize>| (0..g.len()).map(|o| f(g.group(o))).collect();
        let r: Option<Vec<Option<usize>>> = match d {
            ArrayData::F32(v) => Some(all(&|w| select_native(v, w, dir))),
            ArrayData::F64(v) => Some(all(&|w| select_native(v, w, dir))),
            ArrayData::F16(v) => Some(all(&|w| select_native(v, w, dir))),
            ArrayData::Bf16(v) => Some(all(&|w| select_native(v, w, dir))),
            ArrayData::S8(v) => Some(all(&|w| select_native(v, w, dir))),
            ArrayData::S16(v) => Some(all(&|w| select_native(v, w, dir))),
            ArrayData::S32(v) => Some(all(&|w| select_native(v, w, dir))),
            ArrayData::S64(v) => Some(all(&|w| select_native(v, w, dir))),
            ArrayData::U8(v) => Some(all(&|w| select_native(v, w, dir))),
            ArrayData::U16(v) => Some(all(&|w| select_native(v, w, dir))),
            ArrayData::U32(v) => Some(all(&|w| select_native(v, w, dir))),
            ArrayData::U64(v) => Some(all(&|w| select_native(v, w, dir))),
            ArrayData::Pred(v) => Some(all(&|w| select_native(v, w, dir))),
            ArrayData::C64(_) | ArrayData::C128(_) => None,
        };
        if let Some(r) = r {
            return Ok(r);
        }
    }
    if cx.vectorizable(sel) {
        return select_vec(cx, d, g, sel);
    }
    (0..g.len())
        .map(|o| select_generic(cx, d, g.group(o), sel))
        .collect()
}

/// [`select_all`] with the selector run on all windows at once, step by step.
fn select_vec(cx: &dyn Host, d: &ArrayData, g: &Groups, sel: CompId) -> Result<Vec<Option<usize>>> {
    let n = g.len();
    let mut cur: Vec<Option<usize>> = (0..n).map(|o| g.group(o).first().copied()).collect();
    let longest = (0..n).map(|o| g.group(o).len()).max().unwrap_or(0);
    for t in 1..longest {
        let active: Vec<usize> = (0..n).filter(|&o| g.group(o).len() > t).collect();
        let a: Vec<usize> = active.iter().filter_map(|&o| cur[o]).collect();
        let b: Vec<usize> = active
            .iter()
            .filter_map(|&o| g.group(o).get(t).copied())
            .collect();
        let r = cx.call_vec(
            sel,
            vec![vector(take(d, &a))?, vector(take(d, &b))?],
            active.len(),
        )?;
        let keep = r.data::<bool>().ok_or_else(|| {
            operand_kind(
                "select-and-scatter",
                "a select computation that returns pred[]",
                r.shape(),
            )
        })?;
        for ((&o, &k), &e) in active.iter().zip(keep).zip(&b) {
            if !k {
                cur[o] = Some(e);
            }
        }
    }
    Ok(cur)
}

/// `select-and-scatter`: for each window (one per `source` element) select an operand
/// element with `select` (the first in window order wins ties under GE) and combine the
/// source value into it with `scatter`.
///
/// # Errors
/// If the shapes disagree or a computation fails.
pub fn select_and_scatter(
    cx: &dyn Host,
    a: [&Literal; 3],
    w: &Window,
    comps: [CompId; 2],
    out: &Shape,
) -> Result<Literal> {
    let (d, dims) = array(a[0])?;
    let (src, sdims) = array(a[1])?;
    let (init, _) = array(a[2])?;
    let combs = [cx.combiner(comps[0]), cx.combiner(comps[1])];
    let fast = super::window_fast::select_and_scatter(
        [d, src, init],
        &dims,
        &sdims,
        w,
        combs,
        cx.parallel(),
    )
    .or_else(|| {
        let par = cx.parallel();
        super::window_nd::select_and_scatter([d, src, init], &dims, &sdims, w, combs, par)
    });
    if let Some(r) = fast {
        return results(out, vec![r]);
    }
    let g = window_groups(&dims, &sdims, w, "select-and-scatter")?;
    let selected = select_all(cx, d, &g, comps[0])?;
    let mut outs = vec![take(init, &vec![0usize; count(&dims)])];
    let selected = super::index_rows::Rows::elements(selected);
    super::indexing::apply_updates(cx, &mut outs, &selected, &[src], comps[1])?;
    results(out, outs)
}
