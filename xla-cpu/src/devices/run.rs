//! Running one executable on every device of its module, one thread per device.

use super::comm::{Communicator, Device};
use super::groups::Topology;
use super::pool;
use super::share;
use super::threads::ThreadCommunicator;
use crate::compile::Executable;
use crate::error::{CpuError, Result};
use crate::exec::Mode;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::time::Duration;
use xla_core::Literal;

/// How a multi-device run waits for its devices.
#[derive(Clone, Copy, Debug)]
pub struct ReplicaOptions {
    /// How long a device waits at a collective for the others before failing.
    pub timeout: Duration,
}

impl Default for ReplicaOptions {
    /// A 60 s timeout, or `XLA_COLLECTIVE_TIMEOUT_SECS` when set.
    fn default() -> Self {
        let secs = std::env::var("XLA_COLLECTIVE_TIMEOUT_SECS")
            .ok()
            .and_then(|s| s.trim().parse::<f64>().ok())
            .filter(|s| s.is_finite() && *s > 0.0)
            .unwrap_or(60.0);
        ReplicaOptions {
            timeout: Duration::from_secs_f64(secs),
        }
    }
}

impl Executable {
    /// The devices the module runs on: `(replica_count, num_partitions)` of its header.
    pub fn topology(&self) -> Topology {
        let c = &self.module.config;
        Topology {
            replicas: usize::try_from(c.replica_count).unwrap_or(1).max(1),
            partitions: usize::try_from(c.num_partitions).unwrap_or(1).max(1),
        }
    }

    /// Runs the entry computation on every device of the module (`replica_count ×
    /// num_partitions` of its header), one thread per device (parked between runs, see
    /// [`pool`]), each device's kernels on its share of the executable's threads
    /// (`devices/share.rs`: one thread each when there are as many devices as threads):
    /// `args[d]` are device `d`'s arguments, and result `d` is its result. Device `d` is replica `d / P`, partition
    /// `d % P`. Reductions run in group order, so results are the same bits on every run.
    ///
    /// ```
    /// let m = xla_core::text::parse_module(
    ///     "HloModule m, replica_count=2\n\
    ///      add { a = f32[] parameter(0)\n b = f32[] parameter(1)\n ROOT c = f32[] add(a, b) }\n\
    ///      ENTRY e { x = f32[2] parameter(0)\n ROOT s = f32[2] all-reduce(x), replica_groups={}, to_apply=add }",
    /// )?;
    /// let exe = xla_cpu::Executable::compile(&m)?;
    /// let out = exe.execute_replicated(&[
    ///     vec![xla_core::Literal::vec1(&[1f32, 2.])],
    ///     vec![xla_core::Literal::vec1(&[10f32, 20.])],
    /// ])?;
    /// assert_eq!(out[0].data::<f32>(), Some(&[11f32, 22.][..]));
    /// assert_eq!(out[1].data::<f32>(), Some(&[11f32, 22.][..]));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// [`CpuError::DeviceCount`] if `args` does not have one set per device; otherwise the
    /// first device's failure, as [`CpuError::OnDevice`] (a device that fails makes the
    /// devices waiting for it fail too; the error reported is the cause).
    pub fn execute_replicated(&self, args: &[Vec<Literal>]) -> Result<Vec<Literal>> {
        self.execute_replicated_with(args, ReplicaOptions::default())
    }

    /// [`Executable::execute_replicated`] with options (the collective timeout).
    ///
    /// # Errors
    /// As [`Executable::execute_replicated`].
    pub fn execute_replicated_with(
        &self,
        args: &[Vec<Literal>],
        options: ReplicaOptions,
    ) -> Result<Vec<Literal>> {
        let topo = self.topology();
        if args.len() != topo.devices() {
            return Err(CpuError::DeviceCount {
                expected: topo.devices(),
                found: args.len(),
            });
        }
        let comm = ThreadCommunicator::new(options.timeout);
        // Every device gets its share of the executable's kernel threads (`share.rs`).
        let threads = share::per_device(self.threads(), topo.devices());
        let tasks: Vec<DeviceTask<'_>> = args
            .iter()
            .enumerate()
            .map(|(d, a)| {
                let comm = &comm;
                Box::new(move || {
                    let _share = share::enter(d, threads);
                    let r = catch_unwind(AssertUnwindSafe(|| {
                        self.execute_on_device(topo, d, comm, a)
                    }))
                    .unwrap_or_else(|_| Err(panicked(d)));
                    comm.leave(d, r.as_ref().err().map(ToString::to_string));
                    r
                }) as DeviceTask<'_>
            })
            .collect();
        let results = pool::global()
            .run(tasks)
            .map_err(|e| CpuError::Transport(format!("could not start the device threads: {e}")))?;
        let results = results
            .into_iter()
            .enumerate()
            .map(|(d, r)| r.unwrap_or_else(|| Err(panicked(d))))
            .collect();
        collect(topo, results)
    }

    /// Runs device `d` of `topo` through `comm` (any transport, e.g. one MPI rank).
    ///
    /// # Errors
    /// [`CpuError::DeviceCount`] if `d` is not a device of `topo`; as
    /// [`Executable::execute`]; or a failed collective.
    pub fn execute_on_device(
        &self,
        topo: Topology,
        d: usize,
        comm: &dyn Communicator,
        args: &[Literal],
    ) -> Result<Literal> {
        if d >= topo.devices() {
            return Err(CpuError::DeviceCount {
                expected: topo.devices(),
                found: d + 1,
            });
        }
        // A transport whose devices run in several processes on one machine (MPI ranks)
        // names how many share its cores; threads have their share set by the caller.
        let _share = comm
            .devices_here()
            .map(|n| share::enter(d, share::per_device(self.threads(), n)));
        let device = Device::new(topo, d, comm);
        let refs: Vec<&Literal> = args.iter().collect();
        self.execute_device(&refs, Mode::Fused, Some(&device))
            .map_err(|e| CpuError::OnDevice {
                device: d,
                replica: device.replica(),
                partition: device.partition(),
                source: Box::new(e),
            })
    }
}

/// One device's run, on a thread of the device pool.
type DeviceTask<'a> = Box<dyn FnOnce() -> Result<Literal> + Send + 'a>;

/// The error of a device whose thread panicked (a bug: the executor does not panic).
fn panicked(d: usize) -> CpuError {
    CpuError::Transport(format!(
        "device {d}: its thread panicked (in a custom-call function, or a bug in xla-cpu)"
    ))
}

/// True when the error only reports another device's failure.
fn is_consequence(e: &CpuError) -> bool {
    match e {
        CpuError::PeerFailed { .. } => true,
        CpuError::OnDevice { source, .. } | CpuError::Instruction { source, .. } => {
            is_consequence(source)
        }
        _ => false,
    }
}

/// Every device's result, or the error that caused the failure.
fn collect(topo: Topology, results: Vec<Result<Literal>>) -> Result<Vec<Literal>> {
    let mut out = Vec::with_capacity(topo.devices());
    let mut first_err = None;
    for r in results {
        match r {
            Ok(v) => out.push(v),
            Err(e) => {
                let better = match &first_err {
                    None => true,
                    Some(prev) => is_consequence(prev) && !is_consequence(&e),
                };
                if better {
                    first_err = Some(e);
                }
            }
        }
    }
    match first_err {
        Some(e) => Err(e),
        None => Ok(out),
    }
}
