//! The language of `#[computation]`: a Rust function is parsed into the macro's own syntax
//! tree ([`parse`]), checked and built into an HLO module with xla-core's builder, so every
//! shape is checked by xla-core's shape inference ([`check`]), and differentiated when
//! asked ([`grad`]).
//!
//! `xla-macros` runs it at compile time. A computation with size parameters
//! (`fn dense<const B: usize>`) is checked there at a generic point ([`sizes`]) and run
//! again here, by [`instantiate`], for each size it is called at.
#![forbid(unsafe_code)]

pub mod ast;
pub mod check;
pub mod ctxt;
pub mod grad;
pub mod instantiate;
pub mod nn;
pub mod parse;
pub mod preconditions;
pub mod shapes;
pub mod sizes;
pub mod vmap;

pub use instantiate::{instantiate, Instance, InstantiateError};
