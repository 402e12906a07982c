//! Shape parameters: `fn adam<S: Shape>(p: Tensor<f32, S>, ..) -> Tensor<f32, S>`, a
//! computation generic over a whole shape, of any rank (an optimizer step, a clip: the same
//! elementwise graph on a bias, a dense kernel or a convolution kernel).
//!
//! A shape parameter is not a second checker: at a rank `r`, `S` *is* `r` size parameters
//! `S0, .., S{r-1}`. [`expand`] rewrites the function so (the generic parameter becomes
//! `const S0: usize, ..`, and every `S` the function writes — in a type, `Tensor<f32, S>`,
//! or an integer list, `reshape([S])` — becomes `S0, .., S{r-1}`), and the rewritten
//! function is an ordinary size-generic computation: checked by the same front end at its
//! generic point, instantiated per size and cached as any other.
//!
//! * At compile time the macro checks the function at each rank of [`CHECK_RANKS`]; a rule
//!   that fails at one rank is an error naming the rank.
//! * At a call (from a computation, or `run` from Rust) the rank is read from the first
//!   parameter whose type writes `S`, and every other parameter that writes `S` must agree
//!   ([`ranks`]).

use proc_macro2::{Ident, TokenStream, TokenTree};
use quote::ToTokens;

mod error;
pub use error::ShapeParamError;

/// The ranks a shape-generic function is checked at when it is compiled: a scalar, a
/// vector, a matrix and a rank-4 tensor (a convolution kernel).
pub const CHECK_RANKS: [usize; 4] = [0, 1, 2, 4];

/// The largest rank a shape parameter takes (the ranks XLA's CPU backend runs are far
/// below it).
pub const MAX_RANK: usize = 32;

/// Where a shape parameter is written: for each function parameter whose tensor type names
/// it, `(parameter index, number of dims the type writes besides it)`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShapeParam {
    /// Its name (`S`).
    pub name: String,
    /// The parameters whose type writes it, with their other dims' count.
    pub uses: Vec<(usize, usize)>,
}

/// The shape parameters of `item` (`S` in `<S: Shape>`), in declaration order.
pub fn shape_params(item: &syn::ItemFn) -> Vec<Ident> {
    item.sig
        .generics
        .params
        .iter()
        .filter_map(|p| match p {
            syn::GenericParam::Type(t) if is_shape_bound(t) => Some(t.ident.clone()),
            _ => None,
        })
        .collect()
}

/// `S: Shape`, and nothing else (no default, no other bound).
fn is_shape_bound(t: &syn::TypeParam) -> bool {
    let [syn::TypeParamBound::Trait(b)] = t.bounds.iter().collect::<Vec<_>>().as_slice() else {
        return false;
    };
    t.default.is_none() && b.path.is_ident("Shape")
}

/// Where each shape parameter of `item` is written.
///
/// # Errors
/// A shape parameter that no parameter's type writes (its rank could not be read), or a
/// type that writes two shape parameters (their ranks could not be told apart).
pub fn signature(item: &syn::ItemFn) -> Result<Vec<ShapeParam>, ShapeParamError> {
    let names: Vec<String> = shape_params(item).iter().map(ToString::to_string).collect();
    let mut out: Vec<ShapeParam> = names
        .iter()
        .map(|n| ShapeParam {
            name: n.clone(),
            uses: Vec::new(),
        })
        .collect();
    for (p, input) in item.sig.inputs.iter().enumerate() {
        let syn::FnArg::Typed(t) = input else {
            continue;
        };
        let dims = tensor_dims(&t.ty);
        let named: Vec<usize> = dims
            .iter()
            .filter_map(|d| names.iter().position(|n| n == d))
            .collect();
        match named.as_slice() {
            [] => {}
            [s] => {
                if let Some(param) = out.get_mut(*s) {
                    param.uses.push((p, dims.len() - 1));
                }
            }
            _ => return Err(ShapeParamError::TwoInOneType { parameter: p + 1 }),
        }
    }
    match out.iter().find(|s| s.uses.is_empty()) {
        Some(s) => Err(ShapeParamError::NotWritten {
            shape: s.name.clone(),
        }),
        None => Ok(out),
    }
}

/// The generic arguments after the element type of a `Tensor<..>` type, as text (`S`,
/// `3`, `{ H / 2 }`); empty for anything else.
fn tensor_dims(ty: &syn::Type) -> Vec<String> {
    let syn::Type::Path(p) = ty else {
        return Vec::new();
    };
    let Some(last) = p.path.segments.last() else {
        return Vec::new();
    };
    let syn::PathArguments::AngleBracketed(args) = &last.arguments else {
        return Vec::new();
    };
    args.args
        .iter()
        .skip(1)
        .map(|a| a.to_token_stream().to_string())
        .collect()
}

/// The rank of each shape parameter, read from the arguments' ranks (`None` for an
/// argument that is not a tensor): each from the first parameter that writes it.
///
/// # Errors
/// An argument whose rank is below the dims its type writes besides the shape, two
/// parameters that give one shape parameter two ranks, or a rank above [`MAX_RANK`];
/// each message names the shape parameter, the parameters and the ranks.
pub fn ranks(
    params: &[ShapeParam],
    names: &[String],
    arg_ranks: &[Option<usize>],
) -> Result<Vec<usize>, ShapeParamError> {
    let name = |p: usize| names.get(p).map_or("?", String::as_str).to_string();
    let mut out = Vec::with_capacity(params.len());
    for s in params {
        let mut first: Option<(usize, usize)> = None;
        for &(p, others) in &s.uses {
            let Some(Some(got)) = arg_ranks.get(p) else {
                continue;
            };
            let Some(rank) = got.checked_sub(others) else {
                return Err(ShapeParamError::RankBelowType {
                    argument: name(p),
                    rank: *got,
                    others,
                    shape: s.name.clone(),
                });
            };
            match first {
                None => first = Some((rank, p)),
                Some((r, q)) if r != rank => {
                    return Err(ShapeParamError::RanksDisagree {
                        shape: s.name.clone(),
                        first: name(q),
                        first_rank: r,
                        argument: name(p),
                        rank,
                    })
                }
                Some(_) => {}
            }
        }
        let rank = first.map_or(0, |(r, _)| r);
        if rank > MAX_RANK {
            return Err(ShapeParamError::RankTooHigh {
                shape: s.name.clone(),
                rank,
                max: MAX_RANK,
            });
        }
        out.push(rank);
    }
    Ok(out)
}

/// The names the shape parameter `s` takes at `rank`: `S0, S1, ..`.
pub fn dim_names(s: &str, rank: usize) -> Vec<String> {
    (0..rank).map(|i| format!("{s}{i}")).collect()
}

/// `item` with each shape parameter of `shapes` at the rank of `ranks` (same order): its
/// declaration becomes `const S0: usize, ..` and every `S` the function writes becomes
/// `S0, .., S{r-1}` (nothing at rank 0: a scalar).
pub fn expand(item: &syn::ItemFn, shapes: &[Ident], ranks: &[usize]) -> syn::ItemFn {
    let at = |ident: &Ident| -> Option<Vec<Ident>> {
        let i = shapes.iter().position(|s| s == ident)?;
        let rank = ranks.get(i).copied().unwrap_or(0);
        Some(
            dim_names(&ident.to_string(), rank)
                .iter()
                .map(|n| Ident::new(n, ident.span()))
                .collect(),
        )
    };
    let mut out = item.clone();
    let mut params = syn::punctuated::Punctuated::new();
    for p in &item.sig.generics.params {
        match p {
            syn::GenericParam::Type(t) if is_shape_bound(t) => {
                for ident in at(&t.ident).unwrap_or_default() {
                    params.push(syn::parse_quote!(const #ident: usize));
                }
            }
            other => params.push(other.clone()),
        }
    }
    out.sig.generics.params = params;
    let tokens = replace(out.to_token_stream(), &at);
    // The rewrite only replaces names by lists of names, so the result still parses.
    syn::parse2(tokens).unwrap_or(out)
}

/// `tokens` with every identifier `at` names replaced by its list, comma-separated.
fn replace(tokens: TokenStream, at: &dyn Fn(&Ident) -> Option<Vec<Ident>>) -> TokenStream {
    let mut out = TokenStream::new();
    for tree in tokens {
        match tree {
            TokenTree::Ident(ident) => match at(&ident) {
                Some(list) => {
                    for (i, name) in list.into_iter().enumerate() {
                        if i > 0 {
                            out.extend([TokenTree::Punct(proc_macro2::Punct::new(
                                ',',
                                proc_macro2::Spacing::Alone,
                            ))]);
                        }
                        out.extend([TokenTree::Ident(name)]);
                    }
                }
                None => out.extend([TokenTree::Ident(ident)]),
            },
            TokenTree::Group(g) => {
                let mut group = proc_macro2::Group::new(g.delimiter(), replace(g.stream(), at));
                group.set_span(g.span());
                out.extend([TokenTree::Group(group)]);
            }
            other => out.extend([other]),
        }
    }
    out
}

/// The function written `source` with its shape parameters at the ranks the arguments
/// give (`arg_ranks`, one per parameter; `None` for a scalar or a non-tensor), as source
/// text, and the ranks. `None` when the function has no shape parameter.
///
/// # Errors
/// A source that does not parse, or the errors of [`signature`] and [`ranks`].
pub fn expand_source(
    source: &str,
    arg_ranks: &[Option<usize>],
) -> Result<Option<(String, Vec<usize>)>, ShapeParamError> {
    let item: syn::ItemFn = syn::parse_str(source).map_err(|e| stored("source", e))?;
    let shapes = shape_params(&item);
    if shapes.is_empty() {
        return Ok(None);
    }
    let params = signature(&item)?;
    let names: Vec<String> = item
        .sig
        .inputs
        .iter()
        .map(|a| match a {
            syn::FnArg::Typed(t) => t.pat.to_token_stream().to_string(),
            syn::FnArg::Receiver(_) => "self".to_string(),
        })
        .collect();
    let ranks = ranks(&params, &names, arg_ranks)?;
    let expanded = expand(&item, &shapes, &ranks);
    Ok(Some((expanded.to_token_stream().to_string(), ranks)))
}

/// The size parameters of the function written `source` (a shape-generic function
/// expanded by [`expand_source`]) and where the arguments give them: `(parameter, dim,
/// size)` for each dim written as a bare size, as the macro emits for a size-generic
/// function.
///
/// # Errors
/// A source or attribute that does not parse, or a signature with errors.
pub fn bindings(source: &str, attr: &str) -> Result<SizeBindings, ShapeParamError> {
    let item: syn::ItemFn = syn::parse_str(source).map_err(|e| stored("source", e))?;
    let attr: TokenStream = attr.parse().map_err(|e| stored("attribute", e))?;
    let cx = crate::ctxt::Ctxt::generic(0);
    let c = crate::parse::parse(&cx, attr, item);
    let messages = cx.messages();
    if !messages.is_empty() {
        return Err(ShapeParamError::Signature { messages });
    }
    let mut bindings = Vec::new();
    for (p, param) in c.params.iter().enumerate() {
        bindings.extend(param_bindings(p, param));
    }
    Ok(SizeBindings {
        sizes: c.sizes.iter().map(ToString::to_string).collect(),
        bindings,
    })
}

/// A [`ShapeParamError::Stored`]: the stored `what` does not parse.
fn stored(what: &'static str, e: impl std::fmt::Display) -> ShapeParamError {
    ShapeParamError::Stored {
        what,
        message: e.to_string(),
    }
}

/// The sizes of an expanded shape-generic function and where its arguments give them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SizeBindings {
    /// The size parameters' names, in order (`S0, S1, B`).
    pub sizes: Vec<String>,
    /// `(parameter, leaf, dim, size)` for each dim written as a bare size (see
    /// [`param_bindings`]).
    pub bindings: Vec<(usize, usize, usize, usize)>,
}

/// `(p, leaf, dim, size)` for each dim of parameter `p` written as a bare size: `leaf` is
/// the tensor's place among the parameter's tensors, depth first (0 for a tensor
/// parameter), `dim` its dimension, `size` the size's index: where the sizes are read from
/// the arguments.
pub fn param_bindings(p: usize, param: &crate::ast::Param) -> Vec<(usize, usize, usize, usize)> {
    let Some(ty) = &param.ty else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for (leaf, t) in ty.leaves().into_iter().enumerate() {
        for (d, bare) in t.bare.iter().enumerate() {
            if let Some(s) = bare {
                out.push((p, leaf, d, *s));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests;
