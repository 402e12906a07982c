//! After errors: the errors, plus a stub module with the same items as a real expansion, so
//! that uses of the computation elsewhere do not add a cascade of follow-on errors.

use crate::ast::Computation;
use crate::expand::{module, Bodies};
use proc_macro2::TokenStream;
use quote::quote;

/// The compile errors and the stub.
pub fn stub(c: &Computation, errors: Vec<syn::Error>) -> TokenStream {
    let errors = errors.iter().map(syn::Error::to_compile_error);
    // The stub is never run: the crate does not compile while the errors stand.
    let unreachable = quote! { ::core::unimplemented!("#[computation] failed to compile") };
    let bodies = Bodies {
        hlo: String::new(),
        parameter_shapes: unreachable.clone(),
        result_shape: unreachable,
    };
    let stub = module(c, bodies, false);
    quote! { #(#errors)* #stub }
}
