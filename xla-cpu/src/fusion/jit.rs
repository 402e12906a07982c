//! Machine code for fused f32 kernels on AVX-512 CPUs (`avx512.rs`) and on AVX2 CPUs with
//! FMA (`avx2.rs`): the whole expression is evaluated 16 lanes at a time (one `zmm`
//! register or two `ymm` registers), as XLA's own generated loops do, instead of one
//! table call per op that reads and writes a block in memory (`fast.rs`).
//!
//! Why generated code: the interpreter's per-op loads and stores bound the fused
//! elementwise benchmark (B5) at about 1.7x XLA's time; keeping intermediates in
//! registers is what XLA does. The code is assembled with `iced-x86` into memory mapped
//! executable (`memmap2`). Every op emitted here computes exactly what the interpreter's
//! block function computes (the same IEEE operations in the same order, `exp` and `tanh`
//! with the same fused multiply-adds), so results are bit-identical with and without it;
//! tests compare the two. A kernel with an op or load this generator does not know runs
//! on the interpreter. `XLA_CPU_NO_JIT` turns it off.
//!
//! Why an assembler rather than a code generator: Cranelift (which compiles whole loops,
//! `native/`) lowers vectors of at most 128 bits on x86, a quarter of a `zmm` register,
//! and has no opmasks or embedded broadcasts; LLVM (through `inkwell`) would vectorise as
//! XLA does but needs a matching LLVM installed to build, and runs its optimiser per
//! kernel. These kernels are straight-line expressions with no control flow to allocate
//! registers across, so emitting each op's fixed instruction sequence is all it takes.

mod avx2;
mod avx512;
mod bank;
mod log;
mod perf_map;
pub(crate) use perf_map::record_native;

use bank::Bank;

use super::kern::{LANES, V};
use super::spread::Spread;
use super::stream::Stream;
use super::{Fop, Kernel, Load, Node};
use iced_x86::code_asm::*;
use std::collections::HashMap;
use xla_core::attrs::BinaryOp;

/// `f(ptrs, out, start, count, consts, scalars)`: writes `16 * count` values of the
/// kernel at elements `start..` to `out`; input `k` is read at `ptrs[k]`, cyclic stream
/// `j` from `ptrs[CYCLIC_BASE + j]`, constants at `consts`, per-call scalars at `scalars`.
type Entry =
    unsafe extern "sysv64" fn(*const *const f32, *mut f32, usize, usize, *const u32, *const f32);

/// A per-call scalar the generated code broadcasts (filled by the caller per block).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Scalar {
    /// Element 0 of input `k`.
    First(usize),
    /// Input `input` at `(i / inner) % len`, constant over a block inside one run of
    /// `inner` elements.
    Run {
        /// The input.
        input: usize,
        /// Elements per value.
        inner: usize,
        /// Values.
        len: usize,
    },
}

/// A kernel's machine code.
pub(crate) struct Code {
    _map: memmap2::Mmap,
    entry: Entry,
    consts: Vec<u32>,
    /// The scalars the code reads, in slot order.
    pub scalars: Vec<Scalar>,
    /// The inputs the code reads in place (16 lanes per step).
    pub streams: Vec<usize>,
    /// Inputs read at an address set per call (`stream.rs`: a broadcast onto runs of
    /// dimensions, a slice or pad read row by row): the caller puts the address of element
    /// `Stream::base(start)` (or of a buffer of padding) at `ptrs[CYCLIC_BASE + slot]` per
    /// call, and the code reads 16 lanes per step from there; for a `Stream::Pieces`, the
    /// address of a table of piece addresses (`stream::pieces`), one per piece of the call.
    pub cyclic: Vec<Stream>,
    /// Whether one call may cover any range of the output (a span of blocks): every
    /// per-call stream is a row table or a staged load, and no scalar changes along the
    /// way (a slice or broadcast read in place covers one run of its rows per call).
    pub spans: bool,
    /// The same code writing its output with non-temporal stores (`vmovntps`), for
    /// outputs too large to stay in cache (see [`streaming_pays`]); its output address
    /// must be 64-byte aligned, and the caller fences (`sfence`) once it is done with a
    /// range (a fence per call, every 8 KiB, made B5 40% slower).
    pub streamed: Option<Box<Code>>,
}

/// Where the per-call cyclic stream addresses start in the pointer table.
pub(crate) const CYCLIC_BASE: usize = 64;

impl std::fmt::Debug for Code {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Code")
            .field("consts", &self.consts.len())
            .field("scalars", &self.scalars)
            .finish()
    }
}

impl Code {
    /// Runs fold code: folds `LANES * groups` values at element `start` into `lanes`
    /// (element `start + i` into lane `i % LANES`, in order).
    ///
    /// # Safety
    /// As [`Code::call`] for `16 * count = LANES * groups` values, with `lanes` in place
    /// of `out`; the code must have been compiled with a combiner.
    pub(crate) unsafe fn fold(
        &self,
        ptrs: &[*const f32],
        lanes: &mut [f32; LANES],
        start: usize,
        groups: usize,
        scalars: &[f32],
    ) {
        // SAFETY: the caller's contract; fold code reads and writes the `LANES` lanes at
        // `lanes` and nothing else besides what `call` reads.
        unsafe { self.call(ptrs, lanes.as_mut_ptr(), start, groups, scalars) }
    }

    /// Runs the code: `16 * count` values at element `start` into `out`.
    ///
    /// # Safety
    /// `ptrs[k]` must point to at least `start + 16 * count` readable f32 for every
    /// `k` in `streams`, `ptrs[CYCLIC_BASE + j]` to `16 * count` readable f32 for every
    /// cyclic stream `j` (for a `Stream::Pieces` of pieces of `p = stream::piece_len`: to
    /// a table of `ceil(16 * count / p)` addresses of `p` readable f32 each), `out` to
    /// `16 * count` writable f32, and `scalars` must hold one value per entry of
    /// `self.scalars`.
    pub(crate) unsafe fn call(
        &self,
        ptrs: &[*const f32],
        out: *mut f32,
        start: usize,
        count: usize,
        scalars: &[f32],
    ) {
        // SAFETY: the caller's contract covers every address the code reads or writes;
        // `consts` is this code's own pool, indexed only by offsets the generator made.
        unsafe {
            (self.entry)(
                ptrs.as_ptr(),
                out,
                start,
                count,
                self.consts.as_ptr(),
                scalars.as_ptr(),
            )
        }
    }
}

/// Whether executables compiled from now on may generate code (see [`set_codegen`]).
static CODEGEN: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(true);

/// Turns machine-code generation for fused f32 kernels on or off for executables
/// compiled afterwards (on by default; `XLA_CPU_NO_JIT` in the environment turns it off
/// too). Results are the same either way, bit for bit; off, fused kernels run on the
/// block interpreter. Where the CPU lacks AVX2 and FMA the interpreter always runs.
pub fn set_codegen(on: bool) {
    CODEGEN.store(on, std::sync::atomic::Ordering::Relaxed);
}

/// True unless generation is turned off (by [`set_codegen`] or `XLA_CPU_NO_JIT`).
pub(crate) fn wanted() -> bool {
    CODEGEN.load(std::sync::atomic::Ordering::Relaxed)
        && std::env::var_os("XLA_CPU_NO_JIT").is_none()
}

/// True when the generator may be used on this CPU (AVX-512F/BW/DQ/VL, or AVX2 with FMA)
/// and is not turned off.
pub(crate) fn available() -> bool {
    super::run::simd_level() >= 1
        && CODEGEN.load(std::sync::atomic::Ordering::Relaxed)
        && std::env::var_os("XLA_CPU_NO_JIT").is_none()
}

/// The constant pool: f32 values and integer masks, deduplicated, addressed from `r8`.
#[derive(Default)]
struct Pool {
    bits: Vec<u32>,
    at: HashMap<u32, usize>,
    /// Where each 8-lane copy starts (`wide`).
    wide_at: HashMap<u32, usize>,
}

impl Pool {
    /// The byte offset of `b` in the pool.
    fn offset(&mut self, b: u32) -> i32 {
        let i = *self.at.entry(b).or_insert_with(|| {
            self.bits.push(b);
            self.bits.len() - 1
        });
        (4 * i) as i32
    }
    /// `b` broadcast to 16 lanes, as a memory operand.
    fn bits(&mut self, b: u32) -> AsmMemoryOperand {
        dword_bcst(r8 + self.offset(b))
    }
    /// `x` broadcast to 16 lanes, as a memory operand.
    fn f(&mut self, x: f32) -> AsmMemoryOperand {
        self.bits(x.to_bits())
    }
    /// `b` in 8 consecutive lanes, as a 32-byte memory operand (AVX2 has no embedded
    /// broadcast); each copy starts on a 32-byte boundary of the pool.
    fn wide(&mut self, b: u32) -> AsmMemoryOperand {
        let bits = &mut self.bits;
        let i = *self.wide_at.entry(b).or_insert_with(|| {
            bits.resize(bits.len().next_multiple_of(8), 0);
            let i = bits.len();
            bits.extend([b; 8]);
            i
        });
        ymmword_ptr(r8 + (4 * i) as i32)
    }
    /// `x` in 8 lanes, as a memory operand.
    fn wf(&mut self, x: f32) -> AsmMemoryOperand {
        self.wide(x.to_bits())
    }
    /// `x` as a scalar memory operand (for `vbroadcastss`).
    fn ptr(&mut self, x: f32) -> AsmMemoryOperand {
        dword_ptr(r8 + self.offset(x.to_bits()))
    }
}

// Comparison predicates of `vcmpps`.
/// `!(x >= y)`, true for NaN.
const NGE_UQ: i32 = 0x19;
const EQ_OQ: i32 = 0x00;
const UNORD_Q: i32 = 0x03;
const NEQ_UQ: i32 = 0x04;
const NLT_UQ: i32 = 0x05;
const LT_OQ: i32 = 0x11;
const LE_OQ: i32 = 0x12;
const GE_OQ: i32 = 0x1d;
const GT_OQ: i32 = 0x1e;

/// `vcmpps`'s predicate for compare direction `c` (ordered, so NaN compares false, but
/// `Ne`, which NaN makes true).
fn predicate(c: xla_core::attrs::ComparisonDirection) -> i32 {
    use xla_core::attrs::ComparisonDirection as C;
    match c {
        C::Eq => EQ_OQ,
        C::Ne => NEQ_UQ,
        C::Ge => GE_OQ,
        C::Gt => GT_OQ,
        C::Le => LE_OQ,
        C::Lt => LT_OQ,
    }
}

/// An op's one to three source registers as `(x, y, z)` (the missing ones repeat the
/// last); `None` for any other count.
fn operands<T: Copy>(s: &[T]) -> Option<(T, T, T)> {
    match *s {
        [x] => Some((x, x, x)),
        [x, y] => Some((x, y, y)),
        [x, y, z] => Some((x, y, z)),
        _ => None,
    }
}

type Asm = CodeAssembler;
/// An AVX-512 vector register (`avx512.rs`, `log.rs`).
type Z = AsmRegisterZmm;
type R = Result<(), IcedError>;

/// One vector width's instructions, for the loop skeleton below (`avx512.rs`: 16 lanes
/// per register; `avx2.rs`: 8). The skeleton works in steps of 16 lanes (64 bytes) either
/// way, so callers, tables of row pieces and fold lanes are the same on both.
trait Width {
    /// The vector register type.
    type Z: Copy + 'static;
    /// Bytes per register.
    const BYTES: i32;
    /// The banks of one 16-lane step with every register, one per register's lanes.
    const SINGLE: &'static [Bank<Self::Z>];
    /// Two banks in disjoint registers whose bodies are interleaved (`bank.rs`).
    const PAIR: [Bank<Self::Z>; 2];
    /// Value registers the fold keeps its accumulators in (the top of `SINGLE[0]`'s).
    const FOLD_REGS: usize;
    /// `d` = the vector at `m`.
    fn load(a: &mut Asm, d: Self::Z, m: AsmMemoryOperand) -> R;
    /// `d` = the f32 at `m` in every lane.
    fn bcast(a: &mut Asm, d: Self::Z, m: AsmMemoryOperand) -> R;
    /// `v` to `m`, non-temporal when `streamed` (`m` aligned).
    fn store(a: &mut Asm, m: AsmMemoryOperand, v: Self::Z, streamed: bool) -> R;
    /// Op `f` into `d` (distinct from its sources `s`); `Ok(false)` when not supported
    /// or the bank lacks the scratch registers it needs.
    fn op(
        a: &mut Asm,
        p: &mut Pool,
        b: &Bank<Self::Z>,
        f: Fop,
        d: Self::Z,
        s: &[Self::Z],
    ) -> Result<bool, IcedError>;
    /// Before the fold loop: the accumulators from the lanes at `rsi`.
    fn fold_enter(a: &mut Asm) -> R;
    /// After it: the accumulators back to the lanes.
    fn fold_leave(a: &mut Asm) -> R;
    /// Combines `v` into accumulator `i` (lanes `i * BYTES / 4..`) with `op`;
    /// `Ok(false)` when not supported.
    fn fold(
        a: &mut Asm,
        b: &Bank<Self::Z>,
        op: BinaryOp,
        i: usize,
        v: Self::Z,
    ) -> Result<bool, IcedError>;
}

/// Machine code for `k` (an f32 kernel whose f32 inputs are `f32_input`): with `fold`
/// unset, code writing the kernel's values; with a combiner, code folding them into
/// `LANES` lanes (see [`Code::fold`]). `None` when the kernel uses something the generator does
/// not know or needs more registers.
pub(crate) fn compile(
    k: &Kernel,
    f32_input: impl Fn(usize) -> bool,
    fold: Option<BinaryOp>,
) -> Option<Code> {
    if super::run::simd_level() >= 2 {
        compile_for::<avx512::Avx512>(k, &f32_input, fold)
    } else {
        compile_for::<avx2::Avx2>(k, &f32_input, fold)
    }
}

/// [`compile`] for one vector width.
fn compile_for<W: Width>(
    k: &Kernel,
    f32_input: &dyn Fn(usize) -> bool,
    fold: Option<BinaryOp>,
) -> Option<Code> {
    let mut code = build::<W>(k, f32_input, fold, false).ok().flatten()?;
    if fold.is_none() && streaming_pays(k) {
        code.streamed = build::<W>(k, f32_input, None, true)
            .ok()
            .flatten()
            .map(Box::new);
    }
    Some(code)
}

/// Outputs from this many bytes may be written with non-temporal stores...
const STREAM_MIN_BYTES: usize = 8 << 20;

/// ... when the step's output and streamed inputs together are larger than the last-level
/// cache: the output would leave the cache before anything read it, and ordinary stores
/// first read every line they write. Measured (a C model of B5's fused GELU on this
/// machine's two cores, 16 MiB out of three 16 MiB inputs): 1.35-1.44 ms with ordinary
/// stores, 0.98-1.04 ms streamed.
fn streaming_pays(k: &Kernel) -> bool {
    let out = k.n.saturating_mul(4);
    let inputs = k
        .nodes
        .iter()
        .filter(|n| matches!(n, Node::Load(Load::Full(_))))
        .count();
    out >= STREAM_MIN_BYTES && out.saturating_mul(1 + inputs) > crate::isa::last_level_cache()
}

/// What the loop body reads besides registers.
#[derive(Clone, Default)]
struct Reads {
    scalars: Vec<Scalar>,
    streams: Vec<usize>,
    cyclic: Vec<Stream>,
}

/// Emits the kernel's value for the register's lanes at byte offset `rax + b.off` into a
/// register (below `limit`); `None` when not supported.
fn body<W: Width>(
    a: &mut Asm,
    p: &mut Pool,
    r: &mut Reads,
    k: &Kernel,
    f32_input: &dyn Fn(usize) -> bool,
    b: &Bank<W::Z>,
    limit: usize,
) -> Result<Option<W::Z>, IcedError> {
    let zmm = |i: usize| b.values.get(i).copied();
    // A pad's value read from an input is read as f32 when its buffer is filled.
    let pad_ok = |m: &super::remap::Remap| match m.pad {
        Some(super::remap::PadValue::Input(k)) => f32_input(k),
        _ => true,
    };
    let limit = limit.min(b.values.len());
    let nodes = &k.nodes;
    let mut last = vec![0usize; nodes.len()];
    for (j, n) in nodes.iter().enumerate() {
        last[j] = j;
        if let Node::Op(_, args) = n {
            for &x in args {
                if let Some(l) = last.get_mut(x) {
                    *l = j;
                }
            }
        }
    }
    let mut reg: Vec<Option<usize>> = vec![None; nodes.len()];
    let mut free: Vec<usize> = (0..limit).rev().collect();
    for (j, n) in nodes.iter().enumerate() {
        let Some(dr) = free.pop() else {
            return Ok(None);
        };
        let Some(d) = zmm(dr) else {
            return Ok(None);
        };
        match n {
            // A pred input (a mask) is staged as 0/1 values.
            Node::Load(l @ Load::Full(i)) if !f32_input(*i) && *i < CYCLIC_BASE => {
                cyclic_load::<W>(a, r, b, Stream::Staged(*l), d)?;
            }
            Node::Load(Load::Full(i)) => {
                if *i >= CYCLIC_BASE {
                    return Ok(None);
                }
                if !r.streams.contains(i) {
                    r.streams.push(*i);
                }
                a.mov(b.ptr, qword_ptr(rdi + (8 * *i) as i32))?;
                W::load(a, d, b.ptr + rax + b.off)?;
            }
            Node::Load(Load::Const(c)) => {
                W::bcast(a, d, p.ptr(*c as f32))?;
            }
            // A broadcast along the leading dims (a bias over rows) or onto two runs (a
            // per-lane bias) whose runs hold whole 16-lane steps: through a table of the
            // addresses of the runs' pieces, set per call, so a call covers many runs. (A
            // bias shorter than a block is staged instead: its row repeated once per run,
            // `stream::tile`, read with no table at all.)
            Node::Load(Load::Bcast {
                input,
                inner: 1,
                len,
            }) if *len >= V && super::stream::piece_len(*len) > 0 && f32_input(*input) => {
                let s = Spread::cyclic(*input, *len);
                piece_load::<W>(
                    a,
                    r,
                    b,
                    Stream::Repeats(s),
                    super::stream::piece_len(*len),
                    d,
                )?;
            }
            Node::Load(Load::Spread(s))
                if super::stream::piece_len(s.len) > 0 && f32_input(s.input) =>
            {
                piece_load::<W>(
                    a,
                    r,
                    b,
                    Stream::Repeats(*s),
                    super::stream::piece_len(s.len),
                    d,
                )?;
            }
            // Other long runs read a contiguous run of the operand per block: a stream
            // whose base the caller sets per call (`Spread::base`).
            Node::Load(Load::Bcast {
                input,
                inner: 1,
                len,
            }) if *len >= V && f32_input(*input) => {
                cyclic_load::<W>(a, r, b, Stream::Spread(Spread::cyclic(*input, *len)), d)?;
            }
            Node::Load(Load::Spread(s)) if s.len >= V && f32_input(s.input) => {
                cyclic_load::<W>(a, r, b, Stream::Spread(*s), d)?;
            }
            // A slice or pad whose rows hold whole 16-lane steps: through a table of the
            // addresses of the rows' pieces, set per call, so a call covers many rows.
            Node::Load(Load::Remap(m))
                if super::stream::piece_len(m.len) > 0 && f32_input(m.input) && pad_ok(m) =>
            {
                piece_load::<W>(
                    a,
                    r,
                    b,
                    Stream::Pieces(*m),
                    super::stream::piece_len(m.len),
                    d,
                )?;
            }
            // Other long rows: the same as a broadcast, the base set per call from
            // `Remap::base` (a buffer of the padding value on a padded row).
            Node::Load(Load::Remap(m)) if m.len >= V && f32_input(m.input) && pad_ok(m) => {
                cyclic_load::<W>(a, r, b, Stream::Remap(*m), d)?;
            }
            Node::Load(l) => match *l {
                Load::Scalar(i) => scalar_load::<W>(a, r, Scalar::First(i), d)?,
                // Only a value constant over whole blocks can be a per-call scalar.
                Load::Bcast { input, inner, len } if inner >= V => {
                    scalar_load::<W>(a, r, Scalar::Run { input, inner, len }, d)?
                }
                // Anything else is computed per call into a buffer the code reads.
                _ => cyclic_load::<W>(a, r, b, Stream::Staged(*l), d)?,
            },
            Node::Op(f, args) => {
                let mut s = Vec::with_capacity(args.len());
                for &x in args {
                    let Some(z) = reg.get(x).copied().flatten().and_then(zmm) else {
                        return Ok(None);
                    };
                    s.push(z);
                }
                if !W::op(a, p, b, *f, d, &s)? {
                    return Ok(None);
                }
                for &x in args {
                    if last.get(x) == Some(&j) {
                        if let Some(r) = reg.get(x).copied().flatten() {
                            if !free.contains(&r) {
                                free.push(r);
                            }
                        }
                    }
                }
            }
        }
        reg[j] = Some(dr);
        if last[j] == j && j + 1 != nodes.len() {
            free.push(dr);
        }
    }
    Ok(reg.last().copied().flatten().and_then(zmm))
}

/// Broadcasts per-call scalar `s` (its slot allocated on first use) into `d`.
fn scalar_load<W: Width>(a: &mut Asm, r: &mut Reads, s: Scalar, d: W::Z) -> R {
    let slot = r.scalars.iter().position(|x| *x == s).unwrap_or_else(|| {
        r.scalars.push(s);
        r.scalars.len() - 1
    });
    W::bcast(a, d, dword_ptr(r9 + (4 * slot) as i32))
}

/// Loads a register of cyclic stream `c` (its slot allocated on first use) into `d`.
fn cyclic_load<W: Width>(a: &mut Asm, r: &mut Reads, b: &Bank<W::Z>, c: Stream, d: W::Z) -> R {
    let slot = cyclic_slot(r, c);
    a.mov(b.ptr, qword_ptr(rdi + (8 * (CYCLIC_BASE + slot)) as i32))?;
    W::load(a, d, b.ptr + r11 + b.off)
}

/// The slot of stream `c` among the code's cyclic streams (added if new).
fn cyclic_slot(r: &mut Reads, c: Stream) -> usize {
    r.cyclic.iter().position(|x| *x == c).unwrap_or_else(|| {
        r.cyclic.push(c);
        r.cyclic.len() - 1
    })
}

/// Loads the register's lanes at byte offset `r11 + off` from the call's start out of
/// pieces of `len` values (a power of two, `stream::piece_len`): piece `(r11 + off) >>
/// log2(4 len)` of the stream's table, at byte `(r11 + off) & (4 len - 1)` in it (a
/// register never straddles two pieces: `len` is a multiple of 16 and the offsets of the
/// register's bytes).
fn piece_load<W: Width>(
    a: &mut Asm,
    r: &mut Reads,
    b: &Bank<W::Z>,
    c: Stream,
    len: usize,
    d: W::Z,
) -> R {
    let slot = cyclic_slot(r, c);
    let bytes = 4 * len as u32;
    a.mov(b.ptr, qword_ptr(rdi + (8 * (CYCLIC_BASE + slot)) as i32))?;
    a.lea(b.idx, qword_ptr(r11 + b.off))?;
    a.shr(b.idx, bytes.trailing_zeros())?;
    a.mov(b.ptr, qword_ptr(b.ptr + b.idx * 8))?;
    a.lea(b.idx, qword_ptr(r11 + b.off))?;
    a.and(b.idx, (bytes - 1) as i32)?;
    W::load(a, d, b.ptr + b.idx)
}

/// The loop writing the kernel's values, 16 lanes per step: the two interleaved copies of
/// the body of `W::PAIR` (see `bank.rs`: two steps per pass with AVX-512, then one copy
/// for an odd last step; the two halves of one step with AVX2); where the body needs more
/// than a copy's registers, `W::SINGLE` with all of them. `false` when not supported.
fn elementwise<W: Width>(
    a: &mut Asm,
    p: &mut Pool,
    r: &mut Reads,
    k: &Kernel,
    f32_input: &dyn Fn(usize) -> bool,
    (done, stream): (CodeLabel, bool),
) -> Result<bool, IcedError> {
    let mut top = a.create_label();
    let before = r.clone();
    let mut copies = Vec::with_capacity(2);
    for bank in &W::PAIR {
        let mut s = CodeAssembler::new(64)?;
        match body::<W>(&mut s, p, r, k, f32_input, bank, usize::MAX)? {
            Some(res) => copies.push((s.take_instructions(), res, bank.off)),
            None => break,
        }
    }
    // Bytes (a multiple of a 64-byte step) one pass of both copies writes.
    let pass = 2 * W::BYTES;
    if let [(xa, ra, oa), (xb, rb, ob)] = copies.as_slice() {
        let steps = pass / 64;
        let mut tail = a.create_label();
        a.set_label(&mut top)?;
        if steps > 1 {
            a.cmp(rcx, steps)?;
            a.jb(tail)?;
        }
        bank::interleave(a, xa.clone(), xb.clone())?;
        W::store(a, rsi + *oa, *ra, stream)?;
        W::store(a, rsi + *ob, *rb, stream)?;
        a.add(rsi, pass)?;
        a.add(rax, pass)?;
        a.add(r11, pass)?;
        a.sub(rcx, steps)?;
        if steps > 1 {
            a.jmp(top)?;
            // An odd last step: the first copy alone (its bank covers a whole step).
            a.set_label(&mut tail)?;
            a.test(rcx, rcx)?;
            a.jz(done)?;
            bank::interleave(a, xa.clone(), Vec::new())?;
            W::store(a, rsi + *oa, *ra, stream)?;
        } else {
            a.jnz(top)?;
        }
        return Ok(true);
    }
    *r = before;
    a.set_label(&mut top)?;
    for bank in W::SINGLE {
        let Some(res) = body::<W>(a, p, r, k, f32_input, bank, usize::MAX)? else {
            return Ok(false);
        };
        W::store(a, rsi + bank.off, res, stream)?;
    }
    a.add(rsi, 64)?;
    a.add(rax, 64)?;
    a.add(r11, 64)?;
    a.dec(rcx)?;
    a.jnz(top)?;
    Ok(true)
}

/// The loop folding the kernel's values into the `LANES` accumulator lanes, `LANES`
/// values per step. `false` when not supported.
fn folding<W: Width>(
    a: &mut Asm,
    p: &mut Pool,
    r: &mut Reads,
    k: &Kernel,
    f32_input: &dyn Fn(usize) -> bool,
    op: BinaryOp,
) -> Result<bool, IcedError> {
    let Some(b) = W::SINGLE.first() else {
        return Ok(false);
    };
    let regs = 4 * LANES / W::BYTES as usize;
    let limit = b.values.len().saturating_sub(W::FOLD_REGS);
    let mut top = a.create_label();
    a.set_label(&mut top)?;
    for i in 0..regs {
        let Some(res) = body::<W>(a, p, r, k, f32_input, b, limit)? else {
            return Ok(false);
        };
        if !W::fold(a, b, op, i, res)? {
            return Ok(false);
        }
        a.add(rax, W::BYTES)?;
        a.add(r11, W::BYTES)?;
    }
    a.dec(rcx)?;
    a.jnz(top)?;
    Ok(true)
}

fn build<W: Width>(
    k: &Kernel,
    f32_input: &dyn Fn(usize) -> bool,
    fold: Option<BinaryOp>,
    stream: bool,
) -> Result<Option<Code>, IcedError> {
    let mut a = CodeAssembler::new(64)?;
    let mut p = Pool::default();
    let mut reads = Reads::default();
    // rdi: ptrs, rsi: out (or the lanes), rdx: start, rcx: count (of 16 lanes, or of
    // `LANES` when folding), r8: consts, r9: scalars; rax: byte offset of the current 16
    // lanes, r11: the same from the call's start (for cyclic streams).
    let mut done = a.create_label();
    if fold.is_some() {
        W::fold_enter(&mut a)?;
    }
    // r12 and r13 are the banks' index registers (`Bank::idx`); callee-saved.
    a.push(r12)?;
    a.push(r13)?;
    a.test(rcx, rcx)?;
    a.jz(done)?;
    a.mov(rax, rdx)?;
    a.xor(r11, r11)?;
    a.shl(rax, 2)?;
    let emitted = match fold {
        None => elementwise::<W>(&mut a, &mut p, &mut reads, k, f32_input, (done, stream))?,
        Some(op) => folding::<W>(&mut a, &mut p, &mut reads, k, f32_input, op)?,
    };
    if !emitted {
        return Ok(None);
    }
    a.set_label(&mut done)?;
    if fold.is_some() {
        W::fold_leave(&mut a)?;
    }
    a.vzeroupper()?;
    a.pop(r13)?;
    a.pop(r12)?;
    a.ret()?;
    let bytes = a.assemble(0)?;
    // W^X: the code is copied into a read+write mapping, then `make_exec` mprotects it
    // read+execute (dropping write) before anything can call it; the memory is never
    // writable and executable at once (tested by tests/wx.rs through /proc/self/maps).
    let Ok(mut map) = memmap2::MmapMut::map_anon(bytes.len()) else {
        return Ok(None);
    };
    map.copy_from_slice(&bytes);
    let Ok(map) = map.make_exec() else {
        return Ok(None);
    };
    perf_map::record(map.as_ptr(), &bytes, fold.is_some());
    // SAFETY: `map` holds position-independent code assembled above for the SysV ABI
    // with exactly the `Entry` signature; it lives as long as `Code`, which owns it.
    let entry: Entry = unsafe { std::mem::transmute::<*const u8, Entry>(map.as_ptr()) };
    let spans = reads.cyclic.iter().all(|c| {
        matches!(
            c,
            Stream::Pieces(_) | Stream::Repeats(_) | Stream::Staged(_)
        )
    }) && reads.scalars.iter().all(|s| matches!(s, Scalar::First(_)));
    Ok(Some(Code {
        _map: map,
        entry,
        consts: p.bits,
        scalars: reads.scalars,
        streams: reads.streams,
        cyclic: reads.cyclic,
        spans,
        streamed: None,
    }))
}

/// Values per call of the generated code: one fast block.
pub(crate) const STEPS: usize = V / 16;
