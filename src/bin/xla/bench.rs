//! `xla bench MODULE.hlo IN0.npy ... --iters N`: time executions of a module.

use crate::common::{write_stdout, CliError};
use crate::cpu_clock::process_cpu_time;
use std::path::PathBuf;
use std::time::Instant;

/// Arguments of `xla bench`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The HLO text module to time.
    pub module: PathBuf,
    /// One `.npy` file per entry parameter, in parameter order.
    pub inputs: Vec<PathBuf>,
    /// Number of timed executions (after one untimed warm-up run).
    #[arg(long, default_value_t = 10)]
    pub iters: usize,
    /// How a multi-device module runs: one thread per device, or one MPI rank per device
    /// (`mpirun -np N xla bench --backend mpi ...`; rank 0 prints the times).
    #[arg(long, value_enum, default_value = "threads")]
    pub backend: crate::devices::Backend,
    /// Also time every instruction over the timed runs and print the slowest (to stderr).
    #[arg(long)]
    pub profile: bool,
}

/// Loads, parses and compiles once, runs once to warm up, then times `iters` executions
/// and prints the fastest (`min_s=`), the median CPU time of the process per run
/// (`median_cpu_s=`, user + system of all its threads) and, as the last line, the median
/// wall time (`median_s=SECONDS`).
pub fn run(args: Args) -> Result<(), CliError> {
    let started = Instant::now();
    let m = crate::common::load_module(&args.module)?;
    if crate::devices::is_multi_device(&m) {
        return bench_devices(&m, &args, started);
    }
    let (mut exe, inputs) = crate::run::prepare_loaded(&m, &args.module, &args.inputs)?;
    let err = |e: xla::cpu::CpuError| CliError::new(format!("{}: {e}", args.module.display()));
    exe.execute(&inputs).map_err(err)?;
    let first = started.elapsed().as_secs_f64();
    if args.profile {
        exe.set_profiling(true);
    }
    let mut times = Vec::with_capacity(args.iters.max(1));
    let mut cpu = Vec::with_capacity(args.iters.max(1));
    for _ in 0..args.iters.max(1) {
        let (t, c) = (Instant::now(), process_cpu_time());
        exe.execute(&inputs).map_err(err)?;
        times.push(t.elapsed().as_secs_f64());
        if let (Some(c0), Some(c1)) = (c, process_cpu_time()) {
            cpu.push(c1.saturating_sub(c0).as_secs_f64());
        }
    }
    times.sort_by(f64::total_cmp);
    cpu.sort_by(f64::total_cmp);
    let median = times[times.len() / 2];
    if args.profile {
        print_profile(&exe, times.len());
        crate::memory_report::print(&exe);
    }
    let cpu_line = match cpu.get(cpu.len() / 2) {
        Some(c) => format!("median_cpu_s={c:.6}\n"),
        None => String::new(),
    };
    write_stdout(&format!(
        "load+compile+first run: {first:.6} s\nmin_s={:.6}\n{cpu_line}median_s={median:.6}\n",
        times[0]
    ))
}

/// `bench` of a multi-device module: every run executes all devices on the backend (on MPI,
/// rank 0 prints the times of the whole job's runs).
fn bench_devices(m: &xla::Module, args: &Args, started: Instant) -> Result<(), CliError> {
    let (exe, per_device) = crate::devices::prepare(m, &args.module, &args.inputs)?;
    let runs = args.iters.max(1) + 1;
    let Some(all) = crate::devices::time_on(args.backend, &exe, &per_device, &args.module, runs)?
    else {
        return Ok(());
    };
    let warm_up = all.first().copied().unwrap_or(0.0);
    let first = started.elapsed().as_secs_f64() - all.iter().skip(1).sum::<f64>();
    let mut times: Vec<f64> = all.into_iter().skip(1).collect();
    times.sort_by(f64::total_cmp);
    let (min, median) = (
        times.first().copied().unwrap_or(warm_up),
        times.get(times.len() / 2).copied().unwrap_or(warm_up),
    );
    write_stdout(&format!(
        "load+compile+first run: {first:.6} s\nmin_s={min:.6}\nmedian_s={median:.6}\n"
    ))
}

/// Prints the instructions that took 95% of the time (at most 40), per execution, to stderr.
fn print_profile(exe: &xla::cpu::Executable, runs: usize) {
    let entries = exe.profile();
    let total: f64 = entries.iter().map(|e| e.total.as_secs_f64()).sum();
    let per_run = |d: std::time::Duration| d.as_secs_f64() * 1e3 / runs.max(1) as f64;
    eprintln!(
        "{:>9} {:>6} {:>6}  {:<28} {:<24} instruction",
        "ms/run", "%", "calls", "op", "shape"
    );
    let mut shown = 0.0;
    for e in entries.iter().take(40) {
        if shown > 0.95 * total {
            break;
        }
        shown += e.total.as_secs_f64();
        eprintln!(
            "{:>9.3} {:>5.1}% {:>6}  {:<28} {:<24} {}/{}",
            per_run(e.total),
            100.0 * e.total.as_secs_f64() / total.max(f64::MIN_POSITIVE),
            e.calls / runs.max(1) as u64,
            e.op,
            e.shape,
            e.computation,
            e.instruction
        );
    }
}
