//! Running fused steps: kernels evaluated in fast blocks of `V` elements (one
//! table-dispatched vector function per op, see `fast.rs`), in parallel over fixed-size
//! chunks. Chunk and block boundaries depend only on the shapes, never on the thread
//! count, so results are bit-identical for any number of threads.

use super::fast::Fast;
use super::lane::Lane;
use super::ops::{self, vmax, vmin};
use super::{Fop, Fused, FusedKind, Kernel, Load, Node, Slot};
use crate::buffer::Sink;
use crate::error::{CpuError, Result};
use crate::index::make;
use crate::limits::stop::Stop;
use crate::parallel::Parallel;
use rayon::prelude::*;
use xla_core::attrs::BinaryOp;
use xla_core::literal::ArrayData;
use xla_core::{Literal, Shape};

/// Elements per block handed to a kernel (the unit of reductions' lane folding).
const BLOCK: usize = 2048;
/// Elements per parallel task (a multiple of the block).
pub(crate) const CHUNK: usize = 16 * BLOCK;

fn block_len() -> usize {
    BLOCK
}

/// A kernel input: values of the kernel's type, predicates (read as 0 / 1), a fused
/// gather's operand read by rows (`gather.rs`), or a value the kernel does not load (a
/// gather's or scatter's indices, read by the step itself).
pub(crate) enum In<'a, L> {
    Val(&'a [L]),
    Pred(&'a [bool]),
    /// Element `i` is element `i % len` of row `i / len`.
    Rows(super::gather::GatherRows<'a, L>),
    Other,
}

// Derived `Clone`/`Copy` would demand `L: Copy` needlessly.
impl<L> Clone for In<'_, L> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<L> Copy for In<'_, L> {}

impl<L: Lane> In<'_, L> {
    #[inline(always)]
    pub(crate) fn get(&self, i: usize) -> L {
        match self {
            In::Val(v) => v[i],
            In::Pred(v) => L::mask(v[i]),
            In::Rows(r) => r.row(i / r.len).map_or(L::zero(), |row| row[i % r.len]),
            In::Other => L::zero(),
        }
    }
    pub(crate) fn len(&self) -> usize {
        match self {
            In::Val(v) => v.len(),
            In::Pred(v) => v.len(),
            In::Rows(r) => r.elems(),
            In::Other => 0,
        }
    }
}

use super::kern::{LANES, V};

/// Per-task state: the fast program bound to this task's registers, and the slow path's
/// registers for tails shorter than a fast block (made when first needed: a kernel whose
/// code covers its whole domain never takes the slow path).
pub(crate) struct Scratch<'i, L> {
    regs: Vec<Vec<L>>,
    fast: Fast<'i, L>,
    tmp: Vec<L>,
    /// Several whole rows of a column reduction written by one call of the code.
    rows: Vec<L>,
}

impl Kernel {
    /// One value per register: constants and scalars filled in, zero elsewhere. Scalar
    /// inputs are checked non-empty by [`check`] (or the caller) first.
    pub(super) fn fixed_values<L: Lane>(&self, ins: &[In<L>]) -> Vec<L> {
        let mut fixed = vec![L::zero(); self.nregs];
        for (node, slot) in self.nodes.iter().zip(&self.slots) {
            if let (Node::Load(l), Slot::Fixed(r)) = (node, slot) {
                let v = match l {
                    Load::Const(c) => L::of(*c),
                    Load::Scalar(k) => ins[*k].get(0),
                    Load::Full(_)
                    | Load::Bcast { .. }
                    | Load::Spread(_)
                    | Load::Remap(_)
                    | Load::Gather(_) => L::zero(),
                };
                if let Some(f) = fixed.get_mut(*r) {
                    *f = v;
                }
            }
        }
        fixed
    }

    pub(super) fn scratch<'i, L: Lane>(&self, ins: &'i [In<'i, L>]) -> Scratch<'i, L> {
        Scratch {
            regs: Vec::new(),
            fast: Fast::new(self, ins),
            tmp: Vec::new(),
            rows: Vec::new(),
        }
    }

    /// The block of node `j` once computed (or read straight from its input).
    #[inline(always)]
    fn src<'b, L: Lane>(
        &self,
        j: usize,
        ins: &[In<'b, L>],
        regs: &'b [Vec<L>],
        start: usize,
        len: usize,
    ) -> &'b [L] {
        match (self.slots[j], &self.nodes[j]) {
            (Slot::Direct, Node::Load(Load::Full(k))) => match ins[*k] {
                In::Val(v) => &v[start..start + len],
                In::Pred(_) | In::Rows(_) | In::Other => &[],
            },
            (Slot::Fixed(r) | Slot::Reg(r), _) => &regs[r][..len],
            (Slot::Direct, _) => &[],
        }
    }

    /// Computes node `j` for elements `start..start + dst.len()` into `dst`.
    #[inline(always)]
    fn node_into<L: Lane>(
        &self,
        j: usize,
        ins: &[In<L>],
        regs: &[Vec<L>],
        start: usize,
        dst: &mut [L],
    ) {
        let len = dst.len();
        let args = match &self.nodes[j] {
            Node::Load(l) => return load(*l, ins, start, dst),
            Node::Op(_, args) => args,
        };
        let a = |m: usize| self.src(args[m], ins, regs, start, len);
        match &self.nodes[j] {
            Node::Op(Fop::Unary(u), _) => ops::unary(*u, a(0), dst),
            Node::Op(Fop::Binary(b), _) => ops::binary(*b, a(0), a(1), dst),
            Node::Op(Fop::Cmp(d), _) => ops::compare(*d, a(0), a(1), dst),
            Node::Op(Fop::Select, _) => ops::select(a(0), a(1), a(2), dst),
            Node::Op(Fop::Clamp, _) => ops::clamp(a(0), a(1), a(2), dst),
            Node::Load(_) => {}
        }
    }

    /// The slow path (node by node on slices), for ranges the fast path cannot take: a
    /// tail shorter than a fast block, or a kernel whose program could not be bound.
    /// Compiled for the CPU's vector instructions (`simd_dispatch!`): the transcendentals'
    /// fused multiply-adds are then instructions, not calls of the C library's `fmaf` (14%
    /// of a logistic-regression gradient's run, E6), with the same results.
    #[inline(always)]
    pub(super) fn block_slices<L: Lane>(
        &self,
        ins: &[In<L>],
        start: usize,
        regs: &mut [Vec<L>],
        dst: &mut [L],
    ) {
        block_slices_simd(self, ins, start, regs, dst);
    }

    /// The kernel's values at `start..start + min(V, len)`: a fast block when `len >= V`
    /// and the fast program is bound, else the slow path's.
    #[inline(always)]
    pub(super) fn next_block<'a, L: Lane>(
        &self,
        ins: &[In<'a, L>],
        start: usize,
        len: usize,
        s: &'a mut Scratch<'_, L>,
    ) -> &'a [L] {
        if len >= V {
            if let Some(v) = s.fast.eval(self, start) {
                return v;
            }
        }
        if s.tmp.len() < V {
            s.regs = self.fixed_values(ins).iter().map(|&v| vec![v; V]).collect();
            s.tmp = vec![L::zero(); V];
        }
        let bl = len.min(V);
        self.block_slices(ins, start, &mut s.regs, &mut s.tmp[..bl]);
        &s.tmp[..bl]
    }
}

/// 2: AVX-512, 1: AVX2, 0: the baseline (`crate::isa::level`; machine code for fused
/// kernels needs AVX2 with FMA at least).
pub(crate) fn simd_level() -> u8 {
    crate::isa::level()
}

/// Reads a load's elements `start..start + dst.len()`.
#[inline(always)]
pub(crate) fn load<L: Lane>(l: Load, ins: &[In<L>], start: usize, dst: &mut [L]) {
    let end = start + dst.len();
    match l {
        Load::Const(c) => dst.fill(L::of(c)),
        Load::Scalar(k) => dst.fill(ins[k].get(0)),
        Load::Full(k) => match ins[k] {
            In::Val(v) => dst.copy_from_slice(&v[start..end]),
            In::Pred(v) => {
                for (d, &b) in dst.iter_mut().zip(&v[start..end]) {
                    *d = L::mask(b);
                }
            }
            src @ (In::Rows(_) | In::Other) => {
                for (t, d) in dst.iter_mut().enumerate() {
                    *d = src.get(start + t);
                }
            }
        },
        Load::Gather(g) => super::gather::load(ins[g.input], start, dst),
        Load::Spread(s) => s.load(ins, start, dst),
        Load::Remap(m) => m.load(ins, start, dst),
        Load::Bcast { input, inner, len } => {
            let src = ins[input];
            let mut i = start;
            while i < end {
                let q = i / inner;
                let idx = q % len;
                let o = i - start;
                if inner == 1 {
                    if let In::Val(v) = src {
                        super::spread::fill_cyclic(&mut dst[o..], &v[..len], idx);
                        return;
                    }
                    let run = (end - i).min(len - idx);
                    for (t, d) in dst[o..o + run].iter_mut().enumerate() {
                        *d = src.get(idx + t);
                    }
                    i += run;
                } else {
                    let run = (end - i).min((q + 1) * inner - i);
                    dst[o..o + run].fill(src.get(idx));
                    i += run;
                }
            }
        }
    }
}

/// Checks every input is as long as the kernel reads it.
fn check<L: Lane>(k: &Kernel, ins: &[In<L>]) -> Result<()> {
    check_over(k, ins, k.n)
}

/// Checks every input is as long as the kernel reads it over elements `0..n`.
pub(super) fn check_over<L: Lane>(k: &Kernel, ins: &[In<L>], n: usize) -> Result<()> {
    for node in &k.nodes {
        if let Node::Load(l) = node {
            load_reads(l, ins, n)?;
        }
    }
    if k.nodes.is_empty() {
        return Err(CpuError::Internal("a fused kernel has nodes (fusion plan)"));
    }
    Ok(())
}

/// Checks the inputs load `l` reads are long enough for its elements `0..n`.
pub(super) fn load_reads<L: Lane>(l: &Load, ins: &[In<L>], n: usize) -> Result<()> {
    let (input, need) = match l {
        Load::Full(i) => (*i, n),
        Load::Gather(g) => (g.input, n),
        Load::Scalar(i) => (*i, 1),
        Load::Bcast { input, len, inner } => {
            if *inner == 0 || *len == 0 {
                return Err(CpuError::Internal(
                    "a fused broadcast reads a non-empty operand (fusion plan)",
                ));
            }
            (*input, (*len).min(n.div_ceil(*inner)))
        }
        Load::Spread(s) => {
            if s.len == 0 || s.gap == 0 || s.outer == 0 {
                return Err(CpuError::Internal(
                    "a fused broadcast reads a non-empty operand (fusion plan)",
                ));
            }
            (s.input, s.need())
        }
        Load::Remap(m) => {
            if let Some(super::remap::PadValue::Input(k)) = m.pad {
                if ins.get(k).is_none_or(|x| x.len() < 1) {
                    return Err(CpuError::Internal(
                        "a fused pad's value is a non-empty input (fusion plan)",
                    ));
                }
            }
            (m.input, m.need)
        }
        Load::Const(_) => return Ok(()),
    };
    if ins.get(input).is_none_or(|x| x.len() < need) {
        return Err(CpuError::Internal(
            "a fused kernel's inputs are as long as planned",
        ));
    }
    Ok(())
}

/// Writes the kernel's values for the chunk starting at element `start` into `o`.
#[inline(always)]
fn write_chunk_impl<L: Lane>(
    k: &Kernel,
    ins: &[In<L>],
    s: &mut Scratch<L>,
    start: usize,
    o: &mut Sink<L>,
) {
    let len = o.len();
    let mut done = 0;
    while done < len {
        if len - done >= V {
            let f = &mut s.fast;
            let at = start + done;
            // One call for a span of blocks where the code can run it whole (each
            // element is computed alone, so the span does not change a bit): the
            // per-call set-up, paid per block of 128, was a fifth of a program of
            // many mid-size steps (N5); else block by block.
            let span = (len - done).min(f.span()) / V * V;
            // SAFETY: `write_to` returns true only after writing all `span` elements.
            if span > V && unsafe { o.fill_with(span, |dst| f.write_to(at, dst)) } {
                done += span;
                continue;
            }
            // SAFETY: as above, for `V` elements.
            if unsafe { o.fill_with(V, |dst| f.write_to(at, dst)) } {
                done += V;
                continue;
            }
        }
        let v = k.next_block(ins, start + done, len - done, s);
        o.push(v);
        done += v.len();
    }
    s.fast.fence();
}

/// A reduce's combiner, applied in the hot loops without a call per element.
#[derive(Clone, Copy, Debug)]
pub(super) enum Comb {
    Add,
    Mul,
    Max,
    Min,
}

impl Comb {
    pub(super) fn of(op: BinaryOp) -> Comb {
        match op {
            BinaryOp::Mul => Comb::Mul,
            BinaryOp::Max => Comb::Max,
            BinaryOp::Min => Comb::Min,
            _ => Comb::Add,
        }
    }

    /// The identity (`-0` for add, so sums of `-0` stay `-0`).
    pub(super) fn identity<L: Lane>(self) -> L {
        match self {
            Comb::Add => L::neg_zero(),
            Comb::Mul => L::one(),
            Comb::Max => L::neg_infinity(),
            Comb::Min => L::infinity(),
        }
    }

    #[inline(always)]
    pub(super) fn apply<L: Lane>(self, a: L, b: L) -> L {
        match self {
            Comb::Add => a + b,
            Comb::Mul => a * b,
            Comb::Max => vmax(a, b),
            Comb::Min => vmin(a, b),
        }
    }

    /// `lanes`, holding `used` values folded lane by lane (value `i` into lane
    /// `i % LANES`), combined into one. From a full set of lanes up, as a tree of vector
    /// steps (lanes `i` and `i + 32`, then `i` and `i + 16`, ...), not 64 dependent scalar
    /// steps (which cost more than the row itself in a softmax over 1,024 columns): sums
    /// and products pairwise in that order, as XLA's vectorised reductions are
    /// (`native/reduce.rs` spells out the same steps). Max and min of values without a NaN
    /// do not depend on the order ([`vmax`]/[`vmin`] resolve a ±0 tie bitwise, the same
    /// either way round). In order from the identity: fewer values than lanes (so a short
    /// row gives what `reduce_short_rows` gives), and max or min with a NaN (whose payload
    /// the order decides).
    #[inline(always)]
    pub(super) fn total<L: Lane>(self, lanes: &[L; LANES], used: usize) -> L {
        // A plain loop without early exit, so the test is vector code too (an iterator
        // adapter may stay out of line, compiled without the caller's AVX-512).
        let mut nan = false;
        if matches!(self, Comb::Max | Comb::Min) {
            for x in lanes {
                nan |= x.is_nan();
            }
        }
        if used < LANES || nan {
            return lanes.iter().fold(self.identity(), |a, &b| self.apply(a, b));
        }
        // The halving steps written out one by one, one closure per combiner: each step
        // has a length known at compile time and no branch inside, so it is one or two
        // vector operations (as a loop over the widths it was 4-lane code with a scalar
        // tail: ~5% of a softmax over 1,024 columns).
        let t = match self {
            Comb::Add => tree(*lanes, |a, b| a + b),
            Comb::Mul => tree(*lanes, |a, b| a * b),
            Comb::Max => tree(*lanes, vmax),
            Comb::Min => tree(*lanes, vmin),
        };
        self.apply(self.identity(), t)
    }

    /// `acc[i] = acc[i] op v[i]` for every `i` of the shorter.
    #[inline(always)]
    pub(super) fn fold_into<L: Lane>(self, acc: &mut [L], v: &[L]) {
        let it = acc.iter_mut().zip(v);
        match self {
            Comb::Add => it.for_each(|(a, &x)| *a += x),
            Comb::Mul => it.for_each(|(a, &x)| *a *= x),
            Comb::Max => it.for_each(|(a, &x)| *a = vmax(*a, x)),
            Comb::Min => it.for_each(|(a, &x)| *a = vmin(*a, x)),
        }
    }
}

/// `v[0] f v[32]`, ... down to one value: lanes `i` and `i + 32`, then `i` and `i + 16`, ...
#[inline(always)]
fn tree<L: Lane>(mut v: [L; LANES], f: impl Fn(L, L) -> L) -> L {
    halve::<L, 32>(&mut v, &f);
    halve::<L, 16>(&mut v, &f);
    halve::<L, 8>(&mut v, &f);
    halve::<L, 4>(&mut v, &f);
    halve::<L, 2>(&mut v, &f);
    halve::<L, 1>(&mut v, &f);
    v[0]
}

/// `v[i] = f(v[i], v[i + W])` for `i < W` (`W <= LANES / 2`, known at compile time: no
/// bounds checks, and no iterator adapter left out of line, where it would be compiled
/// without the caller's AVX-512).
#[inline(always)]
fn halve<L: Lane, const W: usize>(v: &mut [L; LANES], f: &impl Fn(L, L) -> L) {
    for i in 0..W.min(LANES / 2) {
        v[i] = f(v[i], v[i + W]);
    }
}

/// Folds elements `start..start + len` of the kernel into `LANES` lanes (element `i` of
/// the range into lane `i % LANES`), then the lanes in order.
#[inline(always)]
fn fold_range_impl<L: Lane>(
    k: &Kernel,
    ins: &[In<L>],
    s: &mut Scratch<L>,
    (start, len): (usize, usize),
    op: Comb,
) -> L {
    let mut lanes = [op.identity(); LANES];
    // Generated fold code takes whole groups of 64 first (the same lanes, in order).
    let mut done = s.fast.fold_to(start, len, &mut lanes);
    while done < len {
        let v = k.next_block(ins, start + done, len - done, s);
        let mut it = v.chunks_exact(LANES);
        for ch in &mut it {
            op.fold_into(&mut lanes, ch);
        }
        op.fold_into(&mut lanes, it.remainder());
        done += v.len();
    }
    op.total(&lanes, len)
}

/// Folds `rows` rows of the kernel, `stride` elements apart from `start`, into `acc`
/// element by element (each column in row order).
#[inline(always)]
fn fold_rows_impl<L: Lane>(
    k: &Kernel,
    ins: &[In<L>],
    s: &mut Scratch<L>,
    (start, rows, stride): (usize, usize, usize),
    op: Comb,
    acc: &mut [L],
) {
    let w = acc.len();
    let mut row = 0;
    // Contiguous rows: as many as one call of the generated code covers are written at
    // once, then folded in row order (the same order, so the same values), instead of a
    // call per row.
    if stride == w && w % 16 == 0 {
        let f = &mut s.fast;
        let per = (f.span() / w.max(1)).min(rows);
        if per > 1 && s.rows.try_reserve(per * w).is_ok() {
            while row + per <= rows {
                let n = per * w;
                s.rows.clear();
                let Some(dst) = s.rows.spare_capacity_mut().get_mut(..n) else {
                    break;
                };
                if !f.write_to(start + row * stride, dst) {
                    break;
                }
                // SAFETY: `write_to` returned true, so it wrote all `n` elements.
                unsafe { s.rows.set_len(n) };
                for r in s.rows.chunks_exact(w) {
                    op.fold_into(acc, r);
                }
                row += per;
            }
        }
    }
    for row in row..rows {
        let at = start + row * stride;
        let mut done = 0;
        while done < acc.len() {
            let v = k.next_block(ins, at + done, acc.len() - done, s);
            op.fold_into(&mut acc[done..], v);
            done += v.len();
        }
    }
}

/// Defines each `fn` as a call of its `#[inline(always)]` implementation compiled for the
/// widest vector instructions this CPU has (the same IEEE operations on every path, so
/// the same results).
macro_rules! simd_dispatch {
    ($(fn $name:ident<L>($($a:ident: $t:ty),*) $(-> $r:ty)? => $imp:ident;)*) => {$(
        fn $name<L: Lane>($($a: $t),*) $(-> $r)? {
            #[cfg(target_arch = "x86_64")]
            {
                #[target_feature(enable = "avx512f,avx512bw,avx512dq,avx512vl,avx2,fma")]
                fn avx512<L: Lane>($($a: $t),*) $(-> $r)? {
                    $imp($($a),*)
                }
                #[target_feature(enable = "avx2,fma")]
                fn avx2<L: Lane>($($a: $t),*) $(-> $r)? {
                    $imp($($a),*)
                }
                if crate::isa::level() >= 2 {
                    // SAFETY: the CPU supports AVX-512F/BW/DQ/VL (checked at run time).
                    return unsafe { avx512($($a),*) };
                }
                if crate::isa::level() == 1 {
                    // SAFETY: the CPU supports AVX2 and FMA (checked at run time).
                    return unsafe { avx2($($a),*) };
                }
            }
            $imp($($a),*)
        }
    )*};
}
pub(super) use simd_dispatch;

/// [`Kernel::block_slices`]'s body, for `simd_dispatch!`.
#[inline(always)]
fn block_slices_impl<L: Lane>(
    k: &Kernel,
    ins: &[In<L>],
    start: usize,
    regs: &mut [Vec<L>],
    dst: &mut [L],
) {
    let len = dst.len();
    let last = k.nodes.len() - 1;
    for j in 0..last {
        if let Slot::Reg(r) = k.slots[j] {
            let mut d = std::mem::take(&mut regs[r]);
            k.node_into(j, ins, regs, start, &mut d[..len]);
            regs[r] = d;
        }
    }
    match (k.slots[last], &k.nodes[last]) {
        (Slot::Fixed(_) | Slot::Direct, _) => {
            dst.copy_from_slice(k.src(last, ins, regs, start, len));
        }
        (Slot::Reg(_), _) => k.node_into(last, ins, regs, start, dst),
    }
}

simd_dispatch! {
    fn block_slices_simd<L>(k: &Kernel, ins: &[In<L>], start: usize, regs: &mut [Vec<L>], dst: &mut [L]) => block_slices_impl;
    fn write_chunk<L>(k: &Kernel, ins: &[In<L>], s: &mut Scratch<L>, start: usize, o: &mut Sink<L>) => write_chunk_impl;
    fn fold_range<L>(k: &Kernel, ins: &[In<L>], s: &mut Scratch<L>, range: (usize, usize), op: Comb) -> L => fold_range_impl;
    fn fold_rows<L>(k: &Kernel, ins: &[In<L>], s: &mut Scratch<L>, rows: (usize, usize, usize), op: Comb, acc: &mut [L]) => fold_rows_impl;
}

fn run_loop<L: Lane>(
    k: &Kernel,
    ins: &[In<L>],
    (min, pair): (usize, Option<&crate::partner::Partner>),
) -> Result<Vec<L>> {
    let work =
        |s: &mut Scratch<L>, c: usize, mut o: Sink<L>| write_chunk(k, ins, s, c * CHUNK, &mut o);
    match pair {
        Some(p) => crate::buffer::written_by_two(k.n, CHUNK, p, || k.scratch(ins), work)
            .ok_or(CpuError::Internal("a fused kernel panicked")),
        None => Ok(crate::buffer::written_in_chunks(
            k.n,
            CHUNK,
            min,
            || k.scratch(ins),
            work,
        )),
    }
}

struct Red<'p, L> {
    /// The smallest number of tasks a thread takes (`usize::MAX`: one thread).
    min: usize,
    /// At two threads: the partner thread, which shares the tasks instead of the pool.
    pair: Option<&'p crate::partner::Partner>,
    /// The run's stop, polled before each task (and each block of rows of a column
    /// reduction); a stopped task leaves its part unfinished (`limits/stop.rs`).
    stop: Stop,
    outer: usize,
    red: usize,
    inner: usize,
    init: L,
}

/// Reductions of rows shorter than `LANES` (`inner == 1`, e.g. the coordinates of a
/// pairwise distance): many rows per block of the kernel, each folded in order from the
/// identity. That is the value [`fold_range`] gives such a row (each of its lanes holds one
/// element, and `identity op x` and `x op identity` are `x` for every combiner), without
/// the per-row block and the 64-lane total, which cost ~80 ns for a row of 4.
fn reduce_short_rows<L: Lane>(k: &Kernel, ins: &[In<L>], r: &Red<'_, L>, op: Comb) -> Vec<L> {
    let per = (CHUNK / r.red.max(1)).max(1);
    let one = |s: &mut Scratch<L>, t: usize| {
        let rows = t * per..((t + 1) * per).min(r.outer);
        if r.stop.stopped() {
            return Vec::new();
        }
        let mut out = Vec::with_capacity(rows.len());
        let id = op.identity();
        let (mut acc, mut pos) = (id, 0);
        let (mut at, end) = (rows.start * r.red, rows.end * r.red);
        while at < end {
            let v = k.next_block(ins, at, end - at, s);
            if v.is_empty() {
                break;
            }
            // One loop per combiner, so the fold is not a dispatch per element.
            match op {
                Comb::Add => fold_rows_of(v, (r, id), (&mut acc, &mut pos), &mut out, |a, b| a + b),
                Comb::Mul => fold_rows_of(v, (r, id), (&mut acc, &mut pos), &mut out, |a, b| a * b),
                Comb::Max => fold_rows_of(v, (r, id), (&mut acc, &mut pos), &mut out, vmax),
                Comb::Min => fold_rows_of(v, (r, id), (&mut acc, &mut pos), &mut out, vmin),
            }
            at += v.len();
        }
        out
    };
    let tasks = r.outer.div_ceil(per);
    let by_two = r.pair.filter(|_| tasks > 1);
    let parts: Vec<Vec<L>> = if let Some(p) = by_two {
        // A panicked task leaves its rows out; the caller reports the short result.
        p.map(tasks, || k.scratch(ins), one).unwrap_or_default()
    } else if tasks <= 1 || r.min == usize::MAX {
        let mut s = k.scratch(ins);
        (0..tasks).map(|t| one(&mut s, t)).collect()
    } else {
        (0..tasks)
            .into_par_iter()
            .with_min_len(r.min)
            .map_init(|| k.scratch(ins), one)
            .collect()
    };
    parts.concat()
}

/// Folds `v` (consecutive elements of rows `r.red` long) into `acc` (`pos` elements of the
/// current row so far, folded from the identity), pushing `init f row` for each row
/// completed.
#[inline(always)]
fn fold_rows_of<L: Lane>(
    v: &[L],
    (r, id): (&Red<'_, L>, L),
    (acc, pos): (&mut L, &mut usize),
    out: &mut Vec<L>,
    f: impl Fn(L, L) -> L,
) {
    for &x in v {
        *acc = f(*acc, x);
        *pos += 1;
        if *pos == r.red {
            out.push(f(r.init, *acc));
            (*acc, *pos) = (id, 0);
        }
    }
}

/// Reductions of whole rows (`inner == 1`); long rows are cut into fixed chunks whose
/// partial results are combined in order.
fn reduce_rows<L: Lane>(k: &Kernel, ins: &[In<L>], r: &Red<'_, L>, op: Comb) -> Vec<L> {
    let nch = r.red.div_ceil(CHUNK).max(1);
    let parts = r.outer * nch;
    let one = |s: &mut Scratch<L>, t: usize| {
        let (row, c) = (t / nch, t % nch);
        let lo = c * CHUNK;
        let len = r.red.min(lo + CHUNK).saturating_sub(lo);
        if r.stop.stopped() {
            return r.init;
        }
        fold_range(k, ins, s, (row * r.red + lo, len), op)
    };
    let init = || k.scratch(ins);
    let partial: Vec<L> = if parts * r.red.min(CHUNK) <= CHUNK {
        let mut s = init();
        (0..parts).map(|t| one(&mut s, t)).collect()
    } else if let Some(p) = r.pair {
        p.map(parts, init, one).unwrap_or_default()
    } else {
        let per = (CHUNK / r.red.clamp(1, CHUNK)).max(1);
        (0..parts)
            .into_par_iter()
            .with_min_len(per.max(r.min))
            .map_init(init, one)
            .collect()
    };
    partial
        .chunks(nch)
        .map(|p| p.iter().fold(r.init, |a, &b| op.apply(a, b)))
        .collect()
}

/// Reductions over a middle dimension range (`inner > 1`): each output column folds its
/// rows in order, exactly the reference order.
fn reduce_cols<L: Lane>(k: &Kernel, ins: &[In<L>], r: &Red<'_, L>, op: Comb) -> Vec<L> {
    let mut out = vec![r.init; r.outer * r.inner];
    let init = || k.scratch(ins);
    // Rows in blocks of about a chunk's elements, in order, with a poll between blocks.
    let fold = |s: &mut Scratch<L>, (o, c): (usize, usize), acc: &mut [L]| {
        let per = (CHUNK / acc.len().max(1)).max(1);
        let mut row = 0;
        while row < r.red && !r.stop.stopped() {
            let rows = per.min(r.red - row);
            let start = (o * r.red + row) * r.inner + c * block_len();
            fold_rows(k, ins, s, (start, rows, r.inner), op, acc);
            row += rows;
        }
    };
    let blocks = r.inner.div_ceil(block_len());
    if let Some(p) = r.pair.filter(|_| r.outer * blocks > 1) {
        // Each task folds one block of columns into its own accumulators, copied in after.
        let done = p.map(r.outer * blocks, init, |s, t| {
            let (o, c) = (t / blocks, t % blocks);
            let cols = c * block_len()..r.inner.min((c + 1) * block_len());
            let mut acc = vec![r.init; cols.len()];
            fold(s, (o, c), &mut acc);
            acc
        });
        let Some(done) = done else {
            return Vec::new();
        };
        let dsts = out
            .chunks_mut(r.inner)
            .flat_map(|row| row.chunks_mut(block_len()));
        for (dst, acc) in dsts.zip(done) {
            dst.copy_from_slice(&acc);
        }
        return out;
    }
    out.par_chunks_mut(r.inner)
        .with_min_len(r.min)
        .enumerate()
        .for_each(|(o, row)| {
            row.par_chunks_mut(block_len())
                .with_min_len(r.min)
                .enumerate()
                .for_each_init(init, |s, (c, acc)| fold(s, (o, c), acc));
        });
    out
}

fn run_reduce<L: Lane>(k: &Kernel, ins: &[In<L>], op: BinaryOp, r: &Red<'_, L>) -> Vec<L> {
    if r.outer * r.inner == 0 {
        return Vec::new();
    }
    if r.inner == 1 && (1..LANES).contains(&r.red) {
        reduce_short_rows(k, ins, r, Comb::of(op))
    } else if r.inner == 1 {
        reduce_rows(k, ins, r, Comb::of(op))
    } else {
        reduce_cols(k, ins, r, Comb::of(op))
    }
}

/// The least [`Kernel::work`] worth splitting over threads. Waking the pool costs tens of
/// microseconds when its threads sleep, more when the other cores are busy. Measured at 2
/// threads: a generated f32[256,256] add (about 15 µs on one core, work 196,608) made an
/// LSTM training step 33.5 ms against 18.2 ms kept on one thread, and an interpreted
/// f32[128,128] add with a mask (7 µs alone, work about 80,000) took 35 µs split; the
/// interpreted f32[64,14,14,16] kernels of a conv autoencoder (work above 400,000) still
/// gain from two.
const MIN_PAR_WORK: usize = 1 << 18;

/// Runs a fused step on its inputs (in the order of [`Fused::inputs`]) with the
/// executable's threads.
///
/// # Errors
/// If an input is not an array of the kernel's type (or pred) of the planned size.
pub(crate) fn run(f: &Fused, args: &[&Literal], out: &Shape, par: Parallel) -> Result<Literal> {
    // A step that cannot be split (one output block of a column sum, a scatter) stays on
    // this thread: in the pool it would only pay the hand-off (N5's f32[1024,128] column
    // sum, one task, went through the pool on every run).
    let worth = f.kernel.work() >= MIN_PAR_WORK && tasks(f) > 1;
    // At two threads a step of several chunks (elementwise, a reduction, a row chain's
    // tiles) is shared with the partner thread: the pool's hand-off (its threads asleep between the many mid-size steps of
    // a program) cost more than the split saved (N5: 0.97 ms on two threads against 0.81
    // on one).
    let pair = match f.kind {
        FusedKind::Loop { .. } | FusedKind::Reduce { .. } | FusedKind::Rows(_) if worth => {
            par.pair()
        }
        FusedKind::Loop { .. } | FusedKind::Reduce { .. } | FusedKind::Rows(_) => None,
        FusedKind::Scatter(_) => None,
    };
    let go = |min| match f.kernel.ty {
        xla_core::PrimitiveType::F64 => run_in::<f64>(f, args, out, (min, pair)),
        _ => run_in::<f32>(f, args, out, (min, pair)),
    };
    match pair {
        Some(_) => go(usize::MAX),
        None => par.run_when(worth, go),
    }
}

/// How many pieces a fused step's work is cut into for the pool (as `run_loop`,
/// `run_reduce` and `rows_run::run` cut it); 1 when it runs whole on one thread.
fn tasks(f: &Fused) -> usize {
    match &f.kind {
        FusedKind::Loop { .. } => f.kernel.n.div_ceil(CHUNK),
        FusedKind::Reduce {
            outer, red, inner, ..
        } => match (*outer, *red, *inner) {
            (outer, red, 1) if (1..LANES).contains(&red) => outer.div_ceil((CHUNK / red).max(1)),
            (outer, red, 1) => {
                let parts = outer * red.div_ceil(CHUNK).max(1);
                if parts * red.min(CHUNK) <= CHUNK {
                    1
                } else {
                    parts.div_ceil((CHUNK / red.clamp(1, CHUNK)).max(1))
                }
            }
            (outer, _, inner) => outer * inner.div_ceil(block_len()),
        },
        FusedKind::Rows(chain) => chain.rows.div_ceil(chain.tile.max(1)),
        FusedKind::Scatter(_) => 1,
    }
}

/// `min`: the fewest chunks per pool task (`usize::MAX`: this thread alone); `pair`: an
/// elementwise step's chunks shared with the partner thread instead.
fn run_in<L: Lane>(
    f: &Fused,
    args: &[&Literal],
    out: &Shape,
    (min, pair): (usize, Option<&crate::partner::Partner>),
) -> Result<Literal> {
    let k = &f.kernel;
    // Index inputs are read by the step itself, never loaded as values.
    let indices = |j: usize| {
        k.gathers.iter().any(|g| g.reads_starts(j))
            || matches!(&f.kind, FusedKind::Scatter(s) if s.indices == j)
    };
    let tables = k
        .gathers
        .iter()
        .map(|g| super::gather::table::<L>(g, args))
        .collect::<Result<Vec<_>>>()?;
    let mut ins = args
        .iter()
        .enumerate()
        .map(|(j, l)| {
            l.data::<L>()
                .map(In::Val)
                .or_else(|| l.data::<bool>().map(In::Pred))
                .or_else(|| indices(j).then_some(In::Other))
                .ok_or_else(|| {
                    CpuError::Internal("a fused kernel's inputs are of its type or pred")
                })
        })
        .collect::<Result<Vec<_>>>()?;
    for (g, t) in k.gathers.iter().zip(&tables) {
        if let (Some(slot), Some(&len)) = (ins.get_mut(g.input), g.out.last()) {
            *slot = t.input(len);
        }
    }
    if let FusedKind::Rows(chain) = &f.kind {
        return make(
            out,
            L::wrap(super::rows_run::run(chain, &ins, (min, pair))?),
        );
    }
    check(k, &ins)?;
    let data = match &f.kind {
        FusedKind::Loop { pred: false } => L::wrap(run_loop(k, &ins, (min, pair))?),
        FusedKind::Loop { pred: true } => ArrayData::Pred(
            run_loop(k, &ins, (min, pair))?
                .iter()
                .map(|&x| x != L::zero())
                .collect(),
        ),
        FusedKind::Reduce {
            op,
            init,
            outer,
            red,
            inner,
        } => {
            let init = ins.get(*init).filter(|i| i.len() == 1).map(|i| i.get(0));
            let init = init.ok_or(CpuError::Internal(
                "a fused reduce's init is a scalar (verified)",
            ))?;
            let r = Red {
                min,
                pair,
                stop: match k.work() > CHUNK {
                    true => Stop::current(),
                    false => Stop::default(),
                },
                outer: *outer,
                red: *red,
                inner: *inner,
                init,
            };
            let data = run_reduce(k, &ins, *op, &r);
            r.stop.check()?;
            // Shorter only when a task shared with the partner panicked.
            if data.len() != outer * inner {
                return Err(CpuError::Internal("a fused reduction's task panicked"));
            }
            L::wrap(data)
        }
        FusedKind::Scatter(sc) => L::wrap(super::scatter::run(k, sc, &ins, args)?),
        FusedKind::Rows(_) => {
            return Err(CpuError::Internal(
                "row chains are run by rows_run, not as a single kernel",
            ))
        }
    };
    make(out, data)
}

/// Lane totals: max/min give the in-order fold's bits (lanes of ±0, ±inf, denormals, ties
/// and random values; a NaN takes the in-order path, checked too); sums and products are
/// the pairwise tree (halves combined lane by lane), written here as a recursion; fewer
/// values than lanes fold in order.
#[cfg(test)]
#[test]
fn lane_totals_match_their_order() {
    fn tree(op: Comb, v: &[f32]) -> f32 {
        match v.len() {
            1 => op.apply(op.identity(), v[0]),
            n => {
                let halves: Vec<f32> = (0..n / 2).map(|i| op.apply(v[i], v[i + n / 2])).collect();
                tree(op, &halves)
            }
        }
    }
    const SPECIAL: [f32; 8] = [
        0.0,
        -0.0,
        f32::INFINITY,
        f32::NEG_INFINITY,
        1e-40,
        -1e-40,
        1.5,
        1.5,
    ];
    let mut s = 0x2545_f491_4f6c_dd1du64;
    for round in 0..2000 {
        let mut lanes = [0f32; LANES];
        for l in lanes.iter_mut() {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            *l = if s % 3 == 0 {
                SPECIAL[(s >> 8) as usize % SPECIAL.len()]
            } else {
                ((s >> 40) as f32 / (1u64 << 24) as f32 - 0.5) * 4.0
            };
        }
        if round % 7 == 0 {
            lanes[(s >> 20) as usize % LANES] = f32::NAN;
        }
        for op in [Comb::Max, Comb::Min, Comb::Add, Comb::Mul] {
            let want = match op {
                Comb::Max | Comb::Min => lanes
                    .iter()
                    .fold(op.identity::<f32>(), |a, &b| op.apply(a, b)),
                Comb::Add | Comb::Mul => tree(op, &lanes),
            };
            let mut short = [op.identity::<f32>(); LANES];
            short[..37].copy_from_slice(&lanes[..37]);
            let in_order = lanes[..37]
                .iter()
                .fold(op.identity::<f32>(), |a, &b| op.apply(a, b));
            let got = op.total(&short, 37);
            assert!(
                got.to_bits() == in_order.to_bits() || (got.is_nan() && in_order.is_nan()),
                "{op:?} round {round}, 37 values: {got} vs {in_order}"
            );
            let got = op.total(&lanes, LANES);
            assert!(
                got.to_bits() == want.to_bits() || (got.is_nan() && want.is_nan()),
                "{op:?} round {round}: {got} vs {want}"
            );
        }
    }
}
