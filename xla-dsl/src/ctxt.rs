//! Collects every diagnostic of one expansion, so that three mistakes give three errors
//! (after serde_derive's `Ctxt`), and [`Sp`], the span of a whole expression.

use crate::sizes::Sizes;
use proc_macro2::{Ident, Span, TokenStream};
use quote::ToTokens;
use std::cell::RefCell;
use std::fmt::Display;

/// The span of a piece of source: its first and last token.
///
/// On stable Rust a proc macro cannot join two spans into one; an error spanned on both ends
/// (as `syn::Error::new_spanned` does) still underlines the whole range in rustc's output.
#[derive(Clone, Copy, Debug)]
pub struct Sp {
    /// The first token's span.
    pub first: Span,
    /// The last token's span.
    pub last: Span,
}

impl Sp {
    /// The span of everything `tokens` prints.
    pub fn of(tokens: &impl ToTokens) -> Sp {
        let mut iter = tokens.to_token_stream().into_iter();
        let first = iter.next().map_or_else(Span::call_site, |t| t.span());
        let last = iter.last().map_or(first, |t| t.span());
        Sp { first, last }
    }
}

impl ToTokens for Sp {
    fn to_tokens(&self, tokens: &mut TokenStream) {
        tokens.extend([
            proc_macro2::TokenTree::Ident(Ident::new("first", self.first)),
            proc_macro2::TokenTree::Ident(Ident::new("last", self.last)),
        ]);
    }
}

/// One recorded error: a message on a span, or a `syn` error as is.
enum Recorded {
    Spanned(Sp, String),
    Syn(syn::Error),
}

/// The errors found so far, and the size parameters of the computation being read.
#[derive(Default)]
pub struct Ctxt {
    errors: RefCell<Vec<Recorded>>,
    /// The values the size parameters take: `None` for the generic point (compile time),
    /// the call's sizes at instantiation.
    bound: Option<Vec<i64>>,
    /// Where the generic point starts in [`crate::sizes::GENERIC_VALUES`].
    offset: usize,
    /// The sizes given small values at the generic point (see
    /// [`crate::sizes::SMALL_VALUES`]).
    small: Vec<String>,
    /// Every small size is 1 (see [`Ctxt::generic_ones`]).
    ones: bool,
    sizes: RefCell<Sizes>,
    /// The values of a generic point chosen by the caller (a residue class's base), when
    /// not the default one.
    at: Option<Vec<i64>>,
    /// The layers of `xla::nn` the body calls (`nn::dense(..)`), in order of first call.
    nn_calls: RefCell<Vec<Ident>>,
    /// The same check's errors at a second generic point, and its sizes: the numbers of
    /// the messages are read in symbols against them (see [`Ctxt::set_witness`]).
    witness: RefCell<Option<(Sizes, Vec<String>)>>,
}

impl Ctxt {
    /// An empty collector, for a check at the generic point (compile time).
    pub fn new() -> Ctxt {
        Ctxt::default()
    }

    /// A collector for a check at the generic point taken from `offset` on in
    /// [`crate::sizes::GENERIC_VALUES`] (a retry when `{ H - K }` came out negative).
    pub fn generic(offset: usize) -> Ctxt {
        Ctxt {
            offset,
            ..Ctxt::default()
        }
    }

    /// [`Ctxt::generic`] with the sizes `small` given small values (the second round of
    /// generic points, for strides, paddings and dilations).
    pub fn generic_small(offset: usize, small: Vec<String>) -> Ctxt {
        Ctxt {
            offset,
            small,
            ..Ctxt::default()
        }
    }

    /// [`Ctxt::generic_small`] with every small size 1 (the last round of generic points).
    pub fn generic_ones(offset: usize, small: Vec<String>) -> Ctxt {
        Ctxt {
            offset,
            small,
            ones: true,
            ..Ctxt::default()
        }
    }

    /// A collector for a check at the generic point `values` (messages in symbols), as
    /// [`crate::preconditions`] moves it over the residue classes.
    pub fn generic_at(values: Vec<i64>) -> Ctxt {
        Ctxt {
            at: Some(values),
            ..Ctxt::default()
        }
    }

    /// A collector for a check with the size parameters bound to `values` (instantiation).
    pub fn bound(values: Vec<i64>) -> Ctxt {
        Ctxt {
            bound: Some(values),
            ..Ctxt::default()
        }
    }

    /// Declares the size parameters (the function's `const N: usize`), giving them their
    /// values in this check.
    ///
    /// # Errors
    /// When the sizes were bound to a different number of values.
    pub fn declare_sizes(&self, names: Vec<String>) -> Result<(), String> {
        let sizes = match &self.bound {
            None => match &self.at {
                Some(values) if values.len() == names.len() => {
                    Sizes::generic_at(names, values.clone())
                }
                _ => Sizes::generic_with_small(names, self.offset, &self.small, self.ones),
            },
            Some(values) if values.len() == names.len() => Sizes::bound(names, values.clone()),
            Some(values) => {
                return Err(format!(
                    "{} size parameters ({}) but {} values given",
                    names.len(),
                    names.join(", "),
                    values.len()
                ))
            }
        };
        *self.sizes.borrow_mut() = sizes;
        Ok(())
    }

    /// Notes a call `nn::NAME(..)` to a layer of `xla::nn`.
    pub fn nn_call(&self, name: &Ident) {
        let mut calls = self.nn_calls.borrow_mut();
        if !calls.contains(name) {
            calls.push(name.clone());
        }
    }

    /// The layers of `xla::nn` the body calls.
    pub fn nn_calls(&self) -> Vec<Ident> {
        self.nn_calls.borrow().clone()
    }

    /// The size parameters and their values in this check.
    pub fn sizes(&self) -> std::cell::Ref<'_, Sizes> {
        self.sizes.borrow()
    }

    /// The messages of the errors (at instantiation, where there is no source to point at).
    pub fn messages(&self) -> Vec<String> {
        self.errors
            .borrow()
            .iter()
            .map(|e| match e {
                Recorded::Spanned(_, message) => message.clone(),
                Recorded::Syn(e) => e.to_string(),
            })
            .collect()
    }

    /// Records an error spanning `sp`.
    pub fn error(&self, sp: Sp, message: impl Display) {
        self.errors
            .borrow_mut()
            .push(Recorded::Spanned(sp, message.to_string()));
    }

    /// Records an error spanning everything `tokens` prints.
    pub fn error_spanned(&self, tokens: &impl ToTokens, message: impl Display) {
        self.error(Sp::of(tokens), message);
    }

    /// Records a `syn` error as is.
    pub fn syn_error(&self, error: syn::Error) {
        self.errors.borrow_mut().push(Recorded::Syn(error));
    }

    /// Appends `suffix` to the message of the last error (a hint only the caller knows).
    pub fn annotate_last(&self, suffix: &str) {
        if let Some(Recorded::Spanned(_, message)) = self.errors.borrow_mut().last_mut() {
            message.push_str(suffix);
        }
    }

    /// The number of errors recorded.
    pub fn error_count(&self) -> usize {
        self.errors.borrow().len()
    }

    /// True when an error has been recorded.
    pub fn has_errors(&self) -> bool {
        self.error_count() > 0
    }

    /// Gives the messages `messages` of the same check at a second generic point, at
    /// `sizes`: error `i`'s numbers are then written in the symbols that give error `i`'s
    /// numbers there too (`2*(H/2)` rather than `H-1`, which one odd `H` cannot tell apart).
    pub fn set_witness(&self, sizes: Sizes, messages: Vec<String>) {
        *self.witness.borrow_mut() = Some((sizes, messages));
    }

    /// The errors, in the order they were found.
    pub fn into_errors(self) -> Vec<syn::Error> {
        let sizes = self.sizes.into_inner();
        let witness = self.witness.into_inner();
        let errors = self.errors.into_inner().into_iter();
        errors
            .enumerate()
            .map(|(i, e)| match e {
                // At the generic point, the sizes' values are written back as their names.
                Recorded::Spanned(sp, message) => {
                    let there = witness.as_ref().and_then(|(w, m)| m.get(i).map(|m| (w, m)));
                    let message = match there {
                        Some((w, m)) => sizes.symbolise_against(&message, w, m),
                        None => sizes.symbolise(&message),
                    };
                    syn::Error::new_spanned(sp, message)
                }
                Recorded::Syn(e) => e,
            })
            .collect()
    }
}
