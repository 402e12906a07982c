//! Calls between `#[computation]` functions. A proc macro sees only its own function, so a
//! call to another computation `helper` is resolved in two expansions:
//!
//! 1. `#[computation] fn dense` finds the call `helper(..)` and expands to
//!    `helper::__xla_with_callee! { [attr] fn dense .. }`;
//! 2. that `macro_rules!`, generated in `mod helper` with helper's HLO text, expands to
//!    `#[::xla::computation(attr, __callee(helper = "HLO"))] fn dense ..`, and the attribute
//!    runs again with the callee's module in hand, importing it and emitting a `call`.
//!
//! Several callees take one round each. A callee that failed to compile hands over empty
//! HLO, and the caller then becomes a stub without adding errors of its own.

use crate::ast::{Computation, Walk};
use crate::check::grad_call::called_computation;
use proc_macro2::{Ident, TokenStream};
use quote::quote;

/// The first function the body calls that is neither built in nor already resolved.
pub fn unresolved(c: &Computation) -> Option<Ident> {
    let mut found = None;
    c.body.walk(&mut |e| {
        if let (None, Some(func)) = (&found, called_computation(e)) {
            let name = func.to_string();
            let resolved = c.options.callees.iter().any(|(n, _)| *n == name)
                || c.options.generic_callees.iter().any(|(n, ..)| *n == name);
            if !resolved {
                found = Some(func.clone());
            }
        }
    });
    found
}

/// Step 1: hands the whole item to the callee's macro.
pub fn defer(callee: &Ident, attr: TokenStream, item: TokenStream) -> TokenStream {
    let separator = if attr.is_empty() {
        quote! {}
    } else {
        quote! { , }
    };
    let mac = Ident::new("__xla_with_callee", callee.span());
    quote! { #callee::#mac! { [#attr #separator] #item } }
}

/// Step 2, emitted in every computation's module: re-invokes the attribute on a caller with
/// this computation's HLO text.
pub fn definition(name: &Ident, hlo: &str) -> TokenStream {
    quote! {
        #[doc(hidden)]
        #[allow(unused_macros)]
        macro_rules! __xla_with_callee_def {
            ([$($attr:tt)*] $($item:tt)*) => {
                #[::xla::computation($($attr)* __callee(#name = #hlo))]
                $($item)*
            };
        }
        #[doc(hidden)]
        #[allow(unused_imports)]
        pub(crate) use __xla_with_callee_def as __xla_with_callee;
    }
}
