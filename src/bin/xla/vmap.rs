//! `xla vmap MODULE.hlo [INPUT.npy...] --in-axes 0,none,1 [--size N] [--out-axes 0]`: print
//! the batched module (the module's parameters and result are one example's; each batched
//! parameter gets a dimension of size N at its axis, each result at its out axis) in HLO
//! text. N is `--size`, or read from the batch axes of the batched inputs when they are
//! given (they must agree, and each input must have its batched parameter's shape).

use crate::common::{load_module, write_stdout, CliError};
use std::path::PathBuf;
use xla::autodiff::{batch_size, vmap_module};
use xla::core::text::print_module;
use xla::core::{Module, Shape};
use xla::Literal;

/// Arguments of `xla vmap`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The HLO text module of one example.
    pub module: PathBuf,
    /// The batched inputs (`.npy`, one per parameter): the batch size is read from their
    /// batch axes, so `--size` is needed only when no input is batched.
    pub inputs: Vec<PathBuf>,
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
    let module = load_module(&args.module)?;
    let shapes = input_shapes(&args.inputs)?;
    let size = match (&shapes, args.size) {
        (None, Some(size)) => size,
        (None, None) => return Err(CliError::new(
            "--size N is needed: the module's parameters are one example's, so the batch size is not in the module (or give the batched inputs)",
        )),
        (Some(shapes), size) => batch_size(shapes, &in_axes, size)
            .map_err(|e| CliError::new(format!("{}: {e}", args.module.display())))?,
    };
    let batched = vmap_module(&module, &in_axes, &out_axes, size)
        .map_err(|e| CliError::new(format!("{}: {e}", args.module.display())))?;
    if let Some(shapes) = &shapes {
        check_inputs(&batched, shapes, &args.inputs)?;
    }
    write_stdout(&print_module(&batched))
}

/// The shapes of the input files, or `None` when there are none.
fn input_shapes(paths: &[PathBuf]) -> Result<Option<Vec<Shape>>, CliError> {
    if paths.is_empty() {
        return Ok(None);
    }
    paths
        .iter()
        .map(|p| {
            Literal::read_npy(p)
                .map(|l| l.shape().clone())
                .map_err(|e| CliError::new(format!("{}: {e}", p.display())))
        })
        .collect::<Result<Vec<_>, _>>()
        .map(Some)
}

/// Each input has the shape of its parameter in the batched module.
fn check_inputs(batched: &Module, shapes: &[Shape], paths: &[PathBuf]) -> Result<(), CliError> {
    let params = batched
        .entry_computation()
        .map(|c| c.parameter_shapes())
        .unwrap_or_default();
    for (k, ((got, want), path)) in shapes.iter().zip(&params).zip(paths).enumerate() {
        if !got.compatible(want) {
            return Err(CliError::new(format!(
                "{}: input {k} is {got} but the batched parameter {k} is {want}",
                path.display()
            )));
        }
    }
    Ok(())
}
