//! Multi-device modules on the command line (`replica_count` / `num_partitions` in the
//! header): each input `.npy` holds the per-device values stacked along a leading axis of
//! `replicas × partitions` devices (device = replica × partitions + partition), and each
//! output is written stacked the same way.

use crate::common::CliError;
use std::path::{Path, PathBuf};
use xla::core::Module;
use xla::cpu::devices::{split_devices, stack_devices};
use xla::cpu::Executable;
use xla::Literal;

/// Where the devices of a multi-device module run.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    /// One thread per device in this process.
    Threads,
    /// One MPI rank per device (this process is one of them).
    Mpi,
}

/// Runs on `backend`: the stacked output leaves, or `None` on an MPI rank other than 0.
pub fn run_on(
    backend: Backend,
    exe: &Executable,
    args: &[Vec<Literal>],
    module: &Path,
) -> Result<Option<Vec<Literal>>, CliError> {
    match backend {
        Backend::Threads => execute(exe, args, module).map(Some),
        Backend::Mpi => execute_mpi(exe, args, module),
    }
}

#[cfg(feature = "mpi")]
fn execute_mpi(
    exe: &Executable,
    args: &[Vec<Literal>],
    module: &Path,
) -> Result<Option<Vec<Literal>>, CliError> {
    use xla::cpu::devices::mpi::MpiWorld;
    let at = |e: &dyn std::fmt::Display| CliError::new(format!("{}: {e}", module.display()));
    let timeout = xla::cpu::devices::ReplicaOptions::default().timeout;
    let world = MpiWorld::initialize(timeout).map_err(|e| at(&e))?;
    let rank = world.communicator().rank();
    let mine = args.get(rank).map(Vec::as_slice).unwrap_or(&[]);
    let Some(results) = world
        .run(exe, mine)
        .map_err(|e| at(&format!("rank {rank}: {e}")))?
    else {
        return Ok(None);
    };
    stack_results(results, module).map(Some)
}

/// Runs `runs` times on `backend` (the first untimed by the caller's choice): each run's
/// seconds, or `None` on an MPI rank other than 0. On MPI the ranks meet at a barrier before
/// each run and rank 0 times it, result gather included.
pub fn time_on(
    backend: Backend,
    exe: &Executable,
    args: &[Vec<Literal>],
    module: &Path,
    runs: usize,
) -> Result<Option<Vec<f64>>, CliError> {
    match backend {
        Backend::Threads => (0..runs)
            .map(|_| {
                let t = std::time::Instant::now();
                execute(exe, args, module).map(|_| t.elapsed().as_secs_f64())
            })
            .collect::<Result<Vec<_>, _>>()
            .map(Some),
        Backend::Mpi => time_mpi(exe, args, module, runs),
    }
}

#[cfg(feature = "mpi")]
fn time_mpi(
    exe: &Executable,
    args: &[Vec<Literal>],
    module: &Path,
    runs: usize,
) -> Result<Option<Vec<f64>>, CliError> {
    use xla::cpu::devices::mpi::MpiWorld;
    let at = |e: &dyn std::fmt::Display| CliError::new(format!("{}: {e}", module.display()));
    let timeout = xla::cpu::devices::ReplicaOptions::default().timeout;
    let world = MpiWorld::initialize(timeout).map_err(|e| at(&e))?;
    let rank = world.communicator().rank();
    let mine = args.get(rank).map(Vec::as_slice).unwrap_or(&[]);
    let mut times = Vec::with_capacity(runs);
    for _ in 0..runs {
        world.barrier();
        let t = std::time::Instant::now();
        world
            .run(exe, mine)
            .map_err(|e| at(&format!("rank {rank}: {e}")))?;
        times.push(t.elapsed().as_secs_f64());
    }
    Ok((rank == 0).then_some(times))
}

#[cfg(not(feature = "mpi"))]
fn time_mpi(
    e: &Executable,
    a: &[Vec<Literal>],
    module: &Path,
    _: usize,
) -> Result<Option<Vec<f64>>, CliError> {
    execute_mpi(e, a, module).map(|_| None)
}

#[cfg(not(feature = "mpi"))]
fn execute_mpi(
    _: &Executable,
    _: &[Vec<Literal>],
    module: &Path,
) -> Result<Option<Vec<Literal>>, CliError> {
    Err(CliError::new(format!(
        "{}: --backend mpi needs an xla built with the `mpi` feature (cargo build --release --features mpi)",
        module.display()
    )))
}

/// True when the module runs on more than one device.
pub fn is_multi_device(m: &Module) -> bool {
    m.config.replica_count != 1 || m.config.num_partitions != 1
}

/// Compiles `m` and reads the stacked inputs: one argument list per device.
pub fn prepare(
    m: &Module,
    module: &Path,
    inputs: &[PathBuf],
) -> Result<(Executable, Vec<Vec<Literal>>), CliError> {
    let at = |e: &dyn std::fmt::Display| CliError::new(format!("{}: {e}", module.display()));
    let devices = m.config.device_count().ok_or_else(|| {
        at(&format!(
            "replica_count={} × num_partitions={} is not a device count",
            m.config.replica_count, m.config.num_partitions
        ))
    })?;
    let exe = Executable::compile(m).map_err(|e| at(&e))?;
    let entry = m
        .entry_computation()
        .ok_or_else(|| at(&"module has no entry computation"))?;
    let params = entry.parameters();
    if params.len() != inputs.len() {
        return Err(at(&format!(
            "the entry computation takes {} parameter(s) but {} input file(s) were given",
            params.len(),
            inputs.len()
        )));
    }
    let mut per_device = vec![Vec::with_capacity(inputs.len()); devices];
    for (i, (path, &pid)) in inputs.iter().zip(&params).enumerate() {
        let file_err =
            |e: &dyn std::fmt::Display| CliError::new(format!("{}: {e}", path.display()));
        let lit = Literal::read_npy(path).map_err(|e| file_err(&e))?;
        let param = entry.instr(pid);
        let parts = split_devices(&lit, devices).map_err(|e| {
            file_err(&format!(
                "parameter {i} ({}) of a module on {devices} devices: {e}",
                param.name
            ))
        })?;
        let want = param.shape.without_layout();
        if let Some(p) = parts.first().filter(|p| !p.shape().compatible(&want)) {
            return Err(file_err(&format!(
                "parameter {i} ({}) expects {want} per device, so [{devices},...] stacked, but the file holds {} ({} per device)",
                param.name,
                lit.shape(),
                p.shape()
            )));
        }
        for (d, p) in parts.into_iter().enumerate() {
            if let Some(slot) = per_device.get_mut(d) {
                slot.push(p);
            }
        }
    }
    Ok((exe, per_device))
}

/// Runs every device on its thread; returns each output leaf stacked over the devices.
pub fn execute(
    exe: &Executable,
    args: &[Vec<Literal>],
    module: &Path,
) -> Result<Vec<Literal>, CliError> {
    let at = |e: &dyn std::fmt::Display| CliError::new(format!("{}: {e}", module.display()));
    let results = exe.execute_replicated(args).map_err(|e| at(&e))?;
    stack_results(results, module)
}

/// Each output leaf of the devices' results, stacked over the devices.
fn stack_results(results: Vec<Literal>, module: &Path) -> Result<Vec<Literal>, CliError> {
    let at = |e: &dyn std::fmt::Display| CliError::new(format!("{}: {e}", module.display()));
    let per_device: Vec<Vec<Literal>> = results
        .into_iter()
        .map(|r| {
            let mut leaves = Vec::new();
            crate::run::flatten(r, &mut leaves);
            leaves
        })
        .collect();
    let count = per_device.first().map_or(0, Vec::len);
    (0..count)
        .map(|k| {
            let leaf: Vec<Literal> = per_device
                .iter()
                .filter_map(|leaves| leaves.get(k).cloned())
                .collect();
            stack_devices(&leaf).map_err(|e| at(&format!("output {k}: {e}")))
        })
        .collect()
}
