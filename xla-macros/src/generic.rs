//! The expansion of a computation generic over sizes (`fn dense<const B: usize>`): checked
//! here at the generic point; the module holds the function's source, which
//! `xla::generic::Generic` builds again at each new size (same parser, same shape rules),
//! compiles once and caches.

use crate::ast::{Computation, Param, TypeSpec};
use crate::call::{result_value, value_type};
use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote, ToTokens};

/// The module of a generic computation; after errors (`real` false) the same items, whose
/// source is empty, so that callers stay silent (as for a fixed computation's stub).
pub fn expand(
    c: &Computation,
    item: &syn::ItemFn,
    attr: &TokenStream,
    real: bool,
    preconditions: &[String],
) -> TokenStream {
    let (attrs, vis, name) = (&c.attrs, &c.vis, &c.name);
    let fn_name = name.to_string();
    let source = item.to_token_stream().to_string();
    let attr = attr.to_string();
    let sizes: Vec<String> = c.sizes.iter().map(ToString::to_string).collect();
    let bindings = bindings(&c.params);
    let own = items(c, quote! { GENERIC }, quote! { Value }, c.result.as_ref());
    let nested = c.options.grad.as_ref().map(|_| gradients(c, &fn_name));
    let doc = format!(
        "The XLA computation `{fn_name}`, generic over the sizes {}: checked at compile \
         time by `#[computation]` for every size, built and compiled once per size on \
         first use.",
        sizes.join(", ")
    );
    let common = common_items(
        c,
        preconditions,
        "The shape rules that hold only for some sizes, each naming a size (found at compile \
         time by moving each size off the generic point; see `xla_dsl::preconditions`): \
         checked again at every instantiation, where a size that breaks one is an error \
         naming the sizes. Empty when every rule holds for every size.",
    );
    let with_callee = with_generic_callee(name, &attr, &source, real);
    quote! {
        #[doc = #doc]
        #(#attrs)*
        #vis mod #name {
            /// The size parameters, in order.
            pub const SIZES: &[&str] = &[#(#sizes),*];
            #common

            /// The computation's definition and its instances, one per size, compiled
            /// once and shared by every call and thread.
            #[doc(hidden)]
            pub static GENERIC: ::xla::generic::Generic = ::xla::generic::Generic::new(
                NAME, #source, #attr, SIZES, PARAMETERS, &[#(#bindings),*],
            );

            #own
            #nested

            #with_callee
        }
    }
}

/// The items of every generic (and shape-generic) module: `NAME`, `PARAMETERS`,
/// `PRECONDITIONS` (documented as `preconditions_doc` says) and `Error`.
pub(crate) fn common_items(
    c: &Computation,
    preconditions: &[String],
    preconditions_doc: &str,
) -> TokenStream {
    let fn_name = c.name.to_string();
    let params: Vec<String> = c.params.iter().map(|p| p.name.to_string()).collect();
    quote! {
        /// The computation's name.
        pub const NAME: &str = #fn_name;
        /// The parameter names, in order.
        pub const PARAMETERS: &[&str] = &[#(#params),*];
        #[doc = #preconditions_doc]
        pub const PRECONDITIONS: &[&str] = &[#(#preconditions),*];

        /// The error of the module's functions.
        pub type Error = ::std::boxed::Box<dyn ::std::error::Error + ::core::marker::Send + ::core::marker::Sync>;
    }
}

/// The `__xla_with_callee!` of a generic (or shape-generic) computation `name`: hands its
/// attribute and source to a caller as a `__generic_callee` (see `callees.rs`); after
/// errors (`real` false) an empty payload, so that callers stay silent.
pub(crate) fn with_generic_callee(
    name: &Ident,
    attr: &str,
    source: &str,
    real: bool,
) -> TokenStream {
    let payload = if real {
        format!("{attr}\u{1}{source}")
    } else {
        String::new()
    };
    quote! {
        #[doc(hidden)]
        #[allow(unused_macros)]
        macro_rules! __xla_with_callee_def {
            ([$($attr:tt)*] $($item:tt)*) => {
                #[::xla::computation($($attr)* __generic_callee(#name = #payload))]
                $($item)*
            };
        }
        #[doc(hidden)]
        #[allow(unused_imports)]
        pub(crate) use __xla_with_callee_def as __xla_with_callee;
    }
}

/// The `grad` and `value_and_grad` modules of a generic computation with
/// `#[computation(grad(...))]`.
fn gradients(c: &Computation, fn_name: &str) -> TokenStream {
    let types = crate::grad::signature(c).map(|s| (s.grad, s.value_and_grad));
    let (g_ty, vg_ty) = types.map_or((None, None), |(g, vg)| (Some(g), vg));
    let g = items(c, quote! { super::GENERIC }, quote! { Grad }, g_ty.as_ref());
    let vg = items(
        c,
        quote! { super::GENERIC },
        quote! { ValueAndGrad },
        vg_ty.as_ref(),
    );
    let g_doc = format!("The gradient of `{fn_name}`, generic over the same sizes.");
    let vg_doc = format!("`{fn_name}`'s value and gradient, generic over the same sizes.");
    quote! {
        #[doc = #g_doc]
        pub mod grad {
            pub use super::Error;
            #g
        }
        #[doc = #vg_doc]
        pub mod value_and_grad {
            pub use super::Error;
            #vg
        }
    }
}

/// `(parameter, leaf, dim, size)` for every dimension written as a bare size (`leaf`: the
/// tensor's place in a tuple parameter, depth first): where the sizes are read from the
/// arguments.
fn bindings(params: &[Param]) -> Vec<TokenStream> {
    let mut out = Vec::new();
    for (p, param) in params.iter().enumerate() {
        for (p, leaf, d, s) in xla_dsl::shapes::param_bindings(p, param) {
            out.push(quote! { (#p, #leaf, #d, #s) });
        }
    }
    out
}

/// `hlo`, `instance`, `run`, `apply` and `call` of one variant (the value or a gradient).
fn items(
    c: &Computation,
    generic: TokenStream,
    variant: TokenStream,
    result: Option<&TypeSpec>,
) -> TokenStream {
    let variant = quote! { ::xla::generic::Variant::#variant };
    let call = call(c, &generic, &variant, result).unwrap_or_default();
    let apply = apply(c, &generic, &variant);
    quote! {
        /// The HLO text at `sizes` (one value per size parameter, in order).
        ///
        /// # Errors
        /// If the computation does not build at these sizes (a shape rule that holds only
        /// for some sizes, named in the message with the sizes).
        pub fn hlo(sizes: &[usize]) -> ::core::result::Result<::std::string::String, Error> {
            ::core::result::Result::Ok(#generic.hlo(#variant, sizes)?)
        }

        /// The instance at `sizes`: built and compiled on first use, then cached.
        ///
        /// # Errors
        /// As [`hlo`], or if compiling fails.
        pub fn instance(sizes: &[usize]) -> ::core::result::Result<::std::sync::Arc<::xla::generic::Instance>, Error> {
            ::core::result::Result::Ok(#generic.instance(sizes)?)
        }

        /// Runs the computation with `args`, one literal per parameter; the sizes are read
        /// from the arguments' shapes.
        ///
        /// # Errors
        /// If the arguments bind a size to two values or do not fit the parameters, or the
        /// computation does not build, compile or run at those sizes.
        pub fn run(args: &[::xla::core::Literal]) -> ::core::result::Result<::xla::core::Literal, Error> {
            ::core::result::Result::Ok(#generic.run(#variant, args)?)
        }

        #apply

        #call
    }
}

/// `apply(x, w)`: one argument per parameter, each anything that converts into a literal;
/// with integer sizes (no argument's dim gives them: strides, paddings), `apply::<S, P>(..)`
/// takes them as const arguments.
fn apply(c: &Computation, generic: &TokenStream, variant: &TokenStream) -> TokenStream {
    let names: Vec<&Ident> = c.params.iter().map(|p| &p.name).collect();
    let bare = bare_sizes(&c.params);
    let integers: Vec<&Ident> = c
        .sizes
        .iter()
        .enumerate()
        .filter(|(i, _)| !bare.contains(i))
        .map(|(_, s)| s)
        .collect();
    if integers.is_empty() {
        let type_params: Vec<Ident> = (0..names.len()).map(|i| format_ident!("A{}", i)).collect();
        return quote! {
            /// [`run`] with one argument per parameter, each anything that converts into a
            /// literal (a `Literal`; an `ndarray` array with xla-core's `ndarray` feature).
            ///
            /// # Errors
            /// As [`run`].
            pub fn apply<#(#type_params: ::core::convert::Into<::xla::core::Literal>),*>(#(#names: #type_params),*) -> ::core::result::Result<::xla::core::Literal, Error> {
                self::run(&[#(#names.into()),*])
            }
        };
    }
    let list = integers
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(", ");
    let doc = format!(
        "Runs the computation with one argument per parameter, each anything that converts \
         into a literal; the sizes {list}, which no argument's shape gives, as const \
         arguments (`apply::<{list}>(..)`), the others read from the shapes."
    );
    quote! {
        #[doc = #doc]
        ///
        /// # Errors
        /// As [`run`].
        pub fn apply<#(const #integers: usize),*>(#(#names: impl ::core::convert::Into<::xla::core::Literal>),*) -> ::core::result::Result<::xla::core::Literal, Error> {
            ::core::result::Result::Ok(#generic.run_given(#variant, &[#(#integers),*], &[#(#names.into()),*])?)
        }
    }
}

/// The indices of the sizes some parameter's dim is written as alone.
fn bare_sizes(params: &[Param]) -> Vec<usize> {
    params
        .iter()
        .filter_map(|p| p.ty.as_ref())
        .flat_map(|ty| {
            ty.leaves()
                .into_iter()
                .flat_map(|t| t.bare.iter().flatten().copied())
        })
        .collect()
}

/// `call::<B, ...>(x: &[f32], ...)`: the sizes given explicitly, Rust values in and out.
fn call(
    c: &Computation,
    generic: &TokenStream,
    variant: &TokenStream,
    result: Option<&TypeSpec>,
) -> Option<TokenStream> {
    let mut params = Vec::new();
    for p in &c.params {
        let Some(TypeSpec::Tensor(t)) = &p.ty else {
            return None;
        };
        params.push((&p.name, value_type(t, true)?, t.dims.is_empty()));
    }
    let (result_ty, extract) = result_value(result?)?;
    let sizes = &c.sizes;
    let names: Vec<&Ident> = params.iter().map(|(n, _, _)| *n).collect();
    let types = params.iter().map(|(_, ty, _)| ty);
    let literals = params.iter().enumerate().map(|(i, (name, _, scalar))| {
        if *scalar {
            quote! { ::xla::core::Literal::scalar(#name) }
        } else {
            quote! { ::xla::core::Literal::from_vec(instance.parameter_dims(#i), #name.to_vec())? }
        }
    });
    let n = names.len();
    Some(quote! {
        /// Runs the computation at the sizes given as const arguments
        /// (`call::<32>(&x, &w)`), with Rust values (row-major slices for arrays).
        ///
        /// # Errors
        /// If a slice's length differs from its parameter's element count at these sizes,
        /// or the computation does not build, compile or run at them.
        pub fn call<#(const #sizes: usize),*>(#(#names: #types),*) -> ::core::result::Result<#result_ty, Error> {
            let instance = #generic.instance(&[#(#sizes),*])?;
            let args: [::xla::core::Literal; #n] = [#(#literals),*];
            let out = #generic.execute(#variant, &instance, &args)?;
            ::core::result::Result::Ok({ #extract })
        }
    })
}
