//! `xla-core`: the HLO IR of xla-rs.
//!
//! Element types ([`PrimitiveType`]), shapes ([`Shape`]), host values ([`Literal`]), every
//! operation of XLA's operation semantics ([`ir::Op`]), shape inference as pure functions
//! ([`shape_inference`]), a builder with shape checking ([`builder`]), XLA's HLO text format
//! ([`text`]) and a verifier ([`verify`]).

#![forbid(unsafe_code)]

pub mod attrs;
pub mod builder;
pub mod error;
pub mod ir;
pub mod literal;
pub mod mlir;
pub mod shape;
pub mod shape_inference;
pub mod text;
pub mod types;
pub mod verify;

pub use error::Error;
pub use ir::{CompId, Computation, InstrId, Instruction, Module, Op};
pub use literal::Literal;
pub use shape::Shape;
pub use shape_inference::{ShapeError, ShapeRule};
pub use types::PrimitiveType;
