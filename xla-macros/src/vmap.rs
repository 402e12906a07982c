//! `#[computation(vmap(x: 0, y: 1))]`: `NAME::vmap(size)`, the computation batched over
//! `size` lanes by xla-autodiff's `vmap_module`: the listed parameters get a batch
//! dimension at the given axis, the others are shared by every lane, every result gets it
//! at dimension 0. With `grad(...)`, `NAME::grad::vmap(size)` is the per-example gradient.
//! The option is checked while the macro expands (a batched copy of 2 lanes is built), so
//! an axis out of range or an op without a batching rule is a compile error.

use proc_macro2::TokenStream;
use quote::quote;
use xla_core::Module;
use xla_dsl::ast::Computation;
use xla_dsl::ctxt::{Ctxt, Sp};

pub use xla_dsl::vmap::VmapAxes;

/// Each parameter's batch axis (`None`: shared), in parameter order.
fn in_axes(c: &Computation, axes: &VmapAxes) -> Vec<Option<usize>> {
    c.params
        .iter()
        .map(|p| axes.iter().find(|(n, _)| *n == p.name).map(|(_, a)| *a))
        .collect()
}

/// Reports listed names that are not parameters, and batches `module` (and `grad`, the
/// gradient module when there is one) over 2 lanes to report what `vmap` would reject.
pub fn check(cx: &Ctxt, c: &Computation, module: &Module, grad: Option<&Module>) {
    let Some((sp, axes)) = &c.options.vmap else {
        return;
    };
    let mut ok = true;
    for (name, _) in axes {
        if !c.params.iter().any(|p| p.name == *name) {
            let fn_name = &c.name;
            cx.error(
                Sp::of(name),
                format!("vmap: `{name}` is not a parameter of `{fn_name}`"),
            );
            ok = false;
        }
    }
    if !ok {
        return;
    }
    let axes = in_axes(c, axes);
    for m in std::iter::once(module).chain(grad) {
        if let Err(e) = xla_autodiff::vmap_module(m, &axes, &[Some(0)], 2) {
            cx.error(*sp, format!("vmap of `{}`: {e}", c.name));
            return;
        }
    }
}

/// The items `VMAP_IN_AXES` and `vmap(size)` of a computation module (none without the
/// option).
pub fn items(c: &Computation) -> TokenStream {
    let Some((_, axes)) = &c.options.vmap else {
        return TokenStream::new();
    };
    let entries = in_axes(c, axes).into_iter().map(|a| match a {
        Some(a) => quote! { ::core::option::Option::Some(#a) },
        None => quote! { ::core::option::Option::None },
    });
    quote! {
        /// The batch axis of each parameter given in `vmap(...)` (`None`: shared by every
        /// lane), in parameter order.
        pub const VMAP_IN_AXES: &[::core::option::Option<usize>] = &[#(#entries),*];

        /// This computation batched over `size` lanes: each parameter listed in `vmap(...)`
        /// gets a batch dimension of `size` at its axis (the others are shared), every
        /// result gets it at dimension 0. Compile it with `xla::cpu::Executable::compile`.
        ///
        /// # Errors
        /// [`VmapError::BadSize`](::xla::autodiff::VmapError) when `size` is not positive.
        pub fn vmap(size: i64) -> ::core::result::Result<::xla::core::Module, ::xla::autodiff::VmapError> {
            let m = module().map_err(|e| ::xla::autodiff::VmapError::Malformed {
                module: ::std::string::ToString::to_string(NAME),
                reason: ::std::string::ToString::to_string(&e),
            })?;
            ::xla::autodiff::vmap_module(m, VMAP_IN_AXES, &[::core::option::Option::Some(0)], size)
        }
    }
}
