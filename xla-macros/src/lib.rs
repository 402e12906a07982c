//! `#[computation]`: turns an annotated Rust function into an XLA HLO graph at compile time.
//!
//! Not implemented yet: the attribute currently passes the item through unchanged.

use proc_macro::TokenStream;

/// Marks a function as an XLA computation (placeholder: returns the item unchanged).
#[proc_macro_attribute]
pub fn computation(_attr: TokenStream, item: TokenStream) -> TokenStream {
    item
}
