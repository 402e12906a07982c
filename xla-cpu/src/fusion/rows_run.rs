//! Running a row chain ([`rows`](super::rows)) tile by tile, in parallel over tiles: each
//! task keeps one buffer per member for its tile, and the members run in order on it.
//! When the last member reads an earlier loop member elementwise (softmax's quotient of
//! `exp(x - max)`), that member writes into the output chunk instead and the last member
//! updates it there ([`RowChain::in_place`]).
//!
//! A member's kernel runs on tile-relative inputs (a tile's slice of a row-wise input,
//! every other input whole), which reads the same elements as the unchained step: a
//! row-wise broadcast of a per-row value indexes `(i / inner) % len`, and within a tile
//! `i / inner` never reaches `len`. Blocks and fold lanes are the unchained step's (loops in
//! blocks of `V`, each row's reduce in chunks of `CHUNK` folded into `LANES` lanes), so the
//! values are the unchained plan's bit for bit. Full blocks run the kernel's compact program
//! through the block-op table (the same functions the unchained fast path calls), shorter
//! ones the slow path.

use super::kern::{lookup, Vb, LANES, V};
use super::lane::Lane;
use super::ops::{vmax, vmin};
use super::rows::{Member, RowChain, Source};
#[cfg(target_arch = "x86_64")]
use super::run::{check_over, load, simd_dispatch, Comb, In, CHUNK};
use super::{FusedKind, Instr, Kernel, Src};
use crate::buffer::{written_in_chunks, Sink};
use crate::error::{CpuError, Result};

/// One task's registers and tile buffers.
struct Task<L> {
    /// Per member: its tile buffer (unused for the last member, which writes the output).
    bufs: Vec<Vec<L>>,
    /// Per member: the fast program's registers.
    regs: Vec<Vec<Box<Vb<L>>>>,
    /// Per member: the slow path's registers.
    slow: Vec<Vec<Vec<L>>>,
    spare: Box<Vb<L>>,
    block: Vec<L>,
    /// Per member: call tables for its generated loop and fold code.
    codes: Vec<Codes>,
}

/// Call tables for a member's generated code (none off x86-64).
#[derive(Default)]
struct Codes {
    #[cfg(target_arch = "x86_64")]
    eval: Option<super::loose::Loose>,
    #[cfg(target_arch = "x86_64")]
    fold: Option<super::loose::Loose>,
}

impl Codes {
    fn of(k: &Kernel) -> Codes {
        #[cfg(target_arch = "x86_64")]
        return Codes {
            eval: k.jit.as_deref().map(super::loose::Loose::new),
            fold: k.fold_jit.as_deref().map(super::loose::Loose::new),
        };
        #[cfg(not(target_arch = "x86_64"))]
        {
            let _ = k;
            Codes::default()
        }
    }
}

impl<L: Lane> Task<L> {
    /// A task for `chain`, its tile buffers taken from `spare` when it has them (buffers a
    /// finished task of the same run gave back, see [`Pooled`]).
    fn new(chain: &RowChain, ext: &[In<L>], spare: Option<Vec<Vec<L>>>) -> Task<L> {
        let reuse = spare.filter(|b| b.len() == chain.members.len());
        let mut t = Task {
            bufs: Vec::new(),
            regs: Vec::new(),
            slow: Vec::new(),
            spare: Box::new([L::zero(); V]),
            block: vec![L::zero(); V],
            codes: Vec::new(),
        };
        for m in &chain.members {
            // Fixed registers read only constants and whole (scalar) inputs.
            let ins: Vec<In<L>> = m
                .sources
                .iter()
                .map(|s| match *s {
                    Source::Whole(k) => whole(ext, k),
                    Source::Tile { .. } | Source::Member(_) => In::Val(&[]),
                })
                .collect();
            let fixed = m.fused.kernel.fixed_values(&ins);
            t.regs
                .push(fixed.iter().map(|&v| Box::new([v; V])).collect());
            t.slow.push(fixed.iter().map(|&v| vec![v; V]).collect());
            t.codes.push(Codes::of(&m.fused.kernel));
        }
        // The last member writes the output: it has no tile buffer.
        let last = chain.members.len().saturating_sub(1);
        t.bufs = match reuse {
            Some(b) => b,
            None => (chain.members.iter().enumerate())
                .map(|(j, m)| match j < last {
                    true => vec![L::zero(); chain.tile * m.per_row],
                    false => Vec::new(),
                })
                .collect(),
        };
        t
    }
}

/// A task whose tile buffers go back to the run's pool when it is done: rayon makes one
/// task per piece of work it splits off (up to ~16 per chain here), and each new task
/// zeroed a tile buffer per member (measured: 4% of B6's samples in `memset`); with the
/// pool, a run allocates them about once per thread.
struct Pooled<'p, L> {
    task: Task<L>,
    pool: &'p std::sync::Mutex<Vec<Vec<Vec<L>>>>,
}

impl<L> Drop for Pooled<'_, L> {
    fn drop(&mut self) {
        if let Ok(mut p) = self.pool.lock() {
            p.push(std::mem::take(&mut self.task.bufs));
        }
    }
}

/// What [`fast_block`] did.
enum Got<'r, L> {
    /// The values were written to the destination block.
    Written,
    /// The values are in this block.
    Block(&'r [L]),
    /// A source is not a full block of the kernel's type (nothing done).
    Fail,
}

/// Runs `k`'s program on elements `start..start + V` with the block-op table; the last op
/// writes straight into `dst` when one is given (else the result block is returned).
#[inline(always)]
fn fast_block<'r, L: Lane>(
    k: &Kernel,
    ins: &[In<'r, L>],
    (regs, spare): (&'r mut [Box<Vb<L>>], &mut Box<Vb<L>>),
    start: usize,
    mut dst: Option<&mut Vb<L>>,
) -> Got<'r, L> {
    let table = L::table();
    let end = start + V;
    let input = |i: usize| -> Option<&'r Vb<L>> {
        match ins.get(i)? {
            In::Val(v) => v.get(start..end)?.try_into().ok(),
            In::Pred(_) | In::Rows(_) | In::Other => None,
        }
    };
    let last = k.prog.len().wrapping_sub(1);
    for (at, instr) in k.prog.iter().enumerate() {
        match *instr {
            Instr::Load(l, r) => match regs.get_mut(r) {
                Some(d) => load(l, ins, start, &mut d[..]),
                None => return Got::Fail,
            },
            Instr::Op(f, a, r) => {
                let direct = at == last && k.result == Src::Reg(r) && dst.is_some();
                if a.contains(&Src::Reg(r)) {
                    return Got::Fail;
                }
                let Some(d) = regs.get_mut(r) else {
                    return Got::Fail;
                };
                std::mem::swap(spare, d);
                let src = |s: Src| match s {
                    Src::Reg(q) => regs.get(q).map(|b| &**b),
                    Src::In(i) => input(i),
                };
                let ok = match (src(a[0]), src(a[1]), src(a[2])) {
                    (Some(x), Some(y), Some(z)) => {
                        let out: &mut Vb<L> = match dst.as_deref_mut() {
                            Some(o) if direct => o,
                            _ => spare,
                        };
                        // SAFETY: the table holds block functions of the instruction-set
                        // level this CPU supports (`kern::table`); every operand is a full
                        // block and the destination (the spare register or `dst`) is
                        // distinct from every source.
                        unsafe { lookup(table, f)(x, y, z, out) };
                        true
                    }
                    _ => false,
                };
                if let Some(d) = regs.get_mut(r) {
                    std::mem::swap(spare, d);
                }
                if !ok {
                    return Got::Fail;
                }
                if direct {
                    return Got::Written;
                }
            }
        }
    }
    let regs: &'r [Box<Vb<L>>] = regs;
    let result = match k.result {
        Src::Reg(q) => regs.get(q).map(|b| &**b),
        Src::In(i) => input(i),
    };
    match (result, dst) {
        (Some(r), Some(d)) => {
            *d = *r;
            Got::Written
        }
        (Some(r), None) => Got::Block(&r[..]),
        (None, _) => Got::Fail,
    }
}

/// Where a member's values go: the output chunk, or its tile buffer.
enum Out<'a, 'b, L: Copy + Default> {
    Sink(&'a mut Sink<'b, L>),
    Buf(&'a mut [L]),
}

/// Per-task state one member runs with.
struct Regs<'s, L> {
    fast: &'s mut [Box<Vb<L>>],
    spare: &'s mut Box<Vb<L>>,
    slow: &'s mut [Vec<L>],
    tmp: &'s mut [L],
}

/// Elements `start..start + len` (`len <= V`) of a loop member into `dst`.
#[inline(always)]
fn loop_block<L: Lane>(
    k: &Kernel,
    ins: &[In<L>],
    r: &mut Regs<L>,
    (start, len): (usize, usize),
    dst: &mut Out<L>,
) {
    match dst {
        Out::Buf(b) => {
            let Some(d) = b.get_mut(start..start + len) else {
                return;
            };
            if let Ok(full) = <&mut Vb<L>>::try_from(&mut *d) {
                if let Got::Written =
                    fast_block(k, ins, (&mut *r.fast, &mut *r.spare), start, Some(full))
                {
                    return;
                }
            }
            k.block_slices(ins, start, r.slow, d);
        }
        Out::Sink(sink) => {
            if len == V {
                if let Got::Block(b) =
                    fast_block(k, ins, (&mut *r.fast, &mut *r.spare), start, None)
                {
                    sink.push(b);
                    return;
                }
            }
            if let Some(t) = r.tmp.get_mut(..len) {
                k.block_slices(ins, start, r.slow, t);
                sink.push(t);
            }
        }
    }
}

/// The inputs as f32, when the kernel computes in f32.
pub(super) fn as_f32<'a, L: Lane>(ins: &[In<'a, L>]) -> Option<Vec<In<'a, f32>>> {
    ins.iter()
        .map(|x| match *x {
            In::Val(v) => L::as_f32(v).map(In::Val),
            In::Pred(p) => Some(In::Pred(p)),
            In::Rows(r) => r.as_f32().map(In::Rows),
            In::Other => Some(In::Other),
        })
        .collect()
}

/// The longest range from `start` a call of generated code may cover: per-call scalars
/// (a per-row value broadcast along the row) stay constant within one run.
fn call_span(k: &Kernel, start: usize, n: usize) -> usize {
    let mut end = n;
    #[cfg(target_arch = "x86_64")]
    for code in k.jit.iter().chain(&k.fold_jit) {
        for s in &code.scalars {
            if let super::jit::Scalar::Run { inner, .. } = *s {
                end = end.min((start / inner.max(1) + 1) * inner.max(1));
            }
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = k;
    end.saturating_sub(start)
}

/// Writes `len` values (a multiple of 16) at `start` with the member's generated code;
/// false (nothing written) when it has none or cannot run the range.
fn code_loop<L: Lane>(
    k: &Kernel,
    c: &mut Codes,
    ins: Option<&[In<f32>]>,
    (n, start, len): (usize, usize, usize),
    dst: &mut Out<L>,
) -> bool {
    #[cfg(target_arch = "x86_64")]
    if let (Some(code), Some(loose), Some(ins)) = (k.jit.as_deref(), c.eval.as_mut(), ins) {
        return match dst {
            Out::Buf(b) => b
                .get_mut(start..start + len)
                .and_then(L::as_f32_mut)
                .is_some_and(|o| loose.eval_into(code, ins, n, start, o)),
            // SAFETY: `eval` returns true only after writing all `len` values.
            Out::Sink(sink) => unsafe {
                sink.fill_with(len, |d| {
                    L::as_f32_uninit(d).is_some_and(|o| loose.eval(code, ins, n, start, o))
                })
            },
        };
    }
    let _ = (k, c, ins, n, start, len, dst);
    false
}

/// Folds whole groups of `LANES` at `start..start + len` with the member's fold code; the
/// number of values folded.
fn code_fold<L: Lane>(
    k: &Kernel,
    c: &mut Codes,
    ins: Option<&[In<f32>]>,
    (n, start, len): (usize, usize, usize),
    lanes: &mut [L; LANES],
) -> usize {
    #[cfg(target_arch = "x86_64")]
    if let (Some(code), Some(loose), Some(ins), Some(l)) = (
        k.fold_jit.as_deref(),
        c.fold.as_mut(),
        ins,
        L::as_f32_lanes(lanes),
    ) {
        return loose.fold(code, ins, n, (start, len), l);
    }
    let _ = (k, c, ins, n, start, len, lanes);
    0
}

/// Folds `b` into `lanes` (element `i` into lane `i % LANES`), whole groups of `LANES` as
/// fixed-size arrays (so the loop is vector code on every path), then the rest.
#[inline(always)]
fn fold_lanes<L: Lane>(b: &[L], op: Comb, lanes: &mut [L; LANES]) {
    let mut it = b.chunks_exact(LANES);
    for ch in &mut it {
        if let Ok(ch) = <&[L; LANES]>::try_from(ch) {
            fold_group(op, lanes, ch);
        }
    }
    op.fold_into(lanes, it.remainder());
}

/// `lanes[i] = lanes[i] op v[i]` over one group.
#[inline(always)]
fn fold_group<L: Lane>(op: Comb, lanes: &mut [L; LANES], v: &[L; LANES]) {
    match op {
        Comb::Add => (0..LANES).for_each(|i| lanes[i] += v[i]),
        Comb::Mul => (0..LANES).for_each(|i| lanes[i] *= v[i]),
        Comb::Max => (0..LANES).for_each(|i| lanes[i] = vmax(lanes[i], v[i])),
        Comb::Min => (0..LANES).for_each(|i| lanes[i] = vmin(lanes[i], v[i])),
    }
}

/// Folds elements `start..start + len` (`len <= V`) of a reduce member into `lanes`.
#[inline(always)]
fn fold_block<L: Lane>(
    k: &Kernel,
    ins: &[In<L>],
    r: &mut Regs<L>,
    (start, len): (usize, usize),
    op: Comb,
    lanes: &mut [L; LANES],
) {
    if len == V {
        if let Got::Block(b) = fast_block(k, ins, (&mut *r.fast, &mut *r.spare), start, None) {
            fold_lanes(b, op, lanes);
            return;
        }
    }
    if let Some(t) = r.tmp.get_mut(..len) {
        k.block_slices(ins, start, r.slow, t);
        fold_lanes(t, op, lanes);
    }
}

/// Whole input `k` of a chain; the chain's plan numbers its inputs, so `k` is always one
/// of `ext` (debug builds assert it; release reads an empty input, never panics).
#[track_caller]
fn whole<'a, L>(ext: &[In<'a, L>], k: usize) -> In<'a, L> {
    debug_assert!(
        k < ext.len(),
        "xla-cpu invariant broken: chain input {k} of {}",
        ext.len()
    );
    ext.get(k).copied().unwrap_or(In::Val(&[]))
}

/// A tile's slice of an input read row by row.
fn rows_of<'a, L>(x: In<'a, L>, (r0, r1): (usize, usize), num: usize, den: usize) -> In<'a, L> {
    let (lo, hi) = (r0 * num / den, r1 * num / den);
    match x {
        In::Val(v) => In::Val(v.get(lo..hi).unwrap_or(&[])),
        In::Pred(v) => In::Pred(v.get(lo..hi).unwrap_or(&[])),
        // Gathers never join a chain (`rows::shape_of`).
        In::Rows(_) | In::Other => In::Other,
    }
}

/// The tile buffers of the members done so far, and the member whose values live in the
/// output chunk instead (see [`RowChain::in_place`]).
#[derive(Clone, Copy)]
struct Done<'a, L> {
    bufs: &'a [Vec<L>],
    alias: Option<(usize, &'a [L])>,
}

impl<'a, L> Done<'a, L> {
    /// Member `j`'s first `len` values.
    fn get(&self, j: usize, len: usize) -> &'a [L] {
        let all = match self.alias {
            Some((a, v)) if a == j => Some(v),
            _ => self.bufs.get(j).map(|b| &b[..]),
        };
        all.and_then(|b| b.get(..len)).unwrap_or(&[])
    }
}

/// Member `m`'s kernel inputs for rows `r0..r1`.
fn inputs<'a, L>(
    m: &Member,
    chain: &RowChain,
    (ext, done): (&[In<'a, L>], Done<'a, L>),
    rows: (usize, usize),
) -> Vec<In<'a, L>> {
    let nrows = rows.1 - rows.0;
    m.sources
        .iter()
        .map(|s| match *s {
            Source::Whole(k) => whole(ext, k),
            Source::Tile { ext: k, num, den } => ext
                .get(k)
                .map_or(In::Val(&[]), |x| rows_of(*x, rows, num, den)),
            Source::Member(j) => {
                let len = chain.members.get(j).map_or(0, |p| p.per_row * nrows);
                In::Val(done.get(j, len))
            }
        })
        .collect()
}

/// Runs member `m` on rows `r0..r1`, writing its values to `dst` (its tile buffer or the
/// output chunk).
#[inline(always)]
fn member_impl<L: Lane>(
    m: &Member,
    chain: &RowChain,
    (ext, done): (&[In<L>], Done<L>),
    rows: (usize, usize),
    st: State<L>,
    codes: &mut Codes,
    dst: &mut Out<L>,
) -> Result<()> {
    let mut r = Regs {
        fast: st.0,
        spare: st.1,
        slow: st.2,
        tmp: &mut st.3[..],
    };
    let nrows = rows.1 - rows.0;
    let ins = inputs(m, chain, (ext, done), rows);
    let k = &m.fused.kernel;
    let c = k.n / chain.rows.max(1);
    let n = nrows * c;
    check_over(k, &ins, n)?;
    let f32s = as_f32(&ins);
    match m.fused.kind {
        FusedKind::Loop { .. } => {
            let mut start = 0;
            while start < n {
                let end = start + call_span(k, start, n);
                let main = (end - start) / 16 * 16;
                if main > 0 && code_loop(k, codes, f32s.as_deref(), (n, start, main), dst) {
                    start += main;
                }
                while start < end {
                    let len = V.min(end - start);
                    loop_block(k, &ins, &mut r, (start, len), dst);
                    start += len;
                }
            }
        }
        FusedKind::Reduce { op, init, .. } => {
            let init = ins
                .get(init)
                .filter(|i| i.len() == 1)
                .map(|i| i.get(0))
                .ok_or(CpuError::Internal(
                    "a fused reduce's init is a scalar (verified)",
                ))?;
            let op = Comb::of(op);
            for q in 0..nrows {
                let mut acc = init;
                for lo in (0..c).step_by(CHUNK) {
                    let hi = c.min(lo + CHUNK);
                    let mut lanes = [op.identity(); LANES];
                    let at = (n, q * c + lo, hi - lo);
                    let mut s = lo + code_fold(k, codes, f32s.as_deref(), at, &mut lanes);
                    while s < hi {
                        let len = V.min(hi - s);
                        fold_block(k, &ins, &mut r, (q * c + s, len), op, &mut lanes);
                        s += len;
                    }
                    acc = op.apply(acc, op.total(&lanes, hi - lo));
                }
                match dst {
                    Out::Sink(sink) => sink.push(&[acc]),
                    Out::Buf(b) => {
                        if let Some(d) = b.get_mut(q) {
                            *d = acc;
                        }
                    }
                }
            }
        }
        FusedKind::Rows(_) => {
            return Err(CpuError::Internal("row chains do not nest (fusion plan)"))
        }
        FusedKind::Scatter(_) => {
            return Err(CpuError::Internal(
                "scatters do not join row chains (fusion plan)",
            ))
        }
    }
    Ok(())
}

type State<'s, L> = (
    &'s mut [Box<Vb<L>>],
    &'s mut Box<Vb<L>>,
    &'s mut [Vec<L>],
    &'s mut Vec<L>,
);

simd_dispatch! {
    fn member<L>(m: &Member, chain: &RowChain, ins: (&[In<L>], Done<L>), rows: (usize, usize), st: State<L>, codes: &mut Codes, dst: &mut Out<L>) -> Result<()> => member_impl;
    fn last_in_place<L>(m: &Member, chain: &RowChain, ins: (&[In<L>], &mut [Vec<L>]), rows: (usize, usize), st: State<L>, codes: &mut Codes, into: (&mut [L], usize)) -> Result<()> => last_in_place_impl;
}

/// Updates `buf[start..start + len]` (a multiple of 16) in place with the member's
/// generated code, inputs `alias` reading `buf` itself; false (nothing written) when it has
/// none or cannot run the range.
fn code_in_place<L: Lane>(
    k: &Kernel,
    c: &mut Codes,
    ins: Option<&[In<f32>]>,
    range: (usize, usize),
    buf: &mut [L],
    alias: &[usize],
) -> bool {
    #[cfg(target_arch = "x86_64")]
    if let (Some(code), Some(loose), Some(ins), Some(b)) =
        (k.jit.as_deref(), c.eval.as_mut(), ins, L::as_f32_mut(buf))
    {
        return loose.eval_in_place(code, ins, range, b, alias);
    }
    let _ = (k, c, ins, range, buf, alias);
    false
}

/// Runs the chain's last member on rows `r0..r1` over `region` (the output chunk), which
/// holds member `j`'s values ([`RowChain::in_place`]): where generated code can, each value is
/// rewritten in place; the other ranges are copied to member `j`'s tile buffer first and
/// computed from there, so every range reads member `j`'s values, never the output.
#[inline(always)]
fn last_in_place_impl<L: Lane>(
    m: &Member,
    chain: &RowChain,
    (ext, bufs): (&[In<L>], &mut [Vec<L>]),
    rows: (usize, usize),
    st: State<L>,
    codes: &mut Codes,
    (region, j): (&mut [L], usize),
) -> Result<()> {
    let k = &m.fused.kernel;
    let n = (rows.1 - rows.0) * (k.n / chain.rows.max(1));
    if region.len() != n {
        return Err(CpuError::Internal(
            "a row chain's output chunk holds the last member's tile",
        ));
    }
    let alias: Vec<usize> = (m.sources.iter().enumerate())
        .filter(|(_, s)| **s == Source::Member(j))
        .map(|(i, _)| i)
        .collect();
    let mut rest = Vec::new();
    {
        // Member `j`'s tile buffer stands in for the aliased inputs: the right length,
        // never read by the code (`Loose::eval_in_place`).
        let done = Done { bufs, alias: None };
        let ins = inputs(m, chain, (ext, done), rows);
        check_over(k, &ins, n)?;
        let f32s = as_f32(&ins);
        let mut start = 0;
        while start < n {
            let end = start + call_span(k, start, n);
            let main = (end - start) / 16 * 16;
            let range = (start, main);
            if main > 0 && code_in_place(k, codes, f32s.as_deref(), range, region, &alias) {
                start += main;
            }
            if start < end {
                rest.push((start, end));
                start = end;
            }
        }
    }
    if rest.is_empty() {
        return Ok(());
    }
    let buf = bufs
        .get_mut(j)
        .and_then(|b| b.get_mut(..n))
        .ok_or(CpuError::Internal("a row chain's member has a tile buffer"))?;
    for &(a, b) in &rest {
        if let (Some(d), Some(s)) = (buf.get_mut(a..b), region.get(a..b)) {
            d.copy_from_slice(s);
        }
    }
    let done = Done { bufs, alias: None };
    let ins = inputs(m, chain, (ext, done), rows);
    let mut r = Regs {
        fast: st.0,
        spare: st.1,
        slow: st.2,
        tmp: &mut st.3[..],
    };
    let mut dst = Out::Buf(region);
    for (mut start, end) in rest {
        while start < end {
            let len = V.min(end - start);
            loop_block(k, &ins, &mut r, (start, len), &mut dst);
            start += len;
        }
    }
    Ok(())
}

/// Member `j`'s state in task `t`: the tile buffers of the members before it, its own
/// tile buffer, registers and call tables.
type Parts<'t, L> = (
    &'t mut [Vec<L>],
    &'t mut Vec<L>,
    State<'t, L>,
    &'t mut Codes,
);

fn parts<L>(t: &mut Task<L>, j: usize) -> Result<Parts<'_, L>> {
    let (done, rest) = t.bufs.split_at_mut(j);
    let (Some(regs), Some(slow), Some(buf), Some(codes)) = (
        t.regs.get_mut(j),
        t.slow.get_mut(j),
        rest.first_mut(),
        t.codes.get_mut(j),
    ) else {
        return Err(CpuError::Internal(
            "a row-chain task has state for every member",
        ));
    };
    let st = (&mut regs[..], &mut t.spare, &mut slow[..], &mut t.block);
    Ok((done, buf, st, codes))
}

/// Runs tile `c` of the chain: every member in order, the last into `out` (from member
/// `alias` on, in the output chunk itself: [`RowChain::in_place`]).
fn tile<L: Lane>(
    chain: &RowChain,
    ext: &[In<L>],
    t: &mut Task<L>,
    (c, alias): (usize, Option<usize>),
    mut out: Sink<L>,
) -> Result<()> {
    let rows = (c * chain.tile, chain.rows.min((c + 1) * chain.tile));
    let last = chain.members.len().saturating_sub(1);
    let members = chain.members.iter().enumerate();
    for (j, m) in members.clone().take(alias.unwrap_or(usize::MAX)) {
        let (bufs, buf, st, codes) = parts(t, j)?;
        let mut dst = match j == last {
            true => Out::Sink(&mut out),
            false => Out::Buf(&mut buf[..]),
        };
        let done = Done { bufs, alias: None };
        member(m, chain, (ext, done), rows, st, codes, &mut dst)?;
    }
    let Some((a, m)) = alias.and_then(|a| chain.members.get(a).map(|m| (a, m))) else {
        return Ok(());
    };
    let (bufs, _, st, codes) = parts(t, a)?;
    let (r, region) = out.write_then_update(|sink| {
        let done = Done { bufs, alias: None };
        member(m, chain, (ext, done), rows, st, codes, &mut Out::Sink(sink))
    });
    r?;
    for (j, m) in members.skip(a + 1) {
        let (bufs, buf, st, codes) = parts(t, j)?;
        if j == last {
            last_in_place(m, chain, (ext, bufs), rows, st, codes, (region, a))?;
            break;
        }
        let done = Done {
            bufs,
            alias: Some((a, &*region)),
        };
        member(
            m,
            chain,
            (ext, done),
            rows,
            st,
            codes,
            &mut Out::Buf(&mut buf[..]),
        )?;
    }
    Ok(())
}

/// The chain's values: `rows × per_row` of its last member; `min` as in
/// [`written_in_chunks`], or the tiles shared with the partner thread (`pair`).
pub(super) fn run<L: Lane>(
    chain: &RowChain,
    ext: &[In<L>],
    (min, pair): (usize, Option<&crate::partner::Partner>),
) -> Result<Vec<L>> {
    let last = chain
        .members
        .last()
        .ok_or(CpuError::Internal("a row chain has members (fusion plan)"))?;
    let n = chain.rows * last.per_row;
    // Each task sets up one buffer per member: a few tasks per thread, not one per tile.
    let tiles = chain.rows.div_ceil(chain.tile.max(1));
    let min = if min == usize::MAX {
        min
    } else {
        min.max(tiles / 16).max(1)
    };
    let failed = std::sync::Mutex::new(None);
    let pool = std::sync::Mutex::new(Vec::new());
    let alias = chain.in_place;
    let init = || {
        let spare = pool.lock().ok().and_then(|mut p| p.pop());
        Pooled {
            task: Task::new(chain, ext, spare),
            pool: &pool,
        }
    };
    let work = |t: &mut Pooled<'_, L>, c: usize, sink: Sink<'_, L>| {
        if let Err(e) = tile(chain, ext, &mut t.task, (c, alias), sink) {
            if let Ok(mut f) = failed.lock() {
                f.get_or_insert(e);
            }
        }
    };
    let len = chain.tile * last.per_row;
    // Shared with the partner (each thread sets up its buffers once); a tile that
    // panicked there leaves the whole chain to this thread.
    let shared = pair.and_then(|p| crate::buffer::written_by_two(n, len, p, init, work));
    let out = match shared {
        Some(out) => out,
        None => written_in_chunks(n, len, min, init, work),
    };
    match failed.into_inner().ok().flatten() {
        Some(e) => Err(e),
        None => Ok(out),
    }
}
