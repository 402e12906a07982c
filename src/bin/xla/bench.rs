//! `xla bench MODULE.hlo IN0.npy ... --iters N`: time executions of a module.

use crate::common::{write_stdout, CliError};
use crate::run::prepare;
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
}

/// Loads, parses and compiles once, runs once to warm up, then times `iters` executions
/// and prints each time and, as the last line, `median_s=SECONDS`.
pub fn run(args: Args) -> Result<(), CliError> {
    let started = Instant::now();
    let (exe, inputs) = prepare(&args.module, &args.inputs)?;
    let err = |e: xla::cpu::CpuError| CliError::new(format!("{}: {e}", args.module.display()));
    exe.execute(&inputs).map_err(err)?;
    let first = started.elapsed().as_secs_f64();
    let mut times = Vec::with_capacity(args.iters.max(1));
    for _ in 0..args.iters.max(1) {
        let t = Instant::now();
        exe.execute(&inputs).map_err(err)?;
        times.push(t.elapsed().as_secs_f64());
    }
    times.sort_by(f64::total_cmp);
    let median = times[times.len() / 2];
    write_stdout(&format!(
        "load+compile+first run: {first:.6} s\nmin_s={:.6}\nmedian_s={median:.6}\n",
        times[0]
    ))
}
