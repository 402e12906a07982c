//! `xla vmap MODULE.hlo --in-axes 0,none,1 --size N [--out-axes 0]`: print the batched
//! module (the module's parameters and result are one example's; each batched parameter
//! gets a dimension of size N at its axis, each result at its out axis) in HLO text.

use crate::common::{load_module, write_stdout, CliError};
use std::path::PathBuf;
use xla::autodiff::vmap_module;
use xla::core::text::print_module;

/// Arguments of `xla vmap`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The HLO text module of one example.
    pub module: PathBuf,
    /// Per parameter, comma-separated: the dimension of the batched parameter that holds
    /// the batch (0 to its rank), or `none` for a parameter shared by every lane.
    #[arg(long, value_delimiter = ',', num_args = 0..)]
    pub in_axes: Vec<String>,
    /// Where each result gets the batch dimension: one value for every result, or one per
    /// element of the result tuple (`none`: the result does not depend on a batched input).
    #[arg(long, value_delimiter = ',', default_value = "0")]
    pub out_axes: Vec<String>,
    /// The batch size (the module's parameters are one example's, so it is not in the
    /// module).
    #[arg(long)]
    pub size: Option<i64>,
}

/// `0`, `2`, `none`.
fn axis(s: &str, flag: &str) -> Result<Option<usize>, CliError> {
    let t = s.trim();
    if t.eq_ignore_ascii_case("none") {
        return Ok(None);
    }
    t.parse::<usize>().map(Some).map_err(|_| {
        CliError::new(format!(
            "--{flag}: `{t}` is neither a dimension number nor `none`"
        ))
    })
}

/// Batches the module and prints the batched module on stdout.
pub fn run(args: Args) -> Result<(), CliError> {
    let in_axes: Vec<Option<usize>> = args
        .in_axes
        .iter()
        .filter(|s| !s.trim().is_empty())
        .map(|s| axis(s, "in-axes"))
        .collect::<Result<_, _>>()?;
    let out_axes: Vec<Option<usize>> = args
        .out_axes
        .iter()
        .map(|s| axis(s, "out-axes"))
        .collect::<Result<_, _>>()?;
    let Some(size) = args.size else {
        return Err(CliError::new(
            "--size N is needed: the module's parameters are one example's, so the batch size is not in the module",
        ));
    };
    let module = load_module(&args.module)?;
    let batched = vmap_module(&module, &in_axes, &out_axes, size)
        .map_err(|e| CliError::new(format!("{}: {e}", args.module.display())))?;
    write_stdout(&print_module(&batched))
}
