//! Argmax / argmin as a native fold: a two-operand reduce computation whose outputs are
//! trees of `select`s (and, on integer operands, `minimum`/`maximum`) over the
//! accumulator and the element of the same operand, the `select` predicates being boolean
//! expressions (`and`, `or`, `xor`, `not`, pred constants) of `compare`s between the
//! computation's parameters. JAX's argmax and argmin comparators have this form (`gt`/`lt`
//! on the values, `ne(a, a)` for NaN, `eq` and `lt` on the indices for ties), and so has
//! XLA's own (`ge`/`le`, then `select(eq, minimum(ai, bi), select(cmp, ai, bi))`).
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

/// One node of an output's value tree (all of one operand's type); children are indices
/// of earlier value nodes, predicates indices of [`Node`]s.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Val {
    Acc,
    Elem,
    Select(usize, usize, usize),
    Min(usize, usize),
    Max(usize, usize),
}

/// A recognised arg-reduce computation: predicate nodes, value nodes, and the value node
/// of each of the two outputs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct ArgFold {
    nodes: Vec<Node>,
    vals: Vec<Val>,
    out: [usize; 2],
    /// The same fold as a truth table, when it has one ([`Table::of`]).
    table: Option<Table>,
}

/// Most compares a [`Table`] covers (64 entries).
const MAX_ATOMS: usize = 6;

/// An arg-reduce whose outputs only `select` between accumulator and element (JAX's
/// argmax and argmin): each output's choice is a function of the compares' truth values
/// alone, so it is tabulated once. A fold step then runs the compares (the same ones, with
/// the same semantics) and looks the choice up, instead of evaluating the boolean
/// expression node by node and walking the value trees (~4x faster, B13's argmax).
#[derive(Clone, Debug, PartialEq, Eq)]
struct Table {
    /// The compare nodes; bit `j` of an index is `atoms[j]`'s value.
    atoms: Vec<Node>,
    /// Per index: whether output 0, output 1 takes the element.
    take: Vec<[bool; 2]>,
}

impl Table {
    /// The table of `f`, or `None` where an output takes a `minimum`/`maximum` or there
    /// are more than [`MAX_ATOMS`] compares.
    fn of(f: &ArgFold) -> Option<Table> {
        let cmps: Vec<usize> = (0..f.nodes.len())
            .filter(|&i| matches!(f.nodes.get(i), Some(Node::Cmp { .. })))
            .collect();
        if cmps.len() > MAX_ATOMS {
            return None;
        }
        let atoms = cmps
            .iter()
            .filter_map(|&i| f.nodes.get(i).copied())
            .collect();
        let mut take = Vec::with_capacity(1 << cmps.len());
        for bits in 0..1usize << cmps.len() {
            let mut p = [false; MAX_NODES];
            for (i, &n) in f.nodes.iter().enumerate() {
                let get = |j: usize| p.get(j).copied().unwrap_or(false);
                let r = match n {
                    Node::Cmp { .. } => {
                        let j = cmps.iter().position(|&c| c == i)?;
                        bits >> j & 1 == 1
                    }
                    Node::Const(c) => c,
                    Node::Not(a) => !get(a),
                    Node::And(a, b) => get(a) & get(b),
                    Node::Or(a, b) => get(a) | get(b),
                    Node::Xor(a, b) => get(a) ^ get(b),
                };
                *p.get_mut(i)? = r;
            }
            take.push([f.takes(f.out[0], &p)?, f.takes(f.out[1], &p)?]);
        }
        Some(Table { atoms, take })
    }
}

/// A constructor of a two-child [`Node`].
type MakeNode = fn(usize, usize) -> Node;

/// Builds the expression of a pred-valued instruction.
struct Builder<'a> {
    comp: &'a Computation,
    params: [InstrId; 4],
    nodes: Vec<Node>,
    vals: Vec<Val>,
    /// The node of each pred instruction already built (shared subexpressions).
    memo: Vec<(InstrId, usize)>,
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
        if let Some(&(_, n)) = self.memo.iter().find(|m| m.0 == id) {
            return Some(n);
        }
        let n = self.pred_new(id)?;
        self.memo.push((id, n));
        Some(n)
    }

    fn pred_new(&mut self, id: InstrId) -> Option<usize> {
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
            let ops: [(BinaryOp, MakeNode); 3] = [
                (BinaryOp::And, Node::And),
                (BinaryOp::Or, Node::Or),
                (BinaryOp::Xor, Node::Xor),
            ];
            let make = ops.iter().find(|(o, _)| o == op)?.1;
            let (a, b) = (self.pred(*a)?, self.pred(*b)?);
            return self.push(make(a, b));
        }
        None
    }

    fn push_val(&mut self, v: Val) -> Option<usize> {
        if self.vals.len() >= MAX_NODES {
            return None;
        }
        self.vals.push(v);
        Some(self.vals.len() - 1)
    }

    /// The value node of instruction `id`, a value of operand `k`.
    fn value(&mut self, id: InstrId, k: usize) -> Option<usize> {
        if id == self.params[k] {
            return self.push_val(Val::Acc);
        }
        if id == self.params[k + 2] {
            return self.push_val(Val::Elem);
        }
        let ins = self.comp.get(id)?;
        let ops = ins.operands.as_slice();
        if let (Op::Select, [p, t, f]) = (&ins.op, ops) {
            let p = self.pred(*p)?;
            let (t, f) = (self.value(*t, k)?, self.value(*f, k)?);
            return self.push_val(Val::Select(p, t, f));
        }
        // `minimum`/`maximum` only on integers: on floats their NaN results would have to
        // match the elementwise kernels' bit for bit.
        let int = ins.shape.element_type().is_integer();
        if let (Op::Binary(op @ (BinaryOp::Min | BinaryOp::Max)), [a, b], true) =
            (&ins.op, ops, int)
        {
            let (a, b) = (self.value(*a, k)?, self.value(*b, k)?);
            let v = if *op == BinaryOp::Min {
                Val::Min(a, b)
            } else {
                Val::Max(a, b)
            };
            return self.push_val(v);
        }
        None
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
        vals: Vec::new(),
        memo: Vec::new(),
    };
    let out = [b.value(*r0, 0)?, b.value(*r1, 1)?];
    let mut f = ArgFold {
        nodes: b.nodes,
        vals: b.vals,
        out,
        table: None,
    };
    f.table = Table::of(&f);
    Some(f)
}

/// An element type the compares run on natively.
trait Key: NativeData {
    /// `compare(a, b)` as the `compare` kernel computes it.
    fn cmp(dir: ComparisonDirection, total: bool, a: Self, b: Self) -> bool;
    /// `minimum` (only reached for integers; see [`Builder::value`]).
    fn min(a: Self, b: Self) -> Self;
    /// `maximum` (likewise).
    fn max(a: Self, b: Self) -> Self;
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
            fn min(a: Self, b: Self) -> Self {
                super::elementwise::fmin(a, b)
            }
            fn max(a: Self, b: Self) -> Self {
                super::elementwise::fmax(a, b)
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
            fn min(a: Self, b: Self) -> Self {
                Ord::min(a, b)
            }
            fn max(a: Self, b: Self) -> Self {
                Ord::max(a, b)
            }
        }
    )*};
}
key_int!(i32, i64, u32, u64);

/// Compare node `n`'s value for accumulator `acc` and element `e` (false for any other
/// node).
#[inline(always)]
fn compare<A: Key, B: Key>(n: Node, acc: (A, B), e: (A, B)) -> bool {
    let Node::Cmp {
        dir,
        total,
        lhs,
        rhs,
    } = n
    else {
        return false;
    };
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

impl ArgFold {
    /// Whether value node `i` is the element (`Some(true)`) or the accumulator
    /// (`Some(false)`) under predicate values `p`; `None` for a `minimum`/`maximum`.
    fn takes(&self, i: usize, p: &[bool; MAX_NODES]) -> Option<bool> {
        match *self.vals.get(i)? {
            Val::Acc => Some(false),
            Val::Elem => Some(true),
            Val::Select(c, t, f) => self.takes(if *p.get(c)? { t } else { f }, p),
            Val::Min(..) | Val::Max(..) => None,
        }
    }

    /// Every predicate node's value for accumulator `acc` and element `e`, into `v`
    /// (nodes come after their children, so one pass in order does it).
    fn preds<A: Key, B: Key>(&self, acc: (A, B), e: (A, B), v: &mut [bool; MAX_NODES]) {
        for (i, &n) in self.nodes.iter().enumerate() {
            let get =
                |j: usize| crate::invariant::at(v, j, "comparator nodes come after their children");
            let r = match n {
                Node::Cmp { .. } => compare(n, acc, e),
                Node::Const(c) => c,
                Node::Not(a) => !get(a),
                Node::And(a, b) => get(a) & get(b),
                Node::Or(a, b) => get(a) | get(b),
                Node::Xor(a, b) => get(a) ^ get(b),
            };
            if let Some(slot) = v.get_mut(i) {
                *slot = r;
            }
        }
    }

    /// The value of value node `i` of an output whose operand has accumulator `a` and
    /// element `x`; `p` holds the predicates' values.
    fn val<T: Key>(&self, i: usize, a: T, x: T, p: &[bool; MAX_NODES]) -> T {
        let Some(&v) = self.vals.get(i) else {
            return a;
        };
        match v {
            Val::Acc => a,
            Val::Elem => x,
            Val::Select(c, t, f) => {
                let pick = if crate::invariant::at(p, c, "select conditions are nodes") {
                    t
                } else {
                    f
                };
                self.val(pick, a, x, p)
            }
            Val::Min(l, r) => T::min(self.val(l, a, x, p), self.val(r, a, x, p)),
            Val::Max(l, r) => T::max(self.val(l, a, x, p), self.val(r, a, x, p)),
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
        if let Some(t) = &self.table {
            for o in 0..n {
                let mut acc = init;
                for &i in groups(o) {
                    let e = (*x0.get(i)?, *x1.get(i)?);
                    let mut bits = 0;
                    for (j, &a) in t.atoms.iter().enumerate() {
                        bits |= usize::from(compare(a, acc, e)) << j;
                    }
                    let [t0, t1] = *t.take.get(bits)?;
                    if t0 {
                        acc.0 = e.0;
                    }
                    if t1 {
                        acc.1 = e.1;
                    }
                }
                out0.push(acc.0);
                out1.push(acc.1);
            }
            return Some((out0, out1));
        }
        let mut p = [false; MAX_NODES];
        for o in 0..n {
            let mut acc = init;
            for &i in groups(o) {
                let e = (*x0.get(i)?, *x1.get(i)?);
                self.preds(acc, e, &mut p);
                acc = (
                    self.val(self.out[0], acc.0, e.0, &p),
                    self.val(self.out[1], acc.1, e.1, &p),
                );
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
