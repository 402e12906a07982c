//! The static peak memory of an executable: its buffer plan (the schedule of stored
//! values and when each dies) walked once with every value's size from its shape.
//!
//! What is counted: the entry's parameters, the module's constants (read in place, but
//! held as long as the executable lives), every value a step stores while it is live,
//! and, at an instruction that calls computations (`while`, `call`, `reduce`, ...), the
//! largest peak of its callees on top of what is live. What is not: kernels' own scratch
//! (packing buffers of `dot` and `convolution`, a few rows or blocks per thread) and
//! vectorised runs of scalar computations. Shapes are static in HLO, so a loop's state
//! cannot grow past its shape; what the plan cannot foresee (a vectorised run, a custom
//! call's result) is caught at run time by [`super::budget`].

use super::bytes::shape_bytes;
use crate::compile::Executable;
use xla_core::ir::{CompId, Op};

/// Deepest nesting of called computations followed (HLO has no recursion; this only
/// guards against a malformed module).
const MAX_DEPTH: usize = 64;

/// The peak bytes of live values of one run of `exe`'s entry computation, its
/// parameters and the module's constants included.
pub(crate) fn peak_bytes(exe: &Executable) -> u64 {
    let mut memo = vec![None; exe.module.computations.len()];
    let entry = exe.module.entry;
    let params = exe.module.get(entry).map_or(0, |comp| {
        comp.instructions
            .iter()
            .filter(|i| matches!(i.op, Op::Parameter { .. }))
            .map(|i| shape_bytes(&i.shape))
            .fold(0, u64::saturating_add)
    });
    let constants = exe
        .module
        .computations
        .iter()
        .flat_map(|c| &c.instructions)
        .filter(|i| matches!(i.op, Op::Constant { .. }))
        .map(|i| shape_bytes(&i.shape))
        .fold(0, u64::saturating_add);
    params
        .saturating_add(constants)
        .saturating_add(comp_peak(exe, entry, &mut memo, 0))
}

/// The peak of the values computation `c` stores (its parameters excluded: the caller
/// counts them).
fn comp_peak(exe: &Executable, c: CompId, memo: &mut [Option<u64>], depth: usize) -> u64 {
    if let Some(Some(p)) = memo.get(c.0) {
        return *p;
    }
    let (Some(comp), Some(plan)) = (exe.module.get(c), exe.plan_of(c)) else {
        return 0;
    };
    if depth > MAX_DEPTH {
        return 0;
    }
    let mut stored = vec![0u64; comp.instructions.len()];
    let (mut live, mut peak) = (0u64, 0u64);
    for (k, step) in plan.steps.iter().enumerate() {
        let i = step.instr();
        let Some(ins) = comp.instructions.get(i) else {
            continue;
        };
        let out = match ins.op {
            Op::Parameter { .. } | Op::Constant { .. } => 0,
            _ => shape_bytes(&ins.shape),
        };
        let callee = ins
            .op
            .called_computations()
            .into_iter()
            .map(|cc| comp_peak(exe, cc, memo, depth + 1))
            .max()
            .unwrap_or(0);
        peak = peak.max(live.saturating_add(out).saturating_add(callee));
        live = live.saturating_add(out);
        if let Some(s) = stored.get_mut(i) {
            *s = out;
        }
        for &d in plan.frees.get(k).map_or(&[][..], Vec::as_slice) {
            if let Some(s) = stored.get_mut(d) {
                live = live.saturating_sub(std::mem::take(s));
            }
        }
    }
    if let Some(m) = memo.get_mut(c.0) {
        *m = Some(peak);
    }
    peak
}
