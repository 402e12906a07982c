//! `syn` → the macro's AST ([`crate::ast`]): the attribute's options, the signature's tensor
//! types and the body's supported subset of Rust. Every construct outside the subset is a
//! spanned error; parsing goes on after an error so that every mistake is reported.

use crate::ast::*;
use crate::ctxt::{Ctxt, Sp};
use proc_macro2::TokenStream;
use xla_core::PrimitiveType;

/// Parses the attribute arguments and the annotated function.
pub fn parse(cx: &Ctxt, attr: TokenStream, item: syn::ItemFn) -> Computation {
    let options = parse_options(cx, attr);
    check_signature_form(cx, &item.sig);
    let params = item
        .sig
        .inputs
        .iter()
        .filter_map(|arg| parse_param(cx, arg))
        .collect();
    let result = match &item.sig.output {
        syn::ReturnType::Type(_, ty) => parse_type(cx, ty, true),
        syn::ReturnType::Default => {
            cx.error(
                Sp::of(&item.sig),
                "a computation must return a tensor: add `-> Tensor<f32, ...>`",
            );
            None
        }
    };
    let body = parse_block(cx, &item.block);
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
        params,
        result,
        body,
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
            let mut wrt = Vec::new();
            meta.parse_nested_meta(|inner| match inner.path.get_ident() {
                Some(ident) => {
                    wrt.push(ident.clone());
                    Ok(())
                }
                None => Err(inner.error("expected a parameter name")),
            })?;
            options.grad = Some((Sp::of(&meta.path), wrt));
            Ok(())
        } else {
            Err(meta.error("unknown option of #[computation]; expected `grad(param, ...)`"))
        }
    });
    if let Err(e) = syn::parse::Parser::parse2(parser, attr) {
        cx.syn_error(e);
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
    if !sig.generics.params.is_empty() || sig.generics.where_clause.is_some() {
        cx.error_spanned(
            &sig.generics,
            "a computation cannot be generic: shapes are static",
        );
    }
    if let Some(v) = &sig.variadic {
        cx.error_spanned(v, "a computation cannot be variadic");
    }
}

fn parse_param(cx: &Ctxt, arg: &syn::FnArg) -> Option<Param> {
    let pat_type = match arg {
        syn::FnArg::Typed(t) => t,
        syn::FnArg::Receiver(r) => {
            cx.error_spanned(r, "a computation takes tensors, not `self`");
            return None;
        }
    };
    let ty = parse_type(cx, &pat_type.ty, false);
    let name = plain_ident(cx, &pat_type.pat, "a parameter")?;
    Some(Param { name, ty })
}

/// The name bound by a pattern that is a plain identifier.
fn plain_ident(cx: &Ctxt, pat: &syn::Pat, what: &str) -> Option<proc_macro2::Ident> {
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

/// Parses a type written in a signature or a `let` annotation. Tuples are allowed only where
/// `allow_tuple` is set (results).
pub fn parse_type(cx: &Ctxt, ty: &syn::Type, allow_tuple: bool) -> Option<TypeSpec> {
    match ty {
        syn::Type::Paren(p) => parse_type(cx, &p.elem, allow_tuple),
        syn::Type::Group(g) => parse_type(cx, &g.elem, allow_tuple),
        syn::Type::Tuple(t) if allow_tuple && !t.elems.is_empty() => {
            let elems: Vec<Option<TensorType>> =
                t.elems.iter().map(|e| parse_tensor_type(cx, e)).collect();
            elems
                .into_iter()
                .collect::<Option<Vec<_>>>()
                .map(TypeSpec::Tuple)
        }
        syn::Type::Tuple(t) if !t.elems.is_empty() => {
            cx.error_spanned(t, "tuples are only allowed as a computation's result");
            None
        }
        other => parse_tensor_type(cx, other).map(TypeSpec::Tensor),
    }
}

fn parse_tensor_type(cx: &Ctxt, ty: &syn::Type) -> Option<TensorType> {
    let span = Sp::of(ty);
    let path = match ty {
        syn::Type::Path(p) if p.qself.is_none() => &p.path,
        syn::Type::Paren(p) => return parse_tensor_type(cx, &p.elem),
        syn::Type::Tuple(t) => {
            cx.error_spanned(
                t,
                "nested tuples are not supported: a result is a tensor or a tuple of tensors",
            );
            return None;
        }
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
    let dims: Vec<Option<i64>> = iter.map(|arg| parse_dim(cx, arg)).collect();
    let dims = dims.into_iter().collect::<Option<Vec<i64>>>()?;
    Some(TensorType { elem: elem?, dims })
}

fn parse_dim(cx: &Ctxt, arg: &syn::GenericArgument) -> Option<i64> {
    let expr = match arg {
        syn::GenericArgument::Const(e) => e,
        other => {
            cx.error_spanned(
                other,
                "a dimension must be an integer literal, e.g. `Tensor<f32, 2, 3>`",
            );
            return None;
        }
    };
    let value = match expr {
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Int(i),
            ..
        }) => i.base10_parse::<i64>().ok(),
        syn::Expr::Block(b) => match b.block.stmts.as_slice() {
            [syn::Stmt::Expr(
                syn::Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Int(i),
                    ..
                }),
                None,
            )] => i.base10_parse::<i64>().ok(),
            _ => None,
        },
        _ => None,
    };
    if value.is_none() {
        cx.error_spanned(
            expr,
            "a dimension must be an integer literal (constants and expressions are not evaluated)",
        );
    }
    value
}

fn parse_block(cx: &Ctxt, block: &syn::Block) -> Block {
    let mut stmts = Vec::new();
    let mut tail = None;
    let count = block.stmts.len();
    for (i, stmt) in block.stmts.iter().enumerate() {
        match stmt {
            syn::Stmt::Expr(e, None) if i + 1 == count && !is_statement(e) => {
                tail = parse_expr(cx, e)
            }
            other => stmts.extend(parse_stmt(cx, other)),
        }
    }
    let ends_with_value =
        matches!(block.stmts.last(), Some(syn::Stmt::Expr(e, None)) if !is_statement(e));
    if !ends_with_value {
        let sp = block.stmts.last().map_or_else(|| Sp::of(block), Sp::of);
        cx.error(
            sp,
            "a computation's body must end with the result expression (no trailing `;`)",
        );
    }
    Block { stmts, tail }
}

/// `for` loops and assignments are statements even without a `;`.
fn is_statement(e: &syn::Expr) -> bool {
    matches!(e, syn::Expr::ForLoop(_) | syn::Expr::Assign(_)) || compound_assign(e).is_some()
}

/// `a op= b` as `(op, a, b)`.
fn compound_assign(e: &syn::Expr) -> Option<(BinOp, &syn::Expr, &syn::Expr)> {
    use syn::BinOp as B;
    let syn::Expr::Binary(b) = e else { return None };
    let op = match b.op {
        B::AddAssign(_) => BinOp::Add,
        B::SubAssign(_) => BinOp::Sub,
        B::MulAssign(_) => BinOp::Mul,
        B::DivAssign(_) => BinOp::Div,
        B::RemAssign(_) => BinOp::Rem,
        B::BitAndAssign(_) => BinOp::And,
        B::BitOrAssign(_) => BinOp::Or,
        B::BitXorAssign(_) => BinOp::Xor,
        B::ShlAssign(_) => BinOp::Shl,
        B::ShrAssign(_) => BinOp::Shr,
        _ => return None,
    };
    Some((op, &b.left, &b.right))
}

fn parse_stmt(cx: &Ctxt, stmt: &syn::Stmt) -> Option<Stmt> {
    match stmt {
        syn::Stmt::Local(local) => parse_let(cx, local),
        syn::Stmt::Expr(syn::Expr::ForLoop(f), _) => parse_for(cx, f),
        syn::Stmt::Expr(e, _) if is_statement(e) => parse_assign(cx, e),
        syn::Stmt::Expr(e, _) => {
            cx.error_spanned(e, "only `let` statements, assignments to `let mut` names, `for` loops and a final expression are supported; bind this value with `let`");
            None
        }
        syn::Stmt::Item(item) => {
            cx.error_spanned(item, "items inside a computation are not supported");
            None
        }
        syn::Stmt::Macro(m) => {
            cx.error_spanned(m, "macros inside a computation are not supported");
            None
        }
    }
}

/// `name = value` or `name op= value`.
fn parse_assign(cx: &Ctxt, e: &syn::Expr) -> Option<Stmt> {
    let (target, value) = match (e, compound_assign(e)) {
        (syn::Expr::Assign(a), _) => (&*a.left, parse_expr(cx, &a.right)),
        (_, Some((op, left, right))) => {
            let (l, r) = (parse_expr(cx, left), parse_expr(cx, right));
            let kind = l
                .zip(r)
                .map(|(l, r)| ExprKind::Binary(op, Box::new(l), Box::new(r)));
            (
                left,
                kind.map(|kind| Expr {
                    kind,
                    span: Sp::of(e),
                }),
            )
        }
        _ => return None,
    };
    let name = match target {
        syn::Expr::Path(p) if p.qself.is_none() => p.path.get_ident().cloned(),
        _ => None,
    };
    let Some(name) = name else {
        cx.error_spanned(target, "only a `let mut` name can be assigned");
        return None;
    };
    Some(Stmt::Assign {
        name,
        value: value?,
        span: Sp::of(e),
    })
}

/// `for i in 0..N { ... }`.
fn parse_for(cx: &Ctxt, f: &syn::ExprForLoop) -> Option<Stmt> {
    if let Some(label) = &f.label {
        cx.error_spanned(label, "loop labels are not supported");
    }
    let var = match &*f.pat {
        syn::Pat::Ident(p)
            if p.by_ref.is_none() && p.mutability.is_none() && p.subpat.is_none() =>
        {
            Some(Some(p.ident.clone()))
        }
        syn::Pat::Wild(_) => Some(None),
        other => {
            cx.error_spanned(other, "the loop counter must be a plain name or `_`");
            None
        }
    };
    let range = match &*f.expr {
        syn::Expr::Range(r) if matches!(r.limits, syn::RangeLimits::HalfOpen(_)) => {
            let bound = |b: &Option<Box<syn::Expr>>| b.as_deref().and_then(int_literal);
            bound(&r.start).zip(bound(&r.end))
        }
        _ => None,
    };
    if range.is_none() {
        cx.error_spanned(
            &f.expr,
            "a loop runs over a range of integer literals, e.g. `for i in 0..10`",
        );
    }
    let mut body = Vec::new();
    for stmt in &f.body.stmts {
        match stmt {
            syn::Stmt::Expr(e, None) if !is_statement(e) && !matches!(e, syn::Expr::ForLoop(_)) => {
                cx.error_spanned(
                    e,
                    "a loop body has no value: assign the new state to `let mut` names",
                );
            }
            other => body.extend(parse_stmt(cx, other)),
        }
    }
    let (start, end) = range?;
    Some(Stmt::For {
        var: var?,
        start,
        end,
        body,
        span: Sp::of(f),
    })
}

fn parse_let(cx: &Ctxt, local: &syn::Local) -> Option<Stmt> {
    let (pat, ty) = match &local.pat {
        syn::Pat::Type(pt) => (&*pt.pat, parse_type(cx, &pt.ty, false)),
        other => (other, None),
    };
    let mutable = matches!(pat, syn::Pat::Ident(p) if p.mutability.is_some());
    let name = match pat {
        syn::Pat::Ident(p) if p.by_ref.is_none() && p.subpat.is_none() => Some(p.ident.clone()),
        other => plain_ident(cx, other, "a `let` binding"),
    };
    let Some(init) = &local.init else {
        cx.error_spanned(local, "a `let` binding needs a value");
        return None;
    };
    if let Some((_, diverge)) = &init.diverge {
        cx.error_spanned(diverge, "`let ... else` is not supported");
    }
    let init = parse_expr(cx, &init.expr);
    Some(Stmt::Let {
        name: name?,
        mutable,
        ty,
        init,
    })
}

/// `if cond { .. } else { .. }`, `else if` chains included.
fn parse_if(cx: &Ctxt, i: &syn::ExprIf) -> Option<ExprKind> {
    let cond = parse_expr(cx, &i.cond);
    let then = parse_block(cx, &i.then_branch);
    let els = match &i.else_branch {
        None => {
            cx.error_spanned(i, "an `if` needs an `else`: both branches give the value");
            None
        }
        Some((_, e)) => match &**e {
            syn::Expr::Block(b) => Some(parse_block(cx, &b.block)),
            syn::Expr::If(inner) => {
                let kind = parse_if(cx, inner);
                kind.map(|kind| Block {
                    stmts: Vec::new(),
                    tail: Some(Expr {
                        kind,
                        span: Sp::of(inner),
                    }),
                })
            }
            other => {
                cx.error_spanned(other, "expected a block");
                None
            }
        },
    };
    Some(ExprKind::If {
        cond: Box::new(cond?),
        then: Box::new(then),
        els: Box::new(els?),
    })
}

/// Parses an expression of the supported subset.
pub fn parse_expr(cx: &Ctxt, e: &syn::Expr) -> Option<Expr> {
    let span = Sp::of(e);
    let kind = match e {
        syn::Expr::Paren(p) => return parse_expr(cx, &p.expr).map(|inner| Expr { span, ..inner }),
        syn::Expr::Group(g) => return parse_expr(cx, &g.expr),
        syn::Expr::Path(p) => match p.path.get_ident() {
            Some(ident) if p.qself.is_none() => ExprKind::Var(ident.clone()),
            _ => return unsupported(cx, e, "paths: name a parameter or a `let` binding"),
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
        syn::Expr::While(_) | syn::Expr::Loop(_) => "`while` and `loop` (use `for i in 0..N`)",
        syn::Expr::Closure(_) => "closures outside the arguments of `reduce`, `map` and `sort`",
        syn::Expr::Block(_) | syn::Expr::Unsafe(_) => "nested blocks",
        syn::Expr::Match(_) => "`match`",
        syn::Expr::Return(_) => "`return` (end the body with the result)",
        syn::Expr::Assign(_) => "assignment as a value",
        syn::Expr::Let(_) => "`if let` and `let` expressions",
        syn::Expr::Reference(_) => "references (tensors are values)",
        syn::Expr::Macro(_) => "macros",
        syn::Expr::Array(_) => "arrays outside a method's argument list",
        syn::Expr::Cast(_) => "`as` casts (use `.convert::<T>()`)",
        syn::Expr::Field(_) => "field access (use `.get(i)` on a tuple)",
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
        _ => None,
    };
    let args = parse_args(cx, &c.args);
    let Some(segment) = path else {
        cx.error_spanned(&c.func, "call a function by its plain name, e.g. `relu(x)`");
        return None;
    };
    let turbofish = match &segment.arguments {
        syn::PathArguments::None => None,
        syn::PathArguments::AngleBracketed(a) => Some(turbofish_type(cx, a)?),
        syn::PathArguments::Parenthesized(p) => {
            cx.error_spanned(p, "expected a function call such as `relu(x)`");
            return None;
        }
    };
    Some(ExprKind::Call {
        func: segment.ident.clone(),
        turbofish,
        args: args?,
    })
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

fn parse_args(
    cx: &Ctxt,
    args: &syn::punctuated::Punctuated<syn::Expr, syn::Token![,]>,
) -> Option<Vec<Arg>> {
    let parsed: Vec<Option<Arg>> = args.iter().map(|a| parse_arg(cx, a)).collect();
    parsed.into_iter().collect()
}

/// An argument: a list (`[1, 0]`, `[.., 1..3]`, `[(1, 2)]`, `[a, b]`) or a tensor expression.
fn parse_arg(cx: &Ctxt, e: &syn::Expr) -> Option<Arg> {
    let array = match e {
        syn::Expr::Array(array) => array,
        syn::Expr::Closure(c) => return parse_closure(cx, c).map(Arg::Closure),
        other => return parse_expr(cx, other).map(Arg::Expr),
    };
    let sp = Sp::of(e);
    let elems: Vec<&syn::Expr> = array.elems.iter().collect();
    if let Some(ints) = elems
        .iter()
        .map(|el| int_literal(el))
        .collect::<Option<Vec<i64>>>()
    {
        return Some(Arg::Ints(ints, sp));
    }
    if let Some(specs) = elems
        .iter()
        .map(|el| slice_spec(el))
        .collect::<Option<Vec<_>>>()
    {
        return Some(Arg::Slices(specs, sp));
    }
    if let Some(pads) = elems
        .iter()
        .map(|el| pad_spec(el))
        .collect::<Option<Vec<_>>>()
    {
        return Some(Arg::Pads(pads, sp));
    }
    let exprs: Vec<Option<Expr>> = elems.iter().map(|el| parse_expr(cx, el)).collect();
    Some(Arg::List(
        exprs.into_iter().collect::<Option<Vec<_>>>()?,
        sp,
    ))
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
    let params: Vec<Option<proc_macro2::Ident>> = c
        .inputs
        .iter()
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
fn slice_spec(e: &syn::Expr) -> Option<SliceSpec> {
    match e {
        syn::Expr::Range(r) => {
            if matches!(r.limits, syn::RangeLimits::Closed(_)) {
                return None;
            }
            let bound = |b: &Option<Box<syn::Expr>>| match b {
                None => Some(None),
                Some(b) => int_literal(b).map(Some),
            };
            Some(SliceSpec {
                start: bound(&r.start)?,
                end: bound(&r.end)?,
                step: 1,
                index: false,
            })
        }
        syn::Expr::Paren(p) => slice_spec(&p.expr),
        syn::Expr::MethodCall(m) if m.method == "step_by" && m.args.len() == 1 => {
            let step = m.args.first().and_then(int_literal)?;
            let spec = slice_spec(&m.receiver).filter(|s| !s.index)?;
            Some(SliceSpec { step, ..spec })
        }
        other => int_literal(other).map(|i| SliceSpec {
            start: Some(i),
            end: Some(i + 1),
            step: 1,
            index: true,
        }),
    }
}

/// `(low, high)` or `(low, high, interior)`.
fn pad_spec(e: &syn::Expr) -> Option<(i64, i64, i64)> {
    let syn::Expr::Tuple(t) = e else { return None };
    let v = t
        .elems
        .iter()
        .map(int_literal)
        .collect::<Option<Vec<i64>>>()?;
    match v.as_slice() {
        [lo, hi] => Some((*lo, *hi, 0)),
        [lo, hi, interior] => Some((*lo, *hi, *interior)),
        _ => None,
    }
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
        .map(|el| slice_spec(el))
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

fn int_literal(e: &syn::Expr) -> Option<i64> {
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

/// The name of a one-segment type path (`f64`), or the type's tokens.
fn type_name(ty: &syn::Type) -> String {
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
#[path = "parse_tests.rs"]
mod tests;
