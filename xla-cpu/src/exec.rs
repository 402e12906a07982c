//! Running a computation: one value per instruction, freed after its last use; called
//! computations run through [`Ctx::call`].

use crate::compile::Executable;
use crate::devices::ops as dev;
use crate::error::{internal, operand_kind, out_of_range, CpuError, Result};
use crate::fusion::{self, Step};
use crate::index::{array, data, dims_of, make};
use crate::kernels::combiner::Combiner;
use crate::kernels::{
    collective, contraction, control, elementwise as ew, fft, indexing, linalg, rng, sort,
    structural as st, window,
};
use crate::limits::budget::Budget;
use crate::limits::bytes::shape_bytes;
use crate::values::Values;
use std::borrow::Cow;
use std::cell::Cell;
use xla_core::ir::{CompId, Instruction, Op};
use xla_core::literal::LiteralValue;
use xla_core::{Literal, Shape};

/// How a computation runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Mode {
    /// The planned schedule with fused kernels.
    Fused,
    /// One instruction at a time, reference kernels.
    Unfused,
    /// One instruction at a time on vectors of `n` argument sets.
    Vector(usize),
}

/// The state of one `execute` call, shared by the computations it runs.
pub(crate) struct Ctx<'a> {
    /// The executable.
    pub exe: &'a Executable,
    /// Counts `rng` instructions run, so each draws different numbers.
    pub rng_calls: Cell<u64>,
    /// Every computation runs one instruction at a time with the reference kernels, called
    /// computations too (the baseline fast paths are tested against).
    pub reference: bool,
    /// The device this run is, in a multi-device run (`None`: a single device).
    pub device: Option<&'a crate::devices::Device<'a>>,
    /// The run's cancel token and deadline (see `limits/stop.rs`).
    pub stop: &'a crate::limits::stop::Stop,
    /// The run's memory limit and the bytes it holds (see `limits/budget.rs`).
    pub budget: Budget,
}

impl Executable {
    /// Runs the entry computation on `args`.
    ///
    /// # Errors
    /// If the argument count or a shape differs from the entry's parameters, or an
    /// instruction fails (the error names it).
    pub fn execute(&self, args: &[Literal]) -> Result<Literal> {
        self.execute_borrowed(&args.iter().collect::<Vec<_>>())
    }

    /// Runs the entry computation on borrowed arguments; no argument is copied.
    ///
    /// # Errors
    /// As [`Executable::execute`].
    pub fn execute_borrowed(&self, args: &[&Literal]) -> Result<Literal> {
        self.execute_with(args, Mode::Fused)
    }

    /// Runs the entry computation one instruction at a time with the reference kernels,
    /// no fusion: the baseline the fused schedule is tested against.
    ///
    /// # Errors
    /// As [`Executable::execute`].
    #[doc(hidden)]
    pub fn execute_unfused(&self, args: &[&Literal]) -> Result<Literal> {
        self.execute_with(args, Mode::Unfused)
    }

    fn execute_with(&self, args: &[&Literal], mode: Mode) -> Result<Literal> {
        self.execute_device(args, mode, None)
    }

    /// Runs the entry computation as `device` (`None`: a single-device run).
    pub(crate) fn execute_device(
        &self,
        args: &[&Literal],
        mode: Mode,
        device: Option<&crate::devices::Device<'_>>,
    ) -> Result<Literal> {
        self.run_entry(args, mode, device, &crate::limits::stop::NEVER)
    }

    /// As [`Executable::execute_device`], stopping when `stop` says so.
    pub(crate) fn run_entry(
        &self,
        args: &[&Literal],
        mode: Mode,
        device: Option<&crate::devices::Device<'_>>,
        stop: &crate::limits::stop::Stop,
    ) -> Result<Literal> {
        let entry = self.module.entry;
        let comp = self
            .module
            .get(entry)
            .ok_or_else(|| CpuError::Malformed("no entry computation".into()))?;
        let plan = self
            .plan_of(entry)
            .ok_or_else(|| CpuError::Malformed("no plan for the entry".into()))?;
        if args.len() != plan.params.len() {
            return Err(CpuError::ArgumentCount {
                expected: plan.params.len(),
                found: args.len(),
            });
        }
        for (k, (arg, id)) in args.iter().zip(&plan.params).enumerate() {
            let p = comp.instr(*id);
            if !p.shape.compatible(arg.shape()) {
                return Err(CpuError::ArgumentShape {
                    number: k,
                    name: p.name.clone(),
                    expected: Box::new(p.shape.clone()),
                    found: Box::new(arg.shape().clone()),
                });
            }
        }
        let limit = self.check_memory()?;
        // Subnormals flushed to zero, as XLA:CPU runs (`denormals.rs`).
        let _flush = crate::denormals::Flush::on();
        if device.is_none() && self.threads.forks() {
            // Replicated runs stay outside the pool: their device threads block on each
            // other in collectives, which must not hold the pool's threads.
            let par = self.threads.parallel();
            return par.install(|| self.run_checked(args, mode, None, stop, limit));
        }
        self.run_checked(args, mode, device, stop, limit)
    }

    /// Runs the entry on arguments already checked against its parameters, within `limit`.
    fn run_checked(
        &self,
        args: &[&Literal],
        mode: Mode,
        device: Option<&crate::devices::Device<'_>>,
        stop: &crate::limits::stop::Stop,
        limit: Option<crate::limits::MemoryLimit>,
    ) -> Result<Literal> {
        let entry = self.module.entry;
        let held = args.iter().map(|a| shape_bytes(a.shape()));
        let cx = Ctx {
            exe: self,
            rng_calls: Cell::new(0),
            reference: mode == Mode::Unfused,
            device,
            stop,
            budget: Budget::new(limit, held.fold(0, u64::saturating_add)),
        };
        let args = args.iter().map(|a| Cow::Borrowed(*a)).collect();
        without_layouts(stop.install(|| cx.run_cow(entry, args, mode))?)
    }
}

impl<'a> Ctx<'a> {
    /// The recognised scalar combiner of computation `c`, if any.
    pub fn combiner(&self, c: CompId) -> Option<Combiner> {
        self.exe.plan_of(c).and_then(|p| p.combiner)
    }

    /// Runs computation `c` on `args`.
    ///
    /// # Errors
    /// If the argument count is wrong or an instruction fails.
    pub fn call(&self, c: CompId, args: Vec<Literal>) -> Result<Literal> {
        self.run(c, args, None)
    }

    /// True when computation `c` is scalar and elementwise, so [`Ctx::call_vec`] can run it.
    pub fn vectorizable(&self, c: CompId) -> bool {
        self.exe.plan_of(c).is_some_and(|p| p.vectorizable)
    }

    /// Runs the scalar, elementwise computation `c` on `n` sets of arguments at once: each
    /// argument and result is a rank-1 array of `n` elements (one per set).
    ///
    /// # Errors
    /// If the computation is not vectorizable, the arguments do not fit, or an instruction
    /// fails.
    pub fn call_vec(&self, c: CompId, args: Vec<Literal>, n: usize) -> Result<Literal> {
        if !self.vectorizable(c) {
            return Err(internal("call_vec is given only vectorizable computations"));
        }
        self.run(c, args, Some(n))
    }

    /// How called computations run: fused, or the reference path when the entry does.
    pub fn mode(&self) -> Mode {
        if self.reference {
            Mode::Unfused
        } else {
            Mode::Fused
        }
    }

    fn run(&self, c: CompId, args: Vec<Literal>, width: Option<usize>) -> Result<Literal> {
        let mode = width.map_or(self.mode(), Mode::Vector);
        self.run_cow(c, args.into_iter().map(Cow::Owned).collect(), mode)
    }

    /// Runs computation `c` on arguments that may be borrowed: the schedule of fused steps,
    /// or (`width` set) every instruction on vectors of `n` argument sets.
    pub(crate) fn run_cow<'v>(
        &self,
        c: CompId,
        mut args: Vec<Cow<'v, Literal>>,
        mode: Mode,
    ) -> Result<Literal>
    where
        'a: 'v,
    {
        let width = match mode {
            Mode::Vector(n) => Some(n),
            Mode::Fused | Mode::Unfused => None,
        };
        let fused = mode == Mode::Fused;
        let exe: &'a Executable = self.exe;
        let comp = exe
            .module
            .get(c)
            .ok_or_else(|| internal("a called computation is in the module"))?;
        let plan = self
            .exe
            .plan_of(c)
            .ok_or_else(|| internal("every computation has a plan"))?;
        if args.len() != plan.params.len() {
            return Err(CpuError::CallArgumentCount {
                computation: comp.name.clone(),
                expected: plan.params.len(),
                found: args.len(),
            });
        }
        let mut values = Values::new(comp.instructions.len());
        let mut held = self.budget.ledger(comp.instructions.len());
        let fused_steps;
        let steps: &[Step] = if fused {
            &plan.steps
        } else {
            fused_steps = (0..comp.instructions.len())
                .map(Step::Eval)
                .collect::<Vec<_>>();
            &fused_steps
        };
        // Results of a group of independent steps computed side by side (`concurrent.rs`),
        // taken in order by the group's steps.
        let mut ready = std::collections::VecDeque::new();
        let mut share = None;
        for (k, step) in steps.iter().enumerate() {
            let i = step.instr();
            if fused && ready.is_empty() {
                let n = plan.groups.get(k).copied().unwrap_or(1);
                let group = steps.get(k..k + n).unwrap_or_default();
                if n > 1 && crate::concurrent::side_by_side(comp, group, exe.threads()) {
                    for s in group {
                        let gi = comp.instructions.get(s.instr()).ok_or_else(|| {
                            internal("a plan's steps name instructions of its computation")
                        })?;
                        self.admit(gi, None).map_err(|e| CpuError::Instruction {
                            instruction: gi.name.clone(),
                            op: gi.op.name(),
                            source: Box::new(e),
                        })?;
                    }
                    let t0 = self.exe.profile.as_ref().map(|_| std::time::Instant::now());
                    let accs = crate::concurrent::take_accumulators(
                        comp,
                        group,
                        plan.frees.get(k..).unwrap_or_default(),
                        &mut values,
                    );
                    ready.extend(crate::concurrent::compute_group(
                        exe, comp, group, &values, accs,
                    ));
                    // Profiles show each step of the group an equal share of its time.
                    share = t0
                        .zip(u32::try_from(n).ok())
                        .map(|(t, n)| t.elapsed() / n.max(1));
                }
            }
            let ins = comp
                .instructions
                .get(i)
                .ok_or_else(|| internal("a plan's steps name instructions of its computation"))?;
            self.stop.check().map_err(|e| CpuError::Instruction {
                instruction: ins.name.clone(),
                op: ins.op.name(),
                source: Box::new(e),
            })?;
            let frees: &[usize] = if fused {
                plan.frees.get(k).map(Vec::as_slice).unwrap_or(&[])
            } else {
                &[]
            };
            let v = if let Op::Parameter { number } = ins.op {
                let slot = args
                    .get_mut(number as usize)
                    .ok_or_else(|| internal("parameter numbers are below the argument count"))?;
                std::mem::replace(slot, Cow::Owned(Literal::token()))
            } else if let (Op::Constant { literal }, Mode::Fused | Mode::Unfused) = (&ins.op, mode)
            {
                // Read in place from the module (vectorised runs broadcast it instead).
                Cow::Borrowed(literal)
            } else {
                let started = self.exe.profile.as_ref().map(|_| std::time::Instant::now());
                let take = fused && plan.gte_take.get(k).copied().unwrap_or(false);
                let from_group = ready.pop_front();
                let grouped = from_group.is_some();
                let r = match from_group {
                    Some(r) => r.map(Cow::Owned),
                    None => match self.in_place(step, ins, &mut values, frees, take) {
                        Some(r) => r,
                        None => self
                            .admit(ins, width)
                            .and_then(|()| self.compute(step, ins, &values, width))
                            .map(Cow::Owned),
                    },
                };
                if let (Some(p), Some(t)) = (&self.exe.profile, started) {
                    let describe = || {
                        let op = match step {
                            Step::Fused(_, f) => format!("{}({})", f.label(), ins.op.name()),
                            Step::Eval(_) => crate::kernels::step_name(&ins.op).to_string(),
                        };
                        [
                            comp.name.clone(),
                            ins.name.clone(),
                            op,
                            ins.shape.to_string(),
                        ]
                    };
                    let spent = match (grouped, share) {
                        (true, Some(d)) => d,
                        _ => t.elapsed(),
                    };
                    p.record((c.0, i), describe, spent);
                }
                // A long kernel that noticed a stop left its result unfinished (or failed
                // on it): the stop is reported and the value never used (`limits/stop.rs`).
                let r = match (r, self.stop.check()) {
                    (Err(e), _) if e.is_stop() => Err(e),
                    (_, Err(stop)) => Err(stop),
                    (r, Ok(())) => r,
                };
                r.map_err(|e| CpuError::Instruction {
                    instruction: ins.name.clone(),
                    op: ins.op.name(),
                    source: Box::new(e),
                })?
            };
            let owned = matches!(v, Cow::Owned(_)) && !matches!(ins.op, Op::Parameter { .. });
            held.set(i, &v, owned);
            values.set(i, v);
            for &d in frees {
                values.free(d);
                held.free(d);
            }
            if !fused {
                for o in &ins.operands {
                    if plan.last_use.get(o.0) == Some(&i) {
                        values.free(o.0);
                        held.free(o.0);
                    }
                }
            }
        }
        values
            .take(comp.root.0)
            .map(Cow::into_owned)
            .ok_or_else(|| internal("the root's value is held until the end"))
    }

    /// Admits the result of `ins` (on `width` argument sets when vectorised) to the run's
    /// memory budget before its kernel allocates it.
    fn admit(&self, ins: &Instruction, width: Option<usize>) -> Result<()> {
        let bytes = match width {
            Some(n) => shape_bytes(&vector_shape(&ins.shape, n)),
            None => shape_bytes(&ins.shape),
        };
        self.budget.admit(ins.op.name(), bytes)
    }

    /// Runs one step on its operands' values (read in place).
    fn compute(
        &self,
        step: &Step,
        ins: &Instruction,
        values: &Values<'_>,
        width: Option<usize>,
    ) -> Result<Literal> {
        let reads = match step {
            Step::Eval(_) => ins.operands.as_slice(),
            Step::Fused(_, f) => f.inputs.as_slice(),
        };
        let ops = reads
            .iter()
            .map(|o| values.get(o.0))
            .collect::<Result<Vec<&Literal>>>()?;
        match (step, width) {
            (Step::Fused(_, f), _) => fusion::run(f, &ops, &ins.shape, self.exe.parallel()),
            (Step::Eval(_), None) => self.eval(&ins.op, &ops, &ins.shape),
            (Step::Eval(_), Some(n)) => {
                self.eval_vec(&ins.op, &ops, &vector_shape(&ins.shape, n), n)
            }
        }
    }

    /// Evaluates an instruction of a computation run vectorised: constants are broadcast to
    /// `n` elements, every other op runs as usual on the rank-1 values.
    fn eval_vec(&self, op: &Op, a: &[&Literal], out: &Shape, n: usize) -> Result<Literal> {
        if let Op::Constant { literal } = op {
            return make(out, st::take(data(literal)?, &vec![0; n]));
        }
        self.eval(op, a, out)
    }

    pub(crate) fn eval(&self, op: &Op, a: &[&Literal], out: &Shape) -> Result<Literal> {
        let arg = |i: usize| {
            a.get(i)
                .copied()
                .ok_or_else(|| internal("an instruction has the operands its op takes (verified)"))
        };
        match op {
            Op::Parameter { .. } => Err(internal("parameters are bound, not evaluated")),
            Op::Constant { literal } => Ok(literal.clone()),
            Op::Iota { dimension } => st::iota(*dimension, out),
            Op::Unary(u) => make(out, ew::unary(*u, data(arg(0)?)?)?),
            Op::Binary(b) => make(
                out,
                ew::binary(*b, data(arg(0)?)?, data(arg(1)?)?, self.exe.parallel())?,
            ),
            Op::Compare {
                direction,
                comparison_type,
            } => make(
                out,
                ew::compare(*direction, *comparison_type, data(arg(0)?)?, data(arg(1)?)?)?,
            ),
            Op::Select => select(out, arg(0)?, arg(1)?, arg(2)?),
            Op::Clamp => make(
                out,
                ew::clamp(data(arg(0)?)?, data(arg(1)?)?, data(arg(2)?)?)?,
            ),
            Op::Convert => make(out, ew::convert(data(arg(0)?)?, out.element_type())?),
            Op::BitcastConvert => make(
                out,
                ew::bitcast_convert(data(arg(0)?)?, out.element_type())?,
            ),
            Op::ReducePrecision {
                exponent_bits,
                mantissa_bits,
            } => make(
                out,
                ew::reduce_precision(data(arg(0)?)?, *exponent_bits, *mantissa_bits)?,
            ),
            Op::Map { to_apply, .. } => control::map(self, a, *to_apply, out),
            Op::Tuple => Ok(Literal::tuple(a.iter().map(|l| (*l).clone()).collect())),
            Op::GetTupleElement { index } => tuple_element(arg(0)?, *index),
            Op::Broadcast { dimensions } => {
                st::broadcast(arg(0)?, dimensions, out, self.exe.parallel())
            }
            Op::Reshape | Op::Bitcast => st::reshape(arg(0)?, out),
            Op::Copy
            | Op::OptimizationBarrier
            | Op::AddDependency
            | Op::SetDimensionSize { .. } => Ok(arg(0)?.clone()),
            Op::Transpose { permutation } => {
                st::transpose(arg(0)?, permutation, out, self.exe.parallel())
            }
            Op::Reverse { dimensions } => st::reverse(arg(0)?, dimensions, self.exe.parallel()),
            Op::Slice {
                start,
                limit,
                stride,
            } => st::slice(arg(0)?, start, limit, stride, out, self.exe.parallel()),
            Op::DynamicSlice { slice_sizes } => st::dynamic_slice(
                arg(0)?,
                a.get(1..).unwrap_or(&[]),
                slice_sizes,
                out,
                self.exe.parallel(),
            ),
            Op::DynamicUpdateSlice => {
                st::dynamic_update_slice(arg(0)?, arg(1)?, a.get(2..).unwrap_or(&[]))
            }
            Op::Concatenate { dimension } => st::concatenate(a, *dimension, out),
            Op::Pad { padding } => st::pad(arg(0)?, arg(1)?, padding, out),
            Op::GetDimensionSize { dimension } => dimension_size(arg(0)?, *dimension),
            Op::Gather(g) => indexing::gather(arg(0)?, arg(1)?, g, out),
            Op::Scatter { dims, to_apply } => indexing::scatter(self, a, dims, *to_apply, out),
            Op::Dot { dims, .. } => {
                contraction::dot(arg(0)?, arg(1)?, dims, out, self.exe.parallel())
            }
            Op::Convolution(c) => {
                contraction::convolution(arg(0)?, arg(1)?, c, out, self.exe.parallel())
            }
            Op::Reduce {
                dimensions,
                to_apply,
            } => window::reduce(self, a, dimensions, *to_apply, out),
            Op::ReduceWindow {
                window: w,
                to_apply,
            } => window::reduce_window(self, a, w, *to_apply, out),
            Op::SelectAndScatter {
                window: w,
                select,
                scatter,
            } => window::select_and_scatter(
                self,
                [arg(0)?, arg(1)?, arg(2)?],
                w,
                [*select, *scatter],
                out,
            ),
            Op::BatchNormTraining {
                epsilon,
                feature_index,
            } => linalg::batch_norm_training(a, *epsilon, *feature_index, out),
            Op::BatchNormInference {
                epsilon,
                feature_index,
            } => linalg::batch_norm_inference(a, *epsilon, *feature_index, out),
            Op::BatchNormGrad {
                epsilon,
                feature_index,
            } => linalg::batch_norm_grad(a, *epsilon, *feature_index, out),
            Op::Cholesky { lower } => linalg::cholesky(arg(0)?, *lower, out, self.exe.parallel()),
            Op::TriangularSolve(o) => {
                linalg::triangular_solve(arg(0)?, arg(1)?, o, out, self.exe.parallel())
            }
            Op::Fft {
                fft_type,
                fft_length,
            } => fft::fft(arg(0)?, *fft_type, fft_length, out, self.exe.parallel()),
            Op::Sort {
                dimension,
                to_apply,
                ..
            } => sort::sort(self, a, *dimension, *to_apply, out),
            Op::TopK { k, largest } => sort::top_k(arg(0)?, *k, *largest, out),
            // The callee reads its arguments in place (no copy of the operands).
            Op::Call { to_apply, .. } => self.run_cow(
                *to_apply,
                a.iter().map(|l| Cow::Borrowed(*l)).collect(),
                self.mode(),
            ),
            Op::Conditional { branches } => control::conditional(self, a, branches),
            Op::While { condition, body } => {
                crate::while_loop::while_loop(self, Cow::Borrowed(arg(0)?), *condition, *body)
            }
            Op::CustomCall { config, .. } => collective::custom_call(self, a, config, out),
            Op::Rng { distribution } => rng::rng(self, a, *distribution, out),
            Op::RngBitGenerator { algorithm } => rng::rng_bit_generator(arg(0)?, *algorithm, out),
            Op::RngGetAndUpdateState { delta } => rng::get_and_update_state(self, *delta, out),
            Op::AfterAll => Ok(Literal::token()),
            Op::AllReduce { config, to_apply } | Op::AllReduceStart { config, to_apply } => {
                dev::all_reduce(self, a, config, *to_apply)
            }
            Op::AllGather { dimension, config } => {
                dev::all_gather(self, a, *dimension, config, out)
            }
            Op::ReduceScatter {
                dimension,
                config,
                to_apply,
            } => dev::reduce_scatter(self, a, *dimension, config, *to_apply, out),
            Op::AllToAll { dimension, config } => dev::all_to_all(self, a, *dimension, config, out),
            Op::CollectivePermute {
                source_target_pairs,
                channel_id,
            } => dev::collective_permute(self, arg(0)?, source_target_pairs, *channel_id, out),
            Op::AllGatherStart { dimension, config } => {
                dev::all_gather_start(self, a, *dimension, config, out)
            }
            Op::CollectivePermuteStart {
                source_target_pairs,
                channel_id,
            } => dev::collective_permute_start(self, arg(0)?, source_target_pairs, *channel_id),
            Op::AllReduceDone => Ok(arg(0)?.clone()),
            Op::AllGatherDone | Op::CollectivePermuteDone => dev::async_done(arg(0)?),
            Op::CollectiveBroadcast { config } => dev::collective_broadcast(self, a, config),
            Op::ReplicaId => Ok(dev::device_id(self, false)),
            Op::PartitionId => Ok(dev::device_id(self, true)),
            Op::Send { channel_id, .. } => collective::send(self, arg(0)?, *channel_id),
            Op::SendDone { .. } => Ok(Literal::token()),
            Op::Recv { channel_id, .. } => collective::recv(self, *channel_id, out),
            Op::RecvDone { .. } => collective::recv_done(arg(0)?),
            Op::Infeed { .. } => collective::infeed(self, out),
            Op::Outfeed { .. } => collective::outfeed(self, arg(0)?),
        }
    }
}

/// The literal with every layout dropped from its shape (layouts are physical hints that
/// never change values; results carry none).
fn without_layouts(l: Literal) -> Result<Literal> {
    fn has_layout(s: &Shape) -> bool {
        match s {
            Shape::Array(a) => a.layout.is_some(),
            Shape::Tuple(t) => t.iter().any(has_layout),
            Shape::Token => false,
        }
    }
    if !has_layout(l.shape()) {
        return Ok(l);
    }
    let (shape, value) = l.into_parts();
    match value {
        LiteralValue::Array(d) => make(&shape, d),
        LiteralValue::Tuple(t) => Ok(Literal::tuple(
            t.into_iter().map(without_layouts).collect::<Result<_>>()?,
        )),
        LiteralValue::Token => Ok(Literal::token()),
    }
}

/// `shape` with every array replaced by a rank-1 array of `n` elements of its type.
pub(crate) fn vector_shape(shape: &Shape, n: usize) -> Shape {
    match shape {
        Shape::Array(a) => Shape::array(a.ty, vec![n as i64]),
        Shape::Tuple(t) => Shape::Tuple(t.iter().map(|s| vector_shape(s, n)).collect()),
        Shape::Token => Shape::Token,
    }
}

fn tuple_element(t: &Literal, index: i64) -> Result<Literal> {
    let elems = t
        .tuple_elements()
        .ok_or_else(|| operand_kind("get-tuple-element", "a tuple", t.shape()))?;
    usize::try_from(index)
        .ok()
        .and_then(|i| elems.get(i))
        .cloned()
        .ok_or_else(|| out_of_range("get-tuple-element", "tuple index", index, elems.len()))
}

fn dimension_size(x: &Literal, dim: i64) -> Result<Literal> {
    let dims = dims_of(x.shape())?;
    let d = usize::try_from(dim)
        .ok()
        .and_then(|d| dims.get(d))
        .ok_or_else(|| out_of_range("get-dimension-size", "dimension", dim, dims.len()))?;
    Ok(Literal::scalar(*d as i32))
}

fn select(out: &Shape, p: &Literal, t: &Literal, f: &Literal) -> Result<Literal> {
    if let (Some(tt), Some(ft)) = (t.tuple_elements(), f.tuple_elements()) {
        let pick = matches!(p.data::<bool>(), Some([true]));
        return Ok(Literal::tuple(if pick { tt.to_vec() } else { ft.to_vec() }));
    }
    let n = dims_of(out)?.iter().product();
    let (pd, _) = array(p)?;
    make(out, ew::select(pd, data(t)?, data(f)?, n)?)
}
