//! HLO → slot program: the condition and body of a `while` (and every computation they
//! call) become one flat list of [`Inst`] over fixed slots. Anything native code cannot
//! reproduce exactly makes lowering give up (`None`), and the interpreter runs instead.

use super::program::{Inst, Program, Slot, SlotId, Ty, Val};
use super::{contraction, elementwise as ew, reduce, structural as st};
use crate::compile::Executable;
use crate::fusion::Step;
use crate::kernels::dot_add::DotAdd;
use xla_core::attrs::BinaryOp;
use xla_core::ir::{CompId, Computation, Op};
use xla_core::{Literal, Shape};

/// Largest element count of one value. Large values cost no code (ops over them are
/// counted loops, products are faer calls); what grows with size is bounded by [`MAX_COST`].
pub(crate) const MAX_ELEMS: usize = 1 << 16;
/// Largest state buffer, in bytes.
const MAX_BYTES: usize = 16 << 20;
/// Largest code size, in [`cost`] units (about one emitted loop or unrolled step each):
/// keeps Cranelift's compile time in milliseconds.
const MAX_COST: usize = 40_000;
/// Deepest nesting of `call`s.
const MAX_DEPTH: usize = 16;

/// Builds a program: allocates slots and collects instructions.
pub(crate) struct Lowerer<'e> {
    pub(crate) exe: &'e Executable,
    pub(crate) slots: Vec<Slot>,
    pub(crate) image: Vec<u8>,
    depth: usize,
    cost: usize,
}

/// The lowered form of `while(condition, body)`, or `None` when it is not eligible.
pub(crate) fn lower(exe: &Executable, cond: CompId, body: CompId) -> Option<Program> {
    let mut lw = Lowerer {
        exe,
        slots: Vec::new(),
        image: Vec::new(),
        depth: 0,
        cost: 0,
    };
    let bcomp = exe.module.get(body)?;
    let pshape = &bcomp.instructions.get(bcomp.parameters().first()?.0)?.shape;
    let state = lw.fresh(pshape)?;
    let mut cinsts = Vec::new();
    let pred = match lw.comp(cond, vec![state.clone()], &mut cinsts)? {
        Val::Leaf(s)
            if lw
                .slots
                .get(s)
                .is_some_and(|s| s.ty == Ty::Pred && s.n == 1) =>
        {
            s
        }
        Val::Leaf(_) | Val::Tuple(_) => return None,
    };
    let mut binsts = Vec::new();
    let result = lw.comp(body, vec![state.clone()], &mut binsts)?;
    lw.carry(&state, &result, &mut binsts)?;
    let mut p = Program {
        slots: lw.slots,
        image: lw.image,
        state,
        pre: Vec::new(),
        cond: cinsts,
        pred,
        body: binsts,
    };
    super::scalars::read_scalars(&mut p);
    super::in_place::update_in_place(&mut p);
    super::hoist::hoist(&mut p);
    Some(p)
}

impl Lowerer<'_> {
    /// A new slot of `n` elements of `ty`, 64-byte aligned.
    pub(crate) fn slot(&mut self, ty: Ty, n: usize) -> Option<SlotId> {
        if n > MAX_ELEMS {
            return None;
        }
        let off = self.image.len().next_multiple_of(64);
        let end = off.checked_add(n.max(1) * ty.size())?;
        if end > MAX_BYTES {
            return None;
        }
        self.image.resize(end, 0);
        self.slots.push(Slot { off, ty, n });
        Some(self.slots.len() - 1)
    }

    /// The slot record of `s`.
    pub(crate) fn info(&self, s: SlotId) -> Option<Slot> {
        self.slots.get(s).copied()
    }

    /// Fresh slots for a value of `shape`.
    pub(crate) fn fresh(&mut self, shape: &Shape) -> Option<Val> {
        match shape {
            Shape::Array(a) => {
                let n = usize::try_from(shape.element_count()?).ok()?;
                if a.dynamic.iter().any(|&d| d) {
                    return None;
                }
                Some(Val::Leaf(self.slot(Ty::of(a.ty)?, n)?))
            }
            Shape::Tuple(t) => Some(Val::Tuple(
                t.iter().map(|s| self.fresh(s)).collect::<Option<_>>()?,
            )),
            Shape::Token => None,
        }
    }

    /// A slot holding constant `l` (written into the image once).
    fn constant(&mut self, l: &Literal) -> Option<Val> {
        if let Some(t) = l.tuple_elements() {
            return Some(Val::Tuple(
                t.iter().map(|e| self.constant(e)).collect::<Option<_>>()?,
            ));
        }
        let d = l.array_data()?;
        let s = self.slot(Ty::of(d.element_type())?, d.len())?;
        let off = self.info(s)?.off;
        let bytes = super::pack::bytes_of(d)?;
        self.image
            .get_mut(off..off + bytes.len())?
            .copy_from_slice(&bytes);
        Some(Val::Leaf(s))
    }

    /// Lowers computation `c` applied to `args`; returns its root value.
    pub(crate) fn comp(&mut self, c: CompId, args: Vec<Val>, out: &mut Vec<Inst>) -> Option<Val> {
        if self.depth >= MAX_DEPTH {
            return None;
        }
        self.depth += 1;
        let exe = self.exe;
        let comp = exe.module.get(c)?;
        let plan = exe.plan_of(c)?;
        let mut eval = vec![false; comp.instructions.len()];
        for s in &plan.steps {
            if let Step::Eval(i) = s {
                if let Some(e) = eval.get_mut(*i) {
                    *e = true;
                }
            }
        }
        let mut vals: Vec<Option<Val>> = vec![None; comp.instructions.len()];
        for i in 0..comp.instructions.len() {
            let cx = At {
                comp,
                c,
                i,
                fused: !eval.get(i).copied().unwrap_or(false),
            };
            let before = out.len();
            let v = self.instr(&cx, &vals, &args, out);
            if v.is_none() && std::env::var_os("XLA_CPU_WHY_NOT_NATIVE").is_some() {
                if let Some(ins) = comp.instructions.get(i) {
                    eprintln!(
                        "native loop: {} ({}) is not lowered",
                        ins.name,
                        ins.op.name()
                    );
                }
            }
            vals[i] = Some(v?);
            // Counted at the loop's own computations (depth 1), whose `out` also receives
            // what nested calls emit.
            if self.depth == 1 {
                self.cost += out.get(before..)?.iter().map(cost).sum::<usize>();
                if self.cost > MAX_COST {
                    return None;
                }
            }
        }
        self.depth -= 1;
        vals.get_mut(comp.root.0)?.take()
    }

    /// Lowers instruction `at.i`, appending its instructions to `out`.
    fn instr(
        &mut self,
        at: &At<'_>,
        vals: &[Option<Val>],
        args: &[Val],
        out: &mut Vec<Inst>,
    ) -> Option<Val> {
        let ins = at.comp.instructions.get(at.i)?;
        let opv = ins
            .operands
            .iter()
            .map(|o| vals.get(o.0).cloned().flatten())
            .collect::<Option<Vec<Val>>>()?;
        let leaf = |k: usize| match opv.get(k) {
            Some(Val::Leaf(s)) => Some(*s),
            Some(Val::Tuple(_)) | None => None,
        };
        let shape = &ins.shape;
        match &ins.op {
            Op::Parameter { number } => args.get(usize::try_from(*number).ok()?).cloned(),
            Op::Constant { literal } => self.constant(literal),
            Op::Tuple => Some(Val::Tuple(opv)),
            Op::GetTupleElement { index } => match opv.first()? {
                Val::Tuple(t) => t.get(usize::try_from(*index).ok()?).cloned(),
                Val::Leaf(_) => None,
            },
            Op::Reshape | Op::Bitcast | Op::Copy => self.alias(leaf(0)?, shape),
            Op::OptimizationBarrier => opv.first().cloned(),
            Op::Call { to_apply, .. } => self.comp(*to_apply, opv, out),
            Op::Unary(u) => self.elementwise(ew::Ew::Unary(*u), at, &opv, shape, out),
            Op::Binary(b) => self.elementwise(ew::Ew::Binary(*b), at, &opv, shape, out),
            Op::Compare {
                direction,
                comparison_type,
            } => self.elementwise(
                ew::Ew::Compare(*direction, *comparison_type),
                at,
                &opv,
                shape,
                out,
            ),
            Op::Select => self.elementwise(ew::Ew::Select, at, &opv, shape, out),
            Op::Clamp => self.elementwise(ew::Ew::Clamp, at, &opv, shape, out),
            Op::Convert => self.elementwise(ew::Ew::Convert, at, &opv, shape, out),
            Op::Iota { dimension } => self.iota(shape, *dimension),
            Op::Broadcast { dimensions } => {
                self.mv(st::Mv::Broadcast(dimensions), at, &opv, shape, out)
            }
            Op::Transpose { permutation } => {
                self.mv(st::Mv::Transpose(permutation), at, &opv, shape, out)
            }
            Op::Reverse { dimensions } => {
                self.mv(st::Mv::Reverse(dimensions), at, &opv, shape, out)
            }
            Op::Slice { start, stride, .. } => {
                self.mv(st::Mv::Slice(start, stride), at, &opv, shape, out)
            }
            Op::Concatenate { dimension } => {
                self.mv(st::Mv::Concatenate(*dimension), at, &opv, shape, out)
            }
            Op::Pad { padding } => self.mv(st::Mv::Pad(padding), at, &opv, shape, out),
            Op::DynamicSlice { slice_sizes } => {
                let xs = &at.comp.instructions.get(ins.operands.first()?.0)?.shape;
                self.array_op(&opv, shape, out, |lw, ops, d| {
                    super::dynamic::lower_slice(lw, ops, xs, slice_sizes, d)
                })
            }
            Op::DynamicUpdateSlice => {
                let xs = &at.comp.instructions.get(ins.operands.first()?.0)?.shape;
                let us = &at.comp.instructions.get(ins.operands.get(1)?.0)?.shape;
                self.array_op(&opv, shape, out, |lw, ops, d| {
                    super::dynamic::lower_update(lw, ops, xs, us, d)
                })
            }
            Op::Reduce { .. } => {
                self.array_op(&opv, shape, out, |lw, ops, d| reduce::lower(lw, at, ops, d))
            }
            Op::Dot { dims, .. } => {
                let dst = self.fresh(shape)?;
                let Val::Leaf(d) = dst else { return None };
                let shapes = [
                    &at.comp.instructions.get(ins.operands.first()?.0)?.shape,
                    &at.comp.instructions.get(ins.operands.get(1)?.0)?.shape,
                ];
                let (l, r) = (leaf(0)?, leaf(1)?);
                contraction::lower(self, dims, [l, r], shapes, d, out)?;
                Some(dst)
            }
            Op::While { condition, body } => {
                let init = opv.first()?;
                super::control::lower_while(self, [*condition, *body], init, shape, out)
            }
            Op::Conditional { branches } => {
                super::control::lower_conditional(self, branches, &opv, shape, out)
            }
            Op::Gather(g) => {
                let dst = self.fresh(shape)?;
                let Val::Leaf(d) = dst else { return None };
                let shapes = [
                    &at.comp.instructions.get(ins.operands.first()?.0)?.shape,
                    &at.comp.instructions.get(ins.operands.get(1)?.0)?.shape,
                    shape,
                ];
                let gi = super::indexing::lower_gather(self, g, [leaf(0)?, leaf(1)?], shapes, d)?;
                out.extend(gi);
                Some(dst)
            }
            Op::Scatter { dims, to_apply } if opv.len() == 3 => {
                let shapes = [
                    &at.comp.instructions.get(ins.operands.first()?.0)?.shape,
                    &at.comp.instructions.get(ins.operands.get(1)?.0)?.shape,
                    &at.comp.instructions.get(ins.operands.get(2)?.0)?.shape,
                ];
                let ops = [leaf(0)?, leaf(1)?, leaf(2)?];
                self.array_op(&opv, shape, out, |lw, _, d| {
                    super::indexing::lower_scatter(lw, dims, *to_apply, ops, shapes, d)
                })
            }
            Op::CustomCall { config, .. } if DotAdd::of(config).is_some() => {
                // The product into a slot of its own, then the add the rewrite replaced
                // (the same bits: `kernels/dot_add.rs`).
                let da = DotAdd::of(config)?;
                let t = self.fresh(shape)?;
                let Val::Leaf(ts) = t else { return None };
                let shapes = [
                    &at.comp.instructions.get(ins.operands.first()?.0)?.shape,
                    &at.comp.instructions.get(ins.operands.get(1)?.0)?.shape,
                ];
                contraction::lower(self, &da.dims, [leaf(0)?, leaf(1)?], shapes, ts, out)?;
                let c = opv.get(2)?.clone();
                let pair = match da.dot_first {
                    true => [t, c],
                    false => [c, t],
                };
                self.elementwise(ew::Ew::Binary(BinaryOp::Add), at, &pair, shape, out)
            }
            Op::CustomCall { config, .. } => {
                let shapes = ins
                    .operands
                    .iter()
                    .map(|o| at.comp.instructions.get(o.0).map(|i| &i.shape))
                    .collect::<Option<Vec<_>>>()?;
                super::host::lower(self, config, &shapes, &opv, shape, out)
            }
            Op::BitcastConvert
            | Op::Scatter { .. }
            | Op::ReducePrecision { .. }
            | Op::Map { .. }
            | Op::GetDimensionSize { .. }
            | Op::SetDimensionSize { .. }
            | Op::Convolution(_)
            | Op::ReduceWindow { .. }
            | Op::SelectAndScatter { .. }
            | Op::BatchNormTraining { .. }
            | Op::BatchNormInference { .. }
            | Op::BatchNormGrad { .. }
            | Op::Cholesky { .. }
            | Op::TriangularSolve(_)
            | Op::Fft { .. }
            | Op::Sort { .. }
            | Op::TopK { .. }
            | Op::Rng { .. }
            | Op::RngBitGenerator { .. }
            | Op::RngGetAndUpdateState { .. }
            | Op::AfterAll
            | Op::AddDependency
            | Op::AllGather { .. }
            | Op::AllReduce { .. }
            | Op::ReduceScatter { .. }
            | Op::AllToAll { .. }
            | Op::CollectivePermute { .. }
            | Op::ReplicaId
            | Op::PartitionId
            | Op::AllReduceStart { .. }
            | Op::AllReduceDone
            | Op::AllGatherStart { .. }
            | Op::AllGatherDone
            | Op::CollectivePermuteStart { .. }
            | Op::CollectivePermuteDone
            | Op::CollectiveBroadcast { .. }
            | Op::Send { .. }
            | Op::SendDone { .. }
            | Op::Recv { .. }
            | Op::RecvDone { .. }
            | Op::Infeed { .. }
            | Op::Outfeed { .. } => None,
        }
    }

    /// A fresh array value of `shape` written by the instruction `make` builds from the
    /// operand slots and the destination slot.
    fn array_op(
        &mut self,
        opv: &[Val],
        shape: &Shape,
        out: &mut Vec<Inst>,
        make: impl FnOnce(&mut Self, &[SlotId], SlotId) -> Option<Inst>,
    ) -> Option<Val> {
        let ops = opv
            .iter()
            .map(|v| match v {
                Val::Leaf(s) => Some(*s),
                Val::Tuple(_) => None,
            })
            .collect::<Option<Vec<_>>>()?;
        let dst = self.fresh(shape)?;
        let Val::Leaf(d) = dst else { return None };
        out.push(make(self, &ops, d)?);
        Some(dst)
    }

    fn elementwise(
        &mut self,
        op: ew::Ew,
        at: &At<'_>,
        opv: &[Val],
        shape: &Shape,
        out: &mut Vec<Inst>,
    ) -> Option<Val> {
        self.array_op(opv, shape, out, |lw, ops, d| {
            ew::lower(lw, op, ops, d, at.fused)
        })
    }

    fn mv(
        &mut self,
        mv: st::Mv<'_>,
        at: &At<'_>,
        opv: &[Val],
        shape: &Shape,
        out: &mut Vec<Inst>,
    ) -> Option<Val> {
        self.array_op(opv, shape, out, |lw, ops, d| {
            st::lower(lw, at.comp, at.i, mv, ops, d)
        })
    }

    /// A reshape, bitcast or copy: the same slot, when type and count agree.
    fn alias(&mut self, s: SlotId, shape: &Shape) -> Option<Val> {
        let slot = self.info(s)?;
        let a = shape.as_array()?;
        let n = usize::try_from(shape.element_count()?).ok()?;
        (Ty::of(a.ty)? == slot.ty && n == slot.n).then_some(Val::Leaf(s))
    }

    /// `iota`: a constant slot.
    fn iota(&mut self, shape: &Shape, dim: i64) -> Option<Val> {
        if usize::try_from(shape.element_count()?).ok()? > MAX_ELEMS {
            return None;
        }
        let l = crate::kernels::structural::iota(dim, shape).ok()?;
        self.constant(&l)
    }

    /// Moves the body's result into the state: pass-through leaves stay, leaves that are
    /// other state slots go through a temporary first, the rest are copied.
    pub(crate) fn carry(&mut self, state: &Val, result: &Val, out: &mut Vec<Inst>) -> Option<()> {
        let (mut s, mut r) = (Vec::new(), Vec::new());
        state.leaves(&mut s);
        result.leaves(&mut r);
        if s.len() != r.len() || !same_structure(state, result) {
            return None;
        }
        let mut pairs = Vec::new();
        for (&sl, &rl) in s.iter().zip(&r) {
            let (si, ri) = (self.info(sl)?, self.info(rl)?);
            if si.ty != ri.ty || si.n != ri.n {
                return None;
            }
            if sl == rl {
                continue;
            }
            let src = if s.contains(&rl) {
                let t = self.slot(ri.ty, ri.n)?;
                out.push(st::copy(t, rl, ri.n));
                t
            } else {
                rl
            };
            pairs.push((sl, src, ri.n));
        }
        out.extend(pairs.into_iter().map(|(d, src, n)| st::copy(d, src, n)));
        Some(())
    }
}

/// The code size of `ins`: its runs or fold steps, at least 1.
fn cost(ins: &Inst) -> usize {
    match ins {
        Inst::Move { runs, .. } | Inst::DynSlice { runs, .. } | Inst::DynUpdate { runs, .. } => {
            runs.len().max(1)
        }
        Inst::Fold { plan, .. } => plan.steps.len().max(1),
        Inst::Scatter { windows, .. } => windows.iter().map(|w| w.1.len() + 1).sum::<usize>() + 1,
        Inst::Loop { cond, body, .. } => cond.iter().chain(body).map(cost).sum::<usize>() + 1,
        Inst::Branch { arms, .. } => arms.iter().flatten().map(cost).sum::<usize>() + 1,
        Inst::Unary { .. }
        | Inst::Binary { .. }
        | Inst::Compare { .. }
        | Inst::Select { .. }
        | Inst::Clamp { .. }
        | Inst::Convert { .. }
        | Inst::Dot { .. }
        | Inst::Host(_) => 1,
    }
}

fn same_structure(a: &Val, b: &Val) -> bool {
    match (a, b) {
        (Val::Leaf(_), Val::Leaf(_)) => true,
        (Val::Tuple(x), Val::Tuple(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| same_structure(a, b))
        }
        (Val::Leaf(_), Val::Tuple(_)) | (Val::Tuple(_), Val::Leaf(_)) => false,
    }
}

/// Where an instruction being lowered sits.
pub(crate) struct At<'c> {
    /// Its computation.
    pub comp: &'c Computation,
    /// That computation's id.
    pub c: CompId,
    /// Its index.
    pub i: usize,
    /// True when the interpreter computes it inside a fused kernel.
    pub fused: bool,
}
