//! The arguments of `grad(f, ..)` and `value_and_grad(f, ..)`: the first names the
//! computation to differentiate (`loss`, `nn::mse`, `xla::nn::mse`), the rest are its
//! arguments and the keyword `argnums = [..]`.

use super::expr::{nn_path, parse_arg};
use crate::ast::{Arg, Expr, ExprKind};
use crate::ctxt::{Ctxt, Sp};

/// The arguments, the function named by the first as a name (`Var`), so the callee is
/// resolved like a called computation.
pub fn parse_grad_args(
    cx: &Ctxt,
    args: &syn::punctuated::Punctuated<syn::Expr, syn::Token![,]>,
) -> Option<Vec<Arg>> {
    let mut iter = args.iter();
    let first = iter.next();
    let func = match first {
        Some(syn::Expr::Path(p)) if p.qself.is_none() && p.path.segments.len() == 1 => {
            p.path.segments.first().map(|s| s.ident.clone())
        }
        Some(syn::Expr::Path(p)) if p.qself.is_none() && nn_path(&p.path) => {
            let last = p.path.segments.last().map(|s| s.ident.clone());
            if let Some(name) = &last {
                cx.nn_call(name);
            }
            last
        }
        _ => None,
    };
    let rest: Vec<Option<Arg>> = iter.map(|a| parse_arg(cx, a)).collect();
    let Some(func) = func else {
        let message = "`grad` and `value_and_grad` take the #[computation] to differentiate \
                       first, by name: `value_and_grad(loss, w, x, argnums = [0])`";
        match first {
            Some(e) => cx.error_spanned(e, message),
            None => cx.error_spanned(args, message),
        }
        return None;
    };
    let span = Sp::of(&func);
    let mut out = vec![Arg::Expr(Expr {
        kind: ExprKind::Var(func),
        span,
    })];
    for arg in rest {
        out.push(arg?);
    }
    Some(out)
}
