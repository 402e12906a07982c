//! MLIR bytecode in StableHLO's VHLO dialect, as `jax.export`'s `Exported.serialize()`
//! writes it (inside a flatbuffer) and `stablehlo.serialize_portable_artifact` (bare):
//! [`parse_bytecode`] reads it into a [`Module`] through the same lowering as StableHLO
//! text, so an exported model runs, differentiates and batches like any other.
//!
//! Read: format versions 4 to 6 (the MLIR releases JAX 0.4.30 onwards use), the string,
//! dialect, attribute/type, IR and properties sections (VHLO ops keep their attributes as
//! properties; resources are not used by VHLO), isolated regions in nested sections, use-list orders (skipped), and the VHLO
//! encodings of tensor types, element types, dense tensors, integers, floats, booleans,
//! strings, arrays, dictionaries, types and the enums (comparison direction and type,
//! precision, FFT type, RNG algorithm, transpose, custom-call API version). What is not
//! read is named, with its byte offset, in a [`BytecodeError`].
//!
//! Submodules: `header` (finding the stream), `encoding` (varints, sections), `file`
//! (tables), `values` (attributes and types), `ir` (operations and regions), `vhlo` (VHLO
//! to the StableHLO syntax tree), `vhlo_attrs` (each VHLO op's attribute names, generated).

mod encoding;
mod file;
mod header;
mod ir;
mod values;
mod vhlo;
mod vhlo_attrs;

pub use header::{bytecode_header, BytecodeHeader};

use crate::ir::Module;
use thiserror::Error;

/// A bytecode reading error: what is wrong and the offset of the byte it was found at,
/// counted from the start of the file.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
#[error("byte {offset}: {message}")]
pub struct BytecodeError {
    /// Offset in the file (from the start of the bytecode while reading).
    pub offset: usize,
    /// What is wrong: the section, attribute or type kind, or op not read, or the rule an
    /// op breaks.
    pub message: String,
}

impl BytecodeError {
    pub(crate) fn at(offset: usize, message: impl Into<String>) -> BytecodeError {
        BytecodeError {
            offset,
            message: message.into(),
        }
    }

    fn shifted(mut self, by: usize) -> BytecodeError {
        self.offset += by;
        self
    }
}

/// Reads MLIR bytecode in the VHLO dialect (bare, or inside a `jax.export` serialization)
/// into a module; the entry is `@main`, as for StableHLO text.
///
/// ```no_run
/// let bytes = std::fs::read("exported.bin")?; // exported.serialize() from jax.export
/// let module = xla_core::mlir::parse_bytecode(&bytes)?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Errors
/// A [`BytecodeError`] with the byte offset for bytes that are not bytecode, a version,
/// section, attribute or type kind or op this reader does not read, and for ops that
/// break their shape rules (as [`parse_stablehlo`](super::parse_stablehlo) reports them).
pub fn parse_bytecode(bytes: &[u8]) -> Result<Module, BytecodeError> {
    let Some(h) = bytecode_header(bytes) else {
        return Err(BytecodeError::at(
            0,
            "no MLIR bytecode (magic ML\\xefR) found",
        ));
    };
    let stream = header::bytecode_slice(bytes, &h);
    let ast = read_tree(stream).map_err(|e| e.shifted(h.offset))?;
    super::lower::lower_module(&ast).map_err(|e| {
        // Ops of a bytecode tree carry their byte offset as the column (line 0).
        let offset = if e.line == 0 {
            e.column + h.offset
        } else {
            h.offset
        };
        BytecodeError::at(offset, e.message)
    })
}

fn read_tree(stream: &[u8]) -> Result<super::ast::ModuleAst, BytecodeError> {
    let f = file::File::read(stream)?;
    let mut dec = values::Decoder::new(&f);
    let top = ir::Walker::new(&mut dec).top(f.ir.clone())?;
    vhlo::module(top)
}
