//! The expansion: for a function `dense`, a module `dense` holding the HLO text, the
//! signature's shapes, the parsed [`Module`](xla_core::Module) and (through `call.rs`)
//! `run` on literals and `call` on Rust values, which run it on the CPU. `expand` only ever
//! sees checked input.

use crate::ast::{Computation, Param, TypeSpec};
use crate::check::Checked;
use crate::fallback;
use crate::grad::Gradients;
use proc_macro2::{Ident, Span, TokenStream};
use quote::quote;
use xla_core::{Module, Shape};

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
    let shape_names = xla_dsl::shapes::shape_params(&parsed);
    if !shape_names.is_empty() {
        return crate::shaped::computation(attr, parsed, item, &shape_names);
    }
    let (cx, c) = xla_dsl::instantiate::parse_at_generic_point(&attr, &parsed);
    if !cx.has_errors() {
        if let Some(callee) = crate::callees::unresolved(&c) {
            return crate::callees::defer(&callee, attr, item);
        }
    }
    let generic = !c.sizes.is_empty();
    let f = xla_dsl::instantiate::front(cx, c);
    let (f, preconditions) = match generic {
        true => {
            let k = xla_dsl::preconditions::classify(&attr, &parsed, f);
            (k.front, k.preconditions)
        }
        false => (f, Vec::new()),
    };
    let c = &f.computation;
    if let (Some(checked), false) = (&f.checked, generic) {
        let grad = f.gradients.as_ref().map(|g| &g.grad);
        crate::vmap::check(&f.cx, c, &checked.module, grad);
    }
    match f.checked {
        Some(_) if generic && !f.cx.has_errors() => {
            crate::generic::expand(c, &parsed, &attr, true, &preconditions)
        }
        Some(checked) if !f.cx.has_errors() => expand(c, &checked, f.gradients.as_ref()),
        _ if generic => {
            let errors = f.cx.into_errors();
            let errors = errors.iter().map(syn::Error::to_compile_error);
            let stub = crate::generic::expand(c, &parsed, &attr, false, &[]);
            quote! { #(#errors)* #stub }
        }
        _ => fallback::stub(c, f.cx.into_errors()),
    }
}

/// The bodies that differ between a real expansion and the stub emitted after errors; the
/// items' signatures are written once, in [`items`].
pub struct Bodies {
    /// The HLO text.
    pub hlo: String,
    /// Body of `parameter_shapes()`.
    pub parameter_shapes: TokenStream,
    /// Body of `result_shape()`.
    pub result_shape: TokenStream,
    /// The replica count of the module (`replicas = N`).
    pub replicas: usize,
    /// The partition count of the module (`partitions = P`).
    pub partitions: usize,
}

impl Bodies {
    /// The bodies of a real expansion of `module`.
    pub fn of(module: &Module, params: &[(Ident, Shape)], result: Option<&Shape>) -> Bodies {
        let shapes = params.iter().map(|(_, s)| shape_tokens(s));
        let result = result
            .or_else(|| module.entry_computation().and_then(|e| e.result_shape()))
            .map_or_else(|| quote! { ::core::unimplemented!() }, shape_tokens);
        Bodies {
            hlo: xla_core::text::print_module(module),
            parameter_shapes: quote! { ::std::vec![#(#shapes),*] },
            result_shape: result,
            replicas: usize::try_from(module.config.replica_count).unwrap_or(1),
            partitions: usize::try_from(module.config.num_partitions).unwrap_or(1),
        }
    }

    /// The bodies of a stub (never run: the crate does not compile while the errors stand).
    pub fn stub() -> Bodies {
        let unreachable = quote! { ::core::unimplemented!("#[computation] failed to compile") };
        Bodies {
            hlo: String::new(),
            parameter_shapes: unreachable.clone(),
            result_shape: unreachable,
            replicas: 1,
            partitions: 1,
        }
    }
}

fn expand(c: &Computation, checked: &Checked, gradients: Option<&Gradients>) -> TokenStream {
    let bodies = Bodies::of(&checked.module, &checked.params, Some(&checked.result));
    let nested = gradients.map(|g| {
        [
            (&g.grad, &g.grad_type),
            (&g.value_and_grad, &g.value_and_grad_type),
        ]
        .map(|(m, ty)| (Bodies::of(m, &checked.params, None), ty.clone()))
    });
    module(c, bodies, nested, true)
}

/// The two gradient modules' bodies and result types (`grad`, then `value_and_grad`).
pub type Nested = [(Bodies, Option<TypeSpec>); 2];

/// The generated module, with `bodies` filled in, and the gradient modules `nested`.
pub fn module(c: &Computation, bodies: Bodies, nested: Option<Nested>, real: bool) -> TokenStream {
    let (attrs, vis, name) = (&c.attrs, &c.vis, &c.name);
    let fn_name = name.to_string();
    let with_callee = crate::callees::definition(name, &bodies.hlo);
    let own = items(&fn_name, &c.params, c.result.as_ref(), bodies, real);
    let vmap = crate::vmap::items(c);
    let nested = nested.map(|[(g, g_ty), (vg, vg_ty)]| {
        let g_doc = format!(
            "The gradient of `{fn_name}` w.r.t. the parameters listed in `grad(...)`: same \
             parameters; the result is the gradient itself for one listed parameter, a tuple \
             of the gradients in the listed order for several."
        );
        let vg_doc = format!(
            "`{fn_name}`'s value and gradient: same parameters; the result is the flat tuple \
             (value, gradients in the listed order...)."
        );
        let g = items(
            &format!("{fn_name}_grad"),
            &c.params,
            g_ty.as_ref(),
            g,
            real,
        );
        let vg = items(
            &format!("{fn_name}_value_and_grad"),
            &c.params,
            vg_ty.as_ref(),
            vg,
            real,
        );
        quote! {
            #[doc = #g_doc]
            pub mod grad { #g #vmap }
            #[doc = #vg_doc]
            pub mod value_and_grad { #vg #vmap }
        }
    });
    let doc =
        format!("The XLA computation `{fn_name}`, built at compile time by `#[computation]`.");
    quote! {
        #[doc = #doc]
        #(#attrs)*
        #vis mod #name {
            #own
            #vmap

            #nested

            #with_callee
        }
    }
}

/// The items of one computation module (`NAME`, `HLO`, ..., `run`, `apply`, `call`).
fn items(
    fn_name: &str,
    params: &[Param],
    result: Option<&TypeSpec>,
    bodies: Bodies,
    real: bool,
) -> TokenStream {
    let param_names = params.iter().map(|p| p.name.to_string());
    let Bodies {
        hlo,
        parameter_shapes,
        result_shape,
        replicas,
        partitions,
    } = bodies;
    let functions = crate::call::functions(params, result, real);
    quote! {
        /// The computation's name.
        pub const NAME: &str = #fn_name;
        /// The HLO text of the computation (as `xla::core::text::print_module` prints it).
        pub const HLO: &str = #hlo;
        /// The replicas the computation runs on (`#[computation(replicas = N)]`; 1 without
        /// the option).
        pub const REPLICAS: usize = #replicas;
        /// The partitions of each replica (`#[computation(partitions = P)]`; 1 without the
        /// option).
        pub const PARTITIONS: usize = #partitions;
        /// The devices the computation runs on, [`REPLICAS`] × [`PARTITIONS`]; device `d` is
        /// replica `d / PARTITIONS`, partition `d % PARTITIONS`, and [`run_replicated`]
        /// takes one argument set per device.
        pub const DEVICES: usize = #replicas * #partitions;
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
