//! The fast path's program with every address resolved once per task: each op is one
//! indirect call on three source blocks and a destination register, with no per-op
//! matching, bounds checks or slicing.
//!
//! Measured on the fused-elementwise and softmax benchmarks (B5, B6): the safe dispatch
//! loop this replaces (operands matched and sliced per op and block) took 25-30% of the
//! run; this loop is a few instructions per op. Every address it dereferences is checked
//! when the program is built. The same binding is done here for a kernel's generated
//! code ([`Bound`]), whose calls are the fusion module's other `unsafe`.

use super::kern::{lookup, OpFn, Vb, LANES, V};
use super::lane::Lane;
use super::run::{load, In};
use super::{Instr, Kernel, Src};

/// A resolved source: `base + start * step` elements (step 0: a register; 1: an input
/// of the kernel's type read in place at the block's position).
struct Arg<L> {
    base: *const L,
    step: usize,
}

// Derived `Clone`/`Copy` would demand `L: Copy` of the pointer's target needlessly.
impl<L> Clone for Arg<L> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<L> Copy for Arg<L> {}

/// One step of the program, in the planned order (registers are reused, so a load may
/// only run once the ops reading its register's previous value have run).
enum Step<L> {
    /// Fill a register from a load.
    Load(super::Load, *mut Vb<L>),
    /// `d = f(a[0], a[1], a[2])`.
    Call {
        f: OpFn<L>,
        a: [Arg<L>; 3],
        d: *mut Vb<L>,
    },
}

/// A kernel's block program bound to one task's registers and one run's inputs.
///
/// Invariants (established by [`Prog::bind`], relied on by [`Fast::eval`]):
/// - every register pointer points into `regs`, whose heap block is never reallocated,
///   borrowed or moved out while the `Prog` lives (only these pointers touch it);
/// - every input pointer is the start of an input of at least `n` elements, alive for the
///   lifetime `'i` of the [`Fast`] holding the `Prog`;
/// - no op's destination is one of its own sources, and destinations are registers.
struct Prog<L> {
    /// Owns the registers (reached only through the pointers below).
    _regs: Vec<Vb<L>>,
    steps: Vec<Step<L>>,
    /// The inputs read in place, prefetched ahead of the block being computed.
    streams: Vec<*const L>,
    result: Arg<L>,
}

/// A kernel bound to one task and one run's inputs: its machine code, and the block program
/// for what the code cannot run.
pub(crate) struct Fast<'i, L> {
    /// The block program, bound on first use (`Some(None)`: it could not be bound). A kernel
    /// whose code runs every call never needs it: binding it for every task of every run
    /// (registers, steps) was most of the per-run set-up of a scanned step's small kernels.
    prog: Option<Option<Prog<L>>>,
    /// The run's inputs, which the block program is bound to.
    ins: &'i [In<'i, L>],
    n: usize,
    /// The kernel's machine code bound to the inputs, when it has some.
    #[cfg(target_arch = "x86_64")]
    jit: Option<Bound<'i>>,
    /// The kernel's fold code bound to the inputs, for a reduce.
    #[cfg(target_arch = "x86_64")]
    fold: Option<Bound<'i>>,
}

impl<'i, L: Lane> Fast<'i, L> {
    /// The kernel's code bound to `ins`; the block program is bound when first needed.
    pub(crate) fn new(k: &Kernel, ins: &'i [In<'i, L>]) -> Fast<'i, L> {
        Fast {
            prog: None,
            ins,
            n: k.n,
            #[cfg(target_arch = "x86_64")]
            jit: k.jit.as_ref().and_then(|c| Bound::new(c, ins, k.n)),
            #[cfg(target_arch = "x86_64")]
            fold: k.fold_jit.as_ref().and_then(|c| Bound::new(c, ins, k.n)),
        }
    }
}

impl<L: Lane> Prog<L> {
    /// Binds `k`'s program to fresh registers (constants and scalars filled from
    /// `fixed`, one value per register) and to `ins`. `None` if the program reads an
    /// input that is not of the kernel's type or shorter than the kernel's domain, or
    /// breaks the register invariants above (the slow path then runs instead).
    fn bind(k: &Kernel, ins: &[In<'_, L>], fixed: &[L]) -> Option<Prog<L>> {
        let table = L::table();
        let mut regs: Vec<Vb<L>> = fixed.iter().map(|&v| [v; V]).collect();
        let nregs = regs.len();
        let p = regs.as_mut_ptr();
        let reg = |r: usize| (r < nregs).then(|| p.wrapping_add(r));
        let arg = |s: Src| -> Option<Arg<L>> {
            match s {
                Src::Reg(r) => Some(Arg {
                    base: reg(r)?.cast::<L>().cast_const(),
                    step: 0,
                }),
                Src::In(i) => match ins.get(i)? {
                    In::Val(v) if v.len() >= k.n => Some(Arg {
                        base: v.as_ptr(),
                        step: 1,
                    }),
                    _ => None,
                },
            }
        };
        let mut steps = Vec::new();
        for ins in &k.prog {
            steps.push(match *ins {
                Instr::Load(l, r) => Step::Load(l, reg(r)?),
                Instr::Op(f, a, r) => {
                    if a.contains(&Src::Reg(r)) {
                        return None;
                    }
                    Step::Call {
                        f: lookup(table, f),
                        a: [arg(a[0])?, arg(a[1])?, arg(a[2])?],
                        d: reg(r)?,
                    }
                }
            });
        }
        let result = arg(k.result)?;
        let mut streams: Vec<*const L> = Vec::new();
        let args = steps.iter().flat_map(|s| match s {
            Step::Call { a, .. } => a.as_slice(),
            Step::Load(..) => &[],
        });
        for a in args.chain(&[result]) {
            if a.step == 1 && !streams.contains(&a.base) {
                streams.push(a.base);
            }
        }
        Some(Prog {
            _regs: regs,
            steps,
            streams,
            result,
        })
    }
}

impl<'i, L: Lane> Fast<'i, L> {
    /// Folds the kernel's values at `start..` into `lanes` (element `start + i` into lane
    /// `i % LANES`) with the generated fold code, as far as it can go in whole groups of
    /// `LANES` within `len`; returns how many elements it folded (0 without fold code).
    #[inline(always)]
    pub(crate) fn fold_to(&mut self, start: usize, len: usize, lanes: &mut [L; LANES]) -> usize {
        #[cfg(target_arch = "x86_64")]
        if let (Some(j), Some(lanes)) = (self.fold.as_mut(), L::as_f32_lanes(lanes)) {
            return j.fold(start, len, lanes);
        }
        let _ = (start, len, lanes);
        0
    }

    /// The longest range [`Fast::write_to`] may cover in one call (`V` at least).
    #[inline(always)]
    pub(crate) fn span(&self) -> usize {
        #[cfg(target_arch = "x86_64")]
        if self.jit.as_ref().is_some_and(|j| j.code.spans) {
            return super::stream::STAGE_MAX;
        }
        V
    }

    /// Writes the kernel's values at `start..start + dst.len()` (a multiple of 16) straight
    /// into `dst` with the generated code, in one call, when the kernel has code that can
    /// run this range; false (nothing written) otherwise.
    #[inline(always)]
    pub(crate) fn write_to(&mut self, start: usize, dst: &mut [std::mem::MaybeUninit<L>]) -> bool {
        #[cfg(target_arch = "x86_64")]
        if let Some(j) = self.jit.as_mut() {
            // A bound code exists only when `L` is f32 (see `Bound::new`).
            let Some(dst) = L::as_f32_uninit(dst) else {
                return false;
            };
            return j.eval_to(start, dst);
        }
        let _ = (start, dst);
        false
    }

    /// Orders the non-temporal stores [`Fast::write_to`] may have made (weakly ordered)
    /// before any later store, such as the one that tells another thread a chunk is done.
    #[inline(always)]
    pub(crate) fn fence(&self) {
        #[cfg(target_arch = "x86_64")]
        if self.jit.as_ref().is_some_and(|j| j.code.streamed.is_some()) {
            // SAFETY: `sfence` is part of SSE, which every x86-64 CPU has.
            unsafe { std::arch::x86_64::_mm_sfence() };
        }
    }

    /// Runs kernel `k` (the one this binding was made for) on elements `start..start + V`
    /// and returns the result block (`None` when that range is not inside the kernel's
    /// domain, or the block program cannot be bound).
    #[inline(always)]
    pub(crate) fn eval(&mut self, k: &Kernel, start: usize) -> Option<&Vb<L>> {
        let ins = self.ins;
        if start.checked_add(V)? > self.n {
            return None;
        }
        #[cfg(target_arch = "x86_64")]
        if let Some(b) = self.jit.as_mut().and_then(|j| j.eval(start)) {
            return L::from_f32_block(b);
        }
        let prog = self
            .prog
            .get_or_insert_with(|| Prog::bind(k, ins, &k.fixed_values(ins)))
            .as_ref()?;
        for &p in &prog.streams {
            for line in (0..V).step_by(64 / std::mem::size_of::<L>().max(1)) {
                prefetch(p.wrapping_add(start + PREFETCH + line));
            }
        }
        for step in &prog.steps {
            match *step {
                // SAFETY: `d` points to a register of `self.regs` (invariant), and no
                // other reference to that register is alive: `self` is borrowed mutably
                // here and the registers are reached only through these pointers.
                Step::Load(l, d) => load(l, ins, start, unsafe { &mut *d }),
                // SAFETY: each source is a register or an input of at least `n`
                // elements, and `start + V <= n` was checked above, so every source block
                // is in bounds and initialised; the destination is a register distinct
                // from the sources (invariant), so the `&mut` does not alias them; `f` is
                // a block function of the instruction-set level this CPU supports
                // (`kern::table`).
                Step::Call { f, a, d } => unsafe {
                    let at = |a: Arg<L>| &*a.base.add(start * a.step).cast::<Vb<L>>();
                    f(at(a[0]), at(a[1]), at(a[2]), &mut *d);
                },
            }
        }
        let r = prog.result;
        // SAFETY: as for the sources above; the shared borrow is tied to `&mut self`, so
        // no op can write the result register while it is read.
        Some(unsafe { &*r.base.add(start * r.step).cast::<Vb<L>>() })
    }
}

/// How far ahead of the current block the inputs are prefetched, in elements.
const PREFETCH: usize = 512;

/// Hints the CPU to bring the cache line at `p` into L1 (any address is allowed: a
/// prefetch never faults).
#[inline(always)]
fn prefetch<L>(p: *const L) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        // SAFETY: a prefetch has no architectural effect and never faults, whatever
        // the address; SSE is part of the x86_64 baseline.
        unsafe { _mm_prefetch::<_MM_HINT_T0>(p.cast::<i8>()) };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}

/// A kernel's machine code bound to one run's inputs, with its output block.
#[cfg(target_arch = "x86_64")]
struct Bound<'i> {
    code: std::sync::Arc<super::jit::Code>,
    /// Input base pointers, by input index (null for inputs the code does not stream).
    ptrs: Vec<*const f32>,
    /// The inputs, for the per-block scalars.
    ins: Vec<In<'i, f32>>,
    scalars: Vec<f32>,
    /// Per cyclic stream: a row of its padding value, read by calls on a padded row (a
    /// pad's), or the buffer a staged load is computed into per call; empty otherwise.
    bufs: Vec<Vec<f32>>,
    /// Per cyclic stream: the row length of a staged bias whose buffer holds its row
    /// repeated (`stream::tile`, made once per run), 0 otherwise.
    periods: Vec<usize>,
    /// Per cyclic stream: the table of row addresses of a `Stream::Pieces`, set per call.
    tables: Vec<Vec<*const f32>>,
    /// The block [`Bound::eval`] writes, made on its first call (most kernels write
    /// straight into their output instead, [`Bound::eval_to`]).
    out: Option<Box<[f32; V]>>,
    n: usize,
}

#[cfg(target_arch = "x86_64")]
impl<'i> Bound<'i> {
    /// `None` unless every input the code streams is f32 with at least `n` elements and
    /// every input a scalar reads is long enough.
    fn new<L: Lane>(
        code: &std::sync::Arc<super::jit::Code>,
        ins: &[In<'i, L>],
        n: usize,
    ) -> Option<Bound<'i>> {
        use super::jit::Scalar;
        let ins: Vec<In<'i, f32>> = ins
            .iter()
            .map(|x| match *x {
                In::Val(v) => L::as_f32(v).map(In::Val),
                In::Pred(p) => Some(In::Pred(p)),
                In::Rows(r) => r.as_f32().map(In::Rows),
                In::Other => Some(In::Other),
            })
            .collect::<Option<_>>()?;
        if ins.len() > super::jit::CYCLIC_BASE {
            return None;
        }
        let mut ptrs = vec![std::ptr::null(); super::jit::CYCLIC_BASE + code.cyclic.len()];
        let mut bufs = Vec::with_capacity(code.cyclic.len());
        let mut periods = vec![0; code.cyclic.len()];
        for (slot, c) in code.cyclic.iter().enumerate() {
            if let super::stream::Stream::Staged(l) = c {
                if let Some((len, t)) = super::stream::tile(l, &ins, n) {
                    *periods.get_mut(slot)? = len;
                    bufs.push(t);
                    continue;
                }
            }
            // A staged load's inputs are checked as it is computed (`stream::stage`).
            if let Some(k) = c.input() {
                match ins.get(k)? {
                    In::Val(v) if v.len() >= c.need() => {}
                    _ => return None,
                }
            }
            bufs.push(match c.padding() {
                Some((super::remap::PadValue::Const(v), len)) => vec![v as f32; len],
                Some((super::remap::PadValue::Input(k), len)) => match ins.get(k)? {
                    In::Val(v) => vec![*v.first()?; len],
                    In::Pred(_) | In::Rows(_) | In::Other => return None,
                },
                None => Vec::new(),
            });
        }
        for &k in &code.streams {
            match ins.get(k)? {
                In::Val(v) if v.len() >= n => *ptrs.get_mut(k)? = v.as_ptr(),
                _ => return None,
            }
        }
        let mut scalars = vec![0.0; code.scalars.len()];
        for (slot, s) in code.scalars.iter().enumerate() {
            let (input, need) = match *s {
                Scalar::First(k) => (k, 1),
                Scalar::Run { input, inner, len } => {
                    if inner == 0 || len == 0 {
                        return None;
                    }
                    (input, len)
                }
            };
            let x = ins.get(input)?;
            if x.len() < need {
                return None;
            }
            if let Scalar::First(_) = s {
                scalars[slot] = x.get(0);
            }
        }
        Some(Bound {
            code: code.clone(),
            ptrs,
            ins,
            scalars,
            bufs,
            periods,
            tables: vec![Vec::new(); code.cyclic.len()],
            out: None,
            n,
        })
    }

    /// Points each cyclic stream at element `base(start)` of its input (a staged load at
    /// its buffer, computed for the call); false when the `total` values from there would
    /// leave a run of `len` or an input is too short (the caller falls back).
    #[inline(always)]
    fn set_cyclic(&mut self, start: usize, total: usize) -> bool {
        for (slot, c) in self.code.cyclic.iter().enumerate() {
            let (Some(buf), Some(p)) = (
                self.bufs.get_mut(slot),
                self.ptrs.get_mut(super::jit::CYCLIC_BASE + slot),
            ) else {
                return false;
            };
            let period = self.periods.get(slot).copied().unwrap_or(0);
            let at = |run: Option<&[f32]>| run.map(<[f32]>::as_ptr);
            // A gather whose rows are one run of its operand (`gather::Table::input`):
            // read in place, nothing staged.
            let run = match *c {
                super::stream::Stream::Staged(super::Load::Gather(g)) => {
                    match self.ins.get(g.input) {
                        Some(In::Val(v)) => Some(*v),
                        _ => None,
                    }
                }
                _ => None,
            };
            let ptr = match (*c, c.input().and_then(|k| self.ins.get(k))) {
                _ if run.is_some() => at(run.and_then(|v| v.get(start..start + total))),
                // A tiled bias: its row repeated, read from the call's phase.
                (super::stream::Stream::Staged(_), _) if period > 0 => {
                    let phase = start % period;
                    at(buf.get(phase..phase + total))
                }
                (super::stream::Stream::Staged(l), _) => {
                    at(super::stream::stage(l, &self.ins, (start, total), buf))
                }
                (super::stream::Stream::Pieces(m), Some(In::Val(v))) => {
                    let Some(t) = self.tables.get_mut(slot) else {
                        return false;
                    };
                    super::stream::pieces(&m, v, buf, (start, total), t)
                }
                (super::stream::Stream::Repeats(s), Some(In::Val(v))) => {
                    let Some(t) = self.tables.get_mut(slot) else {
                        return false;
                    };
                    super::stream::repeats(&s, v, (start, total), t)
                }
                (_, Some(In::Val(v))) if c.fits(start, total) => match c.base(start) {
                    Some(off) => at(v.get(off..off + total)),
                    None => at(buf.get(..total)),
                },
                _ => None,
            };
            let Some(ptr) = ptr else {
                return false;
            };
            *p = ptr;
        }
        true
    }

    /// Readies a call for elements `start..start + total`: the cyclic streams' addresses
    /// and the per-run scalars. False when the range leaves the domain or a broadcast
    /// value changes inside it (the caller falls back to the interpreter).
    #[inline(always)]
    fn prepare(&mut self, start: usize, total: usize) -> bool {
        use super::jit::Scalar;
        if start.checked_add(total).is_none_or(|e| e > self.n) || !self.set_cyclic(start, total) {
            return false;
        }
        for (slot, s) in self.code.scalars.iter().enumerate() {
            if let Scalar::Run { input, inner, len } = *s {
                if start % inner + total > inner {
                    return false;
                }
                let (Some(x), Some(d)) = (self.ins.get(input), self.scalars.get_mut(slot)) else {
                    return false;
                };
                *d = x.get((start / inner) % len);
            }
        }
        true
    }

    /// Runs `code` (this binding's code or its streamed copy) on the `16 * count`
    /// elements at `start` (readied by `prepare`) into `out`.
    ///
    /// # Safety
    /// `out` must be valid for writing `16 * count` f32, and `prepare(start, 16 * count)`
    /// must have returned true.
    #[inline(always)]
    unsafe fn run(&self, start: usize, (out, count): (*mut f32, usize), code: &super::jit::Code) {
        // SAFETY: every streamed input pointer is the start of an f32 input of at least
        // `n` elements (checked in `new`) and `start + 16 * count <= n` (`prepare`), so
        // the code's reads at `start .. start + 16 * count` are in bounds; each cyclic
        // stream points at `16 * count` in-bounds elements, or a `Stream::Pieces` at a
        // table of the addresses of the rows of `len` readable values the call covers
        // (`prepare`, `stream::pieces`); `out` holds `16 * count` f32 (the caller);
        // `scalars` has one value per scalar slot (`new`).
        unsafe { code.call(&self.ptrs, out, start, count, &self.scalars) }
    }

    /// The kernel's values at `start..start + V`, or `None` when the code cannot run
    /// that block.
    #[inline(always)]
    fn eval(&mut self, start: usize) -> Option<&[f32; V]> {
        if !self.prepare(start, V) {
            return None;
        }
        let out = self
            .out
            .get_or_insert_with(|| Box::new([0.0; V]))
            .as_mut_ptr();
        // SAFETY: `out` is this binding's `V`-element block; `prepare` returned true.
        unsafe { self.run(start, (out, super::jit::STEPS), &self.code) };
        self.out.as_deref()
    }

    /// As [`Bound::eval`], writing the `dst.len()` values (a multiple of 16) straight to
    /// `dst` in one call instead; false (and nothing written) when the code cannot run
    /// that range.
    #[inline(always)]
    fn eval_to(&mut self, start: usize, dst: &mut [std::mem::MaybeUninit<f32>]) -> bool {
        let len = dst.len();
        if len == 0 || !len.is_multiple_of(16) || !self.prepare(start, len) {
            return false;
        }
        let out = dst.as_mut_ptr().cast::<f32>();
        // Into the output itself: with non-temporal stores when the code has them (a
        // large output) and the block is aligned as they need.
        let code = match &self.code.streamed {
            Some(c) if (out as usize).is_multiple_of(64) => &**c,
            _ => &self.code,
        };
        // SAFETY: `dst` holds `len` f32 (uninitialised memory may be written through a
        // raw pointer), `len / 16` steps of 16; `prepare(start, len)` returned true; the
        // streamed code (same reads, same layout of pointers and scalars: built from the
        // same kernel) gets a 64-byte aligned `out`.
        unsafe { self.run(start, (out, len / 16), code) };
        true
    }

    /// Folds whole groups of `LANES` values at `start..start + len` into `lanes` with
    /// fold code; the number of values folded (0 when the code cannot run the range).
    fn fold(&mut self, start: usize, len: usize, lanes: &mut [f32; LANES]) -> usize {
        let total = len / LANES * LANES;
        if total == 0 || !self.prepare(start, total) {
            return 0;
        }
        // SAFETY: as in `run`, for the `total` elements `prepare` checked; `lanes` holds
        // `LANES` f32; this is fold code (it is bound only from `Kernel::fold_jit`).
        unsafe {
            self.code
                .fold(&self.ptrs, lanes, start, total / LANES, &self.scalars)
        };
        total
    }
}
