//! The flat slot program a `while` loop lowers to: every value is a fixed slot (offset,
//! element type, element count) of one state buffer, and each instruction reads and
//! writes slots.

use crate::kernels::matmul::Orient;
use xla_core::attrs::{BinaryOp, ComparisonDirection, UnaryOp};
use xla_core::PrimitiveType;

/// Index of a slot in [`Program::slots`].
pub(crate) type SlotId = usize;

/// An element type native code handles.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Ty {
    /// PRED, one byte 0 or 1.
    Pred,
    /// S8.
    S8,
    /// U8.
    U8,
    /// S16.
    S16,
    /// U16.
    U16,
    /// S32.
    S32,
    /// U32.
    U32,
    /// S64.
    S64,
    /// U64.
    U64,
    /// F32.
    F32,
    /// F64.
    F64,
}

impl Ty {
    /// The native type of `t`, if it has one.
    pub(crate) fn of(t: PrimitiveType) -> Option<Ty> {
        use PrimitiveType as P;
        match t {
            P::Pred => Some(Ty::Pred),
            P::S8 => Some(Ty::S8),
            P::U8 => Some(Ty::U8),
            P::S16 => Some(Ty::S16),
            P::U16 => Some(Ty::U16),
            P::S32 => Some(Ty::S32),
            P::U32 => Some(Ty::U32),
            P::S64 => Some(Ty::S64),
            P::U64 => Some(Ty::U64),
            P::F32 => Some(Ty::F32),
            P::F64 => Some(Ty::F64),
            P::F16 | P::Bf16 | P::C64 | P::C128 | P::Tuple | P::Token => None,
        }
    }

    /// Bytes per element.
    pub(crate) fn size(self) -> usize {
        match self {
            Ty::Pred | Ty::S8 | Ty::U8 => 1,
            Ty::S16 | Ty::U16 => 2,
            Ty::S32 | Ty::U32 | Ty::F32 => 4,
            Ty::S64 | Ty::U64 | Ty::F64 => 8,
        }
    }

    /// True for F32 and F64.
    pub(crate) fn is_float(self) -> bool {
        matches!(self, Ty::F32 | Ty::F64)
    }

    /// True for the signed integer types.
    pub(crate) fn is_signed(self) -> bool {
        matches!(self, Ty::S8 | Ty::S16 | Ty::S32 | Ty::S64)
    }
}

/// Where one array value lives in the state buffer.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Slot {
    /// Byte offset (a multiple of 64).
    pub off: usize,
    /// Element type.
    pub ty: Ty,
    /// Element count.
    pub n: usize,
}

/// A value: one slot, or a tuple of values (tuples are never copied).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Val {
    /// An array in a slot.
    Leaf(SlotId),
    /// A tuple.
    Tuple(Vec<Val>),
}

impl Val {
    /// The slots of the leaves, in order.
    pub(crate) fn leaves(&self, out: &mut Vec<SlotId>) {
        match self {
            Val::Leaf(s) => out.push(*s),
            Val::Tuple(t) => t.iter().for_each(|v| v.leaves(out)),
        }
    }
}

/// `dst[dst_start + i] = src[src_start + i * src_step]` for `i < len`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Run {
    /// Source slot.
    pub src: SlotId,
    /// First source element.
    pub src_start: usize,
    /// Source element step (may be 0 or negative).
    pub src_step: isize,
    /// First destination element.
    pub dst_start: usize,
    /// Elements moved.
    pub len: usize,
}

/// An operand of one combine step of a fold.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Term {
    /// Element of the folded operand.
    Src(usize),
    /// The init value.
    Init,
    /// The combiner's identity (-0 for add, 1 for mul, -inf for max, +inf for min).
    Ident,
    /// The result of an earlier step.
    Tmp(usize),
}

/// A fold spelled out step by step, in exactly the interpreter's order.
#[derive(Clone, Debug, Default)]
pub(crate) struct FoldPlan {
    /// Step `k` computes `Tmp(k) = op(a, b)`.
    pub steps: Vec<(Term, Term)>,
    /// The output elements.
    pub outs: Vec<Term>,
}

/// One instruction of the slot program.
#[derive(Clone, Debug)]
pub(crate) enum Inst {
    /// `dst = op(x)` elementwise.
    Unary { op: UnaryOp, x: SlotId, dst: SlotId },
    /// `dst = op(a, b)` elementwise; `fused` selects the fused kernels' max/min.
    Binary {
        op: BinaryOp,
        a: SlotId,
        b: SlotId,
        dst: SlotId,
        fused: bool,
    },
    /// `dst = a dir b` elementwise (IEEE order for floats).
    Compare {
        dir: ComparisonDirection,
        a: SlotId,
        b: SlotId,
        dst: SlotId,
    },
    /// `dst = p ? a : b` (each may be a scalar).
    Select {
        p: SlotId,
        a: SlotId,
        b: SlotId,
        dst: SlotId,
    },
    /// `dst = min(max(x, lo), hi)` (bounds may be scalars).
    Clamp {
        lo: SlotId,
        x: SlotId,
        hi: SlotId,
        dst: SlotId,
        fused: bool,
    },
    /// `dst = convert(x)`.
    Convert { x: SlotId, dst: SlotId },
    /// Element moves (broadcast, slice, concatenate, transpose, carry, ...).
    Move { dst: SlotId, runs: Vec<Run> },
    /// `dst[dst_start + i] = src[base + src_start + i * src_step]` along `runs`, `base`
    /// the clamped start (also one batch position of a `gather`).
    DynSlice {
        dst: SlotId,
        starts: Vec<Start>,
        runs: Vec<Run>,
    },
    /// `dst = operand`, then `dst[base + src_start + i * src_step] = src[dst_start + i]`
    /// along `runs` (each run's `src` is the update).
    DynUpdate {
        dst: SlotId,
        operand: SlotId,
        starts: Vec<Start>,
        runs: Vec<Run>,
    },
    /// `dst = operand`, then for each window whose start fits (else it is skipped, as the
    /// interpreter does), `dst[base + src_start + i * src_step] =
    /// op(dst[..], update[dst_start + i])` along its runs, windows in update order;
    /// `op: None` stores the update.
    Scatter {
        dst: SlotId,
        operand: SlotId,
        update: SlotId,
        op: Option<BinaryOp>,
        windows: Vec<(Vec<Start>, Vec<Run>)>,
    },
    /// A nested `while`: `cond` then, while `pred` holds, `body` (which ends with the
    /// carry into the loop's own state slots).
    Loop {
        cond: Vec<Inst>,
        pred: SlotId,
        body: Vec<Inst>,
    },
    /// A `conditional`: arm `sel` (a PRED: arm 0 when true, 1 when false; an integer: out of
    /// range → the last arm). Every arm ends with the moves of its result into the shared
    /// result slots.
    Branch { sel: SlotId, arms: Vec<Vec<Inst>> },
    /// A LAPACK custom call run by the host on the slots.
    Host(Box<super::host::HostOp>),
    /// A reduce with a recognised combiner, in the interpreter's order.
    Fold {
        op: BinaryOp,
        fused: bool,
        src: SlotId,
        init: SlotId,
        dst: SlotId,
        plan: FoldPlan,
    },
    /// A float matrix product through faer, exactly as the interpreter calls it.
    Dot {
        lhs: SlotId,
        rhs: SlotId,
        dst: SlotId,
        orient: [Orient; 2],
        bmkn: [usize; 4],
    },
}

/// One start index of a dynamic slice or update, gather or scatter window: element `elem`
/// of slot `slot`, clamped to `[0, hi]` (a scatter window instead is skipped outside it),
/// times the dim's `stride`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Start {
    /// The slot holding the index.
    pub slot: SlotId,
    /// Its element.
    pub elem: usize,
    /// The largest start that fits.
    pub hi: i64,
    /// Elements per step of the dim.
    pub stride: usize,
}

impl Inst {
    /// Calls `f` on every slot `self` reads (nested instructions included; a nested loop's
    /// own state counts as read, being read before the loop writes it again).
    pub(crate) fn each_read(&self, f: &mut impl FnMut(SlotId)) {
        let starts = |st: &[Start], f: &mut dyn FnMut(SlotId)| st.iter().for_each(|s| f(s.slot));
        match self {
            Inst::Unary { x, .. } | Inst::Convert { x, .. } => f(*x),
            Inst::Binary { a, b, .. } | Inst::Compare { a, b, .. } => {
                f(*a);
                f(*b);
            }
            Inst::Select { p: x, a, b, .. }
            | Inst::Clamp {
                lo: x, x: a, hi: b, ..
            } => {
                f(*x);
                f(*a);
                f(*b);
            }
            Inst::Move { runs, .. } => runs.iter().for_each(|r| f(r.src)),
            Inst::Fold {
                src: a, init: b, ..
            }
            | Inst::Dot { lhs: a, rhs: b, .. } => {
                f(*a);
                f(*b);
            }
            Inst::DynSlice {
                starts: st, runs, ..
            } => {
                starts(st, f);
                runs.iter().for_each(|r| f(r.src));
            }
            Inst::DynUpdate {
                operand,
                starts: st,
                runs,
                ..
            } => {
                f(*operand);
                starts(st, f);
                runs.iter().for_each(|r| f(r.src));
            }
            Inst::Scatter {
                operand,
                update,
                windows,
                ..
            } => {
                f(*operand);
                f(*update);
                windows.iter().for_each(|(st, _)| starts(st, f));
            }
            Inst::Loop { cond, pred, body } => {
                cond.iter().chain(body).for_each(|i| i.each_read(f));
                f(*pred);
            }
            Inst::Branch { sel, arms } => {
                f(*sel);
                arms.iter().flatten().for_each(|i| i.each_read(f));
            }
            Inst::Host(op) => op.ins.iter().for_each(|&s| f(s)),
        }
    }

    /// Calls `f` on every slot `self` writes (nested instructions included).
    pub(crate) fn each_write(&self, f: &mut impl FnMut(SlotId)) {
        match self {
            Inst::Unary { dst, .. }
            | Inst::Convert { dst, .. }
            | Inst::Binary { dst, .. }
            | Inst::Compare { dst, .. }
            | Inst::Select { dst, .. }
            | Inst::Clamp { dst, .. }
            | Inst::Move { dst, .. }
            | Inst::Fold { dst, .. }
            | Inst::DynSlice { dst, .. }
            | Inst::DynUpdate { dst, .. }
            | Inst::Scatter { dst, .. }
            | Inst::Dot { dst, .. } => f(*dst),
            Inst::Loop { cond, body, .. } => cond.iter().chain(body).for_each(|i| i.each_write(f)),
            Inst::Branch { arms, .. } => arms.iter().flatten().for_each(|i| i.each_write(f)),
            Inst::Host(op) => op.outs.iter().for_each(|&s| f(s)),
        }
    }

    /// Makes every read of slot `from` (nested instructions included) read `to`.
    pub(crate) fn rename_reads(&mut self, from: SlotId, to: SlotId) {
        let r = |s: &mut SlotId| {
            if *s == from {
                *s = to;
            }
        };
        let starts = |st: &mut [Start]| st.iter_mut().for_each(|s| r(&mut s.slot));
        let runs = |rs: &mut [Run]| rs.iter_mut().for_each(|x| r(&mut x.src));
        match self {
            Inst::Unary { x, .. } | Inst::Convert { x, .. } => r(x),
            Inst::Binary { a, b, .. } | Inst::Compare { a, b, .. } => {
                [a, b].into_iter().for_each(r)
            }
            Inst::Select { p: x, a, b, .. }
            | Inst::Clamp {
                lo: x, x: a, hi: b, ..
            } => [x, a, b].into_iter().for_each(r),
            Inst::Move { runs: rs, .. } => runs(rs),
            Inst::Fold {
                src: a, init: b, ..
            }
            | Inst::Dot { lhs: a, rhs: b, .. } => [a, b].into_iter().for_each(r),
            Inst::DynSlice {
                starts: st,
                runs: rs,
                ..
            } => {
                starts(st);
                runs(rs);
            }
            Inst::DynUpdate {
                operand,
                starts: st,
                runs: rs,
                ..
            } => {
                r(operand);
                starts(st);
                runs(rs);
            }
            Inst::Scatter {
                operand,
                update,
                windows,
                ..
            } => {
                [operand, update].into_iter().for_each(r);
                windows.iter_mut().for_each(|(st, _)| starts(st));
            }
            Inst::Loop { cond, pred, body } => {
                cond.iter_mut()
                    .chain(body.iter_mut())
                    .for_each(|i| i.rename_reads(from, to));
                r(pred);
            }
            Inst::Branch { sel, arms } => {
                r(sel);
                arms.iter_mut()
                    .flatten()
                    .for_each(|i| i.rename_reads(from, to));
            }
            Inst::Host(op) => op.ins.iter_mut().for_each(r),
        }
    }

    /// The slots `self` reads.
    pub(crate) fn reads(&self) -> Vec<SlotId> {
        let mut v = Vec::new();
        self.each_read(&mut |s| v.push(s));
        v
    }

    /// The slots `self` writes.
    pub(crate) fn writes(&self) -> Vec<SlotId> {
        let mut v = Vec::new();
        self.each_write(&mut |s| v.push(s));
        v
    }
}

/// A whole loop: condition, body and carry over one state buffer.
#[derive(Debug)]
pub(crate) struct Program {
    /// Every slot.
    pub slots: Vec<Slot>,
    /// The initial buffer: constants in place, everything else zero.
    pub image: Vec<u8>,
    /// The loop state (the parameter of condition and body).
    pub state: Val,
    /// Instructions run once before the loop (loop-invariant ones, see `hoist.rs`).
    pub pre: Vec<Inst>,
    /// The condition's instructions.
    pub cond: Vec<Inst>,
    /// The condition's PRED scalar.
    pub pred: SlotId,
    /// The body's instructions, then the moves that carry its result into the state.
    pub body: Vec<Inst>,
}
