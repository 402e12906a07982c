//! Running fused steps: kernels evaluated block by block (each block in 64-element fast
//! blocks, one table-dispatched vector function per op), in parallel over fixed-size chunks. Chunk and
//! block boundaries depend only on the shapes, never on the thread count, so results are
//! bit-identical for any number of threads.

use super::ops::{self, vmax, vmin};
use super::{Fop, Fused, FusedKind, Instr, Kernel, Load, Node, Slot, Src};
use crate::error::{invalid, Result};
use crate::index::make;
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

/// A kernel input.
#[derive(Clone, Copy)]
enum In<'a> {
    F32(&'a [f32]),
    Pred(&'a [bool]),
}

impl In<'_> {
    #[inline(always)]
    fn get(&self, i: usize) -> f32 {
        match self {
            In::F32(v) => v[i],
            In::Pred(v) => f32::from(u8::from(v[i])),
        }
    }
    fn len(&self) -> usize {
        match self {
            In::F32(v) => v.len(),
            In::Pred(v) => v.len(),
        }
    }
}

/// Elements of a register of the fast path: small enough that a kernel's registers stay
/// in L1 and each op is a few fully unrolled vector instructions (measured: blocks of 64
/// run a long chain about 3x faster than blocks of 2048).
use super::kern::{Vb, V};
static ZERO: Vb = [0.0; V];

/// Per-task registers.
struct Scratch {
    regs: Vec<Vec<f32>>,
    fast: Vec<Vb>,
}

impl Kernel {
    fn scratch(&self, ins: &[In]) -> Scratch {
        let mut regs = vec![vec![0.0f32; V]; self.nregs];
        for (node, slot) in self.nodes.iter().zip(&self.slots) {
            if let (Node::Load(l), Slot::Fixed(r)) = (node, slot) {
                let v = match l {
                    Load::Const(c) => *c,
                    Load::Scalar(k) => ins[*k].get(0),
                    Load::Full(_) | Load::Bcast { .. } => 0.0,
                };
                regs[*r].fill(v);
            }
        }
        let fast = regs
            .iter()
            .map(|r| {
                let mut b = [0.0; V];
                for (d, &x) in b.iter_mut().zip(r) {
                    *d = x;
                }
                b
            })
            .collect();
        Scratch { regs, fast }
    }

    /// Computes the V elements at `start` into `dst` by running the compact program.
    #[inline(always)]
    fn block_fast(&self, ins: &[In], start: usize, regs: &mut [Vb], dst: &mut Vb) {
        let input = |k: usize| -> &Vb {
            match ins.get(k) {
                Some(In::F32(v)) => v
                    .get(start..start + V)
                    .and_then(|s| s.try_into().ok())
                    .unwrap_or(&ZERO),
                _ => &ZERO,
            }
        };
        for p in &self.prog {
            match *p {
                Instr::Load(l, r) => {
                    if let Some(d) = regs.get_mut(r) {
                        load(l, ins, start, d);
                    }
                }
                Instr::Op(f, a, r) => {
                    let (lo, rest) = regs.split_at_mut(r);
                    let Some((d, hi)) = rest.split_first_mut() else {
                        continue;
                    };
                    let get = |s: Src| -> &Vb {
                        match s {
                            Src::In(k) => input(k),
                            Src::Reg(i) if i < r => &lo[i],
                            Src::Reg(i) => (i - r)
                                .checked_sub(1)
                                .and_then(|k| hi.get(k))
                                .unwrap_or(&ZERO),
                        }
                    };
                    // SAFETY: `f` comes from the table of the instruction-set level this
                    // CPU supports (`simd_level`).
                    unsafe { f(get(a[0]), get(a[1]), get(a[2]), d) };
                }
            }
        }
        *dst = *match self.result {
            Src::In(k) => input(k),
            Src::Reg(r) => regs.get(r).unwrap_or(&ZERO),
        };
    }

    /// The block of node `j` once computed (or read straight from its input).
    #[inline(always)]
    fn src<'b>(
        &self,
        j: usize,
        ins: &[In<'b>],
        regs: &'b [Vec<f32>],
        start: usize,
        len: usize,
    ) -> &'b [f32] {
        match (self.slots[j], &self.nodes[j]) {
            (Slot::Direct, Node::Load(Load::Full(k))) => match ins[*k] {
                In::F32(v) => &v[start..start + len],
                In::Pred(_) => &[],
            },
            (Slot::Fixed(r) | Slot::Reg(r), _) => &regs[r][..len],
            (Slot::Direct, _) => &[],
        }
    }

    /// Computes node `j` for elements `start..start + dst.len()` into `dst`.
    #[inline(always)]
    fn node_into(&self, j: usize, ins: &[In], regs: &[Vec<f32>], start: usize, dst: &mut [f32]) {
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

    /// Computes elements `start..start + dst.len()` of the kernel's result into `dst`, with
    /// the widest vector instructions the CPU has (the same results on every path: no
    /// contraction into FMA, the same IEEE operations).
    fn block(&self, ins: &[In], start: usize, s: &mut Scratch, dst: &mut [f32]) {
        #[cfg(target_arch = "x86_64")]
        {
            if simd::level() >= 2 {
                // SAFETY: the CPU supports AVX-512F/BW/DQ/VL (checked at run time).
                return unsafe { simd::block_avx512(self, ins, start, s, dst) };
            }
            if simd::level() == 1 {
                // SAFETY: the CPU supports AVX2 and FMA (checked at run time).
                return unsafe { simd::block_avx2(self, ins, start, s, dst) };
            }
        }
        self.block_generic(ins, start, s, dst);
    }

    #[inline(always)]
    fn block_generic(&self, ins: &[In], start: usize, s: &mut Scratch, dst: &mut [f32]) {
        let mut it = dst.chunks_exact_mut(V);
        let mut at = start;
        for d in &mut it {
            if let Ok(d) = <&mut Vb>::try_from(d) {
                self.block_fast(ins, at, &mut s.fast, d);
            }
            at += V;
        }
        let rest = it.into_remainder();
        if !rest.is_empty() {
            self.block_slices(ins, at, s, rest);
        }
    }

    /// The slice path, for a tail shorter than a fast block.
    #[inline(never)]
    fn block_slices(&self, ins: &[In], start: usize, s: &mut Scratch, dst: &mut [f32]) {
        let len = dst.len();
        let last = self.nodes.len() - 1;
        for j in 0..last {
            if let Slot::Reg(r) = self.slots[j] {
                let mut d = std::mem::take(&mut s.regs[r]);
                self.node_into(j, ins, &s.regs, start, &mut d[..len]);
                s.regs[r] = d;
            }
        }
        match (self.slots[last], &self.nodes[last]) {
            (Slot::Fixed(_) | Slot::Direct, _) => {
                dst.copy_from_slice(self.src(last, ins, &s.regs, start, len));
            }
            (Slot::Reg(_), _) => self.node_into(last, ins, &s.regs, start, dst),
        }
    }

    /// The result block, borrowed from the input when the kernel is a plain f32 read.
    fn block_ref<'b>(
        &self,
        ins: &[In<'b>],
        start: usize,
        len: usize,
        s: &'b mut Scratch,
        tmp: &'b mut [f32],
    ) -> &'b [f32] {
        let last = self.nodes.len() - 1;
        if let (Slot::Direct, Node::Load(Load::Full(k))) = (self.slots[last], &self.nodes[last]) {
            if let In::F32(v) = ins[*k] {
                return &v[start..start + len];
            }
        }
        let t = &mut tmp[..len];
        self.block(ins, start, s, t);
        t
    }
}

/// 2: AVX-512, 1: AVX2, 0: the baseline (also when `XLA_CPU_NO_SIMD` is set).
pub(crate) fn simd_level() -> u8 {
    #[cfg(target_arch = "x86_64")]
    {
        simd::level()
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        0
    }
}

#[cfg(target_arch = "x86_64")]
mod simd {
    use super::{In, Kernel, Scratch};
    use std::sync::OnceLock;

    /// 2: AVX-512, 1: AVX2, 0: the baseline.
    pub(super) fn level() -> u8 {
        static LEVEL: OnceLock<u8> = OnceLock::new();
        *LEVEL.get_or_init(|| {
            if std::env::var_os("XLA_CPU_NO_SIMD").is_some() {
                0
            } else if is_x86_feature_detected!("avx512f")
                && is_x86_feature_detected!("avx512bw")
                && is_x86_feature_detected!("avx512dq")
                && is_x86_feature_detected!("avx512vl")
            {
                2
            } else if is_x86_feature_detected!("avx2") && is_x86_feature_detected!("fma") {
                1
            } else {
                0
            }
        })
    }

    #[target_feature(enable = "avx2,fma")]
    pub(super) fn block_avx2(
        k: &Kernel,
        ins: &[In],
        start: usize,
        s: &mut Scratch,
        dst: &mut [f32],
    ) {
        k.block_generic(ins, start, s, dst);
    }

    #[target_feature(enable = "avx512f,avx512bw,avx512dq,avx512vl,avx2,fma")]
    pub(super) fn block_avx512(
        k: &Kernel,
        ins: &[In],
        start: usize,
        s: &mut Scratch,
        dst: &mut [f32],
    ) {
        k.block_generic(ins, start, s, dst);
    }
}

/// Reads a load's elements `start..start + dst.len()`.
#[inline(always)]
fn load(l: Load, ins: &[In], start: usize, dst: &mut [f32]) {
    let end = start + dst.len();
    match l {
        Load::Const(c) => dst.fill(c),
        Load::Scalar(k) => dst.fill(ins[k].get(0)),
        Load::Full(k) => match ins[k] {
            In::F32(v) => dst.copy_from_slice(&v[start..end]),
            In::Pred(v) => {
                for (d, &b) in dst.iter_mut().zip(&v[start..end]) {
                    *d = f32::from(u8::from(b));
                }
            }
        },
        Load::Bcast { input, inner, len } => {
            let src = ins[input];
            let mut i = start;
            while i < end {
                let q = i / inner;
                let idx = q % len;
                let o = i - start;
                if inner == 1 {
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
fn check(k: &Kernel, ins: &[In]) -> Result<()> {
    for n in &k.nodes {
        let (input, need) = match n {
            Node::Load(Load::Full(i)) => (*i, k.n),
            Node::Load(Load::Scalar(i)) => (*i, 1),
            Node::Load(Load::Bcast { input, len, inner }) => {
                if *inner == 0 || *len == 0 {
                    return Err(invalid("fused broadcast of an empty operand"));
                }
                (*input, *len)
            }
            Node::Load(Load::Const(_)) | Node::Op(..) => continue,
        };
        if ins.get(input).is_none_or(|x| x.len() < need) {
            return Err(invalid("fused kernel input is shorter than planned"));
        }
    }
    if k.nodes.is_empty() {
        return Err(invalid("empty fused kernel"));
    }
    Ok(())
}

fn run_loop(k: &Kernel, ins: &[In], min: usize) -> Vec<f32> {
    let work = |s: &mut Scratch, c: usize, o: &mut [f32]| {
        let bl = block_len();
        for (b, ob) in o.chunks_mut(bl).enumerate() {
            k.block(ins, c * CHUNK + b * bl, s, ob);
        }
    };
    crate::buffer::filled_in_chunks(k.n, CHUNK, min, || k.scratch(ins), work)
}

/// The identity of a combiner (`-0` for add, so sums of `-0` stay `-0`).
fn identity(op: BinaryOp) -> f32 {
    match op {
        BinaryOp::Mul => 1.0,
        BinaryOp::Max => f32::NEG_INFINITY,
        BinaryOp::Min => f32::INFINITY,
        _ => -0.0,
    }
}

const LANES: usize = 16;

/// Folds elements `start..start + len` of the kernel into 16 lanes, combined in order.
fn fold_range<F: Fn(f32, f32) -> f32 + Copy>(
    k: &Kernel,
    ins: &[In],
    s: &mut Scratch,
    tmp: &mut [f32],
    (start, len): (usize, usize),
    id: f32,
    f: F,
) -> f32 {
    let mut lanes = [id; LANES];
    let mut done = 0;
    while done < len {
        let bl = (len - done).min(block_len());
        let v = k.block_ref(ins, start + done, bl, s, tmp);
        let mut it = v.chunks_exact(LANES);
        for ch in &mut it {
            for (l, &x) in lanes.iter_mut().zip(ch) {
                *l = f(*l, x);
            }
        }
        for (l, &x) in lanes.iter_mut().zip(it.remainder()) {
            *l = f(*l, x);
        }
        done += bl;
    }
    lanes.iter().fold(id, |a, &b| f(a, b))
}

struct Red {
    /// The smallest number of tasks a thread takes (`usize::MAX`: one thread).
    min: usize,
    outer: usize,
    red: usize,
    inner: usize,
    init: f32,
}

/// Reductions of whole rows (`inner == 1`); long rows are cut into fixed chunks whose
/// partial results are combined in order.
fn reduce_rows<F: Fn(f32, f32) -> f32 + Copy + Sync>(
    k: &Kernel,
    ins: &[In],
    r: &Red,
    id: f32,
    f: F,
) -> Vec<f32> {
    let nch = r.red.div_ceil(CHUNK).max(1);
    let parts = r.outer * nch;
    let one = |s: &mut (Scratch, Vec<f32>), t: usize| {
        let (row, c) = (t / nch, t % nch);
        let lo = c * CHUNK;
        let len = r.red.min(lo + CHUNK).saturating_sub(lo);
        fold_range(k, ins, &mut s.0, &mut s.1, (row * r.red + lo, len), id, f)
    };
    let init = || (k.scratch(ins), vec![0.0f32; block_len()]);
    let partial: Vec<f32> = if parts * r.red.min(CHUNK) <= CHUNK {
        let mut s = init();
        (0..parts).map(|t| one(&mut s, t)).collect()
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
        .map(|p| p.iter().fold(r.init, |a, &b| f(a, b)))
        .collect()
}

/// Reductions over a middle dimension range (`inner > 1`): each output column folds its
/// rows in order, exactly the reference order.
fn reduce_cols<F: Fn(f32, f32) -> f32 + Copy + Sync>(
    k: &Kernel,
    ins: &[In],
    r: &Red,
    f: F,
) -> Vec<f32> {
    let mut out = vec![r.init; r.outer * r.inner];
    let work = |s: &mut (Scratch, Vec<f32>), o: usize, c0: usize, acc: &mut [f32]| {
        for row in 0..r.red {
            let start = (o * r.red + row) * r.inner + c0;
            let v = k.block_ref(ins, start, acc.len(), &mut s.0, &mut s.1);
            for (a, &x) in acc.iter_mut().zip(v) {
                *a = f(*a, x);
            }
        }
    };
    let init = || (k.scratch(ins), vec![0.0f32; block_len()]);
    out.par_chunks_mut(r.inner)
        .with_min_len(r.min)
        .enumerate()
        .for_each(|(o, row)| {
            row.par_chunks_mut(block_len())
                .with_min_len(r.min)
                .enumerate()
                .for_each_init(init, |s, (c, acc)| work(s, o, c * block_len(), acc));
        });
    out
}

fn run_reduce(k: &Kernel, ins: &[In], op: BinaryOp, r: &Red) -> Vec<f32> {
    if r.outer * r.inner == 0 {
        return Vec::new();
    }
    let id = identity(op);
    match (op, r.inner) {
        (BinaryOp::Max, 1) => reduce_rows(k, ins, r, id, vmax),
        (BinaryOp::Min, 1) => reduce_rows(k, ins, r, id, vmin),
        (BinaryOp::Mul, 1) => reduce_rows(k, ins, r, id, |a, b| a * b),
        (_, 1) => reduce_rows(k, ins, r, id, |a, b| a + b),
        (BinaryOp::Max, _) => reduce_cols(k, ins, r, vmax),
        (BinaryOp::Min, _) => reduce_cols(k, ins, r, vmin),
        (BinaryOp::Mul, _) => reduce_cols(k, ins, r, |a, b| a * b),
        _ => reduce_cols(k, ins, r, |a, b| a + b),
    }
}

/// Runs a fused step on its inputs (in the order of [`Fused::inputs`]) with the
/// executable's threads.
///
/// # Errors
/// If an input is not an f32/pred array of the planned size.
pub(crate) fn run(f: &Fused, args: &[&Literal], out: &Shape, par: Parallel) -> Result<Literal> {
    par.run_sized(f.kernel.n, |min| run_in(f, args, out, min))
}

fn run_in(f: &Fused, args: &[&Literal], out: &Shape, min: usize) -> Result<Literal> {
    let ins = args
        .iter()
        .map(|l| {
            l.data::<f32>()
                .map(In::F32)
                .or_else(|| l.data::<bool>().map(In::Pred))
                .ok_or_else(|| {
                    invalid(format!(
                        "fused kernel input {} is not f32 or pred",
                        l.shape()
                    ))
                })
        })
        .collect::<Result<Vec<_>>>()?;
    let k = &f.kernel;
    check(k, &ins)?;
    let data = match f.kind {
        FusedKind::Loop { pred: false } => ArrayData::F32(run_loop(k, &ins, min)),
        FusedKind::Loop { pred: true } => {
            ArrayData::Pred(run_loop(k, &ins, min).iter().map(|&x| x != 0.0).collect())
        }
        FusedKind::Reduce {
            op,
            init,
            outer,
            red,
            inner,
        } => {
            let init = ins.get(init).filter(|i| i.len() == 1).map(|i| i.get(0));
            let init = init.ok_or_else(|| invalid("fused reduce: init is not a scalar"))?;
            let r = Red {
                min,
                outer,
                red,
                inner,
                init,
            };
            ArrayData::F32(run_reduce(k, &ins, op, &r))
        }
    };
    make(out, data)
}
