//! Constant folding at compile time: an instruction whose operands are all known constants
//! is evaluated once, with the same kernels that would run it, and replaced by its value.
//!
//! Values are tracked through every pure op of at most [`LIMIT`] elements, but only
//! computing ops are replaced: a `broadcast`/`reshape`/`iota` of a constant stays as it is,
//! because the fused kernels read it as a scalar instead of a materialised array. Ops with
//! side effects, random numbers, host transfers, called computations and tuples are never
//! folded. An op whose evaluation fails is left in place (it reports at run time).

use crate::compile::Executable;
use crate::exec::Ctx;
use std::cell::Cell;
use xla_core::ir::{Module, Op};
use xla_core::Literal;

/// Largest result (in elements) tracked or folded: 256 KiB of f32, so a solver's
/// `2·I` of 128 x 128 built from two iotas, a compare and a convert is one constant
/// instead of four kernels per run (BiCGSTAB on a 128 x 128 system, E2: 35 → 27 µs; from
/// 4,096 elements, the limit before, it was not folded).
const LIMIT: i64 = 1 << 16;

/// The module of `exe` with its constant subexpressions folded, or `None` if nothing folds.
pub(crate) fn fold_constants(exe: &Executable) -> Option<Module> {
    let cx = Ctx {
        exe,
        rng_calls: Cell::new(0),
        reference: false,
        device: None,
        stop: &crate::limits::stop::NEVER,
        budget: crate::limits::budget::Budget::default(),
    };
    let mut m = exe.module.clone();
    let mut changed = false;
    for c in &mut m.computations {
        let mut known: Vec<Option<Literal>> = vec![None; c.instructions.len()];
        for i in 0..c.instructions.len() {
            let ins = &c.instructions[i];
            if let Op::Constant { literal } = &ins.op {
                if ins.shape.element_count().is_some_and(|n| n <= LIMIT) {
                    known[i] = Some(literal.clone());
                }
                continue;
            }
            if !pure(&ins.op) || ins.shape.element_count().is_none_or(|n| n > LIMIT) {
                continue;
            }
            let Some(args) = ins
                .operands
                .iter()
                .map(|o| known.get(o.0).and_then(Option::as_ref))
                .collect::<Option<Vec<&Literal>>>()
            else {
                continue;
            };
            let Ok(value) = cx.eval(&ins.op, &args, &ins.shape) else {
                continue;
            };
            if !shape_only(&ins.op) {
                if let Some(ins) = c.instructions.get_mut(i) {
                    ins.op = Op::Constant {
                        literal: value.clone(),
                    };
                    ins.operands.clear();
                    changed = true;
                }
            }
            known[i] = Some(value);
        }
    }
    changed.then_some(m)
}

/// Ops that only rearrange or replicate their operand (kept, so fusion sees the scalar).
fn shape_only(op: &Op) -> bool {
    matches!(
        op,
        Op::Broadcast { .. } | Op::Reshape | Op::Bitcast | Op::Copy | Op::Iota { .. }
    )
}

/// Ops whose value depends only on their operands and attributes, with no called
/// computation and an array result.
pub(crate) fn pure(op: &Op) -> bool {
    if op.has_side_effect() || !op.called_computations().is_empty() {
        return false;
    }
    !matches!(
        op,
        Op::Parameter { .. }
            | Op::Constant { .. }
            | Op::Tuple
            | Op::GetTupleElement { .. }
            | Op::Rng { .. }
            | Op::RngBitGenerator { .. }
            | Op::RngGetAndUpdateState { .. }
            | Op::CustomCall { .. }
            | Op::AfterAll
            | Op::Infeed { .. }
            | Op::Outfeed { .. }
            | Op::Send { .. }
            | Op::SendDone { .. }
            | Op::Recv { .. }
            | Op::RecvDone { .. }
            | Op::ReplicaId
            | Op::PartitionId
            | Op::AllReduceStart { .. }
            | Op::AllReduceDone
            | Op::AllGatherStart { .. }
            | Op::AllGatherDone
            | Op::CollectivePermuteStart { .. }
            | Op::CollectivePermuteDone
            | Op::CollectiveBroadcast { .. }
            | Op::OptimizationBarrier
            | Op::BatchNormTraining { .. }
            | Op::BatchNormGrad { .. }
            | Op::TopK { .. }
    )
}
