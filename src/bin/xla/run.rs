//! `xla run MODULE.hlo IN0.npy ... --out DIR`: execute a module on the CPU.

use crate::common::{load_module, CliError};
use std::path::{Path, PathBuf};
use xla::cpu::{Executable, ExecuteOptions};
use xla::Literal;

/// Arguments of `xla run`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The HLO text module to run.
    pub module: PathBuf,
    /// One `.npy` file per entry parameter, in parameter order.
    pub inputs: Vec<PathBuf>,
    /// Directory for the outputs `out0.npy, out1.npy, ...` (a tuple result is flattened
    /// depth-first).
    #[arg(long)]
    pub out: PathBuf,
    /// How a multi-device module runs: one thread per device, or one MPI rank per device
    /// (`mpirun -np N xla run --backend mpi ...`, a build with the `mpi` feature).
    #[arg(long, value_enum, default_value = "threads")]
    pub backend: crate::devices::Backend,
    /// Stop the execution after this many seconds (exit status 2, no output written).
    #[arg(long, value_name = "SECONDS")]
    pub timeout: Option<f64>,
}

/// Loads, compiles and runs the module, then writes every output leaf. A multi-device
/// module (`replica_count` / `num_partitions` in its header) runs one thread per device on
/// inputs stacked along a leading device axis, and its outputs are written stacked.
pub fn run(args: Args) -> Result<(), CliError> {
    let m = load_module(&args.module)?;
    let leaves = if crate::devices::is_multi_device(&m) {
        let (exe, per_device) = crate::devices::prepare(&m, &args.module, &args.inputs)?;
        match crate::devices::run_on(args.backend, &exe, &per_device, &args.module)? {
            Some(leaves) => leaves,
            None => return Ok(()), // an MPI rank other than 0 writes nothing
        }
    } else {
        let (exe, inputs) = prepare_loaded(&m, &args.module, &args.inputs)?;
        let opts = options(args.timeout)?;
        let refs: Vec<&Literal> = inputs.iter().collect();
        let result = exe
            .execute_with_options(&refs, &opts)
            .map_err(|e| stopped_or(e, &args.module))?;
        let mut leaves = Vec::new();
        flatten(result, &mut leaves);
        leaves
    };
    crate::outputs::write_all(&args.out, &leaves)
}

/// The execution options of `--timeout` and Ctrl-C.
fn options(timeout: Option<f64>) -> Result<ExecuteOptions, CliError> {
    check_memory_env()?;
    let opts = ExecuteOptions::new().with_cancel(crate::interrupt::token());
    match timeout {
        None => Ok(opts),
        Some(s) => std::time::Duration::try_from_secs_f64(s)
            .map(|d| opts.with_timeout(d))
            .map_err(|_| {
                CliError::new(format!("--timeout {s}: expected a number of seconds >= 0"))
            }),
    }
}

/// An unreadable `XLA_CPU_MEMORY_LIMIT` is an error here rather than silently ignored.
fn check_memory_env() -> Result<(), CliError> {
    let env = xla::cpu::MEMORY_LIMIT_ENV;
    match std::env::var(env) {
        Ok(v) if xla::cpu::parse_memory_size(&v).is_none() => Err(CliError::new(format!(
            "{env}={v}: expected bytes, optionally with a unit (512M, 8G, 0 for no limit)"
        ))),
        _ => Ok(()),
    }
}

/// The error of a failed execution; after Ctrl-C, the exit status 130.
fn stopped_or(e: xla::cpu::CpuError, module: &Path) -> CliError {
    let mut err = CliError::new(format!("{}: {e}", module.display()));
    if crate::interrupt::interrupted() && e.is_stop() {
        err = CliError::new(format!(
            "{}: interrupted (Ctrl-C); no output written",
            module.display()
        ));
        err.code = crate::interrupt::INTERRUPTED;
    }
    err
}

/// Compiles `m` (loaded from `module`) and reads one `.npy` input per parameter, checking
/// their number, element types and shapes against the entry's parameters.
pub fn prepare_loaded(
    m: &xla::Module,
    module: &Path,
    inputs: &[PathBuf],
) -> Result<(Executable, Vec<Literal>), CliError> {
    let exe =
        Executable::compile(m).map_err(|e| CliError::new(format!("{}: {e}", module.display())))?;
    let entry = m.entry_computation().ok_or_else(|| {
        CliError::new(format!(
            "{}: module has no entry computation",
            module.display()
        ))
    })?;
    let params = entry.parameters();
    if params.len() != inputs.len() {
        return Err(CliError::new(format!(
            "{}: the entry computation takes {} parameter(s) but {} input file(s) were given",
            module.display(),
            params.len(),
            inputs.len()
        )));
    }
    let mut literals = Vec::with_capacity(inputs.len());
    for (i, (path, &pid)) in inputs.iter().zip(&params).enumerate() {
        let lit = Literal::read_npy(path)
            .map_err(|e| CliError::new(format!("{}: {e}", path.display())))?;
        let param = entry.instr(pid);
        if !lit.shape().compatible(&param.shape.without_layout()) {
            return Err(CliError::new(format!(
                "{}: parameter {i} ({}) expects {} but the file holds {}",
                path.display(),
                param.name,
                param.shape,
                lit.shape()
            )));
        }
        literals.push(lit);
    }
    Ok((exe, literals))
}

/// Appends the array leaves of `lit` depth-first.
pub fn flatten(lit: Literal, out: &mut Vec<Literal>) {
    match lit.tuple_elements() {
        Some(elements) => {
            for e in elements.iter().cloned() {
                flatten(e, out);
            }
        }
        None => out.push(lit),
    }
}
