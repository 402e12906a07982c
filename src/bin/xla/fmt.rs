//! `xla fmt MODULE.hlo`: parse and print canonically.

use crate::common::{load_module, write_stdout, CliError};
use std::path::PathBuf;
use xla::core::text::print_module;

/// Arguments of `xla fmt`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The HLO text module to format.
    pub module: PathBuf,
}

/// Parses the module and prints it in canonical HLO text on stdout.
pub fn run(args: Args) -> Result<(), CliError> {
    let module = load_module(&args.module)?;
    write_stdout(&print_module(&module))
}
