//! The executor's schedule as data, for drawing it (`xla graph --plan`): which
//! instructions each step computes, and whether it is a fused kernel.

use crate::compile::Executable;
use crate::fusion::Step;
use xla_core::ir::CompId;

/// One step of a computation's schedule.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlanStep {
    /// The instruction whose value the step stores (an index into the computation's
    /// instructions in [`Executable::module`]).
    pub root: usize,
    /// For a fused kernel its label, as profiles name it (`fusion`, `fusion[code]`,
    /// `fusion[rows:N]`); `None` for an instruction run by its own kernel.
    pub fusion: Option<String>,
    /// The instructions a fused kernel computes without storing them, its root included
    /// (sorted); empty for an instruction run by its own kernel.
    pub members: Vec<usize>,
    /// The number of steps, this one first, that run side by side with it (independent
    /// kernels computed at the same time on two threads); 1 for a step run alone, 0 for a
    /// step inside an earlier step's group.
    pub group: usize,
}

impl Executable {
    /// The schedule of computation `c` of [`Executable::module`] (the module after the
    /// compiler's rewrites), one entry per step in execution order; empty for a
    /// computation the executable does not have.
    pub fn plan_steps(&self, c: CompId) -> Vec<PlanStep> {
        let (Some(comp), Some(plan)) = (self.module.get(c), self.plan_of(c)) else {
            return Vec::new();
        };
        let group = |k: usize| plan.groups.get(k).copied().unwrap_or(1);
        plan.steps
            .iter()
            .enumerate()
            .map(|(k, step)| match step {
                Step::Eval(i) => PlanStep {
                    root: *i,
                    fusion: None,
                    members: Vec::new(),
                    group: group(k),
                },
                Step::Fused(i, f) => {
                    // Everything reached from the root before the kernel's inputs.
                    let mut members = Vec::new();
                    let mut stack = vec![*i];
                    while let Some(k) = stack.pop() {
                        if members.contains(&k) || f.inputs.iter().any(|x| x.0 == k) {
                            continue;
                        }
                        members.push(k);
                        if let Some(ins) = comp.instructions.get(k) {
                            stack.extend(ins.operands.iter().map(|o| o.0));
                        }
                    }
                    members.sort_unstable();
                    PlanStep {
                        root: *i,
                        fusion: Some(f.label()),
                        members,
                        group: group(k),
                    }
                }
            })
            .collect()
    }
}
