//! `syn` → the macro's AST ([`crate::ast`]): the attribute's options, the signature's tensor
//! types (here), the body's statements ([`stmt`]) and expressions ([`expr`]) of the
//! supported subset of Rust. Every construct outside the subset is a spanned error; parsing
//! goes on after an error so that every mistake is reported.

mod constants;
mod expr;
mod grad_args;
mod stmt;

use crate::ast::*;
use crate::ctxt::{Ctxt, Sp};
use proc_macro2::TokenStream;
use stmt::parse_block;
use xla_core::PrimitiveType;

/// Parses the attribute arguments and the annotated function.
pub fn parse(cx: &Ctxt, attr: TokenStream, item: syn::ItemFn) -> Computation {
    let options = parse_options(cx, attr);
    check_signature_form(cx, &item.sig);
    let sizes = parse_generics(cx, &item.sig.generics);
    let params = item
        .sig
        .inputs
        .iter()
        .filter_map(|arg| parse_param(cx, arg))
        .collect();
    let result = match &item.sig.output {
        syn::ReturnType::Type(_, ty) => parse_type(cx, ty),
        syn::ReturnType::Default => {
            cx.error(
                Sp::of(&item.sig),
                "a computation must return a tensor: add `-> Tensor<f32, ...>`",
            );
            None
        }
    };
    let body = parse_block(cx, &item.block);
    let mut options = options;
    add_nn_callees(cx, &mut options);
    let attrs = item
        .attrs
        .into_iter()
        .filter(|a| keep_attribute(cx, a))
        .collect();
    Computation {
        options,
        attrs,
        vis: item.vis,
        name: item.sig.ident,
        sizes,
        params,
        result,
        body,
    }
}

/// The layers of `xla::nn` the body calls, as generic callees (their sources from
/// [`crate::nn`]); an unknown name is an error suggesting the nearest layer.
fn add_nn_callees(cx: &Ctxt, options: &mut Options) {
    for name in cx.nn_calls() {
        if options.generic_callees.iter().any(|(n, ..)| *n == name) {
            continue;
        }
        match crate::nn::find(&name.to_string()) {
            Some((attr, source)) => options.generic_callees.push((name, attr, source)),
            None => {
                let names = crate::nn::names();
                let known: Vec<&str> = names.iter().map(String::as_str).collect();
                let hint = crate::check::suggest_nearest(&name.to_string(), &known)
                    .map(|n| format!("did you mean `nn::{n}`? "))
                    .unwrap_or_default();
                cx.error_spanned(
                    &name,
                    format!(
                        "`nn::{name}` is not a layer of xla::nn; {hint}the layers are {}",
                        names.join(", ")
                    ),
                );
                // Handed over empty, so the call itself stays silent (no second error).
                options
                    .generic_callees
                    .push((name, String::new(), String::new()));
            }
        }
    }
}

/// Doc comments, `cfg` and lint attributes move to the generated module; others are errors.
fn keep_attribute(cx: &Ctxt, attr: &syn::Attribute) -> bool {
    let keep = ["doc", "cfg", "allow", "warn", "deny", "expect"]
        .iter()
        .any(|k| attr.path().is_ident(k));
    if !keep {
        cx.error_spanned(
            attr,
            "only doc comments, `cfg` and lint attributes are allowed on a computation",
        );
    }
    keep
}

fn parse_options(cx: &Ctxt, attr: TokenStream) -> Options {
    let mut options = Options::default();
    let parser = syn::meta::parser(|meta| {
        if meta.path.is_ident("grad") {
            // `grad` alone: every floating-point parameter.
            if meta.input.is_empty() || meta.input.peek(syn::Token![,]) {
                options.grad = Some((Sp::of(&meta.path), None));
                return Ok(());
            }
            let mut wrt = Vec::new();
            meta.parse_nested_meta(|inner| match inner.path.get_ident() {
                Some(ident) => {
                    wrt.push(ident.clone());
                    Ok(())
                }
                None => Err(inner.error("expected a parameter name")),
            })?;
            options.grad = Some((Sp::of(&meta.path), Some(wrt)));
            Ok(())
        } else if meta.path.is_ident("vmap") {
            options.vmap = Some((Sp::of(&meta.path), crate::vmap::parse(&meta)?));
            Ok(())
        } else if meta.path.is_ident("replicas") || meta.path.is_ident("partitions") {
            let what = if meta.path.is_ident("replicas") {
                "replicas"
            } else {
                "partitions"
            };
            let n: syn::LitInt = meta.value()?.parse()?;
            let count: i64 = n.base10_parse()?;
            if !(1..=1 << 20).contains(&count) {
                return Err(syn::Error::new_spanned(
                    &n,
                    format!("{what}: expected a count of at least 1 and at most 2^20"),
                ));
            }
            let slot = if what == "replicas" {
                &mut options.replicas
            } else {
                &mut options.partitions
            };
            *slot = Some((Sp::of(&meta.path), count));
            Ok(())
        } else if meta.path.is_ident("__callee") {
            meta.parse_nested_meta(|inner| {
                let name = inner
                    .path
                    .get_ident()
                    .cloned()
                    .ok_or_else(|| inner.error("expected a name"))?;
                let hlo: syn::LitStr = inner.value()?.parse()?;
                options.callees.push((name, hlo.value()));
                Ok(())
            })
        } else if meta.path.is_ident("__generic_callee") {
            meta.parse_nested_meta(|inner| {
                let name = inner
                    .path
                    .get_ident()
                    .cloned()
                    .ok_or_else(|| inner.error("expected a name"))?;
                let payload: syn::LitStr = inner.value()?.parse()?;
                let payload = payload.value();
                // Empty: the callee failed to compile (its errors are reported there).
                let (attr, source) = payload.split_once('\u{1}').unwrap_or(("", ""));
                options
                    .generic_callees
                    .push((name, attr.to_string(), source.to_string()));
                Ok(())
            })
        } else {
            Err(meta
                .error("unknown option of #[computation]; expected `grad`, `grad(param, ...)`, `vmap(param: axis, ...)`, `replicas = R` or `partitions = P`"))
        }
    });
    if let Err(e) = syn::parse::Parser::parse2(parser, attr) {
        cx.syn_error(e);
    }
    if let (Some((sp, r)), Some((_, p))) = (options.replicas, options.partitions) {
        if r * p > 1 << 20 {
            let message = format!("replicas × partitions = {r} × {p} devices: at most 2^20");
            cx.error(sp, message);
        }
    }
    options
}

fn check_signature_form(cx: &Ctxt, sig: &syn::Signature) {
    if let Some(t) = &sig.constness {
        cx.error_spanned(t, "a computation cannot be `const`");
    }
    if let Some(t) = &sig.asyncness {
        cx.error_spanned(t, "a computation cannot be `async`");
    }
    if let Some(t) = &sig.unsafety {
        cx.error_spanned(t, "a computation cannot be `unsafe`");
    }
    if let Some(abi) = &sig.abi {
        cx.error_spanned(abi, "a computation cannot have an ABI");
    }
    if let Some(v) = &sig.variadic {
        cx.error_spanned(v, "a computation cannot be variadic");
    }
}

/// The size parameters `<const B: usize, const H: usize>`, declared to `cx` so that the
/// types and the body can use them.
fn parse_generics(cx: &Ctxt, generics: &syn::Generics) -> Vec<proc_macro2::Ident> {
    const HELP: &str = "a computation is generic over sizes (`const N: usize`) and shapes \
                        (`S: Shape`, any rank) only";
    if let Some(w) = &generics.where_clause {
        cx.error_spanned(w, format!("{HELP}, without a `where` clause"));
    }
    let mut names = Vec::new();
    for param in &generics.params {
        match param {
            syn::GenericParam::Const(c) if type_name(&c.ty) == "usize" && c.default.is_none() => {
                if names.contains(&c.ident) {
                    cx.error_spanned(&c.ident, format!("size `{}` is declared twice", c.ident));
                }
                names.push(c.ident.clone());
            }
            other => cx.error_spanned(other, HELP),
        }
    }
    if names.len() > crate::sizes::GENERIC_VALUES.len() {
        cx.error_spanned(
            generics,
            format!(
                "at most {} size parameters",
                crate::sizes::GENERIC_VALUES.len()
            ),
        );
        names.truncate(crate::sizes::GENERIC_VALUES.len());
    }
    if let Err(message) = cx.declare_sizes(names.iter().map(ToString::to_string).collect()) {
        cx.error_spanned(generics, message);
    }
    names
}

fn parse_param(cx: &Ctxt, arg: &syn::FnArg) -> Option<Param> {
    let pat_type = match arg {
        syn::FnArg::Typed(t) => t,
        syn::FnArg::Receiver(r) => {
            cx.error_spanned(r, "a computation takes tensors, not `self`");
            return None;
        }
    };
    let ty = parse_type(cx, &pat_type.ty);
    let name = plain_ident(cx, &pat_type.pat, "a parameter")?;
    Some(Param { name, ty })
}

/// The name bound by a pattern that is a plain identifier.
pub(super) fn plain_ident(cx: &Ctxt, pat: &syn::Pat, what: &str) -> Option<proc_macro2::Ident> {
    match pat {
        syn::Pat::Ident(p) if p.by_ref.is_none() && p.subpat.is_none() => {
            if let Some(m) = &p.mutability {
                cx.error_spanned(m, format!("{what} cannot be `mut` (tensors are values)"));
            }
            Some(p.ident.clone())
        }
        other => {
            cx.error_spanned(other, format!("{what} must be a plain name"));
            None
        }
    }
}

/// The element type named by a Rust type name (`f32`, `i32`, `bool`, `bf16`, `Complex32`) or
/// an XLA one (`s32`, `pred`, `c64`).
pub fn element_type(name: &str) -> Option<PrimitiveType> {
    let ty = match name {
        "bool" => PrimitiveType::Pred,
        "i8" => PrimitiveType::S8,
        "i16" => PrimitiveType::S16,
        "i32" => PrimitiveType::S32,
        "i64" => PrimitiveType::S64,
        "Complex32" => PrimitiveType::C64,
        "Complex64" => PrimitiveType::C128,
        other => PrimitiveType::from_name(other).filter(|t| t.is_array_type())?,
    };
    Some(ty)
}

const TYPE_HELP: &str =
    "expected a tensor type such as `Tensor<f32, 64, 784>`, or an element type \
                         (`f32`, `i32`, `bool`, ...) for a scalar";

/// Parses a type written in a signature or a `let` annotation: a tensor type, or a tuple of
/// types nested to any depth (`((Tensor<f32, 3, 8>, Tensor<f32, 8>), Tensor<f32, 8, 2>)`).
pub fn parse_type(cx: &Ctxt, ty: &syn::Type) -> Option<TypeSpec> {
    match ty {
        syn::Type::Paren(p) => parse_type(cx, &p.elem),
        syn::Type::Group(g) => parse_type(cx, &g.elem),
        syn::Type::Tuple(t) if !t.elems.is_empty() => {
            let elems: Vec<Option<TypeSpec>> = t.elems.iter().map(|e| parse_type(cx, e)).collect();
            elems
                .into_iter()
                .collect::<Option<Vec<_>>>()
                .map(TypeSpec::Tuple)
        }
        other => parse_tensor_type(cx, other).map(TypeSpec::Tensor),
    }
}

fn parse_tensor_type(cx: &Ctxt, ty: &syn::Type) -> Option<TensorType> {
    let span = Sp::of(ty);
    let path = match ty {
        syn::Type::Path(p) if p.qself.is_none() => &p.path,
        syn::Type::Paren(p) => return parse_tensor_type(cx, &p.elem),
        other => {
            cx.error_spanned(other, TYPE_HELP);
            return None;
        }
    };
    let Some(last) = path.segments.last() else {
        cx.error(span, TYPE_HELP);
        return None;
    };
    let name = last.ident.to_string();
    match &last.arguments {
        syn::PathArguments::None => match element_type(&name) {
            Some(elem) => Some(TensorType {
                elem,
                dims: Vec::new(),
                bare: Vec::new(),
            }),
            None => {
                cx.error(span, format!("unknown element type `{name}`; {TYPE_HELP}"));
                None
            }
        },
        syn::PathArguments::AngleBracketed(args) if name == "Tensor" => {
            parse_tensor_args(cx, args, span)
        }
        _ => {
            cx.error(span, TYPE_HELP);
            None
        }
    }
}

/// `<f32, 64, 784>`: an element type, then one integer literal per dimension.
fn parse_tensor_args(
    cx: &Ctxt,
    args: &syn::AngleBracketedGenericArguments,
    span: Sp,
) -> Option<TensorType> {
    let mut iter = args.args.iter();
    let elem = match iter.next() {
        Some(syn::GenericArgument::Type(syn::Type::Path(p))) if p.qself.is_none() => {
            let name = p
                .path
                .segments
                .last()
                .map(|s| s.ident.to_string())
                .unwrap_or_default();
            let elem = element_type(&name).filter(|_| p.path.segments.len() == 1);
            if elem.is_none() {
                cx.error_spanned(p, format!("unknown element type `{name}`: expected one of f32, f64, f16, bf16, i8..i64, u8..u64, bool, c64, c128"));
            }
            elem
        }
        Some(other) => {
            cx.error_spanned(
                other,
                "the first argument of `Tensor` is the element type, e.g. `Tensor<f32, 2, 3>`",
            );
            None
        }
        None => {
            cx.error(
                span,
                "`Tensor` needs an element type, e.g. `Tensor<f32, 2, 3>`",
            );
            None
        }
    };
    let dims: Vec<Option<(i64, Option<usize>)>> = iter.map(|arg| parse_dim(cx, arg)).collect();
    let dims = dims.into_iter().collect::<Option<Vec<_>>>()?;
    Some(TensorType {
        elem: elem?,
        dims: dims.iter().map(|(d, _)| *d).collect(),
        bare: dims.iter().map(|(_, b)| *b).collect(),
    })
}

/// A dimension: an integer literal, a size parameter `B` or an expression `{ H / 2 }` over
/// them (see [`crate::sizes`]), with the size's index when it is a bare size.
fn parse_dim(cx: &Ctxt, arg: &syn::GenericArgument) -> Option<(i64, Option<usize>)> {
    const HELP: &str = "a dimension must be an integer literal, a size parameter (`const N: \
                        usize`) or an expression over them in braces, e.g. `{ H / 2 }`";
    let expr = match arg {
        syn::GenericArgument::Const(e) => e.clone(),
        // `Tensor<f32, B>`: Rust reads a bare name as a type.
        syn::GenericArgument::Type(syn::Type::Path(p)) if p.qself.is_none() => {
            syn::Expr::Path(syn::ExprPath {
                attrs: Vec::new(),
                qself: None,
                path: p.path.clone(),
            })
        }
        other => {
            cx.error_spanned(other, HELP);
            return None;
        }
    };
    let sizes = cx.sizes();
    match sizes.parse(&expr) {
        Some(Ok(d)) => {
            let bare = match d {
                crate::sizes::DimExpr::Size(i) => Some(i),
                _ => None,
            };
            match sizes.eval(&d) {
                Ok(v) => Some((v, bare)),
                Err(message) => {
                    drop(sizes);
                    cx.error_spanned(arg, message);
                    None
                }
            }
        }
        Some(Err(message)) => {
            drop(sizes);
            cx.error_spanned(arg, message);
            None
        }
        None => {
            drop(sizes);
            cx.error_spanned(arg, HELP);
            None
        }
    }
}

/// The name of a one-segment type path (`f64`), or the type's tokens.
pub(super) fn type_name(ty: &syn::Type) -> String {
    match ty {
        syn::Type::Path(p) if p.qself.is_none() && p.path.segments.len() == 1 => p
            .path
            .segments
            .first()
            .map(|s| s.ident.to_string())
            .unwrap_or_default(),
        other => quote::ToTokens::to_token_stream(other).to_string(),
    }
}

#[cfg(test)]
mod tests;
