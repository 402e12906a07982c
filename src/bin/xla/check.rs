//! `xla check MODULE.hlo`: parse and verify.

use crate::common::{load_module, write_stdout, CliError};
use std::path::PathBuf;
use xla::core::verify::verify_module;

/// Arguments of `xla check`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The HLO text module to check.
    pub module: PathBuf,
}

/// Parses and verifies the module: prints `ok`, or every problem (one per line, prefixed
/// with the file name) on stderr with exit status 2.
pub fn run(args: Args) -> Result<(), CliError> {
    let module = load_module(&args.module)?;
    match verify_module(&module) {
        Ok(()) => write_stdout("ok\n"),
        Err(errors) => Err(CliError {
            lines: errors
                .problems
                .iter()
                .map(|p| format!("{}: {p}", args.module.display()))
                .collect(),
            code: 2,
        }),
    }
}
