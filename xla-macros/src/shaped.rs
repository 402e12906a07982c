//! The expansion of a computation generic over whole shapes (`fn adam<S: Shape>`, see
//! `xla_dsl::shapes`): checked here at each rank of `CHECK_RANKS` (each rank an ordinary
//! size-generic function, checked by the same front end); the module holds the source,
//! which `xla::generic::Shaped` expands at the ranks of each call's arguments, and hands
//! it to computations that call this one.

use crate::ast::Computation;
use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote, ToTokens};
use xla_dsl::instantiate::{front, parse_at_generic_point};
use xla_dsl::shapes;

/// The whole attribute on a shape-generic function `parsed` (written `item`).
pub fn computation(
    attr: TokenStream,
    parsed: syn::ItemFn,
    item: TokenStream,
    shape_names: &[Ident],
) -> TokenStream {
    let mut errors: Vec<syn::Error> = Vec::new();
    if let Err(message) = shapes::signature(&parsed) {
        errors.push(syn::Error::new_spanned(&parsed.sig, message));
    }
    let mut preconditions = Vec::new();
    let mut first: Option<Computation> = None;
    for rank in shapes::CHECK_RANKS {
        if !errors.is_empty() {
            break;
        }
        let ranks = vec![rank; shape_names.len()];
        let expanded = shapes::expand(&parsed, shape_names, &ranks);
        let (cx, c) = parse_at_generic_point(&attr, &expanded);
        if !cx.has_errors() {
            if let Some(callee) = crate::callees::unresolved(&c) {
                return crate::callees::defer(&callee, attr, item);
            }
        }
        let generic = !c.sizes.is_empty();
        let f = front(cx, c);
        let f = match generic {
            true => {
                let k = xla_dsl::preconditions::classify(&attr, &expanded, f);
                preconditions.extend(
                    k.preconditions
                        .iter()
                        .map(|p| at_rank(shape_names, rank, p)),
                );
                k.front
            }
            false => f,
        };
        let failed = f.checked.is_none() || f.cx.has_errors();
        for e in f.cx.into_errors() {
            let message = at_rank(shape_names, rank, &e.to_string());
            errors.push(syn::Error::new(e.span(), message));
        }
        if failed && errors.is_empty() {
            errors.push(syn::Error::new_spanned(
                &parsed.sig,
                at_rank(shape_names, rank, "the computation does not build"),
            ));
        }
        if first.is_none() || rank == 1 {
            first = Some(f.computation);
        }
    }
    let Some(c) = first else {
        let errors = errors.iter().map(syn::Error::to_compile_error);
        return quote! { #(#errors)* };
    };
    let real = errors.is_empty();
    let errors = errors.iter().map(syn::Error::to_compile_error);
    let module = expand(&c, &parsed, &attr, shape_names, real, &preconditions);
    quote! { #(#errors)* #module }
}

/// `message` prefixed with the rank it was found at: `with `S` of rank 2 (`S0, S1`): ..`.
fn at_rank(shape_names: &[Ident], rank: usize, message: &str) -> String {
    let names: Vec<String> = shape_names
        .iter()
        .map(|s| {
            let dims = shapes::dim_names(&s.to_string(), rank).join(", ");
            format!("`{s}` of rank {rank} (`[{dims}]`)")
        })
        .collect();
    format!("with {}: {message}", names.join(" and "))
}

/// The module of a shape-generic computation; after errors (`real` false) the same items,
/// whose source is empty, so that callers stay silent.
fn expand(
    c: &Computation,
    item: &syn::ItemFn,
    attr: &TokenStream,
    shape_names: &[Ident],
    real: bool,
    preconditions: &[String],
) -> TokenStream {
    let (attrs, vis, name) = (&c.attrs, &c.vis, &c.name);
    let fn_name = name.to_string();
    let source = item.to_token_stream().to_string();
    let attr = attr.to_string();
    let shape_list: Vec<String> = shape_names.iter().map(ToString::to_string).collect();
    let doc = format!(
        "The XLA computation `{fn_name}`, generic over the shape{} {} (any rank): checked at \
         compile time at the ranks {:?} for every size, built and compiled once per rank and \
         size on first use.",
        if shape_list.len() == 1 { "" } else { "s" },
        shape_list.join(", "),
        shapes::CHECK_RANKS
    );
    let with_callee = crate::generic::with_generic_callee(name, &attr, &source, real);
    let common = crate::generic::common_items(
        c,
        preconditions,
        "The shape rules that hold only for some sizes, at the ranks checked (see \
         `xla_dsl::preconditions`); empty when every rule holds for every size.",
    );
    let own = items(c, quote! { GENERIC }, quote! { Value });
    let nested = c.options.grad.as_ref().map(|_| {
        let g = items(c, quote! { super::GENERIC }, quote! { Grad });
        let vg = items(c, quote! { super::GENERIC }, quote! { ValueAndGrad });
        quote! {
            /// The gradient, generic over the same shapes.
            pub mod grad { pub use super::Error; #g }
            /// The value and gradient, generic over the same shapes.
            pub mod value_and_grad { pub use super::Error; #vg }
        }
    });
    quote! {
        #[doc = #doc]
        #(#attrs)*
        #vis mod #name {
            /// The shape parameters, in order.
            pub const SHAPES: &[&str] = &[#(#shape_list),*];
            #common

            /// The computation's definition and its instances, one per rank and size.
            #[doc(hidden)]
            pub static GENERIC: ::xla::generic::Shaped =
                ::xla::generic::Shaped::new(NAME, #source, #attr, PARAMETERS);

            #own
            #nested

            #with_callee
        }
    }
}

/// `run` and `apply` of one variant.
fn items(c: &Computation, generic: TokenStream, variant: TokenStream) -> TokenStream {
    let variant = quote! { ::xla::generic::Variant::#variant };
    let names: Vec<&Ident> = c.params.iter().map(|p| &p.name).collect();
    let type_params: Vec<Ident> = (0..names.len()).map(|i| format_ident!("A{}", i)).collect();
    quote! {
        /// Runs the computation with `args`, one literal per parameter; the ranks of the
        /// shapes and the sizes are read from the arguments.
        ///
        /// # Errors
        /// If the arguments give a shape two ranks or a size two values, or the computation
        /// does not build, compile or run at them.
        pub fn run(args: &[::xla::core::Literal]) -> ::core::result::Result<::xla::core::Literal, Error> {
            ::core::result::Result::Ok(#generic.run(#variant, args)?)
        }

        /// [`run`] with one argument per parameter, each anything that converts into a
        /// literal.
        ///
        /// # Errors
        /// As [`run`].
        pub fn apply<#(#type_params: ::core::convert::Into<::xla::core::Literal>),*>(#(#names: #type_params),*) -> ::core::result::Result<::xla::core::Literal, Error> {
            self::run(&[#(#names.into()),*])
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    fn expand(source: &str) -> String {
        let item: proc_macro2::TokenStream = source.parse().unwrap();
        let parsed: syn::ItemFn = syn::parse2(item.clone()).unwrap();
        let names = xla_dsl::shapes::shape_params(&parsed);
        super::computation(proc_macro2::TokenStream::new(), parsed, item, &names).to_string()
    }

    #[test]
    fn a_rule_that_fails_at_one_rank_is_an_error_naming_the_rank() {
        let out = expand(
            "fn flip<S: Shape>(x: Tensor<f32, S>) -> Tensor<f32, S> { x.transpose([1, 0]) }",
        );
        assert!(out.contains("compile_error"), "{out}");
        assert!(out.contains("with `S` of rank 0 (`[]`): "), "{out}");
    }

    #[test]
    fn a_shape_no_parameter_writes_is_an_error() {
        let out = expand("fn zeros<S: Shape>(x: Tensor<f32, 3>) -> Tensor<f32, S> { x }");
        assert!(
            out.contains("`S` is not the shape of any parameter"),
            "{out}"
        );
    }

    #[test]
    fn an_elementwise_step_expands_to_a_shaped_module() {
        let out = expand(
            "fn sgd<S: Shape>(p: Tensor<f32, S>, g: Tensor<f32, S>, lr: f32) -> Tensor<f32, S> { p - lr * g }",
        );
        assert!(!out.contains("compile_error"), "{out}");
        assert!(out.contains(":: xla :: generic :: Shaped :: new"), "{out}");
    }
}
