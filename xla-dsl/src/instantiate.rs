//! The front end as one step (parse, check, differentiate), at the generic point for the
//! macro ([`front`]) and at given sizes for a generic computation's instantiation
//! ([`instantiate`]): the same parser and the same shape rules both times.

use crate::ast::Computation;
use crate::check::{self, Checked};
use crate::ctxt::Ctxt;
use crate::grad::{self, Gradients};
use crate::parse;
use proc_macro2::TokenStream;
use xla_core::{Module, Shape};

/// What the front end made of a function: the syntax tree, and the checked module and the
/// gradients when there were no errors (the errors are in the `Ctxt`).
pub struct Front {
    /// The errors, and the sizes the check ran at.
    pub cx: Ctxt,
    /// The function as read.
    pub computation: Computation,
    /// The checked module (`None` after an error).
    pub checked: Option<Checked>,
    /// The gradients, with `#[computation(grad)]` (`None` after an error).
    pub gradients: Option<Gradients>,
    /// True when the function calls a computation whose module it has not been handed yet
    /// (the macro defers to the callee; nothing was checked).
    pub deferred: bool,
}

/// Parses `item` with its attribute `attr` in `cx`: at the generic point, retried with other
/// assignments of the generic values while a dimension expression (`{ H - K + 1 }`) comes
/// out negative, so that the order the sizes are declared in does not matter.
pub fn parse_at_generic_point(attr: &TokenStream, item: &syn::ItemFn) -> (Ctxt, Computation) {
    let first = parse_in(Ctxt::generic(0), attr, item);
    if !first.0.sizes().had_negative() {
        return first;
    }
    for offset in 1..crate::sizes::GENERIC_VALUES.len() {
        let (cx, c) = parse_in(Ctxt::generic(offset), attr, item);
        if !cx.sizes().had_negative() {
            return (cx, c);
        }
    }
    // Then with the integer sizes (strides, paddings, dilations: no argument's dim gives
    // them) small, as they are in practice.
    let small = integer_sizes(item);
    if !small.is_empty() {
        for offset in 0..crate::sizes::GENERIC_VALUES.len() {
            let cx = Ctxt::generic_small(offset, small.clone());
            let (cx, c) = parse_in(cx, attr, item);
            if !cx.sizes().had_negative() {
                return (cx, c);
            }
        }
        // Last, every integer size 1: the small values cycle, so two dilations
        // (`conv2d_general`'s `DH`, `DW`) are never both 1 in the round above.
        for offset in 0..crate::sizes::GENERIC_VALUES.len() {
            let (cx, c) = parse_in(Ctxt::generic_ones(offset, small.clone()), attr, item);
            if !cx.sizes().had_negative() {
                return (cx, c);
            }
        }
    }
    first
}

/// The size parameters of `item` that no parameter's type writes as a bare dim (`S` in
/// `Tensor<f32, B, { H / S }>` when no dim is `S` alone): the integers a call gives with a
/// turbofish.
pub fn integer_sizes(item: &syn::ItemFn) -> Vec<String> {
    let sizes: Vec<String> = item
        .sig
        .generics
        .params
        .iter()
        .filter_map(|p| match p {
            syn::GenericParam::Const(c) => Some(c.ident.to_string()),
            _ => None,
        })
        .collect();
    let mut bare = std::collections::HashSet::new();
    for input in &item.sig.inputs {
        if let syn::FnArg::Typed(t) = input {
            bare_dims(&t.ty, &mut bare);
        }
    }
    sizes.into_iter().filter(|s| !bare.contains(s)).collect()
}

/// The names written as a whole generic argument of `ty` (`B` in `Tensor<f32, B, 3>`), in
/// every tensor of a tuple type.
fn bare_dims(ty: &syn::Type, out: &mut std::collections::HashSet<String>) {
    let p = match ty {
        syn::Type::Path(p) => p,
        syn::Type::Tuple(t) => return t.elems.iter().for_each(|e| bare_dims(e, out)),
        syn::Type::Paren(p) => return bare_dims(&p.elem, out),
        _ => return,
    };
    let Some(last) = p.path.segments.last() else {
        return;
    };
    let syn::PathArguments::AngleBracketed(args) = &last.arguments else {
        return;
    };
    for arg in &args.args {
        let path = match arg {
            syn::GenericArgument::Type(syn::Type::Path(t)) => Some(&t.path),
            syn::GenericArgument::Const(syn::Expr::Path(e)) => Some(&e.path),
            syn::GenericArgument::Const(syn::Expr::Block(b)) => match b.block.stmts.as_slice() {
                [syn::Stmt::Expr(syn::Expr::Path(e), None)] => Some(&e.path),
                _ => None,
            },
            _ => None,
        };
        if let Some(ident) = path.and_then(|p| p.get_ident()) {
            out.insert(ident.to_string());
        }
    }
}

fn parse_in(cx: Ctxt, attr: &TokenStream, item: &syn::ItemFn) -> (Ctxt, Computation) {
    let c = parse::parse(&cx, attr.clone(), item.clone());
    (cx, c)
}

/// Checks and differentiates a parsed function (unless it calls a computation it has not
/// been handed: then `deferred`).
pub fn front(cx: Ctxt, computation: Computation) -> Front {
    let deferred = !cx.has_errors() && unresolved_callee(&computation);
    if deferred {
        return Front {
            cx,
            computation,
            checked: None,
            gradients: None,
            deferred,
        };
    }
    let checked = check::check(&cx, &computation).filter(|_| !cx.has_errors());
    let gradients = match &checked {
        Some(checked) if computation.options.grad.is_some() => {
            grad::build(&cx, &computation, checked)
        }
        _ => None,
    };
    Front {
        cx,
        computation,
        checked,
        gradients,
        deferred,
    }
}

/// True when the body calls a function that is neither built in nor handed over.
fn unresolved_callee(c: &Computation) -> bool {
    use crate::ast::Walk;
    let mut found = false;
    c.body.walk(&mut |e| {
        if let Some(func) = check::grad_call::called_computation(e) {
            let name = func.to_string();
            found |= !c.options.callees.iter().any(|(n, _)| *n == name)
                && !c.options.generic_callees.iter().any(|(n, ..)| *n == name);
        }
    });
    found
}

/// A generic computation built at one set of sizes.
#[derive(Debug)]
pub struct Instance {
    /// The sizes, in declaration order.
    pub sizes: Vec<i64>,
    /// The module.
    pub module: Module,
    /// The parameter shapes at these sizes, in order.
    pub parameter_shapes: Vec<Shape>,
    /// The result shape at these sizes.
    pub result_shape: Shape,
    /// The gradient modules `(grad, value_and_grad)`, with `#[computation(grad)]`.
    pub gradients: Option<(Module, Module)>,
}

/// Why a generic computation does not build at the sizes (or ranks) it was given.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum InstantiateError {
    /// The function's source or attribute stored by the macro does not parse again: a bug
    /// in xla-rs, not in the caller's program.
    Stored {
        /// `"source"` or `"attribute"`.
        what: &'static str,
        /// The parser's message.
        message: String,
    },
    /// The computation calls another generic computation (not supported yet).
    GenericCall,
    /// Shape rules broken at these sizes (a rule that holds only for some sizes, a
    /// dimension expression that is negative or overflows): each error's message, once.
    Rules {
        /// One message per error, each naming the op, the shapes and the rule.
        messages: Vec<String>,
    },
    /// A shape-generic computation could not be expanded at the arguments' ranks (a rank
    /// the arguments give inconsistently, or a rank above the supported maximum).
    Ranks {
        /// What is wrong with the ranks, naming the shape parameter.
        error: crate::shapes::ShapeParamError,
    },
}

impl std::fmt::Display for InstantiateError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            InstantiateError::Stored { what, message } => {
                write!(
                    f,
                    "the stored {what} does not parse (a bug in xla-rs): {message}"
                )
            }
            InstantiateError::GenericCall => {
                f.write_str("calls between generic computations are not supported yet")
            }
            InstantiateError::Rules { messages } => f.write_str(&messages.join("\n")),
            InstantiateError::Ranks { error } => write!(f, "{error}"),
        }
    }
}

impl std::error::Error for InstantiateError {}

/// Builds the computation written as `source` (the function's tokens) with its attribute
/// `attr` at `sizes`: the parser and every shape rule run again on these sizes, so a rule
/// that holds only for some sizes (`H ≥ 3` for a 3×3 VALID window) is checked here.
///
/// # Errors
/// [`InstantiateError::Rules`] with the message of every error found (a rule broken at
/// these sizes, a dimension expression that is negative or overflows), each naming what
/// broke; [`InstantiateError::GenericCall`] for a call of another generic computation.
pub fn instantiate(source: &str, attr: &str, sizes: &[i64]) -> Result<Instance, InstantiateError> {
    let stored = |what, message: String| InstantiateError::Stored { what, message };
    let item: syn::ItemFn = syn::parse_str(source).map_err(|e| stored("source", e.to_string()))?;
    let attr: TokenStream = attr
        .parse()
        .map_err(|e: proc_macro2::LexError| stored("attribute", e.to_string()))?;
    let cx = Ctxt::bound(sizes.to_vec());
    let c = parse::parse(&cx, attr, item);
    let f = front(cx, c);
    if f.deferred {
        return Err(InstantiateError::GenericCall);
    }
    // A dimension written twice (`{ H - 2 }, { H - 2 }`) fails twice: say it once.
    let mut messages = f.cx.messages();
    let mut seen = std::collections::HashSet::new();
    messages.retain(|m| seen.insert(m.clone()));
    match (f.checked, messages.is_empty()) {
        (Some(checked), true) => Ok(Instance {
            sizes: sizes.to_vec(),
            parameter_shapes: checked.params.iter().map(|(_, s)| s.clone()).collect(),
            result_shape: checked.result,
            module: checked.module,
            gradients: f.gradients.map(|g| (g.grad, g.value_and_grad)),
        }),
        _ => Err(InstantiateError::Rules { messages }),
    }
}
