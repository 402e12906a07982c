//! Machine code for fused f32 kernels on AVX-512 CPUs: the whole expression is evaluated
//! 16 lanes at a time in `zmm` registers, as XLA's own generated loops do, instead of one
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
use xla_core::attrs::{BinaryOp, ComparisonDirection, UnaryOp};

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
/// block interpreter. Where the CPU lacks AVX-512 the interpreter always runs.
pub fn set_codegen(on: bool) {
    CODEGEN.store(on, std::sync::atomic::Ordering::Relaxed);
}

/// True unless generation is turned off (by [`set_codegen`] or `XLA_CPU_NO_JIT`).
pub(crate) fn wanted() -> bool {
    CODEGEN.load(std::sync::atomic::Ordering::Relaxed)
        && std::env::var_os("XLA_CPU_NO_JIT").is_none()
}

/// True when the generator may be used on this CPU (AVX-512F/BW/DQ/VL) and is not
/// turned off.
pub(crate) fn available() -> bool {
    super::run::simd_level() >= 2
        && CODEGEN.load(std::sync::atomic::Ordering::Relaxed)
        && std::env::var_os("XLA_CPU_NO_JIT").is_none()
}

/// The constant pool: f32 values and integer masks, deduplicated, addressed from `r8`.
#[derive(Default)]
struct Pool {
    bits: Vec<u32>,
    at: HashMap<u32, usize>,
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
    /// `x` as a scalar memory operand (for `vbroadcastss`).
    fn ptr(&mut self, x: f32) -> AsmMemoryOperand {
        dword_ptr(r8 + self.offset(x.to_bits()))
    }
}

// Comparison predicates of `vcmpps`.
const EQ_OQ: i32 = 0x00;
const UNORD_Q: i32 = 0x03;
const NEQ_UQ: i32 = 0x04;
const NLT_UQ: i32 = 0x05;
const LT_OQ: i32 = 0x11;
const LE_OQ: i32 = 0x12;
const GE_OQ: i32 = 0x1d;
const GT_OQ: i32 = 0x1e;

type Asm = CodeAssembler;
/// A vector register.
type Z = AsmRegisterZmm;
type R = Result<(), IcedError>;

/// `d = max(x, y)` (`min` when asked) exactly as `ops::vmax`: both orders of `maxps`
/// (each gives its second operand on ties and NaN), their bitwise and (or) for ±0, and
/// `x + y` where either is NaN.
fn emit_max(
    a: &mut Asm,
    b: &Bank,
    d: AsmRegisterZmm,
    x: AsmRegisterZmm,
    y: AsmRegisterZmm,
    min: bool,
) -> R {
    let t0 = b.t[0];
    if min {
        a.vminps(t0, x, y)?;
        a.vminps(d, y, x)?;
        a.vpord(d, d, t0)?;
    } else {
        a.vmaxps(t0, x, y)?;
        a.vmaxps(d, y, x)?;
        a.vpandd(d, d, t0)?;
    }
    a.vcmpps(b.kr(0), x, y, UNORD_Q)?;
    a.vaddps(b.m(d, 0), x, y)
}

/// `d = exp(x)` exactly as `math::exp_f32` (Cephes with FMA, XLA's clamps and flush).
#[allow(clippy::excessive_precision)]
fn emit_exp(a: &mut Asm, p: &mut Pool, b: &Bank, d: AsmRegisterZmm, x: AsmRegisterZmm) -> R {
    const LO: f32 = -88.376_262_664_794_9;
    const C1: f32 = 0.693_359_375;
    const C2: f32 = 2.121_944_40e-4;
    let [t0, _, t2, _, t4, t5, ..] = b.t;
    // `x < LO ? LO : x` (NaN stays): `maxps` gives its second operand on NaN and ties.
    // Written without register copies (each a uop on the ports the polynomial needs):
    // the fused multiply-adds accumulate into the register that is free to overwrite,
    // with the same operands, so the same bits.
    a.vbroadcastss(t0, p.ptr(LO))?;
    a.vmaxps(t0, t0, x)?;
    a.vbroadcastss(t2, p.ptr(0.5))?;
    a.vfmadd231ps(t2, t0, p.f(std::f32::consts::LOG2_E))?;
    a.vrndscaleps(t2, t2, 0x09)?;
    a.vminps(t2, t2, p.f(127.0))?;
    a.vfmadd231ps(t0, t2, p.f(-C1))?;
    a.vfmadd231ps(t0, t2, p.f(C2))?;
    let t3 = t0;
    a.vmulps(t4, t3, t3)?;
    a.vbroadcastss(d, p.ptr(1.987_569_150_0e-4))?;
    for c in [
        1.398_199_950_7e-3,
        8.333_451_907_3e-3,
        4.166_579_589_4e-2,
        1.666_666_545_9e-1,
        5.000_000_120_1e-1,
    ] {
        a.vfmadd213ps(d, t3, p.f(c))?;
    }
    a.vfmadd213ps(d, t4, t3)?;
    a.vaddps(d, d, p.f(1.0))?;
    a.vaddps(t5, t2, p.f(12_582_912.0))?;
    a.vpsubd(t5, t5, p.bits(0x4b40_0000))?;
    a.vpaddd(t5, t5, p.bits(127))?;
    a.vpmaxsd(t5, t5, p.bits(0))?;
    a.vpslld(t5, t5, 23)?;
    a.vmulps(d, d, t5)?;
    a.vcmpps(b.kr(0), d, p.f(f32::MIN_POSITIVE), NLT_UQ)?;
    a.vmovaps(b.m(d, 0).z(), d)
}

/// `d = tanh(x)` exactly as `math::tanh_f32` (Eigen's rational form with FMA).
#[allow(clippy::excessive_precision)]
fn emit_tanh(a: &mut Asm, p: &mut Pool, b: &Bank, d: AsmRegisterZmm, x: AsmRegisterZmm) -> R {
    const CLAMP: f32 = 7.998_811_721_801_757_81;
    let [t0, t1, t2, t3, t4, ..] = b.t;
    // The clamp to ±CLAMP (NaN stays): `maxps`/`minps` give their second operand on NaN.
    a.vbroadcastss(t0, p.ptr(-CLAMP))?;
    a.vmaxps(t0, t0, x)?;
    a.vbroadcastss(t1, p.ptr(CLAMP))?;
    a.vminps(t0, t1, t0)?;
    a.vmulps(t1, t0, t0)?;
    a.vbroadcastss(t2, p.ptr(-2.760_768_477_423_55e-16))?;
    for c in [
        2.000_187_904_824_77e-13,
        -8.604_671_522_137_35e-11,
        5.122_297_090_371_14e-8,
        1.485_722_357_179_79e-5,
        6.372_619_288_754_36e-4,
        4.893_524_558_917_86e-3,
    ] {
        a.vfmadd213ps(t2, t1, p.f(c))?;
    }
    a.vbroadcastss(t3, p.ptr(1.198_258_394_667_02e-6))?;
    for c in [
        1.185_347_056_866_54e-4,
        2.268_434_632_439_00e-3,
        4.893_525_185_543_85e-3,
    ] {
        a.vfmadd213ps(t3, t1, p.f(c))?;
    }
    a.vmulps(d, t0, t2)?;
    a.vdivps(d, d, t3)?;
    a.vpandd(t4, x, p.bits(0x7fff_ffff))?;
    a.vcmpps(b.kr(0), t4, p.f(0.0004), LT_OQ)?;
    a.vmovaps(b.m(d, 0), x)
}

/// Emits op `f` into `d` (distinct from its sources); `Ok(false)` when not supported.
fn emit_op(
    a: &mut Asm,
    p: &mut Pool,
    b: &Bank,
    f: Fop,
    d: AsmRegisterZmm,
    s: &[AsmRegisterZmm],
) -> Result<bool, IcedError> {
    use BinaryOp as B;
    use ComparisonDirection as C;
    use UnaryOp as U;
    let (x, y, z) = match s {
        [x] => (*x, *x, *x),
        [x, y] => (*x, *y, *y),
        [x, y, z] => (*x, *y, *z),
        _ => return Ok(false),
    };
    match f {
        Fop::Unary(U::Neg) => a.vpxord(d, x, p.bits(0x8000_0000))?,
        Fop::Unary(U::Abs) => a.vpandd(d, x, p.bits(0x7fff_ffff))?,
        Fop::Unary(U::Sqrt) => a.vsqrtps(d, x)?,
        Fop::Unary(U::Rsqrt) => {
            a.vsqrtps(b.t[0], x)?;
            a.vbroadcastss(d, p.ptr(1.0))?;
            a.vdivps(d, d, b.t[0])?;
        }
        Fop::Unary(U::Floor) => a.vrndscaleps(d, x, 0x09)?,
        Fop::Unary(U::Ceil) => a.vrndscaleps(d, x, 0x0a)?,
        Fop::Unary(U::RoundNearestEven) => a.vrndscaleps(d, x, 0x08)?,
        Fop::Unary(U::Exp) => emit_exp(a, p, b, d, x)?,
        Fop::Unary(U::Tanh) => emit_tanh(a, p, b, d, x)?,
        Fop::Unary(U::Log) => log::emit_ln(a, p, b, d, x)?,
        Fop::Unary(U::Log1p) => log::emit_log1p(a, p, b, d, x)?,
        Fop::Unary(U::Logistic) => {
            let t7 = b.t[7];
            a.vpxord(t7, x, p.bits(0x8000_0000))?;
            emit_exp(a, p, b, d, t7)?;
            a.vaddps(d, d, p.f(1.0))?;
            a.vbroadcastss(t7, p.ptr(1.0))?;
            a.vdivps(d, t7, d)?;
        }
        Fop::Unary(_) => return Ok(false),
        Fop::Binary(B::Add) => a.vaddps(d, x, y)?,
        Fop::Binary(B::Sub) => a.vsubps(d, x, y)?,
        Fop::Binary(B::Mul) => a.vmulps(d, x, y)?,
        Fop::Binary(B::Div) => a.vdivps(d, x, y)?,
        Fop::Binary(B::Max) => emit_max(a, b, d, x, y, false)?,
        Fop::Binary(B::Min) => emit_max(a, b, d, x, y, true)?,
        Fop::Binary(_) => return Ok(false),
        Fop::Cmp(c) => {
            let pred = match c {
                C::Eq => EQ_OQ,
                C::Ne => NEQ_UQ,
                C::Ge => GE_OQ,
                C::Gt => GT_OQ,
                C::Le => LE_OQ,
                C::Lt => LT_OQ,
            };
            a.vcmpps(b.kr(0), x, y, pred)?;
            a.vbroadcastss(b.m(d, 0).z(), p.ptr(1.0))?;
        }
        Fop::Select => {
            a.vcmpps(b.kr(0), x, p.f(0.0), NEQ_UQ)?;
            a.vblendmps(b.m(d, 0), z, y)?;
        }
        Fop::Clamp => {
            let t7 = b.t[7];
            emit_max(a, b, t7, y, x, false)?;
            emit_max(a, b, d, t7, z, true)?;
        }
    }
    Ok(true)
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
    let mut code = build(k, &f32_input, fold, false).ok().flatten()?;
    if fold.is_none() && streaming_pays(k) {
        code.streamed = build(k, &f32_input, None, true)
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

/// Emits the kernel's value for the 16 lanes at byte offset `rax` into a register
/// (below `limit`); `None` when not supported.
fn body(
    a: &mut Asm,
    p: &mut Pool,
    r: &mut Reads,
    k: &Kernel,
    f32_input: &dyn Fn(usize) -> bool,
    b: &Bank,
    limit: usize,
) -> Result<Option<AsmRegisterZmm>, IcedError> {
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
                cyclic_load(a, r, b, Stream::Staged(*l), d)?;
            }
            Node::Load(Load::Full(i)) => {
                if *i >= CYCLIC_BASE {
                    return Ok(None);
                }
                if !r.streams.contains(i) {
                    r.streams.push(*i);
                }
                a.mov(b.ptr, qword_ptr(rdi + (8 * *i) as i32))?;
                a.vmovups(d, zmmword_ptr(b.ptr + rax + b.off))?;
            }
            Node::Load(Load::Const(c)) => {
                a.vbroadcastss(d, p.ptr(*c as f32))?;
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
                piece_load(
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
                piece_load(
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
                cyclic_load(a, r, b, Stream::Spread(Spread::cyclic(*input, *len)), d)?;
            }
            Node::Load(Load::Spread(s)) if s.len >= V && f32_input(s.input) => {
                cyclic_load(a, r, b, Stream::Spread(*s), d)?;
            }
            // A slice or pad whose rows hold whole 16-lane steps: through a table of the
            // addresses of the rows' pieces, set per call, so a call covers many rows.
            Node::Load(Load::Remap(m))
                if super::stream::piece_len(m.len) > 0 && f32_input(m.input) && pad_ok(m) =>
            {
                piece_load(
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
                cyclic_load(a, r, b, Stream::Remap(*m), d)?;
            }
            Node::Load(l) => match *l {
                Load::Scalar(i) => scalar_load(a, r, Scalar::First(i), d)?,
                // Only a value constant over whole blocks can be a per-call scalar.
                Load::Bcast { input, inner, len } if inner >= V => {
                    scalar_load(a, r, Scalar::Run { input, inner, len }, d)?
                }
                // Anything else is computed per call into a buffer the code reads.
                _ => cyclic_load(a, r, b, Stream::Staged(*l), d)?,
            },
            Node::Op(f, args) => {
                let mut s = Vec::with_capacity(args.len());
                for &x in args {
                    let Some(z) = reg.get(x).copied().flatten().and_then(zmm) else {
                        return Ok(None);
                    };
                    s.push(z);
                }
                if !emit_op(a, p, b, *f, d, &s)? {
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
fn scalar_load(a: &mut Asm, r: &mut Reads, s: Scalar, d: AsmRegisterZmm) -> Result<(), IcedError> {
    let slot = r.scalars.iter().position(|x| *x == s).unwrap_or_else(|| {
        r.scalars.push(s);
        r.scalars.len() - 1
    });
    a.vbroadcastss(d, dword_ptr(r9 + (4 * slot) as i32))
}

/// Loads 16 lanes of cyclic stream `c` (its slot allocated on first use) into `d`.
fn cyclic_load(
    a: &mut Asm,
    r: &mut Reads,
    b: &Bank,
    c: Stream,
    d: AsmRegisterZmm,
) -> Result<(), IcedError> {
    let slot = cyclic_slot(r, c);
    a.mov(b.ptr, qword_ptr(rdi + (8 * (CYCLIC_BASE + slot)) as i32))?;
    a.vmovups(d, zmmword_ptr(b.ptr + r11 + b.off))
}

/// The slot of stream `c` among the code's cyclic streams (added if new).
fn cyclic_slot(r: &mut Reads, c: Stream) -> usize {
    r.cyclic.iter().position(|x| *x == c).unwrap_or_else(|| {
        r.cyclic.push(c);
        r.cyclic.len() - 1
    })
}

/// Loads the 16 lanes at byte offset `r11 + off` from the call's start out of pieces of
/// `len` values (a power of two, `stream::piece_len`): piece `(r11 + off) >> log2(4 len)`
/// of the stream's table, at byte `(r11 + off) & (4 len - 1)` in it (16 lanes never
/// straddle two pieces: `len` is a multiple of 16 and the offsets of 64).
fn piece_load(
    a: &mut Asm,
    r: &mut Reads,
    b: &Bank,
    c: Stream,
    len: usize,
    d: AsmRegisterZmm,
) -> Result<(), IcedError> {
    let slot = cyclic_slot(r, c);
    let bytes = 4 * len as u32;
    a.mov(b.ptr, qword_ptr(rdi + (8 * (CYCLIC_BASE + slot)) as i32))?;
    a.lea(b.idx, qword_ptr(r11 + b.off))?;
    a.shr(b.idx, bytes.trailing_zeros())?;
    a.mov(b.ptr, qword_ptr(b.ptr + b.idx * 8))?;
    a.lea(b.idx, qword_ptr(r11 + b.off))?;
    a.and(b.idx, (bytes - 1) as i32)?;
    a.vmovups(d, zmmword_ptr(b.ptr + b.idx))
}

/// The fold accumulators (lanes 0-15, 16-31, 32-47, 48-63 of `LANES`), taken from the
/// top of the value registers.
const ACC: [AsmRegisterZmm; LANES / 16] = [zmm20, zmm21, zmm22, zmm23];

/// The loop writing the kernel's values, 16 lanes per step: two interleaved copies of the
/// body per step (see `bank.rs`) while two steps remain, then one; where the body needs
/// more than a copy's registers, one copy with all of them. `false` when not supported.
fn elementwise(
    a: &mut Asm,
    p: &mut Pool,
    r: &mut Reads,
    k: &Kernel,
    f32_input: &dyn Fn(usize) -> bool,
    (done, stream): (CodeLabel, bool),
) -> Result<bool, IcedError> {
    // The output's store: ordinary, or non-temporal (aligned addresses only).
    let store = |a: &mut Asm, at: AsmMemoryOperand, v: AsmRegisterZmm| {
        if stream {
            a.vmovntps(at, v)
        } else {
            a.vmovups(at, v)
        }
    };
    let mut top = a.create_label();
    let before = r.clone();
    let mut copies = Vec::with_capacity(2);
    for bank in [&bank::PAIR_A, &bank::PAIR_B] {
        let mut s = CodeAssembler::new(64)?;
        match body(&mut s, p, r, k, f32_input, bank, usize::MAX)? {
            Some(res) => copies.push((s.take_instructions(), res)),
            None => break,
        }
    }
    if let [(xa, ra), (xb, rb)] = copies.as_slice() {
        let mut tail = a.create_label();
        a.set_label(&mut top)?;
        a.cmp(rcx, 2)?;
        a.jb(tail)?;
        bank::interleave(a, xa.clone(), xb.clone())?;
        store(a, zmmword_ptr(rsi), *ra)?;
        store(a, zmmword_ptr(rsi + 64), *rb)?;
        a.add(rsi, 128)?;
        a.add(rax, 128)?;
        a.add(r11, 128)?;
        a.sub(rcx, 2)?;
        a.jmp(top)?;
        a.set_label(&mut tail)?;
        a.test(rcx, rcx)?;
        a.jz(done)?;
        bank::interleave(a, xa.clone(), Vec::new())?;
        store(a, zmmword_ptr(rsi), *ra)?;
        return Ok(true);
    }
    *r = before;
    a.set_label(&mut top)?;
    let Some(res) = body(a, p, r, k, f32_input, &bank::SINGLE, usize::MAX)? else {
        return Ok(false);
    };
    store(a, zmmword_ptr(rsi), res)?;
    a.add(rsi, 64)?;
    a.add(rax, 64)?;
    a.add(r11, 64)?;
    a.dec(rcx)?;
    a.jnz(top)?;
    Ok(true)
}

/// The loop folding the kernel's values into the accumulators `ACC`, `LANES` values per
/// step. `false` when not supported.
fn folding(
    a: &mut Asm,
    p: &mut Pool,
    r: &mut Reads,
    k: &Kernel,
    f32_input: &dyn Fn(usize) -> bool,
    op: BinaryOp,
) -> Result<bool, IcedError> {
    let b = &bank::SINGLE;
    let mut top = a.create_label();
    a.set_label(&mut top)?;
    for acc in ACC {
        let Some(res) = body(a, p, r, k, f32_input, b, b.values.len() - ACC.len())? else {
            return Ok(false);
        };
        match op {
            BinaryOp::Add => a.vaddps(acc, acc, res)?,
            BinaryOp::Mul => a.vmulps(acc, acc, res)?,
            BinaryOp::Max | BinaryOp::Min => {
                let t6 = b.t[6];
                emit_max(a, b, t6, acc, res, op == BinaryOp::Min)?;
                a.vmovaps(acc, t6)?;
            }
            _ => return Ok(false),
        }
        a.add(rax, 64)?;
        a.add(r11, 64)?;
    }
    a.dec(rcx)?;
    a.jnz(top)?;
    Ok(true)
}

fn build(
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
        for (i, acc) in ACC.iter().enumerate() {
            a.vmovups(*acc, zmmword_ptr(rsi + (64 * i) as i32))?;
        }
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
        None => elementwise(&mut a, &mut p, &mut reads, k, f32_input, (done, stream))?,
        Some(op) => folding(&mut a, &mut p, &mut reads, k, f32_input, op)?,
    };
    if !emitted {
        return Ok(None);
    }
    a.set_label(&mut done)?;
    if fold.is_some() {
        for (i, acc) in ACC.iter().enumerate() {
            a.vmovups(zmmword_ptr(rsi + (64 * i) as i32), *acc)?;
        }
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
