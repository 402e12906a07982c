//! Fusion planning: chains of f32 or f64 elementwise ops (with scalar and row/column broadcasts,
//! reshapes, converts, compares and selects) become one [`Kernel`] evaluated block by
//! block, so intermediates are never materialised; a `reduce` with a recognised combiner
//! over a contiguous range of dimensions absorbs the elementwise chain feeding it.
//!
//! Planning happens once at compile time ([`plan_steps`]); [`run`] executes a step: on
//! AVX-512 and AVX2 CPUs an f32 kernel runs as generated machine code (`jit.rs`), otherwise on the
//! block interpreter (`fast.rs`, `kern.rs`, with `run.rs`'s slow path for tails).

mod fast;
mod gather;
#[cfg(target_arch = "x86_64")]
mod jit;
pub(crate) use jit::record_native;
mod kern;
mod lane;
#[cfg(target_arch = "x86_64")]
mod loose;
mod ops;
#[cfg(test)]
mod plan_tests;
mod remap;
mod rows;
mod rows_run;
mod run;
mod scatter;
mod spread;
mod stream;

#[cfg(target_arch = "x86_64")]
pub use jit::set_codegen;
pub(crate) use run::run;

/// Machine-code generation is x86-64 only; elsewhere this does nothing.
#[cfg(not(target_arch = "x86_64"))]
pub fn set_codegen(_on: bool) {}

/// True unless code generation is turned off ([`set_codegen`], `XLA_CPU_NO_JIT`).
pub(crate) fn codegen_wanted() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        jit::wanted()
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        std::env::var_os("XLA_CPU_NO_JIT").is_none()
    }
}

use crate::kernels::combiner::Combiner;
use std::collections::HashMap;
use xla_core::attrs::{BinaryOp, ComparisonDirection, ComparisonType, UnaryOp};
use xla_core::ir::{CompId, Computation, InstrId, Instruction, Op};
use xla_core::{PrimitiveType, Shape};

/// How a kernel reads one of its inputs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Load {
    /// Input `k` at the same linear index.
    Full(usize),
    /// Element 0 of input `k`.
    Scalar(usize),
    /// Input `k` at `(i / inner) % len` (a broadcast along the dims around a contiguous run).
    Bcast {
        /// The input.
        input: usize,
        /// Elements of the output dims after the operand's.
        inner: usize,
        /// Elements of the operand.
        len: usize,
    },
    /// A constant (exact for f32, f64 and pred).
    Const(f64),
    /// A broadcast onto two runs of dimensions (`spread.rs`).
    Spread(spread::Spread),
    /// A slice or pad read row by row (`remap.rs`).
    Remap(remap::Remap),
    /// A gather read by rows of its operand (`gather.rs`).
    Gather(gather::GatherLoad),
}

/// One operation of a kernel.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Fop {
    /// A float unary op.
    Unary(UnaryOp),
    /// A float binary op.
    Binary(BinaryOp),
    /// An IEEE compare giving a 0/1 mask.
    Cmp(ComparisonDirection),
    /// `select(mask, a, b)`.
    Select,
    /// `clamp(lo, x, hi)`.
    Clamp,
}

/// A node of a kernel: a load or an op on earlier nodes.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Node {
    /// Reads an input.
    Load(Load),
    /// Computes from earlier nodes.
    Op(Fop, Vec<usize>),
}

/// Where a node's block lives while a kernel runs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Slot {
    /// Read straight from an input of the kernel's type (no copy).
    Direct,
    /// A scratch register filled once per scratch (constants and scalars).
    Fixed(usize),
    /// A scratch register written per block.
    Reg(usize),
}

/// Where an instruction of the compact program reads a block.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Src {
    /// Straight from input `k` (of the kernel's type).
    In(usize),
    /// From a register.
    Reg(usize),
}

/// One instruction of the compact program the fast path runs.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Instr {
    /// Fills a register from a load (per block).
    Load(Load, usize),
    /// Computes an op into a register; its sources are other registers or inputs.
    Op(Fop, [Src; 3], usize),
}

/// An elementwise expression over `n` elements in topological order; the last node is
/// the result.
#[derive(Clone, Debug)]
pub(crate) struct Kernel {
    /// The element type the kernel computes in: F32 or F64.
    pub ty: PrimitiveType,
    pub nodes: Vec<Node>,
    pub slots: Vec<Slot>,
    pub nregs: usize,
    /// The nodes that do work per block, with resolved sources.
    pub prog: Vec<Instr>,
    /// Where the result is after `prog` ran.
    pub result: Src,
    /// Element count of the domain.
    pub n: usize,
    /// The gathers the kernel reads in place (one per [`Load::Gather`]).
    pub gathers: Vec<gather::Spec>,
    /// Machine code for the kernel, when it is f32 and the CPU has AVX-512 or AVX2 + FMA.
    #[cfg(target_arch = "x86_64")]
    pub jit: Option<std::sync::Arc<jit::Code>>,
    /// Machine code folding the kernel's values into lanes, for a reduce.
    #[cfg(target_arch = "x86_64")]
    pub fold_jit: Option<std::sync::Arc<jit::Code>>,
}

/// What a fused step computes.
#[derive(Debug)]
pub(crate) enum FusedKind {
    /// The kernel's values, stored (as a pred array when `pred` is set).
    Loop {
        /// The result is a pred array.
        pred: bool,
    },
    /// `reduce` of the kernel's values viewed as `[outer, red, inner]` over the middle.
    Reduce {
        /// The combiner.
        op: BinaryOp,
        /// Index of the init value among the step's inputs.
        init: usize,
        /// Product of the kept leading dims.
        outer: usize,
        /// Product of the reduced dims.
        red: usize,
        /// Product of the kept trailing dims.
        inner: usize,
    },
    /// Several steps over the same rows run tile by tile; the kernel is the last one's.
    Rows(Box<rows::RowChain>),
    /// A scatter whose updates are the kernel's values (`scatter.rs`).
    Scatter(Box<scatter::Spec>),
}

/// A fused step: the kernel, its inputs (values of the computation) and what it yields.
#[derive(Debug)]
pub(crate) struct Fused {
    pub kernel: Kernel,
    pub inputs: Vec<InstrId>,
    pub kind: FusedKind,
}

/// One step of a computation's schedule.
#[derive(Debug)]
pub(crate) enum Step {
    /// Evaluate instruction `i` with its own kernel.
    Eval(usize),
    /// Compute instruction `i` with a fused kernel.
    Fused(usize, Box<Fused>),
}

impl Fused {
    /// How a profile names the step: `fusion`, `fusion[code]` (generated code;
    /// `fusion[code,streamed]` when it writes a large output with non-temporal stores), or
    /// `fusion[rows:N]` (a row chain of `N` steps; `fusion[rows:N,code]` with code,
    /// `fusion[rows:N,code,in-place]` when its last step updates the output in place).
    pub fn label(&self) -> String {
        match &self.kind {
            FusedKind::Rows(c) => {
                let code = c.members.iter().any(|m| m.fused.kernel.has_code());
                format!(
                    "fusion[rows:{}{}{}]",
                    c.members.len(),
                    if code { ",code" } else { "" },
                    if c.in_place.is_some() {
                        ",in-place"
                    } else {
                        ""
                    }
                )
            }
            FusedKind::Scatter(_) if self.kernel.has_code() => "fusion[scatter,code]".into(),
            FusedKind::Scatter(_) => "fusion[scatter]".into(),
            FusedKind::Loop { .. } | FusedKind::Reduce { .. } if self.kernel.streams() => {
                "fusion[code,streamed]".into()
            }
            FusedKind::Loop { .. } | FusedKind::Reduce { .. } if self.kernel.has_code() => {
                "fusion[code]".into()
            }
            FusedKind::Loop { .. } | FusedKind::Reduce { .. } => "fusion".into(),
        }
    }
}

impl Step {
    /// The values this step reads.
    pub fn reads<'a>(&'a self, comp: &'a Computation) -> &'a [InstrId] {
        match self {
            Step::Eval(i) => comp
                .instructions
                .get(*i)
                .map_or(&[], |ins| ins.operands.as_slice()),
            Step::Fused(_, f) => &f.inputs,
        }
    }

    /// The instruction whose value this step produces.
    pub fn instr(&self) -> usize {
        match self {
            Step::Eval(i) | Step::Fused(i, _) => *i,
        }
    }
}

fn elem_ty(s: &Shape) -> Option<PrimitiveType> {
    s.as_array().map(|a| a.ty)
}

/// The element count of an array shape (`None` for a tuple or a negative dim).
pub(crate) fn elems(s: &Shape) -> Option<usize> {
    let a = s.as_array()?;
    a.dims
        .iter()
        .try_fold(1usize, |n, &d| n.checked_mul(usize::try_from(d).ok()?))
}

struct Planner<'c> {
    comp: &'c Computation,
    combiner: &'c dyn Fn(CompId) -> Option<Combiner>,
    users: Vec<Vec<usize>>,
}

/// Scalars (combiners called per element) run faster unfused.
const MIN_FUSE: usize = 2;

const F32: PrimitiveType = PrimitiveType::F32;
const F64: PrimitiveType = PrimitiveType::F64;
const PRED: PrimitiveType = PrimitiveType::Pred;

impl Planner<'_> {
    fn ins(&self, id: InstrId) -> Option<&Instruction> {
        self.comp.instructions.get(id.0)
    }
    fn ty_of(&self, id: InstrId) -> Option<PrimitiveType> {
        self.ins(id).and_then(|i| elem_ty(&i.shape))
    }
    fn n_of(&self, id: InstrId) -> Option<usize> {
        self.ins(id).and_then(|i| elems(&i.shape))
    }
    fn operands_are(&self, ins: &Instruction, ty: PrimitiveType) -> bool {
        ins.operands.iter().all(|o| self.ty_of(*o) == Some(ty))
    }

    /// The value of every element of `id` when it is a scalar constant or a broadcast of
    /// one.
    fn splat(&self, id: InstrId) -> Option<f64> {
        let ins = self.ins(id)?;
        match (&ins.op, ins.operands.as_slice()) {
            (Op::Constant { literal }, _) if ins.shape.is_scalar() => const_value(literal),
            (Op::Broadcast { .. }, [o]) => {
                let c = self.ins(*o)?;
                match &c.op {
                    Op::Constant { literal } if c.shape.is_scalar() => const_value(literal),
                    _ => None,
                }
            }
            _ => None,
        }
    }

    /// The broadcast load pattern: `None` when the dims are not one contiguous run.
    fn bcast_pattern(&self, ins: &Instruction, dims: &[i64]) -> Option<(usize, usize)> {
        let o = self.ins(*ins.operands.first()?)?;
        let od = &o.shape.as_array()?.dims;
        let out = &ins.shape.as_array()?.dims;
        let len = elems(&o.shape)?;
        if len == 1 {
            return Some((1, 1));
        }
        let first = usize::try_from(*dims.first()?).ok()?;
        for (k, (&d, &size)) in dims.iter().zip(od).enumerate() {
            if usize::try_from(d).ok()? != first + k || out.get(first + k) != Some(&size) {
                return None;
            }
        }
        let after: i64 = out.get(first + dims.len()..)?.iter().product();
        Some((usize::try_from(after).ok()?, len))
    }

    /// `(len, gap, outer)` of a broadcast onto two runs of dimensions (`spread.rs`).
    fn spread_pattern(&self, ins: &Instruction, dims: &[i64]) -> Option<(usize, usize, usize)> {
        let o = self.ins(*ins.operands.first()?)?;
        spread::Spread::pattern(&o.shape.as_array()?.dims, &ins.shape.as_array()?.dims, dims)
    }

    /// A slice or pad read row by row (`remap.rs`), with input 0 and a constant padding
    /// value standing in for the kernel's; `None` for other ops and other patterns.
    fn remap_pattern(&self, ins: &Instruction) -> Option<remap::Remap> {
        let dims = &self.ins(*ins.operands.first()?)?.shape.as_array()?.dims;
        match &ins.op {
            Op::Slice {
                start,
                limit,
                stride,
            } => remap::Remap::slice(0, dims, start, limit, stride),
            Op::Pad { padding } => remap::Remap::pad(0, remap::PadValue::Const(0.0), dims, padding),
            _ => None,
        }
    }

    /// A pad of a slice read as one remap of the slice's operand (input 0 standing in).
    fn pad_through_slice(&self, pad: &Instruction) -> Option<remap::Remap> {
        let s = self.ins(*pad.operands.first()?)?;
        if !matches!(pad.op, Op::Pad { .. }) || !matches!(s.op, Op::Slice { .. }) {
            return None;
        }
        let (n_pad, n_slice) = (elems(&pad.shape)?, elems(&s.shape)?);
        self.remap_pattern(pad)?
            .through(&self.remap_pattern(s)?, n_pad, n_slice)
    }

    /// The float type `ins` computes in inside a kernel: its own for float results, its
    /// operands' for compares, `None` for other pred values (which fit any kernel).
    fn kernel_ty(&self, ins: &Instruction) -> Option<PrimitiveType> {
        match (&ins.op, elem_ty(&ins.shape)) {
            (Op::Compare { .. }, _) => ins.operands.first().and_then(|o| self.ty_of(*o)),
            (_, Some(t @ (F32 | F64))) => Some(t),
            _ => None,
        }
    }

    /// True when instruction `i` can be a node of a kernel.
    fn fusible(&self, ins: &Instruction) -> bool {
        let out = elem_ty(&ins.shape);
        let float = |t: Option<PrimitiveType>| matches!(t, Some(F32 | F64));
        let same = float(out) && out.is_some_and(|t| self.operands_are(ins, t));
        let first = ins.operands.first().and_then(|o| self.ty_of(*o));
        match &ins.op {
            Op::Unary(u) => same && ops::unary_fusible(*u),
            Op::Binary(b) => same && ops::binary_fusible(*b),
            Op::Compare {
                comparison_type, ..
            } => {
                out == Some(PRED)
                    && float(first)
                    && first.is_some_and(|t| self.operands_are(ins, t))
                    && *comparison_type != Some(ComparisonType::TotalOrder)
            }
            Op::Select => {
                let [p, a, b] = ins.operands.as_slice() else {
                    return false;
                };
                float(out)
                    && self.ty_of(*p) == Some(PRED)
                    && self.ty_of(*a) == out
                    && self.ty_of(*b) == out
            }
            Op::Clamp => same,
            Op::Convert => float(out) && (first == out || first == Some(PRED)),
            Op::Reshape | Op::Bitcast | Op::Copy => {
                matches!(out, Some(F32 | F64 | PRED)) && first == out
            }
            Op::Broadcast { dimensions } => {
                matches!(out, Some(F32 | F64 | PRED))
                    && first == out
                    && (self.bcast_pattern(ins, dimensions).is_some()
                        || self.spread_pattern(ins, dimensions).is_some())
            }
            Op::Constant { literal } => ins.shape.is_scalar() && const_value(literal).is_some(),
            Op::Slice { .. } | Op::Pad { .. } => {
                float(out)
                    && self.operands_are(ins, out.unwrap_or(F32))
                    && self.remap_pattern(ins).is_some()
            }
            Op::Gather(g) => float(out) && first == out && self.gather_len(ins, g).is_some(),
            Op::DynamicSlice { slice_sizes: sizes } => {
                float(out) && first == out && gather::slice_row_len(sizes).is_some()
            }
            _ => false,
        }
    }

    /// The row length of a gather read in place (`gather.rs`).
    fn gather_len(&self, ins: &Instruction, g: &xla_core::attrs::GatherDims) -> Option<usize> {
        let o = self.ins(*ins.operands.first()?)?;
        gather::row_len(g, &o.shape.as_array()?.dims, &ins.shape.as_array()?.dims)
    }

    /// `(combiner, updates' dims)` when `ins` is a scatter whose updates a kernel can
    /// compute (`scatter.rs`): one operand of a float type, its updates of the same.
    fn fusible_scatter(&self, ins: &Instruction) -> Option<(Option<BinaryOp>, Vec<usize>)> {
        let Op::Scatter { to_apply, .. } = &ins.op else {
            return None;
        };
        let [x, _, u] = ins.operands.as_slice() else {
            return None;
        };
        let ty = elem_ty(&ins.shape)?;
        if !matches!(ty, F32 | F64) || self.ty_of(*x)? != ty || self.ty_of(*u)? != ty {
            return None;
        }
        let op = match (self.combiner)(*to_apply)? {
            Combiner::Binary(op) => Some(op),
            Combiner::Second => None,
            _ => return None,
        };
        let dims = &self.ins(*u)?.shape.as_array()?.dims;
        let dims: Option<Vec<usize>> = dims.iter().map(|&d| usize::try_from(d).ok()).collect();
        scatter::combines(op).then_some((op, dims?))
    }

    /// The reduce shape `(op, outer, red, inner)` when `ins` is a reduce this module fuses.
    fn fusible_reduce(&self, ins: &Instruction) -> Option<(BinaryOp, usize, usize, usize)> {
        let Op::Reduce {
            dimensions,
            to_apply,
        } = &ins.op
        else {
            return None;
        };
        let [x, init] = ins.operands.as_slice() else {
            return None;
        };
        let ty = elem_ty(&ins.shape)?;
        if !matches!(ty, F32 | F64) || self.ty_of(*x)? != ty || self.ty_of(*init)? != ty {
            return None;
        }
        let op = match (self.combiner)(*to_apply)? {
            Combiner::Binary(
                op @ (BinaryOp::Add | BinaryOp::Mul | BinaryOp::Max | BinaryOp::Min),
            ) => op,
            _ => return None,
        };
        let xd = &self.ins(*x)?.shape.as_array()?.dims;
        let mut ds: Vec<usize> = dimensions
            .iter()
            .map(|&d| usize::try_from(d).ok())
            .collect::<Option<_>>()?;
        ds.sort_unstable();
        let (lo, hi) = match (ds.first(), ds.last()) {
            (Some(&lo), Some(&hi)) if hi - lo + 1 == ds.len() && hi < xd.len() => (lo, hi + 1),
            _ => return None,
        };
        let prod = |r: &[i64]| usize::try_from(r.iter().product::<i64>()).ok();
        Some((
            op,
            prod(xd.get(..lo)?)?,
            prod(xd.get(lo..hi)?)?,
            prod(xd.get(hi..)?)?,
        ))
    }

    /// True when `user` reads `id` elementwise (the same linear index) inside a kernel.
    fn consumes(&self, user: &Instruction, id: InstrId) -> bool {
        let (u, p) = (
            self.kernel_ty(user),
            self.ins(id).and_then(|i| self.kernel_ty(i)),
        );
        if u.is_some() && p.is_some() && u != p {
            return false;
        }
        if matches!(user.op, Op::Gather(_) | Op::DynamicSlice { .. }) {
            // Read by rows from a stored operand, never elementwise.
            return false;
        }
        if self.fusible_reduce(user).is_some() {
            return user.operands.first() == Some(&id);
        }
        if self.fusible_scatter(user).is_some() {
            // The updates only, and only when computed: a stored value gains nothing.
            return user.operands.get(2) == Some(&id)
                && user.operands.first() != Some(&id)
                && user.operands.get(1) != Some(&id);
        }
        if matches!(user.op, Op::Pad { .. }) {
            // A pad reads its operand by row; only a slice it can read through fuses.
            return user.operands.first() == Some(&id)
                && self.fusible(user)
                && self.pad_through_slice(user).is_some();
        }
        !matches!(user.op, Op::Broadcast { .. } | Op::Slice { .. })
            && self.fusible(user)
            && elems(&user.shape) == self.n_of(id)
    }

    /// Which instructions are computed inside their users' kernels instead of stored.
    fn inlined(&self) -> Vec<bool> {
        let comp = self.comp;
        let mut inline = vec![false; comp.instructions.len()];
        let mut dup = vec![Dup::Stored; comp.instructions.len()];
        for (i, ins) in comp.instructions.iter().enumerate() {
            let users = &self.users[i];
            if i == comp.root.0 || users.is_empty() || !self.fusible(ins) {
                continue;
            }
            let all = users
                .iter()
                .all(|&u| self.consumes(&comp.instructions[u], InstrId(i)));
            let cheap = matches!(
                ins.op,
                Op::Broadcast { .. }
                    | Op::Reshape
                    | Op::Bitcast
                    | Op::Copy
                    | Op::Convert
                    | Op::Constant { .. }
                    | Op::Slice { .. }
                    | Op::Pad { .. }
                    | Op::DynamicSlice { .. }
            );
            let into_reduce = users.len() <= 2
                && users
                    .iter()
                    .any(|&u| self.fusible_reduce(&comp.instructions[u]).is_some());
            let d = self.dup(ins, &dup);
            let many = d.is_some_and(|d| d.worth(users.len()));
            inline[i] = all && (users.len() == 1 || cheap || into_reduce || many);
            dup[i] = match (inline[i], cheap, d) {
                (false, _, _) => Dup::Stored,
                (true, true, _) => Dup::Free,
                (true, false, Some(d)) => d,
                (true, false, None) => Dup::Costly,
            };
        }
        inline
    }

    /// What computing `ins` again in each of its readers' kernels costs, when it is one
    /// vector instruction (negate, absolute value, add, subtract, multiply, max, min) on
    /// stored values, loads or other such instructions (`dup`: what each earlier
    /// instruction costs); `None` for anything dearer.
    fn dup(&self, ins: &Instruction, dup: &[Dup]) -> Option<Dup> {
        use BinaryOp as B;
        let one_op = matches!(ins.op, Op::Unary(UnaryOp::Neg | UnaryOp::Abs))
            || matches!(
                ins.op,
                Op::Binary(B::Add | B::Sub | B::Mul | B::Max | B::Min)
            );
        if !one_op {
            return None;
        }
        let (mut ops, mut reads) = (1usize, 0usize);
        for o in &ins.operands {
            // An elementwise op's operands have its shape: a stored one is a whole read.
            match dup.get(o.0)? {
                Dup::Costly => return None,
                Dup::Free => {}
                Dup::Stored => reads += 1,
                Dup::Chain { ops: n, reads: r } => {
                    ops += n;
                    reads += r;
                }
            }
        }
        (ops <= MAX_DUP_OPS).then_some(Dup::Chain { ops, reads })
    }
}

/// The longest chain of one-instruction ops computed again in each reader's kernel.
const MAX_DUP_OPS: usize = 4;

/// What an instruction costs each kernel that computes it in place ([`Planner::dup`]).
#[derive(Clone, Copy, Debug, PartialEq)]
enum Dup {
    /// Stored (or not fusible): its readers load it.
    Stored,
    /// Inlined, and a load in another form (broadcast, reshape, slice, constant): no work.
    Free,
    /// A chain of `ops` one-instruction ops reading `reads` whole stored arrays.
    Chain { ops: usize, reads: usize },
    /// Real work (a transcendental, a divide, a select...): computed once.
    Costly,
}

impl Dup {
    /// True when `users` kernels each computing the chain move less memory than one kernel
    /// storing it and `users` kernels loading it: the stored form reads its `reads` arrays,
    /// writes one and each reader loads it (`reads + 1 + users`); duplicated, each reader
    /// reads the `reads` arrays itself (`users * reads`).
    fn worth(self, users: usize) -> bool {
        match self {
            Dup::Chain { reads, .. } => users * reads <= reads + 1 + users,
            Dup::Stored | Dup::Free | Dup::Costly => false,
        }
    }
}

/// An f32, f64 or pred scalar constant as f64 (pred as 0/1).
fn const_value(l: &xla_core::Literal) -> Option<f64> {
    if let Some([v]) = l.data::<f32>() {
        return Some(f64::from(*v));
    }
    if let Some([v]) = l.data::<f64>() {
        return Some(*v);
    }
    l.data::<bool>()
        .and_then(|v| v.first())
        .map(|&b| if b { 1.0 } else { 0.0 })
}

struct Builder<'p, 'c> {
    p: &'p Planner<'c>,
    /// The kernel's float type: every input and node is of it or pred.
    ty: PrimitiveType,
    inline: &'p [bool],
    nodes: Vec<Node>,
    memo: HashMap<usize, usize>,
    inputs: Vec<InstrId>,
    /// Fused gathers; each owns its operand's input (read by rows only).
    gathers: Vec<gather::Spec>,
}

impl Builder<'_, '_> {
    fn input(&mut self, id: InstrId) -> usize {
        let own = |k: usize| self.gathers.iter().any(|g| g.input == k);
        if let Some(k) = (0..self.inputs.len()).find(|&k| self.inputs[k] == id && !own(k)) {
            return k;
        }
        self.inputs.push(id);
        self.inputs.len() - 1
    }
    /// How a kernel reads a gather of a stored operand by rows (`gather.rs`).
    fn gather_load(&mut self, ins: &Instruction, g: &xla_core::attrs::GatherDims) -> Option<Load> {
        let len = self.p.gather_len(ins, g)?;
        let [x, idx] = ins.operands.as_slice() else {
            return None;
        };
        if self.p.ty_of(*x)? != self.ty {
            return None;
        }
        let out = ins.shape.as_array()?.dims.iter();
        let out = out
            .map(|&d| usize::try_from(d).ok())
            .collect::<Option<_>>()?;
        let indices = self.input(*idx);
        let starts = gather::Starts::Gather {
            indices,
            dims: g.clone(),
        };
        Some(self.rows_load(*x, starts, out, len))
    }
    /// How a kernel reads a `dynamic-slice` of a stored operand in place, by rows
    /// (`gather.rs`).
    fn slice_load(&mut self, ins: &Instruction, sizes: &[i64]) -> Option<Load> {
        let len = gather::slice_row_len(sizes)?;
        let (x, starts) = ins.operands.split_first()?;
        if self.p.ty_of(*x)? != self.ty {
            return None;
        }
        let out = sizes
            .iter()
            .map(|&d| usize::try_from(d).ok())
            .collect::<Option<_>>()?;
        let starts = starts.iter().map(|s| self.input(*s)).collect();
        Some(self.rows_load(*x, gather::Starts::Slice(starts), out, len))
    }
    /// The load of operand `x` read by rows of `len` from `starts`: the operand gets an
    /// input of its own, which the run reads by rows.
    fn rows_load(
        &mut self,
        x: InstrId,
        starts: gather::Starts,
        out: Vec<usize>,
        len: usize,
    ) -> Load {
        self.inputs.push(x);
        let input = self.inputs.len() - 1;
        self.gathers.push(gather::Spec {
            input,
            starts,
            out,
            fill: None,
        });
        Load::Gather(gather::GatherLoad { input, len })
    }
    /// `select(broadcast(mask), gather, broadcast(c))`, either way round, read as the
    /// gather with a fill (`gather.rs`): the mask broadcast along the leading dims short
    /// of the last (so it holds per gathered row), `c` a scalar constant, the gather
    /// computed in this kernel.
    fn fill_gather(&mut self, select: &Instruction) -> Option<Load> {
        let (Op::Select, [p, a, b]) = (&select.op, select.operands.as_slice()) else {
            return None;
        };
        let inlined_gather = |id: InstrId| {
            self.inline.get(id.0).copied().unwrap_or(false)
                && matches!(self.p.ins(id).map(|i| &i.op), Some(Op::Gather(_)))
        };
        let (g, c, keep) = match (inlined_gather(*a), inlined_gather(*b)) {
            (true, _) => (*a, *b, true),
            (false, true) => (*b, *a, false),
            (false, false) => return None,
        };
        let value = self.p.splat(c)?;
        let pi = self.p.ins(*p)?;
        let (Op::Broadcast { dimensions }, [m]) = (&pi.op, pi.operands.as_slice()) else {
            return None;
        };
        let out = &select.shape.as_array()?.dims;
        let leading = dimensions.len();
        let prefix = dimensions.iter().enumerate().all(|(i, &d)| d == i as i64);
        if !prefix || leading >= out.len() || self.p.ty_of(*m)? != PRED {
            return None;
        }
        let per = out[leading..out.len() - 1]
            .iter()
            .try_fold(1usize, |acc, &d| acc.checked_mul(usize::try_from(d).ok()?))?;
        let gi = self.p.ins(g)?;
        let Op::Gather(dims) = &gi.op else {
            return None;
        };
        // The gather's checks come first: nothing is added to the kernel on failure.
        let load = self.gather_load(gi, dims)?;
        let mask = self.typed_input(*m)?;
        self.gathers.last_mut()?.fill = Some(gather::Fill {
            mask,
            keep,
            per,
            value,
        });
        Some(load)
    }
    fn push(&mut self, n: Node) -> usize {
        self.nodes.push(n);
        self.nodes.len() - 1
    }
    /// Input `k` for value `id`, when its type fits the kernel.
    fn typed_input(&mut self, id: InstrId) -> Option<usize> {
        let t = self.p.ty_of(id)?;
        (t == self.ty || t == PRED).then(|| self.input(id))
    }
    fn load_of(&mut self, id: InstrId) -> Option<Load> {
        let one = self.p.n_of(id) == Some(1);
        let k = self.typed_input(id)?;
        Some(if one { Load::Scalar(k) } else { Load::Full(k) })
    }
    /// How a kernel reads `broadcast(operand), dimensions=dims` in place.
    fn broadcast_load(&mut self, ins: &Instruction, dims: &[i64]) -> Option<Load> {
        let o = *ins.operands.first()?;
        let Some((inner, len)) = self.p.bcast_pattern(ins, dims) else {
            let (len, gap, outer) = self.p.spread_pattern(ins, dims)?;
            let input = self.typed_input(o)?;
            return Some(Load::Spread(spread::Spread {
                input,
                len,
                gap,
                outer,
            }));
        };
        let oi = self.p.ins(o)?;
        Some(match (&oi.op, len) {
            (Op::Constant { literal }, 1) => Load::Const(const_value(literal)?),
            (_, 1) => Load::Scalar(self.typed_input(o)?),
            _ => Load::Bcast {
                input: self.typed_input(o)?,
                inner,
                len,
            },
        })
    }
    /// How a kernel reads a slice or pad of a stored operand in place.
    fn remap_load(&mut self, ins: &Instruction) -> Option<Load> {
        let x = *ins.operands.first()?;
        let (mut m, source) = if self.inline.get(x.0).copied().unwrap_or(false) {
            // The pad of a slice computed in this kernel: read through it.
            let inner = *self.p.ins(x)?.operands.first()?;
            (self.p.pad_through_slice(ins)?, inner)
        } else {
            (self.p.remap_pattern(ins)?, x)
        };
        m.input = self.typed_input(source)?;
        if let Some(v) = ins.operands.get(1) {
            let vi = self.p.ins(*v)?;
            m.pad = Some(match &vi.op {
                Op::Constant { literal } => remap::PadValue::Const(const_value(literal)?),
                _ => remap::PadValue::Input(self.typed_input(*v)?),
            });
        }
        Some(Load::Remap(m))
    }
    /// The node computing instruction `id` (an input load unless it is `root` or inlined).
    fn node(&mut self, id: InstrId, root: bool) -> Option<usize> {
        if let Some(&n) = self.memo.get(&id.0) {
            return Some(n);
        }
        let ins = self.p.ins(id)?;
        let n = if !root && !self.inline.get(id.0).copied().unwrap_or(false) {
            let l = self.load_of(id)?;
            self.push(Node::Load(l))
        } else {
            if self.p.kernel_ty(ins).is_some_and(|t| t != self.ty) {
                return None;
            }
            if let Some(l) = self.fill_gather(ins) {
                let n = self.push(Node::Load(l));
                self.memo.insert(id.0, n);
                return Some(n);
            }
            match &ins.op {
                Op::Constant { literal } => {
                    self.push(Node::Load(Load::Const(const_value(literal)?)))
                }
                Op::Broadcast { dimensions } => {
                    let l = self.broadcast_load(ins, dimensions)?;
                    self.push(Node::Load(l))
                }
                Op::Slice { .. } | Op::Pad { .. } => {
                    let l = self.remap_load(ins)?;
                    self.push(Node::Load(l))
                }
                Op::Gather(g) => {
                    let l = self.gather_load(ins, g)?;
                    self.push(Node::Load(l))
                }
                Op::DynamicSlice { slice_sizes: sizes } => {
                    let l = self.slice_load(ins, sizes)?;
                    self.push(Node::Load(l))
                }
                Op::Reshape | Op::Bitcast | Op::Copy | Op::Convert => {
                    self.node(*ins.operands.first()?, false)?
                }
                op => {
                    let f = match op {
                        Op::Unary(u) => Fop::Unary(*u),
                        Op::Binary(b) => Fop::Binary(*b),
                        Op::Compare { direction, .. } => Fop::Cmp(*direction),
                        Op::Select => Fop::Select,
                        Op::Clamp => Fop::Clamp,
                        _ => return None,
                    };
                    let args = ins
                        .operands
                        .iter()
                        .map(|o| self.node(*o, false))
                        .collect::<Option<Vec<_>>>()?;
                    self.push(Node::Op(f, args))
                }
            }
        };
        self.memo.insert(id.0, n);
        Some(n)
    }
}

/// Assigns scratch registers: full loads of the kernel's type read their input directly, constants get a
/// register of their own, other nodes reuse registers freed after their last use.
fn allocate(nodes: &[Node], direct: impl Fn(usize) -> bool) -> (Vec<Slot>, usize) {
    let mut last = vec![0usize; nodes.len()];
    for (j, n) in nodes.iter().enumerate() {
        last[j] = j;
        if let Node::Op(_, args) = n {
            for &a in args {
                last[a] = j;
            }
        }
    }
    let mut slots = Vec::with_capacity(nodes.len());
    let (mut free, mut nregs) = (Vec::new(), 0usize);
    for (j, n) in nodes.iter().enumerate() {
        let slot = match n {
            Node::Load(Load::Full(k)) if direct(*k) => Slot::Direct,
            Node::Load(Load::Const(_) | Load::Scalar(_)) => {
                nregs += 1;
                Slot::Fixed(nregs - 1)
            }
            Node::Load(_) | Node::Op(..) => Slot::Reg(free.pop().unwrap_or_else(|| {
                nregs += 1;
                nregs - 1
            })),
        };
        slots.push(slot);
        if let Node::Op(_, args) = n {
            for &a in args {
                if last[a] == j {
                    if let Some(Slot::Reg(r)) = slots.get(a) {
                        if !free.contains(r) {
                            free.push(*r);
                        }
                    }
                }
            }
        }
    }
    (slots, nregs)
}

/// The compact program of a kernel: per-block work only, sources resolved.
fn compact(nodes: &[Node], slots: &[Slot]) -> Option<(Vec<Instr>, Src)> {
    let src = |j: usize| match (slots.get(j)?, nodes.get(j)?) {
        (Slot::Direct, Node::Load(Load::Full(k))) => Some(Src::In(*k)),
        (Slot::Fixed(r) | Slot::Reg(r), _) => Some(Src::Reg(*r)),
        (Slot::Direct, _) => None,
    };
    let mut prog = Vec::new();
    for (j, n) in nodes.iter().enumerate() {
        let Some(Slot::Reg(r)) = slots.get(j) else {
            continue;
        };
        prog.push(match n {
            Node::Load(l) => Instr::Load(*l, *r),
            Node::Op(f, args) => {
                // Unused operand slots repeat the first operand (never the destination).
                let mut a = [src(*args.first()?)?; 3];
                for (d, &x) in a.iter_mut().zip(args) {
                    *d = src(x)?;
                }
                Instr::Op(*f, a, *r)
            }
        });
    }
    Some((prog, src(nodes.len().checked_sub(1)?)?))
}

impl Kernel {
    /// A rough single-thread cost, to decide whether splitting over threads pays: element
    /// count times the per-element steps (loads and operations).
    pub fn work(&self) -> usize {
        self.n.saturating_mul(self.nodes.len().max(1))
    }

    /// True when the kernel runs as generated machine code.
    pub fn has_code(&self) -> bool {
        #[cfg(target_arch = "x86_64")]
        return self.jit.is_some() || self.fold_jit.is_some();
        #[cfg(not(target_arch = "x86_64"))]
        false
    }

    /// True when the kernel's code writes its output with non-temporal stores (a large
    /// output, `jit::streaming_pays`).
    pub fn streams(&self) -> bool {
        #[cfg(target_arch = "x86_64")]
        return self.jit.as_ref().is_some_and(|j| j.streamed.is_some());
        #[cfg(not(target_arch = "x86_64"))]
        false
    }

    /// Adds machine code when the kernel computes in f32 and the CPU can run it: code
    /// writing its values (unless it only reads an input: nothing to gain there), and for
    /// a reduce with combiner `fold`, code folding them. `typed(k)`: input `k` is f32.
    fn with_code(self, fold: Option<BinaryOp>, typed: &dyn Fn(usize) -> bool) -> Kernel {
        #[cfg(target_arch = "x86_64")]
        if self.ty == F32 && jit::available() {
            let code = |f| jit::compile(&self, typed, f).map(std::sync::Arc::new);
            let computes = self.nodes.iter().any(|n| matches!(n, Node::Op(..)));
            let jit = if computes { code(None) } else { None };
            let fold_jit = fold.and_then(|op| code(Some(op)));
            return Kernel {
                jit,
                fold_jit,
                ..self
            };
        }
        let _ = (fold, typed);
        self
    }
}

impl Planner<'_> {
    /// The kernel computing `root` over `n` elements (`expand`: even if `root` is not
    /// inlined), with its inputs; `fold` is the combiner when it feeds a reduce.
    fn kernel(
        &self,
        inline: &[bool],
        (root, expand): (InstrId, bool),
        n: usize,
        fold: Option<BinaryOp>,
    ) -> Option<(Kernel, Vec<InstrId>)> {
        let ty = self
            .ins(root)
            .and_then(|i| self.kernel_ty(i))
            .unwrap_or(F32);
        let mut b = Builder {
            p: self,
            ty,
            inline,
            nodes: Vec::new(),
            memo: HashMap::new(),
            inputs: Vec::new(),
            gathers: Vec::new(),
        };
        let top = b.node(root, expand)?;
        if top + 1 != b.nodes.len() {
            return None;
        }
        let inputs = b.inputs;
        let gathers = b.gathers;
        let typed = |k: usize| inputs.get(k).and_then(|id| self.ty_of(*id)) == Some(ty);
        let (slots, nregs) = allocate(&b.nodes, typed);
        let (prog, result) = compact(&b.nodes, &slots)?;
        Some((
            Kernel {
                ty,
                nodes: b.nodes,
                slots,
                nregs,
                prog,
                result,
                n,
                gathers,
                #[cfg(target_arch = "x86_64")]
                jit: None,
                #[cfg(target_arch = "x86_64")]
                fold_jit: None,
            }
            .with_code(fold, &typed),
            inputs,
        ))
    }

    fn step(&self, inline: &[bool], i: usize) -> Option<Fused> {
        let ins = self.comp.instructions.get(i)?;
        // Tiny values (scalar combiners, small index math) run faster unfused.
        let big = |id: InstrId| self.n_of(id).is_some_and(|n| n >= MIN_FUSE);
        if !big(InstrId(i)) && !ins.operands.first().is_some_and(|&o| big(o)) {
            return None;
        }
        if let Some((op, outer, red, inner)) = self.fusible_reduce(ins) {
            let [x, init] = ins.operands.as_slice() else {
                return None;
            };
            let (kernel, mut inputs) = self.kernel(
                inline,
                (*x, inline.get(x.0) == Some(&true)),
                outer * red * inner,
                Some(op),
            )?;
            inputs.push(*init);
            let init = inputs.len() - 1;
            let kind = FusedKind::Reduce {
                op,
                init,
                outer,
                red,
                inner,
            };
            return Some(Fused {
                kernel,
                inputs,
                kind,
            });
        }
        if let (Some((op, updates)), Op::Scatter { dims, .. }) =
            (self.fusible_scatter(ins), &ins.op)
        {
            let [x, idx, u] = ins.operands.as_slice() else {
                return None;
            };
            if inline.get(u.0) != Some(&true) {
                return None;
            }
            let (kernel, mut inputs) = self.kernel(inline, (*u, true), self.n_of(*u)?, None)?;
            inputs.push(*x);
            inputs.push(*idx);
            let spec = scatter::Spec {
                operand: inputs.len() - 2,
                indices: inputs.len() - 1,
                dims: dims.clone(),
                op,
                updates,
            };
            return Some(Fused {
                kernel,
                inputs,
                kind: FusedKind::Scatter(Box::new(spec)),
            });
        }
        if matches!(ins.op, Op::Constant { .. }) || !self.fusible(ins) {
            return None;
        }
        let (kernel, inputs) = self.kernel(inline, (InstrId(i), true), elems(&ins.shape)?, None)?;
        // A lone load is a copy, except a gather with a fill (a select folded in).
        let filled = kernel.gathers.iter().any(|g| g.fill.is_some());
        if matches!(kernel.nodes.as_slice(), [Node::Load(Load::Full(_))])
            || matches!(kernel.nodes.as_slice(), [Node::Load(Load::Gather(_))]) && !filled
        {
            return None;
        }
        let pred = elem_ty(&ins.shape) == Some(PRED);
        Some(Fused {
            kernel,
            inputs,
            kind: FusedKind::Loop { pred },
        })
    }
}

/// The schedule of `comp`: one step per instruction that is not inlined into a kernel; with
/// `rows`, steps over the same rows are chained ([`rows`]), and a costly value two chained
/// kernels would each recompute is computed once per tile instead.
pub(crate) fn plan_steps(
    comp: &Computation,
    combiner: &dyn Fn(CompId) -> Option<Combiner>,
    rows: bool,
) -> Vec<Step> {
    // Only live readers count: a rewrite can leave a dead reader behind (`algebra`'s
    // combined scalars orphan the inner multiply), and a dead reader must not keep its
    // operand out of the kernel of its one live reader.
    let live = crate::rewrite::live(comp);
    let mut users = vec![Vec::new(); comp.instructions.len()];
    for (i, ins) in comp.instructions.iter().enumerate() {
        if !live.get(i).copied().unwrap_or(true) {
            continue;
        }
        for o in &ins.operands {
            if let Some(u) = users.get_mut(o.0) {
                if !u.contains(&i) {
                    u.push(i);
                }
            }
        }
    }
    let p = Planner {
        comp,
        combiner,
        users,
    };
    let inline = p.inlined();
    let plain = p.settle(inline.clone(), &live);
    if !rows {
        return plain;
    }
    let shared: Vec<usize> = (0..inline.len())
        .filter(|&i| inline[i] && p.users[i].len() >= 2 && p.costly(i))
        .collect();
    if !shared.is_empty() {
        let mut once = inline;
        for &i in &shared {
            once[i] = false;
        }
        let chained = rows::chain_rows(comp, p.settle(once, &live));
        // Kept only when every such value ended up inside a chain (else it would be stored).
        if !chained.iter().any(|s| shared.contains(&s.instr())) {
            return chained;
        }
    }
    rows::chain_rows(comp, plain)
}

impl Planner<'_> {
    /// True when instruction `i` is a transcendental function (worth computing once).
    fn costly(&self, i: usize) -> bool {
        use UnaryOp as U;
        self.comp.instructions.get(i).is_some_and(|ins| {
            matches!(
                ins.op,
                Op::Unary(
                    U::Exp
                        | U::Expm1
                        | U::Log
                        | U::Log1p
                        | U::Logistic
                        | U::Tanh
                        | U::Sin
                        | U::Cos
                        | U::Tan
                        | U::Erf
                ) | Op::Binary(BinaryOp::Pow | BinaryOp::Atan2)
            )
        })
    }

    /// The steps for inlining decisions `inline`, settled: a value inlined into a user that
    /// did not become a kernel is stored after all.
    fn settle(&self, mut inline: Vec<bool>, live: &[bool]) -> Vec<Step> {
        let comp = self.comp;
        loop {
            let steps: Vec<Step> = (0..comp.instructions.len())
                .filter(|&i| !inline[i] && live.get(i).copied().unwrap_or(true))
                .map(|i| match self.step(&inline, i) {
                    Some(f) => Step::Fused(i, Box::new(f)),
                    None => Step::Eval(i),
                })
                .collect();
            let mut changed = false;
            for s in &steps {
                if let Step::Eval(i) = s {
                    for o in &comp.instructions[*i].operands {
                        if let Some(f) = inline.get_mut(o.0).filter(|f| **f) {
                            *f = false;
                            changed = true;
                        }
                    }
                }
            }
            if !changed {
                return steps;
            }
        }
    }
}
