//! `#[computation]`: turns an annotated Rust function into an XLA HLO graph at compile time.

#![forbid(unsafe_code)]

mod ast;
mod check;
mod ctxt;
mod expand;
mod fallback;
mod parse;

use proc_macro::TokenStream;

/// Turns a function on tensors into an XLA computation; see the crate documentation.
#[proc_macro_attribute]
pub fn computation(attr: TokenStream, item: TokenStream) -> TokenStream {
    expand::computation(attr.into(), item.into()).into()
}
