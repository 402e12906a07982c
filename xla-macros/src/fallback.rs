//! After errors: the errors, plus a stub module with the same items as a real expansion, so
//! that uses of the computation elsewhere do not add a cascade of follow-on errors.

use crate::ast::Computation;
use crate::expand::{module, Bodies};
use proc_macro2::TokenStream;
use quote::quote;

/// The compile errors and the stub (with stub gradient modules when `grad` was asked for).
pub fn stub(c: &Computation, errors: Vec<syn::Error>) -> TokenStream {
    let errors = errors.iter().map(syn::Error::to_compile_error);
    let nested = c.options.grad.as_ref().map(|_| {
        let types = crate::grad::signature(c).map(|s| (s.grad, s.value_and_grad));
        let (g, vg) = types.map_or((None, None), |(g, vg)| (Some(g), vg));
        [(Bodies::stub(), g), (Bodies::stub(), vg)]
    });
    let stub = module(c, Bodies::stub(), nested, false);
    quote! { #(#errors)* #stub }
}
