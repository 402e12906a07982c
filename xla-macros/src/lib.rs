#![doc = include_str!("../README.md")]
#![forbid(unsafe_code)]

mod ast;
mod call;
mod callees;
mod check;
mod ctxt;
mod expand;
#[cfg(test)]
mod expansion_cost;
mod fallback;
mod grad;
mod parse;
mod vmap;

use proc_macro::TokenStream;

/// Turns a function on tensors of static shape into an XLA computation, checked at compile
/// time; see the [crate documentation](crate) for the syntax and the expansion.
#[proc_macro_attribute]
pub fn computation(attr: TokenStream, item: TokenStream) -> TokenStream {
    expand::computation(attr.into(), item.into()).into()
}
