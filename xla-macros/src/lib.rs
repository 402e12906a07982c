#![doc = include_str!("../README.md")]
#![forbid(unsafe_code)]

mod call;
mod callees;
mod expand;
#[cfg(test)]
mod expansion_cost;
mod fallback;
mod generic;

use xla_dsl::{ast, check, grad};

use proc_macro::TokenStream;

/// Turns a function on tensors of static shape into an XLA computation, checked at compile
/// time; see the [crate documentation](crate) for the syntax and the expansion.
#[proc_macro_attribute]
pub fn computation(attr: TokenStream, item: TokenStream) -> TokenStream {
    expand::computation(attr.into(), item.into()).into()
}
