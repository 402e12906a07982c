//! Argmax / argmin as a native fold: a two-operand reduce computation of the form
//! `(select(P0, acc0, x0), select(P1, acc1, x1))`, where `P0` and `P1` are boolean
//! expressions (`and`, `or`, `xor`, `not`, pred constants) of `compare`s between the
//! computation's parameters. JAX's argmax and argmin comparators have this form
//! (`gt`/`lt` on the values, `ne(a, a)` for NaN, `eq` and `lt` on the indices for ties).
//!
//! [`recognise`] is a pure function over the computation; the plan keeps its result and
//! [`fold`] evaluates the same compares with the same semantics as the `compare` kernel
//! (IEEE order, or the total order when `type=TOTALORDER`), so the results are the
//! interpreter's bit for bit.

use super::elementwise::total_key;
use crate::scalar::Real;
use xla_core::attrs::{BinaryOp, ComparisonDirection, ComparisonType, UnaryOp};
use xla_core::ir::{Computation, InstrId, Op};
use xla_core::literal::{ArrayData, NativeData};

/// Largest expression accepted (nodes after shared subexpressions are expanded).
const MAX_NODES: usize = 64;

/// A value a compare reads: operand `k` (0 or 1) of the accumulator or of the element.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Slot {
    /// Parameter `k`: the accumulated value of operand `k`.
    Acc(usize),
    /// Parameter `k + 2`: the element of operand `k`.
    Elem(usize),
}

impl Slot {
    fn operand(self) -> usize {
        match self {
            Slot::Acc(k) | Slot::Elem(k) => k,
        }
    }
}

/// One node of a boolean expression; children are indices of earlier nodes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Node {
    /// `compare(lhs, rhs)`; both read the same operand.
    Cmp {
        dir: ComparisonDirection,
        total: bool,
        lhs: Slot,
        rhs: Slot,
    },
    Const(bool),
    Not(usize),
    And(usize, usize),
    Or(usize, usize),
    Xor(usize, usize),
}

/// A recognised arg-reduce computation: for each of the two outputs, the node whose value
/// says "keep the accumulator" (else the element is taken).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct ArgFold {
    nodes: Vec<Node>,
    keep: [usize; 2],
}

/// Builds the expression of a pred-valued instruction.
struct Builder<'a> {
    comp: &'a Computation,
    params: [InstrId; 4],
    nodes: Vec<Node>,
}

impl Builder<'_> {
    fn push(&mut self, n: Node) -> Option<usize> {
        if self.nodes.len() >= MAX_NODES {
            return None;
        }
        self.nodes.push(n);
        Some(self.nodes.len() - 1)
    }

    fn slot(&self, id: InstrId) -> Option<Slot> {
        match self.params.iter().position(|&p| p == id)? {
            k @ (0 | 1) => Some(Slot::Acc(k)),
            k => Some(Slot::Elem(k - 2)),
        }
    }

    /// The node of pred-valued instruction `id`.
    fn pred(&mut self, id: InstrId) -> Option<usize> {
        let ins = self.comp.get(id)?;
        if !ins.shape.is_scalar() || ins.shape.element_type() != xla_core::PrimitiveType::Pred {
            return None;
        }
        let ops = ins.operands.as_slice();
        // `if let` chains rather than a `match` over `Op`: only these forms are accepted,
        // and a new opcode must not need an arm here.
        if let (
            Op::Compare {
                direction,
                comparison_type,
            },
            [a, b],
        ) = (&ins.op, ops)
        {
            let (lhs, rhs) = (self.slot(*a)?, self.slot(*b)?);
            if lhs.operand() != rhs.operand() {
                return None;
            }
            let total = *comparison_type == Some(ComparisonType::TotalOrder);
            return self.push(Node::Cmp {
                dir: *direction,
                total,
                lhs,
                rhs,
            });
        }
        if let (Op::Constant { literal }, []) = (&ins.op, ops) {
            let v = *literal.data::<bool>()?.first()?;
            return self.push(Node::Const(v));
        }
        if let (Op::Unary(UnaryOp::Not), [a]) = (&ins.op, ops) {
            let a = self.pred(*a)?;
            return self.push(Node::Not(a));
        }
        if let (Op::Binary(op), [a, b]) = (&ins.op, ops) {
            let make: fn(usize, usize) -> Node = match op {
                BinaryOp::And => Node::And,
                BinaryOp::Or => Node::Or,
                BinaryOp::Xor => Node::Xor,
                _ => return None,
            };
            let (a, b) = (self.pred(*a)?, self.pred(*b)?);
            return self.push(make(a, b));
        }
        None
    }

    /// The "keep the accumulator" node of output `k`, computed by instruction `id`.
    fn output(&mut self, id: InstrId, k: usize) -> Option<usize> {
        let (acc, elem) = (self.params[k], self.params[k + 2]);
        if id == acc {
            return self.push(Node::Const(true));
        }
        if id == elem {
            return self.push(Node::Const(false));
        }
        let ins = self.comp.get(id)?;
        let [p, t, f] = ins.operands.as_slice() else {
            return None;
        };
        if ins.op != Op::Select {
            return None;
        }
        let p = self.pred(*p)?;
        match (*t == acc, *f == elem, *t == elem, *f == acc) {
            (true, true, _, _) => Some(p),
            (_, _, true, true) => self.push(Node::Not(p)),
            _ => None,
        }
    }
}

/// Recognises an arg-reduce computation over `params` (in parameter order), or `None`.
pub(crate) fn recognise(comp: &Computation, params: &[InstrId]) -> Option<ArgFold> {
    let &[a0, a1, e0, e1] = params else {
        return None;
    };
    let ty = |id: InstrId| {
        let s = &comp.get(id)?.shape;
        s.is_scalar().then(|| s.element_type())
    };
    if ty(a0)? != ty(e0)? || ty(a1)? != ty(e1)? {
        return None;
    }
    let root = comp.get(comp.root)?;
    let [r0, r1] = root.operands.as_slice() else {
        return None;
    };
    if root.op != Op::Tuple {
        return None;
    }
    let mut b = Builder {
        comp,
        params: [a0, a1, e0, e1],
        nodes: Vec::new(),
    };
    let keep = [b.output(*r0, 0)?, b.output(*r1, 1)?];
    Some(ArgFold {
        nodes: b.nodes,
        keep,
    })
}

/// An element type the compares run on natively.
trait Key: NativeData {
    fn cmp(dir: ComparisonDirection, total: bool, a: Self, b: Self) -> bool;
}

fn by_dir<K: PartialOrd>(dir: ComparisonDirection, x: K, y: K) -> bool {
    match dir {
        ComparisonDirection::Eq => x == y,
        ComparisonDirection::Ne => x != y,
        ComparisonDirection::Ge => x >= y,
        ComparisonDirection::Gt => x > y,
        ComparisonDirection::Le => x <= y,
        ComparisonDirection::Lt => x < y,
    }
}

fn cmp_real<F: Real>(dir: ComparisonDirection, total: bool, a: F, b: F) -> bool {
    if total {
        by_dir(dir, total_key(a), total_key(b))
    } else {
        by_dir(dir, a, b)
    }
}

macro_rules! key_real {
    ($($t:ty),*) => {$(
        impl Key for $t {
            #[inline(always)]
            fn cmp(dir: ComparisonDirection, total: bool, a: Self, b: Self) -> bool {
                cmp_real(dir, total, a, b)
            }
        }
    )*};
}
key_real!(f32, f64);

macro_rules! key_int {
    ($($t:ty),*) => {$(
        impl Key for $t {
            #[inline(always)]
            fn cmp(dir: ComparisonDirection, _total: bool, a: Self, b: Self) -> bool {
                by_dir(dir, a, b)
            }
        }
    )*};
}
key_int!(i32, i64, u32, u64);

impl ArgFold {
    /// The value of node `i` for accumulator `acc` and element `e`.
    fn eval<A: Key, B: Key>(&self, i: usize, acc: (A, B), e: (A, B)) -> bool {
        let Some(&n) = self.nodes.get(i) else {
            return false;
        };
        match n {
            Node::Cmp {
                dir,
                total,
                lhs,
                rhs,
            } => {
                let pick0 = |s: Slot| match s {
                    Slot::Acc(_) => acc.0,
                    Slot::Elem(_) => e.0,
                };
                let pick1 = |s: Slot| match s {
                    Slot::Acc(_) => acc.1,
                    Slot::Elem(_) => e.1,
                };
                if lhs.operand() == 0 {
                    A::cmp(dir, total, pick0(lhs), pick0(rhs))
                } else {
                    B::cmp(dir, total, pick1(lhs), pick1(rhs))
                }
            }
            Node::Const(v) => v,
            Node::Not(a) => !self.eval(a, acc, e),
            Node::And(a, b) => self.eval(a, acc, e) & self.eval(b, acc, e),
            Node::Or(a, b) => self.eval(a, acc, e) | self.eval(b, acc, e),
            Node::Xor(a, b) => self.eval(a, acc, e) ^ self.eval(b, acc, e),
        }
    }

    fn typed<'g, A: Key, B: Key>(
        &self,
        xs: [&ArrayData; 2],
        inits: [&ArrayData; 2],
        groups: &dyn Fn(usize) -> &'g [usize],
        n: usize,
    ) -> Option<Vec<ArrayData>> {
        let init = (*A::slice(inits[0])?.first()?, *B::slice(inits[1])?.first()?);
        let (a, b) = self.run_pair(A::slice(xs[0])?, B::slice(xs[1])?, init, groups, n)?;
        Some(vec![A::wrap(a), B::wrap(b)])
    }

    /// Folds the `n` groups of both operands, each from the init values in the order given.
    fn run_pair<'g, A: Key, B: Key>(
        &self,
        x0: &[A],
        x1: &[B],
        init: (A, B),
        groups: &dyn Fn(usize) -> &'g [usize],
        n: usize,
    ) -> Option<(Vec<A>, Vec<B>)> {
        let mut out0 = Vec::with_capacity(n);
        let mut out1 = Vec::with_capacity(n);
        for o in 0..n {
            let mut acc = init;
            for &i in groups(o) {
                let e = (*x0.get(i)?, *x1.get(i)?);
                let k0 = self.eval(self.keep[0], acc, e);
                let k1 = self.eval(self.keep[1], acc, e);
                acc = (if k0 { acc.0 } else { e.0 }, if k1 { acc.1 } else { e.1 });
            }
            out0.push(acc.0);
            out1.push(acc.1);
        }
        Some((out0, out1))
    }
}

/// The element types the native fold covers.
#[derive(Clone, Copy)]
enum KeyTy {
    F32,
    F64,
    S32,
    S64,
    U32,
    U64,
}

fn key_ty(d: &ArrayData) -> Option<KeyTy> {
    match d {
        ArrayData::F32(_) => Some(KeyTy::F32),
        ArrayData::F64(_) => Some(KeyTy::F64),
        ArrayData::S32(_) => Some(KeyTy::S32),
        ArrayData::S64(_) => Some(KeyTy::S64),
        ArrayData::U32(_) => Some(KeyTy::U32),
        ArrayData::U64(_) => Some(KeyTy::U64),
        ArrayData::Pred(_)
        | ArrayData::S8(_)
        | ArrayData::S16(_)
        | ArrayData::U8(_)
        | ArrayData::U16(_)
        | ArrayData::F16(_)
        | ArrayData::Bf16(_)
        | ArrayData::C64(_)
        | ArrayData::C128(_) => None,
    }
}

/// The arguments of a fold: operands, init values, groups and their count.
type Args<'a> = (
    [&'a ArrayData; 2],
    [&'a ArrayData; 2],
    &'a dyn Fn(usize) -> &'a [usize],
    usize,
);

impl ArgFold {
    /// The fold of the two operands `xs` over `n` groups (`groups(o)`: the element offsets
    /// of output `o` in fold order) from `inits`, or `None` for element types not covered.
    pub(crate) fn fold<'a>(
        &self,
        xs: [&'a ArrayData; 2],
        inits: [&'a ArrayData; 2],
        groups: &'a dyn Fn(usize) -> &'a [usize],
        n: usize,
    ) -> Option<Vec<ArrayData>> {
        let args = (xs, inits, groups, n);
        match key_ty(xs[0])? {
            KeyTy::F32 => self.second::<f32>(args),
            KeyTy::F64 => self.second::<f64>(args),
            KeyTy::S32 => self.second::<i32>(args),
            KeyTy::S64 => self.second::<i64>(args),
            KeyTy::U32 => self.second::<u32>(args),
            KeyTy::U64 => self.second::<u64>(args),
        }
    }

    fn second<A: Key>(&self, args: Args<'_>) -> Option<Vec<ArrayData>> {
        let (xs, inits, groups, n) = args;
        match key_ty(xs[1])? {
            KeyTy::F32 => self.typed::<A, f32>(xs, inits, groups, n),
            KeyTy::F64 => self.typed::<A, f64>(xs, inits, groups, n),
            KeyTy::S32 => self.typed::<A, i32>(xs, inits, groups, n),
            KeyTy::S64 => self.typed::<A, i64>(xs, inits, groups, n),
            KeyTy::U32 => self.typed::<A, u32>(xs, inits, groups, n),
            KeyTy::U64 => self.typed::<A, u64>(xs, inits, groups, n),
        }
    }
}
