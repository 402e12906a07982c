//! Blocks and statements: `let`, assignments, `for` loops, and `if`/`else`.

use super::expr::{int_literal, parse_expr, size_int};
use super::{parse_type, plain_ident};
use crate::ast::*;
use crate::ctxt::{Ctxt, Sp};
use proc_macro2::Ident;

pub(super) fn parse_block(cx: &Ctxt, block: &syn::Block) -> Block {
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
    matches!(
        e,
        syn::Expr::ForLoop(_) | syn::Expr::While(_) | syn::Expr::Assign(_)
    ) || compound_assign(e).is_some()
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

fn parse_stmt(cx: &Ctxt, stmt: &syn::Stmt) -> Vec<Stmt> {
    match stmt {
        syn::Stmt::Local(local) => parse_let(cx, local),
        syn::Stmt::Expr(syn::Expr::ForLoop(f), _) => parse_for(cx, f).into_iter().collect(),
        syn::Stmt::Expr(syn::Expr::While(w), _) => parse_while(cx, w).into_iter().collect(),
        syn::Stmt::Expr(e, _) if is_statement(e) => parse_assign(cx, e).into_iter().collect(),
        syn::Stmt::Expr(e, _) => {
            cx.error_spanned(e, "only `let` statements, assignments to `let mut` names, `for` loops and a final expression are supported; bind this value with `let`");
            Vec::new()
        }
        syn::Stmt::Item(item) => {
            cx.error_spanned(item, "items inside a computation are not supported");
            Vec::new()
        }
        syn::Stmt::Macro(m) => {
            cx.error_spanned(m, "macros inside a computation are not supported");
            Vec::new()
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
            let bound = |b: &Option<Box<syn::Expr>>| b.as_deref().and_then(|e| size_int(cx, e));
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
    let body = parse_loop_body(cx, &f.body);
    let (start, end) = range?;
    Some(Stmt::For {
        var: var?,
        start,
        end,
        body,
        span: Sp::of(f),
    })
}

/// The statements of a loop body (which has no value).
fn parse_loop_body(cx: &Ctxt, block: &syn::Block) -> Vec<Stmt> {
    let mut body = Vec::new();
    for stmt in &block.stmts {
        match stmt {
            syn::Stmt::Expr(e, None) if !is_statement(e) => {
                cx.error_spanned(
                    e,
                    "a loop body has no value: assign the new state to `let mut` names",
                );
            }
            other => body.extend(parse_stmt(cx, other)),
        }
    }
    body
}

/// `while cond { ... }`.
fn parse_while(cx: &Ctxt, w: &syn::ExprWhile) -> Option<Stmt> {
    if let Some(label) = &w.label {
        cx.error_spanned(label, "loop labels are not supported");
    }
    let cond = match &*w.cond {
        syn::Expr::Let(l) => {
            cx.error_spanned(
                l,
                "`while let` is not supported: the condition is a scalar `bool`",
            );
            None
        }
        other => parse_expr(cx, other),
    };
    let body = parse_loop_body(cx, &w.body);
    Some(Stmt::While {
        cond: cond?,
        body,
        span: Sp::of(w),
    })
}

fn parse_let(cx: &Ctxt, local: &syn::Local) -> Vec<Stmt> {
    match &local.pat {
        syn::Pat::Tuple(t) => parse_let_tuple(cx, local, t),
        _ => parse_let_one(cx, local).into_iter().collect(),
    }
}

/// `let (a, _, c) = t;` as `let tuple = t; let a = tuple.get(0); let c = tuple.get(2);`;
/// a nested pattern (`let ((w1, b1), (w2, b2)) = params;`) destructures its element the
/// same way.
fn parse_let_tuple(cx: &Ctxt, local: &syn::Local, t: &syn::PatTuple) -> Vec<Stmt> {
    let Some(init) = &local.init else {
        cx.error_spanned(local, "a `let` binding needs a value");
        return Vec::new();
    };
    let mut stmts = Vec::new();
    destructure(cx, t, parse_expr(cx, &init.expr), &mut stmts);
    stmts
}

/// The statements binding the names of the tuple pattern `t` to the elements of `init`.
fn destructure(cx: &Ctxt, t: &syn::PatTuple, init: Option<Expr>, stmts: &mut Vec<Stmt>) {
    let mut names = Vec::new();
    pattern_names(t, &mut names);
    let sp = Sp::of(t);
    let tuple = Ident::new(&format!("__xla_tuple_{}", names.join("_")), sp.first);
    stmts.push(Stmt::Let {
        name: tuple.clone(),
        mutable: false,
        ty: None,
        init,
    });
    for (i, el) in t.elems.iter().enumerate() {
        let get = |name_span| Expr {
            kind: ExprKind::Method {
                recv: Box::new(Expr {
                    kind: ExprKind::Var(tuple.clone()),
                    span: sp,
                }),
                method: Ident::new("get", name_span),
                turbofish: None,
                args: vec![Arg::Ints(vec![i as i64], sp)],
            },
            span: sp,
        };
        match el {
            syn::Pat::Wild(_) => {}
            syn::Pat::Tuple(inner) => destructure(cx, inner, Some(get(sp.first)), stmts),
            syn::Pat::Paren(p) => match &*p.pat {
                syn::Pat::Tuple(inner) => destructure(cx, inner, Some(get(sp.first)), stmts),
                other => bind_element(cx, other, &get, stmts),
            },
            other => bind_element(cx, other, &get, stmts),
        }
    }
}

/// `let name = tuple.get(i);` for a plain-name element of a tuple pattern.
fn bind_element(
    cx: &Ctxt,
    pat: &syn::Pat,
    get: &dyn Fn(proc_macro2::Span) -> Expr,
    stmts: &mut Vec<Stmt>,
) {
    let Some(name) = plain_ident(cx, pat, "a tuple element") else {
        return;
    };
    stmts.push(Stmt::Let {
        init: Some(get(name.span())),
        name,
        mutable: false,
        ty: None,
    });
}

/// The names a tuple pattern binds, depth first (for the hidden tuple's name).
fn pattern_names(t: &syn::PatTuple, out: &mut Vec<String>) {
    for el in &t.elems {
        match el {
            syn::Pat::Ident(p) => out.push(p.ident.to_string()),
            syn::Pat::Tuple(inner) => pattern_names(inner, out),
            syn::Pat::Paren(p) => {
                if let syn::Pat::Tuple(inner) = &*p.pat {
                    pattern_names(inner, out);
                }
            }
            _ => {}
        }
    }
}

fn parse_let_one(cx: &Ctxt, local: &syn::Local) -> Option<Stmt> {
    let (pat, ty) = match &local.pat {
        syn::Pat::Type(pt) => (&*pt.pat, parse_type(cx, &pt.ty)),
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
pub(super) fn parse_if(cx: &Ctxt, i: &syn::ExprIf) -> Option<ExprKind> {
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

/// `match i { 0 => a, 1 => b, _ => c }`: integer arms covering `0..n` (in any order), then
/// a required `_` arm, which is the last branch (XLA runs it for any index out of range).
pub(super) fn parse_match(cx: &Ctxt, m: &syn::ExprMatch) -> Option<ExprKind> {
    let index = parse_expr(cx, &m.expr);
    let mut numbered: Vec<(i64, Block, Sp)> = Vec::new();
    let mut default = None;
    let mut ok = true;
    for arm in &m.arms {
        if let Some((_, guard)) = &arm.guard {
            cx.error_spanned(
                guard,
                "match guards are not supported: an arm is an integer literal or `_`",
            );
            ok = false;
            continue;
        }
        let body = arm_block(cx, &arm.body);
        match arm_index(cx, &arm.pat, default.is_some()) {
            Some(None) => default = Some(body),
            Some(Some(k)) => numbered.push((k, body, Sp::of(&arm.pat))),
            None => ok = false,
        }
    }
    let Some(default) = default else {
        cx.error_spanned(
            m,
            "a `match` needs a final `_` arm: XLA runs the last branch for an index out of range",
        );
        return None;
    };
    numbered.sort_by_key(|(k, _, _)| *k);
    let mut arms = Vec::new();
    for (expected, (k, body, sp)) in numbered.into_iter().enumerate() {
        if k != expected as i64 {
            cx.error(sp, format!("match arms are `0`, `1`, `2`, ... (each once), then `_`: found `{k}` where `{expected}` was expected"));
            ok = false;
        }
        arms.push(body);
    }
    arms.push(default);
    let index = index?;
    ok.then(|| ExprKind::Match {
        index: Box::new(index),
        arms,
    })
}

/// The branch a match arm's pattern names: `Some(Some(k))` for the literal `k`, `Some(None)`
/// for `_`; `None` after reporting an error.
fn arm_index(cx: &Ctxt, pat: &syn::Pat, after_default: bool) -> Option<Option<i64>> {
    let k = match pat {
        _ if after_default => {
            cx.error_spanned(pat, "the `_` arm must be the last arm");
            return None;
        }
        syn::Pat::Wild(_) => return Some(None),
        syn::Pat::Lit(l) => int_literal(&syn::Expr::Lit(l.clone())),
        _ => None,
    };
    if k.is_none() {
        cx.error_spanned(
            pat,
            "a match arm is an integer literal (`0`, `1`, ...) or `_`",
        );
    }
    k.map(Some)
}

/// The body of a match arm: a block, or an expression as a block's value.
fn arm_block(cx: &Ctxt, e: &syn::Expr) -> Block {
    match e {
        syn::Expr::Block(b) if b.label.is_none() => parse_block(cx, &b.block),
        other => Block {
            stmts: Vec::new(),
            tail: parse_expr(cx, other),
        },
    }
}
