//! `chlo` ops (and their `mhlo` twins) that JAX emits, decomposed into HLO as XLA's
//! `chlo-legalize-to-stablehlo` does.

use super::LResult;
use crate::builder::{XlaBuilder, XlaOp};
use crate::mlir::ast::OpAst;

/// Lowers a chlo op, if this module knows it.
pub(crate) fn lower(_b: &XlaBuilder, _op: &OpAst, _ops: &[XlaOp]) -> LResult<Option<Vec<XlaOp>>> {
    Ok(None)
}
