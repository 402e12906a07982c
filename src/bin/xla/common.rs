//! What the subcommands share: reading and parsing a module file, and the error type.

use std::io::Write;
use std::path::Path;
use xla::core::mlir::{bytecode_header, looks_like_mlir, parse_bytecode, parse_stablehlo};
use xla::core::text::parse_module;
use xla::Module;

/// A failed command: the lines to print on stderr and the exit status.
#[derive(Debug)]
pub struct CliError {
    /// One line per problem, each starting with its location.
    pub lines: Vec<String>,
    /// The exit status.
    pub code: u8,
}

impl CliError {
    /// An error of one line with exit status 2.
    pub fn new(line: impl Into<String>) -> CliError {
        CliError {
            lines: vec![line.into()],
            code: 2,
        }
    }

    /// Prints the lines on stderr.
    pub fn report(&self) {
        let mut err = std::io::stderr().lock();
        for l in &self.lines {
            let _ = writeln!(err, "{l}");
        }
    }
}

/// Reads the file at `path` as UTF-8 text.
pub fn read_text(path: &Path) -> Result<String, CliError> {
    std::fs::read_to_string(path)
        .map_err(|e| CliError::new(format!("{}: cannot read: {e}", path.display())))
}

/// Reads and parses a module: StableHLO (MLIR) for a `.mlir` file or text that starts like
/// MLIR, HLO text otherwise; a parse error becomes `FILE:LINE:COL: message`.
pub fn load_module(path: &Path) -> Result<Module, CliError> {
    let bytes = std::fs::read(path)
        .map_err(|e| CliError::new(format!("{}: cannot read: {e}", path.display())))?;
    if std::str::from_utf8(&bytes).is_err() && bytecode_header(&bytes).is_some() {
        // `jax.export`'s `exported.serialize()` (or bare MLIR bytecode in VHLO).
        return parse_bytecode(&bytes).map_err(|e| {
            CliError::new(format!(
                "{}: byte {}: {}",
                path.display(),
                e.offset,
                e.message
            ))
        });
    }
    let text = read_text(path)?;
    let located = |line: usize, column: usize, message: &str| {
        let message = message.lines().next().unwrap_or_default();
        CliError::new(format!("{}:{line}:{column}: {message}", path.display()))
    };
    if path.extension().is_some_and(|e| e == "mlir") || looks_like_mlir(&text) {
        return parse_stablehlo(&text).map_err(|e| located(e.line, e.column, &e.message));
    }
    let elided = text.matches("constant({...})").count();
    if elided > 0 {
        eprintln!(
            "warning: {}: {elided} constant(s) elided as {{...}}; they hold XLA's placeholder values (counting bit patterns), not the real data",
            path.display()
        );
    }
    parse_module(&text).map_err(|e| located(e.line, e.column, &e.message))
}

/// Writes `text` to stdout; a closed pipe (`xla fmt m.hlo | head`) is not an error.
pub fn write_stdout(text: &str) -> Result<(), CliError> {
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        Err(e) => Err(CliError::new(format!("xla: cannot write to stdout: {e}"))),
    }
}
