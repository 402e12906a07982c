// The README's code blocks use the facade, so they run as the facade's doc tests
// (src/lib.rs, `macros_readme`), not here.
#![cfg_attr(not(doctest), doc = include_str!("../README.md"))]
#![forbid(unsafe_code)]

mod call;
mod callees;
mod expand;
#[cfg(test)]
mod expansion_cost;
mod fallback;
mod generic;
mod shaped;
mod vmap;

use xla_dsl::{ast, check, grad};

use proc_macro::TokenStream;

/// Turns a function on tensors of static shape into an XLA computation, checked at compile
/// time; see the [crate documentation](crate) for the syntax and the expansion.
#[proc_macro_attribute]
pub fn computation(attr: TokenStream, item: TokenStream) -> TokenStream {
    expand::computation(attr.into(), item.into()).into()
}

/// Expands the computations of `xla::nn` (their sources live in `xla-dsl/nn/`); used once,
/// by the facade's `xla::nn` module.
#[doc(hidden)]
#[proc_macro]
pub fn __nn(_input: TokenStream) -> TokenStream {
    let layers = match xla_dsl::nn::layers() {
        Ok(layers) => layers,
        Err(e) => return e.to_compile_error().into(),
    };
    let mut out = proc_macro2::TokenStream::new();
    for layer in layers {
        let attr: proc_macro2::TokenStream = match layer.attr.parse() {
            Ok(attr) => attr,
            Err(e) => {
                let message = format!("xla::nn::{}: attribute: {e}", layer.name);
                out.extend(quote::quote! { ::core::compile_error!(#message); });
                continue;
            }
        };
        out.extend(expand::computation(
            attr,
            quote::ToTokens::to_token_stream(&layer.item),
        ));
    }
    out.into()
}
