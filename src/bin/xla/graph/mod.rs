//! `xla graph MODULE.hlo -o graph.svg`: draw a module: instructions with their shapes,
//! called computations as clusters, and with `--plan` the executor's fused kernels and,
//! with `--profile`, the time of each step.
//!
//! The graph is Graphviz DOT (`.dot`, or stdout without `-o`); `.svg` and `.html` are laid
//! out by Graphviz's `dot` program, which must be installed for them.

mod dot;

use crate::common::CliError;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use xla::core::ir::CompId;
use xla::cpu::Executable;
use xla::Literal;

/// Arguments of `xla graph`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The HLO text (or StableHLO) module to draw.
    pub module: PathBuf,
    /// One `.npy` file per entry parameter for `--profile` (zeros when none are given).
    pub inputs: Vec<PathBuf>,
    /// Where to write: `.dot` (DOT text), `.svg` or `.html` (laid out by Graphviz `dot`);
    /// DOT on stdout when not given.
    #[arg(short = 'o', long = "out")]
    pub out: Option<PathBuf>,
    /// Draw the module as the executor runs it: after its rewrites, with fused kernels as
    /// clusters.
    #[arg(long)]
    pub plan: bool,
    /// Run the module and show each step's time per run (implies `--plan`).
    #[arg(long)]
    pub profile: bool,
    /// Timed runs for `--profile` (after one warm-up run).
    #[arg(long, default_value_t = 3)]
    pub iters: usize,
}

/// Draws the module.
pub fn run(args: Args) -> Result<(), CliError> {
    let m = crate::common::load_module(&args.module)?;
    let err = |e: &dyn std::fmt::Display| CliError::new(format!("{}: {e}", args.module.display()));
    let text = if args.plan || args.profile {
        let (mut exe, inputs) = if args.inputs.is_empty() {
            let exe = Executable::compile(&m).map_err(|e| err(&e))?;
            let zeros = zero_inputs(&m).map_err(|e| err(&e))?;
            (exe, zeros)
        } else {
            crate::run::prepare_loaded(&m, &args.module, &args.inputs)?
        };
        let mut overlay = dot::Overlay::default();
        if args.profile {
            exe.execute(&inputs).map_err(|e| err(&e))?;
            exe.set_profiling(true);
            for _ in 0..args.iters.max(1) {
                exe.execute(&inputs).map_err(|e| err(&e))?;
            }
            let runs = args.iters.max(1) as f64;
            for e in exe.profile() {
                let ms = e.total.as_secs_f64() * 1e3 / runs;
                *overlay
                    .times
                    .entry((e.computation, e.instruction))
                    .or_default() += ms;
            }
        }
        let rewritten = exe.module();
        let plans = (0..rewritten.computations.len())
            .map(|c| exe.plan_steps(CompId(c)))
            .collect();
        overlay.plans = Some(plans);
        dot::to_dot(rewritten, &overlay)
    } else {
        dot::to_dot(&m, &dot::Overlay::default())
    };
    match &args.out {
        None => crate::common::write_stdout(&text),
        Some(path) => write(path, &text),
    }
}

/// Zeros for every entry parameter.
fn zero_inputs(m: &xla::Module) -> Result<Vec<Literal>, xla::core::Error> {
    let entry = m.entry_computation().ok_or(xla::core::Error::Internal(
        "a parsed module has an entry computation",
    ))?;
    entry
        .parameters()
        .into_iter()
        .map(|p| Ok(Literal::zeros(&entry.instr(p).shape.without_layout())?))
        .collect()
}

/// Writes `dot_text` to `path` as DOT, SVG or HTML by its extension.
fn write(path: &Path, dot_text: &str) -> Result<(), CliError> {
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .unwrap_or_default()
        .to_ascii_lowercase();
    let bytes = match ext.as_str() {
        "dot" | "gv" => dot_text.as_bytes().to_vec(),
        "svg" => layout(dot_text)?,
        "html" | "htm" => {
            let svg = String::from_utf8_lossy(&layout(dot_text)?).into_owned();
            let body = svg
                .find("<svg")
                .and_then(|i| svg.get(i..))
                .unwrap_or(&svg);
            format!("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>{}</title></head>\n<body style=\"margin:0\">\n{body}</body></html>\n", path.display()).into_bytes()
        }
        other => {
            return Err(CliError::new(format!(
                "{}: unknown output format `.{other}`: use .dot, .svg or .html",
                path.display()
            )))
        }
    };
    std::fs::write(path, bytes)
        .map_err(|e| CliError::new(format!("{}: cannot write: {e}", path.display())))
}

/// SVG laid out by Graphviz `dot`.
fn layout(dot_text: &str) -> Result<Vec<u8>, CliError> {
    use std::io::Write;
    let missing = |e: std::io::Error| {
        CliError::new(format!(
            "cannot run Graphviz `dot` ({e}): install Graphviz (apt-get install graphviz) or write a .dot file"
        ))
    };
    let mut child = Command::new("dot")
        .arg("-Tsvg")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(missing)?;
    if let Some(mut stdin) = child.stdin.take() {
        stdin.write_all(dot_text.as_bytes()).map_err(missing)?;
    }
    let out = child.wait_with_output().map_err(missing)?;
    if !out.status.success() {
        let msg = String::from_utf8_lossy(&out.stderr);
        return Err(CliError::new(format!(
            "Graphviz `dot` failed: {}",
            msg.lines().next().unwrap_or_default()
        )));
    }
    Ok(out.stdout)
}
