//! All-reduce on `MPI_Allreduce` with MPI's built-in operations, for the reductions whose
//! MPI result has exactly the bits of the fold in group order `f(f(v0, v1), v2)...` that the
//! threads backend computes:
//!
//! - integer add, multiply (wrapping, as Open MPI's C loops compute them), max, min, and, or,
//!   xor, for s8/s16/s32/s64 and u8/u16/u32/u64: associative and commutative, so any order of
//!   combination gives the same bits, for any group size;
//! - PRED and/or/xor (and max = or, min = and) as MPI's logical operations on C `bool`,
//!   exact in any order too;
//! - float add and multiply in a group of two: IEEE addition and multiplication are
//!   commutative, so `v0 + v1` and `v1 + v0` are the same bits, except which NaN's payload
//!   survives when both are NaN, and XLA:CPU's sum of `-0` only (`+0`, see `xla_fold`):
//!   a member holding a NaN or a `-0` says so in the handshake, and then every member takes
//!   the all-gather and the fold. With three or more members MPI may associate differently,
//!   so those fold on the caller after an all-gather.
//!
//! A user op declared non-commutative (MPI then keeps rank order) would carry any reduction,
//! but the `mpi` crate builds user ops on `libffi` (its `user-operations` feature), which this
//! build does without; with three or more float members it would not help anyway, as MPI may
//! still re-associate (Open MPI's non-commutative reduce folds from the right).
//!
//! Measured once (2 ranks, f32 add of 16 MB per device, `xla bench --backend mpi` median of
//! 5, load 13): `MPI_Allreduce` 0.32 s, the other path (`MPI_Allgatherv` and a local fold,
//! forced with `XLA_MPI_ALLREDUCE=gather`) 0.79 s, 2 threads 1.89 s. MPI's reduction moves
//! half the bytes and adds in place, so it is the path kept; `scripts/allreduce_bandwidth.sh
//! XLA --mpi` times both over 1 KB-64 MB.

use crate::error::Result;
use mpi::collective::{CommunicatorCollectives, SystemOperation};
use mpi::datatype::Equivalence;
use mpi::topology::SimpleCommunicator;
use xla_core::attrs::BinaryOp;
use xla_core::literal::ArrayData;
use xla_core::Literal;

/// The all-reduce of `value` on a group's communicator, as a closure, when MPI can compute
/// it with the fold's bits in a group of `members`; `None` otherwise.
pub(super) fn plan(
    value: &Literal,
    op: BinaryOp,
    members: usize,
) -> Option<impl FnOnce(&SimpleCommunicator) -> Result<Literal> + '_> {
    let data = value.array_data()?;
    if i32::try_from(value.shape().element_count()?).is_err() {
        return None;
    }
    system_op(data, op, members)?;
    Some(move |c: &SimpleCommunicator| {
        let f = system_op(data, op, members).ok_or_else(|| super::bad("all-reduce op"))?;
        let out = match data {
            ArrayData::F32(v) => ArrayData::F32(run(c, v, f)),
            ArrayData::F64(v) => ArrayData::F64(run(c, v, f)),
            ArrayData::S8(v) => ArrayData::S8(run(c, v, f)),
            ArrayData::S16(v) => ArrayData::S16(run(c, v, f)),
            ArrayData::S32(v) => ArrayData::S32(run(c, v, f)),
            ArrayData::S64(v) => ArrayData::S64(run(c, v, f)),
            ArrayData::U8(v) => ArrayData::U8(run(c, v, f)),
            ArrayData::U16(v) => ArrayData::U16(run(c, v, f)),
            ArrayData::U32(v) => ArrayData::U32(run(c, v, f)),
            ArrayData::U64(v) => ArrayData::U64(run(c, v, f)),
            ArrayData::Pred(v) => ArrayData::Pred(run(c, v, f)),
            ArrayData::F16(_) | ArrayData::Bf16(_) | ArrayData::C64(_) | ArrayData::C128(_) => {
                return Err(super::bad("all-reduce type changed"))
            }
        };
        Ok(Literal::from_array_data(
            value.shape().without_layout(),
            out,
        )?)
    })
}

/// MPI's built-in operation computing `op` on `data` in a group of `members` with the bits
/// of the fold in group order, if there is one.
fn system_op(data: &ArrayData, op: BinaryOp, members: usize) -> Option<SystemOperation> {
    match data {
        ArrayData::F32(_) | ArrayData::F64(_) => (members <= 2).then(|| float(op)).flatten(),
        ArrayData::S8(_)
        | ArrayData::S16(_)
        | ArrayData::S32(_)
        | ArrayData::S64(_)
        | ArrayData::U8(_)
        | ArrayData::U16(_)
        | ArrayData::U32(_)
        | ArrayData::U64(_) => int(op),
        ArrayData::Pred(_) => pred(op),
        // No MPI type (f16, bf16) or no MPI sum with the fold's rounding (complex).
        ArrayData::F16(_) | ArrayData::Bf16(_) | ArrayData::C64(_) | ArrayData::C128(_) => None,
    }
}

/// MPI's logical operation for `op` on PRED (MPI's C `bool`): and/min, or/max, xor. PRED
/// add and multiply fold locally.
fn pred(op: BinaryOp) -> Option<SystemOperation> {
    match op {
        BinaryOp::And | BinaryOp::Min => Some(SystemOperation::logical_and()),
        BinaryOp::Or | BinaryOp::Max => Some(SystemOperation::logical_or()),
        BinaryOp::Xor => Some(SystemOperation::logical_xor()),
        _ => None,
    }
}

/// MPI's operation for `op` on floats, when MPI may run it (two members).
fn float(op: BinaryOp) -> Option<SystemOperation> {
    match op {
        BinaryOp::Add => Some(SystemOperation::sum()),
        BinaryOp::Mul => Some(SystemOperation::product()),
        _ => None,
    }
}

/// MPI's operation for `op` on integers.
fn int(op: BinaryOp) -> Option<SystemOperation> {
    match op {
        BinaryOp::Add => Some(SystemOperation::sum()),
        BinaryOp::Mul => Some(SystemOperation::product()),
        BinaryOp::Max => Some(SystemOperation::max()),
        BinaryOp::Min => Some(SystemOperation::min()),
        BinaryOp::And => Some(SystemOperation::bitwise_and()),
        BinaryOp::Or => Some(SystemOperation::bitwise_or()),
        BinaryOp::Xor => Some(SystemOperation::bitwise_xor()),
        _ => None,
    }
}

/// `MPI_Allreduce` of `v` with `op`.
fn run<T: Equivalence + Copy + Default>(
    c: &SimpleCommunicator,
    v: &[T],
    op: SystemOperation,
) -> Vec<T> {
    let mut out = vec![T::default(); v.len()];
    c.all_reduce_into(v, &mut out[..], op);
    out
}
