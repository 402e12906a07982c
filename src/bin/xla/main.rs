//! `xla`: the command line of xla-rs.
//!
//! ```text
//! xla fmt MODULE.hlo     parse and print canonically (XLA's text format) to stdout
//! xla check MODULE.hlo   parse and verify; prints `ok` or every problem with its location
//! xla grad MODULE.hlo    print the gradient module of a scalar-valued module
//! xla run MODULE.hlo IN0.npy ... --out DIR     run on the CPU, write out0.npy, out1.npy, ...
//! xla bench MODULE.hlo IN0.npy ... --iters N   time N executions, print median_s=SECONDS
//! xla vmap MODULE.hlo --in-axes 0,none --size N   print the batched module
//! xla graph MODULE.hlo -o graph.svg [--plan] [--profile]   draw the module
//! ```
//!
//! Each subcommand lives in its own file (`fmt.rs`, `check.rs`, ...) with an `Args` struct
//! and a `run(args) -> Result<(), CliError>`; add a variant to [`Command`] to add one.
//! Errors are printed as one line per problem on stderr, and the exit status is 2; a panic
//! (a bug) is reported as a one-line internal error, also with status 2.

/// mimalloc, huge blocks aside (`alloc.rs`).
#[global_allocator]
static ALLOC: alloc::Alloc = alloc::Alloc;

mod alloc;
mod bench;
mod check;
mod common;
mod cpu_clock;
mod devices;
mod fmt;
mod grad;
mod graph;
mod interrupt;
mod memory_report;
mod outputs;
mod run;
mod vmap;

use clap::{Parser, Subcommand};
use common::CliError;
use std::process::ExitCode;

/// The `xla` command line.
#[derive(Parser, Debug)]
#[command(name = "xla", version, about = "xla-rs: XLA's HLO semantics in Rust")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

/// The subcommands.
#[derive(Subcommand, Debug)]
enum Command {
    /// Parse an HLO module and print it in canonical HLO text to stdout.
    Fmt(fmt::Args),
    /// Parse and verify an HLO module; print `ok` or every problem.
    Check(check::Args),
    /// Print the gradient module (a tuple of the gradients of the scalar result).
    Grad(grad::Args),
    /// Run an HLO module on the CPU: `xla run MODULE.hlo IN0.npy ... --out DIR`.
    Run(run::Args),
    /// Time executions of an HLO module: prints `median_s=SECONDS` last.
    Bench(bench::Args),
    /// Print the batched module: `xla vmap MODULE.hlo --in-axes 0,none --size N`.
    Vmap(vmap::Args),
    /// Draw a module (DOT, SVG or HTML): `xla graph MODULE.hlo -o graph.svg [--plan] [--profile]`.
    Graph(graph::Args),
}

fn run(cli: Cli) -> Result<(), CliError> {
    match cli.command {
        Command::Fmt(args) => fmt::run(args),
        Command::Check(args) => check::run(args),
        Command::Grad(args) => grad::run(args),
        Command::Run(args) => run::run(args),
        Command::Bench(args) => bench::run(args),
        Command::Vmap(args) => vmap::run(args),
        Command::Graph(args) => graph::run(args),
    }
}

fn main() -> ExitCode {
    alloc::keep_freed_memory();
    // A bug must not print a backtrace at the user: one line, then exit status 2.
    std::panic::set_hook(Box::new(|info| {
        let location = info
            .location()
            .map(|l| format!(" at {}:{}", l.file(), l.line()));
        let payload = info
            .payload()
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| info.payload().downcast_ref::<String>().cloned())
            .unwrap_or_default();
        eprintln!(
            "xla: internal error{}: {payload}",
            location.unwrap_or_default()
        );
    }));
    let cli = Cli::parse();
    match std::panic::catch_unwind(|| run(cli)) {
        Ok(Ok(())) => ExitCode::SUCCESS,
        Ok(Err(e)) => {
            e.report();
            ExitCode::from(e.code)
        }
        Err(_) => ExitCode::from(2),
    }
}
