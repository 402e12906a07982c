//! The expansion: for a function `dense`, a module `dense` holding the HLO text, the
//! signature's shapes, the parsed [`Module`](xla_core::Module) and (through `call.rs`)
//! `run` on literals and `call` on Rust values, which run it on the CPU. `expand` only ever
//! sees checked input.

use crate::ast::Computation;
use crate::check::{self, Checked};
use crate::ctxt::Ctxt;
use crate::{fallback, parse};
use proc_macro2::{Ident, Span, TokenStream};
use quote::quote;
use xla_core::Shape;

/// The whole attribute: parse, check, then expand (or emit the errors and a stub).
pub fn computation(attr: TokenStream, item: TokenStream) -> TokenStream {
    let parsed: syn::ItemFn = match syn::parse2(item.clone()) {
        Ok(f) => f,
        Err(_) => {
            let error = syn::Error::new_spanned(&item, "#[computation] applies to a function")
                .to_compile_error();
            return quote! { #error #item };
        }
    };
    let cx = Ctxt::new();
    let c = parse::parse(&cx, attr.clone(), parsed);
    if !cx.has_errors() {
        if let Some(callee) = crate::callees::unresolved(&c) {
            return crate::callees::defer(&callee, attr, item);
        }
    }
    match check::check(&cx, &c) {
        Some(checked) if !cx.has_errors() => expand(&c, &checked),
        _ => fallback::stub(&c, cx.into_errors()),
    }
}

/// The bodies that differ between a real expansion and the stub emitted after errors; the
/// items' signatures are written once, in [`module`].
pub struct Bodies {
    /// The HLO text.
    pub hlo: String,
    /// Body of `parameter_shapes()`.
    pub parameter_shapes: TokenStream,
    /// Body of `result_shape()`.
    pub result_shape: TokenStream,
}

fn expand(c: &Computation, checked: &Checked) -> TokenStream {
    let shapes = checked.params.iter().map(|(_, s)| shape_tokens(s));
    let result = shape_tokens(&checked.result);
    let bodies = Bodies {
        hlo: xla_core::text::print_module(&checked.module),
        parameter_shapes: quote! { ::std::vec![#(#shapes),*] },
        result_shape: result,
    };
    module(c, bodies, true)
}

/// The generated module, with `bodies` filled in.
pub fn module(c: &Computation, bodies: Bodies, real: bool) -> TokenStream {
    let (attrs, vis, name) = (&c.attrs, &c.vis, &c.name);
    let fn_name = name.to_string();
    let param_names = c.params.iter().map(|p| p.name.to_string());
    let Bodies {
        hlo,
        parameter_shapes,
        result_shape,
    } = bodies;
    let functions = crate::call::functions(c, real);
    let with_callee = crate::callees::definition(name, &hlo);
    let doc =
        format!("The XLA computation `{fn_name}`, built at compile time by `#[computation]`.");
    quote! {
        #[doc = #doc]
        #(#attrs)*
        #vis mod #name {
            /// The computation's name.
            pub const NAME: &str = #fn_name;
            /// The HLO text of the computation (as `xla::core::text::print_module` prints it).
            pub const HLO: &str = #hlo;
            /// The parameter names, in order.
            pub const PARAMETERS: &[&str] = &[#(#param_names),*];

            /// The parameter shapes, in order.
            pub fn parameter_shapes() -> ::std::vec::Vec<::xla::core::Shape> {
                #parameter_shapes
            }

            /// The result shape.
            pub fn result_shape() -> ::xla::core::Shape {
                #result_shape
            }

            /// The HLO module, parsed from [`HLO`] on first use.
            ///
            /// # Errors
            /// If the HLO text does not parse (a bug in xla-rs: the text was printed by it).
            pub fn module() -> ::core::result::Result<&'static ::xla::core::Module, ::xla::core::text::ParseError> {
                static MODULE: ::std::sync::OnceLock<::core::result::Result<::xla::core::Module, ::xla::core::text::ParseError>> =
                    ::std::sync::OnceLock::new();
                MODULE.get_or_init(|| ::xla::core::text::parse_module(HLO)).as_ref().map_err(::core::clone::Clone::clone)
            }

            #functions

            #with_callee
        }
    }
}

/// Tokens that build `shape` at run time.
pub fn shape_tokens(shape: &Shape) -> TokenStream {
    match shape {
        Shape::Array(a) => {
            let ty = Ident::new(&format!("{:?}", a.ty), Span::call_site());
            let dims = &a.dims;
            quote! { ::xla::core::Shape::array(::xla::core::PrimitiveType::#ty, ::std::vec![#(#dims),*]) }
        }
        Shape::Tuple(elements) => {
            let elements = elements.iter().map(shape_tokens);
            quote! { ::xla::core::Shape::tuple(::std::vec![#(#elements),*]) }
        }
        Shape::Token => quote! { ::xla::core::Shape::Token },
    }
}
