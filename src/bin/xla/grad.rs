//! `xla grad MODULE.hlo [--wrt 0,2]`: print the gradient module (same parameters, a tuple
//! of the gradients of the scalar result) in HLO text.

use crate::common::{load_module, write_stdout, CliError};
use std::path::PathBuf;
use xla::autodiff::grad_module;
use xla::core::text::print_module;

/// Arguments of `xla grad`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The HLO text module to differentiate (its entry must return a float scalar).
    pub module: PathBuf,
    /// Parameter numbers to differentiate w.r.t., comma-separated (default: every
    /// floating-point parameter).
    #[arg(long, value_delimiter = ',')]
    pub wrt: Option<Vec<usize>>,
}

/// Differentiates the module and prints the gradient module on stdout.
pub fn run(args: Args) -> Result<(), CliError> {
    let module = load_module(&args.module)?;
    let grad = grad_module(&module, args.wrt.as_deref())
        .map_err(|e| CliError::new(format!("{}: {e}", args.module.display())))?;
    write_stdout(&print_module(&grad))
}
