//! StableHLO as MLIR assembly: [`parse_stablehlo`] reads what JAX (`jax.jit(f).lower(...)
//! .as_text()`, `exported.mlir_module()`) and XLA (`hlo_to_stablehlo`) print into a
//! [`Module`], built with the [`XlaBuilder`](crate::builder::XlaBuilder) so every op is shape
//! checked exactly as ops of HLO text and of the builder are.
//!
//! Covered: `module` (attributes skipped), `func.func` public and private with `func.call`
//! and `return`; tensors of every element type (`i1`, `si`/`ui` integers, `f16`, `bf16`,
//! `complex<..>`), tuples and `!stablehlo.token`; `stablehlo.*` ops in pretty and generic
//! (`"stablehlo.add"(%a, %b) : (...) -> ...`) form; `dense<...>` constants (splats, nested
//! lists, hex strings, hex floats); regions of reduce (and its `applies` form), sort, scatter,
//! map, reduce_window, select_and_scatter, while, if and case, with values captured from the
//! enclosing function passed in explicitly; `custom_call` as a named custom-call; the `mhlo`
//! and `chlo` ops JAX emits (erf, top_k, tan, ... decomposed as XLA's legalisation does).
//! `sdy`/`mhlo` attributes and locations are skipped.
//!
//! Submodules: `lexer`, `ast` (the syntax tree), `syntax` (text to tree), `lower` (tree to
//! HLO, one file per op family).

mod ast;
mod bytecode;
mod lexer;
mod lower;
mod print;
mod syntax;

pub use bytecode::{bytecode_header, parse_bytecode, BytecodeError, BytecodeHeader};
pub use print::{print_stablehlo, StablehloPrintError};

use crate::ir::Module;
use lexer::Pos;
use thiserror::Error;

/// What kind of problem an [`MlirError`] reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MlirErrorKind {
    /// The text does not follow the grammar.
    Syntax,
    /// An op or dialect this reader does not know.
    UnknownOp,
    /// A use of a value or function that is not defined.
    UndefinedName,
    /// A name defined twice.
    Duplicate,
    /// A required attribute is missing or malformed.
    Attribute,
    /// A type this reader does not support, or one that does not match the op.
    Type,
    /// The op breaks a shape rule (the message names the rule).
    Shape,
    /// Nesting deeper than the reader allows.
    TooDeep,
}

/// A StableHLO reading error with its 1-based line and column.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
#[error("{line}:{column}: {message}")]
pub struct MlirError {
    /// 1-based line.
    pub line: usize,
    /// 1-based column (in characters).
    pub column: usize,
    /// What is wrong.
    pub message: String,
    /// The kind of problem.
    pub kind: MlirErrorKind,
}

impl MlirError {
    pub(crate) fn new(pos: Pos, kind: MlirErrorKind, message: impl Into<String>) -> MlirError {
        MlirError {
            line: pos.line,
            column: pos.column,
            message: message.into(),
            kind,
        }
    }
}

/// How deeply regions, lists and types may nest.
pub const MAX_NESTING: usize = 64;

/// Parses StableHLO text into a module; the entry is `@main` (or the only public function).
///
/// ```
/// use xla_core::mlir::parse_stablehlo;
/// let m = parse_stablehlo(
///     "module @m {\n  func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {\n    \
///      %0 = stablehlo.add %a, %a : tensor<2xf32>\n    return %0 : tensor<2xf32>\n  }\n}\n",
/// )?;
/// assert_eq!(m.entry_computation().unwrap().result_shape().unwrap().to_string(), "f32[2]");
///
/// let err = parse_stablehlo("func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {\n  \
///     %0 = stablehlo.frob %a : tensor<2xf32>\n  return %0 : tensor<2xf32>\n}").unwrap_err();
/// assert_eq!(err.to_string(), "2:3: unknown op 'stablehlo.frob'");
/// # Ok::<(), xla_core::mlir::MlirError>(())
/// ```
///
/// # Errors
/// An [`MlirError`] with line and column for malformed text, unknown ops, undefined names,
/// unsupported types and ops whose operands break the op's shape rules.
pub fn parse_stablehlo(text: &str) -> Result<Module, MlirError> {
    let toks = lexer::lex(text)?;
    let ast = syntax::parse(&toks, text)?;
    lower::lower_module(&ast)
}

/// True when `text` looks like MLIR assembly rather than HLO text: its first token is
/// `module`, `func.func` or a `#`/`//` line, not `HloModule`.
pub fn looks_like_mlir(text: &str) -> bool {
    let t = text
        .lines()
        .map(str::trim_start)
        .find(|l| !l.is_empty() && !l.starts_with("//") && !l.starts_with('#'))
        .unwrap_or_default();
    t.starts_with("module") || t.starts_with("func.func") || t.starts_with("\"builtin.module\"")
}
