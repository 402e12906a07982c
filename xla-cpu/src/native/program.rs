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
    /// the clamped start.
    DynSlice {
        dst: SlotId,
        starts: Vec<super::dynamic::Start>,
        runs: Vec<Run>,
    },
    /// `dst = operand`, then `dst[base + src_start + i * src_step] = src[dst_start + i]`
    /// along `runs` (each run's `src` is the update).
    DynUpdate {
        dst: SlotId,
        operand: SlotId,
        starts: Vec<super::dynamic::Start>,
        runs: Vec<Run>,
    },
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
