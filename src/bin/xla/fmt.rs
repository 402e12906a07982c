//! `xla fmt MODULE`: parse (HLO text or StableHLO) and print canonical HLO text, or with
//! `--stablehlo` StableHLO text that XLA compiles.

use crate::common::{load_module, write_stdout, CliError};
use std::path::PathBuf;
use xla::core::mlir::print_stablehlo;
use xla::core::text::print_module;

/// Arguments of `xla fmt`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The module to format (HLO text, or StableHLO `.mlir`).
    pub module: PathBuf,
    /// Print StableHLO (MLIR assembly) instead of HLO text.
    #[arg(long)]
    pub stablehlo: bool,
}

/// Parses the module and prints it on stdout.
pub fn run(args: Args) -> Result<(), CliError> {
    let module = load_module(&args.module)?;
    if args.stablehlo {
        let text = print_stablehlo(&module)
            .map_err(|e| CliError::new(format!("{}: {e}", args.module.display())))?;
        return write_stdout(&text);
    }
    write_stdout(&print_module(&module))
}
