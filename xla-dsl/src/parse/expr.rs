//! Expressions: names, literals, operators, method and function calls, indexing, and the
//! arguments of calls (integer lists, slices, paddings, tensor lists, closures).

use super::stmt::{parse_block, parse_if, parse_match};
use super::{element_type, plain_ident, type_name};
use crate::ast::*;
use crate::ctxt::{Ctxt, Sp};
use xla_core::PrimitiveType;

/// Parses an expression of the supported subset.
pub fn parse_expr(cx: &Ctxt, e: &syn::Expr) -> Option<Expr> {
    let span = Sp::of(e);
    let kind = match e {
        syn::Expr::Paren(p) => return parse_expr(cx, &p.expr).map(|inner| Expr { span, ..inner }),
        syn::Expr::Group(g) => return parse_expr(cx, &g.expr),
        syn::Expr::Path(p) => match p.path.get_ident() {
            // A size parameter in the body is its value, an integer literal.
            Some(ident) if p.qself.is_none() && cx.sizes().index(&ident.to_string()).is_some() => {
                ExprKind::Lit(Lit {
                    value: LitValue::Int(i128::from(size_int(cx, e)?)),
                    ty: None,
                })
            }
            Some(ident) if p.qself.is_none() => ExprKind::Var(ident.clone()),
            _ => match super::constants::rust_constant(&p.path).filter(|_| p.qself.is_none()) {
                Some(lit) => ExprKind::Lit(lit),
                None => {
                    return unsupported(
                        cx,
                        e,
                        "paths: name a parameter, a `let` binding or one of Rust's numeric \
                         constants (`f32::INFINITY`, `f64::MAX`, `std::f32::consts::PI`, ...)",
                    )
                }
            },
        },
        syn::Expr::Lit(l) => ExprKind::Lit(parse_lit(cx, &l.lit, false)?),
        syn::Expr::Unary(u) => return parse_unary(cx, u, span),
        syn::Expr::Binary(b) => {
            let op = bin_op(cx, &b.op)?;
            let (lhs, rhs) = (parse_expr(cx, &b.left), parse_expr(cx, &b.right));
            ExprKind::Binary(op, Box::new(lhs?), Box::new(rhs?))
        }
        syn::Expr::MethodCall(m) => parse_method(cx, m)?,
        syn::Expr::Call(c) => parse_call(cx, c)?,
        syn::Expr::Index(ix) => parse_index(cx, ix)?,
        syn::Expr::If(i) => parse_if(cx, i)?,
        syn::Expr::Match(m) => parse_match(cx, m)?,
        syn::Expr::Field(f) => parse_field(cx, f)?,
        syn::Expr::Tuple(t) => {
            let elems: Vec<Option<Expr>> = t.elems.iter().map(|e| parse_expr(cx, e)).collect();
            ExprKind::Tuple(elems.into_iter().collect::<Option<Vec<_>>>()?)
        }
        other => return unsupported(cx, other, construct_name(other)),
    };
    Some(Expr { kind, span })
}

fn unsupported<T>(cx: &Ctxt, e: &syn::Expr, what: &str) -> Option<T> {
    cx.error_spanned(
        e,
        format!("not supported in a #[computation] (yet): {what}"),
    );
    None
}

/// The name of a construct the subset does not (yet) cover, for the error message.
fn construct_name(e: &syn::Expr) -> &'static str {
    match e {
        syn::Expr::ForLoop(_) => {
            "`for` loops as values (a loop is a statement that updates `let mut` names)"
        }
        syn::Expr::While(_) => {
            "`while` loops as values (a loop is a statement that updates `let mut` names)"
        }
        syn::Expr::Loop(_) => "`loop` (use `while cond { ... }` or `for i in 0..N`)",
        syn::Expr::Closure(_) => "closures outside the arguments of `reduce`, `map` and `sort`",
        syn::Expr::Block(_) | syn::Expr::Unsafe(_) => "nested blocks",
        syn::Expr::Return(_) => "`return` (end the body with the result)",
        syn::Expr::Assign(_) => "assignment as a value",
        syn::Expr::Let(_) => "`if let` and `let` expressions",
        syn::Expr::Reference(_) => "references (tensors are values)",
        syn::Expr::Macro(_) => "macros",
        syn::Expr::Array(_) => "arrays outside a method's argument list",
        syn::Expr::Cast(_) => "`as` casts (use `.convert::<T>()`)",
        syn::Expr::Try(_) => "`?`",
        syn::Expr::Range(_) => "ranges outside a slice (`x.slice([.., 1..3])`, `x[(.., 1..3)]`)",
        _ => "this kind of expression",
    }
}

fn parse_unary(cx: &Ctxt, u: &syn::ExprUnary, span: Sp) -> Option<Expr> {
    let op = match u.op {
        syn::UnOp::Neg(_) => UnOp::Neg,
        syn::UnOp::Not(_) => UnOp::Not,
        _ => {
            return unsupported(
                cx,
                &syn::Expr::Unary(u.clone()),
                "dereference (tensors are values)",
            )
        }
    };
    // A negated literal is a negative literal, so `-1.0` and `-128i8` are constants.
    if let (UnOp::Neg, syn::Expr::Lit(l)) = (op, &*u.expr) {
        let lit = parse_lit(cx, &l.lit, true)?;
        return Some(Expr {
            kind: ExprKind::Lit(lit),
            span,
        });
    }
    let inner = parse_expr(cx, &u.expr)?;
    Some(Expr {
        kind: ExprKind::Unary(op, Box::new(inner)),
        span,
    })
}

fn parse_lit(cx: &Ctxt, lit: &syn::Lit, negate: bool) -> Option<Lit> {
    let suffix_type = |suffix: &str| -> Option<Option<PrimitiveType>> {
        if suffix.is_empty() {
            return Some(None);
        }
        let ty = element_type(suffix);
        if ty.is_none() {
            cx.error_spanned(lit, format!("unknown literal suffix `{suffix}`"));
        }
        ty.map(Some)
    };
    let sign = if negate { -1.0 } else { 1.0 };
    match lit {
        syn::Lit::Float(f) => {
            let value = f.base10_parse::<f64>().map_err(|e| cx.syn_error(e)).ok()?;
            Some(Lit {
                value: LitValue::Float(sign * value),
                ty: suffix_type(f.suffix())?,
            })
        }
        syn::Lit::Int(i) => {
            let value = i.base10_parse::<i128>().map_err(|e| cx.syn_error(e)).ok()?;
            let value = if negate { -value } else { value };
            Some(Lit {
                value: LitValue::Int(value),
                ty: suffix_type(i.suffix())?,
            })
        }
        syn::Lit::Bool(b) if !negate => Some(Lit {
            value: LitValue::Bool(b.value),
            ty: Some(PrimitiveType::Pred),
        }),
        other => {
            cx.error_spanned(other, "only number and boolean literals are supported");
            None
        }
    }
}

fn bin_op(cx: &Ctxt, op: &syn::BinOp) -> Option<BinOp> {
    use syn::BinOp as B;
    let op = match op {
        B::Add(_) => BinOp::Add,
        B::Sub(_) => BinOp::Sub,
        B::Mul(_) => BinOp::Mul,
        B::Div(_) => BinOp::Div,
        B::Rem(_) => BinOp::Rem,
        B::BitAnd(_) | B::And(_) => BinOp::And,
        B::BitOr(_) | B::Or(_) => BinOp::Or,
        B::BitXor(_) => BinOp::Xor,
        B::Shl(_) => BinOp::Shl,
        B::Shr(_) => BinOp::Shr,
        B::Eq(_) => BinOp::Eq,
        B::Ne(_) => BinOp::Ne,
        B::Lt(_) => BinOp::Lt,
        B::Le(_) => BinOp::Le,
        B::Gt(_) => BinOp::Gt,
        B::Ge(_) => BinOp::Ge,
        other => {
            cx.error_spanned(
                other,
                "compound assignment is not supported: tensors are values, use `let`",
            );
            return None;
        }
    };
    Some(op)
}

fn parse_method(cx: &Ctxt, m: &syn::ExprMethodCall) -> Option<ExprKind> {
    let recv = parse_expr(cx, &m.receiver);
    let turbofish = match &m.turbofish {
        None => Some(None),
        Some(t) => turbofish_type(cx, t).map(Some),
    };
    let args = parse_args(cx, &m.args);
    Some(ExprKind::Method {
        recv: Box::new(recv?),
        method: m.method.clone(),
        turbofish: turbofish?,
        args: args?,
    })
}

fn parse_call(cx: &Ctxt, c: &syn::ExprCall) -> Option<ExprKind> {
    let path = match &*c.func {
        syn::Expr::Path(p) if p.qself.is_none() && p.path.segments.len() == 1 => {
            p.path.segments.first()
        }
        // `nn::dense(..)` or `xla::nn::dense(..)`: a layer of `xla::nn`.
        syn::Expr::Path(p) if p.qself.is_none() && nn_path(&p.path) => {
            let last = p.path.segments.last();
            if let Some(s) = last {
                cx.nn_call(&s.ident);
            }
            last
        }
        _ => None,
    };
    let args = match path.map(|s| s.ident.to_string()) {
        Some(name) if crate::check::grad_call::is_grad_function(&name) => {
            super::grad_args::parse_grad_args(cx, &c.args)
        }
        _ => parse_args(cx, &c.args),
    };
    let Some(segment) = path else {
        cx.error_spanned(&c.func, "call a function by its plain name, e.g. `relu(x)`");
        return None;
    };
    let mut sizes = Vec::new();
    let turbofish = match &segment.arguments {
        syn::PathArguments::None => None,
        syn::PathArguments::AngleBracketed(a) if !is_element_turbofish(a) => {
            sizes = turbofish_sizes(cx, a)?;
            None
        }
        syn::PathArguments::AngleBracketed(a) => Some(turbofish_type(cx, a)?),
        syn::PathArguments::Parenthesized(p) => {
            cx.error_spanned(p, "expected a function call such as `relu(x)`");
            return None;
        }
    };
    Some(ExprKind::Call {
        func: segment.ident.clone(),
        turbofish,
        sizes,
        args: args?,
    })
}

/// True for `nn::NAME` and `xla::nn::NAME` (with or without a leading `::`).
pub(super) fn nn_path(path: &syn::Path) -> bool {
    let names: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    matches!(names.as_slice(), ["nn", _] | ["xla", "nn", _])
}

/// True for a turbofish of one element type (`::<f32>`), false for integer arguments
/// (`::<2, S, { P + 1 }>`).
fn is_element_turbofish(t: &syn::AngleBracketedGenericArguments) -> bool {
    match t.args.first() {
        Some(syn::GenericArgument::Type(ty)) if t.args.len() == 1 => {
            element_type(&type_name(ty)).is_some()
        }
        _ => false,
    }
}

/// The integer arguments of a turbofish `::<2, S, { H / 2 }>`: literals or dimension
/// expressions over the caller's sizes, each evaluated at them.
fn turbofish_sizes(cx: &Ctxt, t: &syn::AngleBracketedGenericArguments) -> Option<Vec<i64>> {
    let mut out = Vec::new();
    for arg in &t.args {
        let expr: Option<syn::Expr> = match arg {
            syn::GenericArgument::Const(e) => Some(e.clone()),
            syn::GenericArgument::Type(syn::Type::Path(p)) if p.qself.is_none() => {
                Some(syn::Expr::Path(syn::ExprPath {
                    attrs: Vec::new(),
                    qself: None,
                    path: p.path.clone(),
                }))
            }
            _ => None,
        };
        match expr.as_ref().and_then(|e| size_int(cx, e)) {
            Some(v) => out.push(v),
            None => {
                cx.error_spanned(arg, "a turbofish here gives an element type (`::<f32>`) or integer sizes: literals, size parameters or `{ .. }` expressions over them (`::<2, S, { P + 1 }>`)");
                return None;
            }
        }
    }
    Some(out)
}

/// The one element type of a turbofish `::<f64>`.
fn turbofish_type(cx: &Ctxt, t: &syn::AngleBracketedGenericArguments) -> Option<PrimitiveType> {
    match t.args.first() {
        Some(syn::GenericArgument::Type(ty)) if t.args.len() == 1 => {
            let name = type_name(ty);
            let elem = element_type(&name);
            if elem.is_none() {
                cx.error_spanned(ty, format!("unknown element type `{name}`"));
            }
            elem
        }
        _ => {
            cx.error_spanned(t, "expected one element type, e.g. `::<f64>`");
            None
        }
    }
}

pub(super) fn parse_args(
    cx: &Ctxt,
    args: &syn::punctuated::Punctuated<syn::Expr, syn::Token![,]>,
) -> Option<Vec<Arg>> {
    let parsed: Vec<Option<Arg>> = args.iter().map(|a| parse_arg(cx, a)).collect();
    parsed.into_iter().collect()
}

/// An argument: a list (`[1, 0]`, `[.., 1..3]`, `[(1, 2)]`, `[a, b]`) or a tensor expression.
pub(super) fn parse_arg(cx: &Ctxt, e: &syn::Expr) -> Option<Arg> {
    let array = match e {
        syn::Expr::Array(array) => array,
        syn::Expr::Closure(c) => return parse_closure(cx, c).map(Arg::Closure),
        syn::Expr::Assign(a) => return parse_keyword(cx, a),
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Str(s),
            ..
        }) => return Some(Arg::Str(s.value(), Sp::of(s))),
        other => return parse_expr(cx, other).map(Arg::Expr),
    };
    let sp = Sp::of(e);
    let elems: Vec<&syn::Expr> = array.elems.iter().collect();
    if let Some(ints) = elems
        .iter()
        .map(|el| size_int(cx, el))
        .collect::<Option<Vec<i64>>>()
    {
        return Some(Arg::Ints(ints, sp));
    }
    if let Some(specs) = elems
        .iter()
        .map(|el| slice_spec(cx, el))
        .collect::<Option<Vec<_>>>()
    {
        return Some(Arg::Slices(specs, sp));
    }
    if let Some(pads) = elems
        .iter()
        .map(|el| pad_spec(cx, el))
        .collect::<Option<Vec<_>>>()
    {
        return Some(Arg::Pads(pads, sp));
    }
    if let Some(lists) = elems.iter().map(|el| int_list(cx, el)).collect() {
        return Some(Arg::IntLists(lists, sp));
    }
    let exprs: Vec<Option<Expr>> = elems.iter().map(|el| parse_expr(cx, el)).collect();
    Some(Arg::List(
        exprs.into_iter().collect::<Option<Vec<_>>>()?,
        sp,
    ))
}

/// `[0, 1]` inside a list of lists (replica groups): the integers, or `None`.
fn int_list(cx: &Ctxt, e: &syn::Expr) -> Option<Vec<i64>> {
    match e {
        syn::Expr::Array(a) => a.elems.iter().map(|el| size_int(cx, el)).collect(),
        _ => None,
    }
}

/// `name = value`: a keyword argument (an assignment expression to Rust's parser).
fn parse_keyword(cx: &Ctxt, a: &syn::ExprAssign) -> Option<Arg> {
    let name = match &*a.left {
        syn::Expr::Path(p) if p.qself.is_none() => p.path.get_ident().cloned(),
        _ => None,
    };
    let Some(name) = name else {
        cx.error_spanned(
            &a.left,
            "a keyword argument is `name = value`, with a plain name",
        );
        return None;
    };
    if let syn::Expr::Assign(inner) = &*a.right {
        cx.error_spanned(inner, "one keyword per argument: `a = 1, b = 2`");
        return None;
    }
    let value = parse_arg(cx, &a.right)?;
    Some(Arg::Keyword(name, Box::new(value), Sp::of(a)))
}

/// `|a, b| body`: plain parameter names, no types, no captures by `move`.
fn parse_closure(cx: &Ctxt, c: &syn::ExprClosure) -> Option<Closure> {
    if c.movability.is_some()
        || c.asyncness.is_some()
        || c.capture.is_some()
        || c.constness.is_some()
    {
        cx.error_spanned(
            c,
            "a closure here is a plain `|a, b| ...`: no `move`, `async` or `static`",
        );
    }
    // `|(a1, b1), (a2, b2)|` is `|a1, b1, a2, b2|` (the variadic forms' grouping).
    let params: Vec<Option<proc_macro2::Ident>> = c
        .inputs
        .iter()
        .flat_map(|p| match p {
            syn::Pat::Tuple(t) => t.elems.iter().collect(),
            other => vec![other],
        })
        .map(|p| plain_ident(cx, p, "a closure parameter"))
        .collect();
    let body = match &*c.body {
        syn::Expr::Block(b) if b.label.is_none() => parse_block(cx, &b.block),
        other => Block {
            stmts: Vec::new(),
            tail: parse_expr(cx, other),
        },
    };
    let params = params.into_iter().collect::<Option<Vec<_>>>()?;
    body.tail.as_ref()?;
    Some(Closure {
        params,
        body,
        span: Sp::of(c),
    })
}

/// `..`, `a..b`, `a..`, `..b`, `(a..b).step_by(s)` or an index `i`.
fn slice_spec(cx: &Ctxt, e: &syn::Expr) -> Option<SliceSpec> {
    match e {
        syn::Expr::Range(r) => {
            if matches!(r.limits, syn::RangeLimits::Closed(_)) {
                return None;
            }
            let bound = |b: &Option<Box<syn::Expr>>| match b {
                None => Some(None),
                Some(b) => size_int(cx, b).map(Some),
            };
            Some(SliceSpec {
                start: bound(&r.start)?,
                end: bound(&r.end)?,
                step: 1,
                index: false,
            })
        }
        syn::Expr::Paren(p) => slice_spec(cx, &p.expr),
        syn::Expr::MethodCall(m) if m.method == "step_by" && m.args.len() == 1 => {
            let step = m.args.first().and_then(|a| size_int(cx, a))?;
            let spec = slice_spec(cx, &m.receiver).filter(|s| !s.index)?;
            Some(SliceSpec { step, ..spec })
        }
        other => size_int(cx, other).map(|i| SliceSpec {
            start: Some(i),
            end: Some(i + 1),
            step: 1,
            index: true,
        }),
    }
}

/// `(low, high)` or `(low, high, interior)`.
fn pad_spec(cx: &Ctxt, e: &syn::Expr) -> Option<(i64, i64, i64)> {
    let syn::Expr::Tuple(t) = e else { return None };
    let v = t
        .elems
        .iter()
        .map(|el| size_int(cx, el))
        .collect::<Option<Vec<i64>>>()?;
    match v.as_slice() {
        [lo, hi] => Some((*lo, *hi, 0)),
        [lo, hi, interior] => Some((*lo, *hi, *interior)),
        _ => None,
    }
}

/// `t.0`: element 0 of a tuple (as `t.get(0)`).
fn parse_field(cx: &Ctxt, f: &syn::ExprField) -> Option<ExprKind> {
    let syn::Member::Unnamed(index) = &f.member else {
        cx.error_spanned(&f.member, "field access is only `t.0` on a tuple value");
        return None;
    };
    let recv = parse_expr(cx, &f.base)?;
    let method = proc_macro2::Ident::new("get", index.span);
    let args = vec![Arg::Ints(vec![i64::from(index.index)], Sp::of(index))];
    Some(ExprKind::Method {
        recv: Box::new(recv),
        method,
        turbofish: None,
        args,
    })
}

/// `x[i]`, `x[1..3]`, `x[(.., 1..3)]`: a slice (an index drops its dimension).
fn parse_index(cx: &Ctxt, ix: &syn::ExprIndex) -> Option<ExprKind> {
    let recv = parse_expr(cx, &ix.expr);
    let elems: Vec<&syn::Expr> = match &*ix.index {
        syn::Expr::Tuple(t) => t.elems.iter().collect(),
        other => vec![other],
    };
    let specs = elems
        .iter()
        .map(|el| slice_spec(cx, el))
        .collect::<Option<Vec<_>>>();
    let Some(specs) = specs else {
        cx.error_spanned(
            &ix.index,
            "an index is integer literals and ranges, one per dimension: `x[(.., 1..3)]`",
        );
        return None;
    };
    let method = proc_macro2::Ident::new("slice", ix.bracket_token.span.join());
    let args = vec![Arg::Slices(specs, Sp::of(&ix.index))];
    Some(ExprKind::Method {
        recv: Box::new(recv?),
        method,
        turbofish: None,
        args,
    })
}

/// An integer where a list of dims, sizes, bounds or paddings takes one: a literal, or a
/// size parameter or a braced expression over them (`[B, { 16 * H * W }]`) at the sizes of
/// this check. An expression that fails to evaluate (negative, overflow) is reported and
/// read as 0, so the list still reads as integers.
pub(super) fn size_int(cx: &Ctxt, e: &syn::Expr) -> Option<i64> {
    if let Some(v) = int_literal(e) {
        return Some(v);
    }
    let sizes = cx.sizes();
    if sizes.names.is_empty() {
        return None;
    }
    match sizes.parse(e)? {
        Ok(d) => match sizes.eval(&d) {
            Ok(v) => Some(v),
            Err(message) => {
                drop(sizes);
                cx.error_spanned(e, message);
                Some(0)
            }
        },
        Err(_) => None,
    }
}

/// An integer literal, possibly negated.
pub(super) fn int_literal(e: &syn::Expr) -> Option<i64> {
    match e {
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Int(i),
            ..
        }) => i.base10_parse::<i64>().ok(),
        syn::Expr::Unary(syn::ExprUnary {
            op: syn::UnOp::Neg(_),
            expr,
            ..
        }) => int_literal(expr).map(|v| -v),
        _ => None,
    }
}
