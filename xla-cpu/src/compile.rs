//! Compiling a module: verify once, then plan each computation (parameter order, when each
//! value dies, which called computations are simple scalar combiners that run natively).

use crate::error::{CpuError, HostError, Result};
use crate::fusion::{plan_steps, Step};
use crate::kernels::combiner::{recognise, Combiner};
use crate::kernels::host::{CustomCallFn, HostQueues};
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use xla_core::ir::{CompId, Computation, InstrId, Module, Op};
use xla_core::{Literal, Shape};

/// The plan of one computation.
#[derive(Debug)]
pub(crate) struct CompPlan {
    /// Parameter instruction of each parameter number.
    pub params: Vec<InstrId>,
    /// For each instruction, the index of the last instruction that reads it.
    pub last_use: Vec<usize>,
    /// Set when the computation is a recognised scalar combiner.
    pub combiner: Option<Combiner>,
    /// Set when the computation is a recognised argmax/argmin comparator.
    pub arg_fold: Option<crate::kernels::arg_reduce::ArgFold>,
    /// Every value is a scalar (or a tuple of scalars) and every op is elementwise, so the
    /// computation can run on vectors of argument sets at once.
    pub vectorizable: bool,
    /// The schedule: one step per stored value, elementwise chains fused into kernels.
    pub steps: Vec<Step>,
    /// For each step, the values whose last reader it is (dropped after it runs).
    pub frees: Vec<Vec<usize>>,
    /// For each step, true when it is a `get-tuple-element` that may move its element out of
    /// an owned tuple: every reader of the tuple is a `get-tuple-element`, and no later one
    /// reads the same element.
    pub gte_take: Vec<bool>,
    /// For each step, the size of the group of independent steps it starts (1: alone; 0:
    /// inside a group), run side by side (see `concurrent.rs`).
    pub groups: Vec<usize>,
}

/// A compiled module, ready to run any number of times from any number of threads.
pub struct Executable {
    pub(crate) module: Module,
    pub(crate) plans: Vec<CompPlan>,
    pub(crate) rng_seed: AtomicU64,
    pub(crate) rng_state: AtomicU64,
    pub(crate) custom_calls: HashMap<String, Arc<CustomCallFn>>,
    pub(crate) host: Mutex<HostQueues>,
    /// Thread count and pool of the heavy kernels (see `parallel.rs`).
    pub(crate) threads: crate::parallel::Threads,
    /// Per-instruction timings, when turned on (see `profile.rs`).
    pub(crate) profile: Option<crate::profile::Profile>,
    /// `while` loops compiled to native code, by (condition, body) (see `native/`).
    pub(crate) native: crate::native::NativeLoops,
    /// Peak memory and memory limit (see `limits/`).
    pub(crate) limits: crate::limits::Limits,
}

impl std::fmt::Debug for Executable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Executable")
            .field("module", &self.module.name)
            .finish_non_exhaustive()
    }
}

fn scalar_or_scalar_tuple(s: &Shape) -> bool {
    s.is_scalar()
        || s.tuple_elements()
            .is_some_and(|t| t.iter().all(Shape::is_scalar))
}

/// A whitelist: any op not named here (including ops added later) is not vectorizable.
fn vectorizable(comp: &Computation) -> bool {
    comp.instructions.iter().all(|ins| {
        scalar_or_scalar_tuple(&ins.shape)
            && matches!(
                ins.op,
                Op::Parameter { .. }
                    | Op::Constant { .. }
                    | Op::Unary(_)
                    | Op::Binary(_)
                    | Op::Compare { .. }
                    | Op::Select
                    | Op::Clamp
                    | Op::Convert
                    | Op::ReducePrecision { .. }
                    | Op::Tuple
                    | Op::GetTupleElement { .. }
            )
    })
}

fn plan(comp: &Computation) -> Result<CompPlan> {
    let n = comp.instructions.len();
    if comp.root.0 >= n {
        return Err(CpuError::Malformed(format!(
            "computation {} has no root",
            comp.name
        )));
    }
    let mut last_use: Vec<usize> = (0..n).collect();
    for (i, ins) in comp.instructions.iter().enumerate() {
        for o in &ins.operands {
            if o.0 >= i {
                return Err(CpuError::Malformed(format!(
                    "{}: operand {} of {} is not an earlier instruction",
                    comp.name, o.0, ins.name
                )));
            }
            last_use[o.0] = i;
        }
    }
    last_use[comp.root.0] = usize::MAX;
    let params = comp.parameters();
    for (k, id) in params.iter().enumerate() {
        if !matches!(comp.instructions[id.0].op, Op::Parameter { number } if number == k as i64) {
            return Err(CpuError::Malformed(format!(
                "{}: parameter numbers are not 0..{}",
                comp.name,
                params.len()
            )));
        }
    }
    let combiner = recognise(comp, &params);
    let arg_fold = crate::kernels::arg_reduce::recognise(comp, &params);
    Ok(CompPlan {
        params,
        last_use,
        combiner,
        arg_fold,
        vectorizable: vectorizable(comp),
        steps: Vec::new(),
        frees: Vec::new(),
        gte_take: Vec::new(),
        groups: Vec::new(),
    })
}

/// Fills in the schedule of `comp` and when each value dies.
fn schedule(p: &mut CompPlan, comp: &Computation, combiners: &[Option<Combiner>], rows: bool) {
    let steps = plan_steps(
        comp,
        &|c: CompId| combiners.get(c.0).copied().flatten(),
        rows,
    );
    let (steps, groups) = crate::concurrent::group(comp, steps);
    let mut last = vec![usize::MAX; comp.instructions.len()];
    for (k, s) in steps.iter().enumerate() {
        // An unread value dies at once.
        if let Some(l) = last.get_mut(s.instr()) {
            *l = k;
        }
        for o in s.reads(comp) {
            if let Some(l) = last.get_mut(o.0) {
                *l = k;
            }
        }
    }
    let mut frees = vec![Vec::new(); steps.len()];
    for (v, &k) in last.iter().enumerate() {
        if v != comp.root.0 {
            if let Some(f) = frees.get_mut(k) {
                f.push(v);
            }
        }
    }
    if std::env::var_os("XLA_CPU_DUMP_PLAN").is_some() {
        eprintln!("plan of {}:", comp.name);
        for (s, g) in steps.iter().zip(&groups) {
            let (kind, i) = match s {
                Step::Eval(i) => ("eval".to_string(), *i),
                Step::Fused(i, f) => (f.label(), *i),
            };
            if let Some(ins) = comp.instructions.get(i) {
                let mark = match g {
                    1 => String::new(),
                    0 => "  (in the group above)".into(),
                    n => format!("  (a group of {n} side by side)"),
                };
                eprintln!(
                    "  {kind:<16} {} {} {}{mark}",
                    ins.op.name(),
                    ins.shape,
                    ins.name
                );
            }
        }
    }
    p.gte_take = element_takes(comp, &steps);
    p.steps = steps;
    p.frees = frees;
    p.groups = groups;
}

/// Which steps may move their element out of a tuple (see [`CompPlan::gte_take`]).
fn element_takes(comp: &Computation, steps: &[Step]) -> Vec<bool> {
    let n = comp.instructions.len();
    // Per value: read only by get-tuple-element steps (and not the root).
    let mut only_gte = vec![true; n];
    if let Some(r) = only_gte.get_mut(comp.root.0) {
        *r = false;
    }
    let gte = |s: &Step| match s {
        Step::Eval(i) => {
            comp.instructions
                .get(*i)
                .and_then(|ins| match (&ins.op, ins.operands.as_slice()) {
                    (Op::GetTupleElement { index }, [t]) => Some((t.0, *index)),
                    _ => None,
                })
        }
        Step::Fused(..) => None,
    };
    for s in steps {
        if gte(s).is_none() {
            for o in s.reads(comp) {
                if let Some(g) = only_gte.get_mut(o.0) {
                    *g = false;
                }
            }
        }
    }
    let mut seen = std::collections::HashSet::new();
    let mut take = vec![false; steps.len()];
    for (k, s) in steps.iter().enumerate().rev() {
        if let Some((t, index)) = gte(s) {
            take[k] = only_gte.get(t).copied().unwrap_or(false) && seen.insert((t, index));
        }
    }
    take
}

impl Executable {
    /// Verifies `module` and plans every computation once.
    ///
    /// # Errors
    /// If the module fails verification or is malformed (operands after users, no root,
    /// parameter numbers with gaps, a called computation that does not exist).
    pub fn compile(module: &Module) -> Result<Executable> {
        Executable::compile_with(module, true)
    }

    /// As [`Executable::compile`], but every fused step runs on its own (no row chains):
    /// the baseline the chains are tested against.
    ///
    /// # Errors
    /// As [`Executable::compile`].
    #[doc(hidden)]
    pub fn compile_without_row_chains(module: &Module) -> Result<Executable> {
        Executable::compile_with(module, false)
    }

    fn compile_with(module: &Module, rows: bool) -> Result<Executable> {
        xla_core::verify::verify_module(module)?;
        if module.entry_computation().is_none() {
            return Err(CpuError::Malformed(
                "the module has no entry computation".into(),
            ));
        }
        let mut module = module.clone();
        crate::rewrite::simplify(&mut module);
        let exe = Executable::planned(module, rows)?;
        let mut exe = match crate::fold::fold_constants(&exe) {
            Some(folded) => Executable::planned(folded, rows)?,
            None => exe,
        };
        exe.native = crate::native::compile_loops(&exe);
        Ok(exe)
    }

    /// Verifies and plans `module` with none of the compile-time rewrites (no inlining, loop
    /// invariant motion, common subexpressions, constant folding or algebraic rewrites): the
    /// baseline the rewrites are tested against.
    ///
    /// # Errors
    /// As [`Executable::compile`].
    #[doc(hidden)]
    pub fn compile_without_rewrites(module: &Module) -> Result<Executable> {
        xla_core::verify::verify_module(module)?;
        if module.entry_computation().is_none() {
            return Err(CpuError::Malformed(
                "the module has no entry computation".into(),
            ));
        }
        Executable::planned(module.clone(), true)
    }

    /// Plans every computation of an already verified (and rewritten) module.
    fn planned(module: Module, rows: bool) -> Result<Executable> {
        let mut plans = module
            .computations
            .iter()
            .map(plan)
            .collect::<Result<Vec<_>>>()?;
        let combiners: Vec<Option<Combiner>> = plans.iter().map(|p| p.combiner).collect();
        for (p, comp) in plans.iter_mut().zip(&module.computations) {
            schedule(p, comp, &combiners, rows);
        }
        for comp in &module.computations {
            for ins in &comp.instructions {
                if let Some(bad) = ins
                    .op
                    .called_computations()
                    .into_iter()
                    .find(|c| c.0 >= module.computations.len())
                {
                    return Err(CpuError::Malformed(format!(
                        "{} calls computation #{} which does not exist",
                        ins.name, bad.0
                    )));
                }
            }
        }
        Ok(Executable {
            module,
            plans,
            rng_seed: AtomicU64::new(0),
            rng_state: AtomicU64::new(0),
            custom_calls: HashMap::new(),
            host: Mutex::new(HostQueues::default()),
            threads: crate::parallel::Threads::default(),
            profile: None,
            native: crate::native::NativeLoops::new(),
            limits: crate::limits::Limits::default(),
        })
    }

    /// Sets the seed of the `rng` op (the default is 0). Runs with the same seed give the
    /// same numbers.
    pub fn set_rng_seed(&self, seed: u64) {
        self.rng_seed.store(seed, Ordering::Relaxed);
    }

    /// Registers the function a `custom-call` with `custom_call_target=name` runs. Its
    /// error (any error type; strings convert with `?` or `.into()`) becomes
    /// [`CpuError::CustomCall`] with [`CustomCallFailure::Host`](crate::CustomCallFailure)
    /// as the source.
    pub fn register_custom_call<F>(&mut self, name: impl Into<String>, f: F)
    where
        F: Fn(&[Literal], &Shape, &str) -> std::result::Result<Literal, HostError>
            + Send
            + Sync
            + 'static,
    {
        self.custom_calls.insert(name.into(), Arc::new(f));
    }

    /// Queues a value for the next `infeed`.
    pub fn push_infeed(&self, value: Literal) {
        if let Ok(mut h) = self.host.lock() {
            h.infeed.push_back(value);
        }
    }

    /// Takes every value sent by `outfeed` so far, oldest first.
    pub fn take_outfeed(&self) -> Vec<Literal> {
        self.host
            .lock()
            .map(|mut h| std::mem::take(&mut h.outfeed))
            .unwrap_or_default()
    }

    /// Queues a value for the next host `recv` on `channel`.
    pub fn push_recv(&self, channel: i64, value: Literal) {
        if let Ok(mut h) = self.host.lock() {
            h.recv.entry(channel).or_default().push_back(value);
        }
    }

    /// Takes every value sent by host `send` on `channel` so far, oldest first.
    pub fn take_sent(&self, channel: i64) -> Vec<Literal> {
        self.host
            .lock()
            .map(|mut h| h.sent.remove(&channel).unwrap_or_default())
            .unwrap_or_default()
    }

    /// The compiled module.
    pub fn module(&self) -> &Module {
        &self.module
    }

    pub(crate) fn plan_of(&self, c: CompId) -> Option<&CompPlan> {
        self.plans.get(c.0)
    }
}

impl Executable {
    /// Sets the number of threads the heavy kernels of this executable use (0 is taken as
    /// 1). The default is `XLA_CPU_THREADS`, or every core. Results do not depend on it.
    pub fn set_threads(&mut self, n: usize) {
        self.threads = crate::parallel::Threads::new(n);
    }

    /// The number of threads the heavy kernels of this executable use.
    pub fn threads(&self) -> usize {
        self.threads.parallel().threads()
    }

    /// The parallelism handed to kernels.
    pub(crate) fn parallel(&self) -> crate::parallel::Parallel<'_> {
        self.threads.parallel()
    }
}
