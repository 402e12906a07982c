//! `grad(f, args.., argnums = [..])` and `value_and_grad(f, ..)` inside a body: the
//! computation `f` (a `#[computation]` the body could call, generic or not, or a layer of
//! `xla::nn`) is built at the arguments' shapes, differentiated by xla-autodiff with respect
//! to the arguments `argnums` (JAX's default: `[0]`), and the gradient module is called,
//! so forward, gradient and whatever follows (an optimizer update) are one graph, as a
//! jitted JAX step is.
//!
//! `grad` returns the gradient (one `argnums`) or the tuple of gradients in `argnums` order;
//! `value_and_grad` returns the flat tuple `(value, gradients..)`.

use super::{Checker, Val};
use crate::ast::{Arg, Expr, ExprKind};
use crate::ctxt::Sp;
use xla_core::Module;

/// The two differentiating functions.
const GRAD_FUNCTIONS: [&str; 2] = ["grad", "value_and_grad"];

/// True for `grad` and `value_and_grad`.
pub fn is_grad_function(name: &str) -> bool {
    GRAD_FUNCTIONS.contains(&name)
}

/// The computation an expression calls: `f` of `f(..)` (unless built in), or the `f` of
/// `grad(f, ..)` and `value_and_grad(f, ..)`.
pub fn called_computation(e: &Expr) -> Option<&proc_macro2::Ident> {
    let ExprKind::Call { func, args, .. } = &e.kind else {
        return None;
    };
    let name = func.to_string();
    if is_grad_function(&name) {
        return match args.first() {
            Some(Arg::Expr(Expr {
                kind: ExprKind::Var(f),
                ..
            })) => Some(f),
            _ => None,
        };
    }
    (!super::methods::is_builtin_function(&name)).then_some(func)
}

impl Checker<'_> {
    /// `grad(f, ..)` (`value`: false) or `value_and_grad(f, ..)` (`value`: true).
    pub(super) fn grad_call(&mut self, value: bool, args: &[Arg], sp: Sp) -> Option<Val> {
        let which = if value { "value_and_grad" } else { "grad" };
        let Some((Arg::Expr(first), rest)) = args.split_first() else {
            self.cx.error(sp, format!("`{which}` takes the #[computation] to differentiate first: `{which}(loss, w, x)`"));
            return None;
        };
        let ExprKind::Var(func) = &first.kind else {
            self.cx.error(first.span, format!("`{which}`: name the #[computation] to differentiate, e.g. `{which}(loss, w, x)`"));
            return None;
        };
        let name = func.to_string();
        let (positional, argnums) = self.split_argnums(which, rest)?;
        let vals: Vec<Option<Val>> = positional.iter().map(|a| self.val(a)).collect();
        let vals = vals.into_iter().collect::<Option<Vec<_>>>()?;
        let (key, module) = self.callee_module(&name, &vals, first.span, which)?;
        let wrt = argnums.unwrap_or_else(|| vec![0]);
        if let Some(bad) = wrt.iter().find(|&&i| i >= vals.len()) {
            let message = format!("`{which}({name}, ..)`: argnums names argument {bad}, but `{name}` is called with {} arguments", vals.len());
            self.cx.error(sp, message);
            return None;
        }
        let module = self.differentiate(&name, &module, &wrt, value, sp)?;
        let key = format!("{key}/{which}{wrt:?}");
        let label = format!("{which}({name})");
        self.call_module(&label, &key, &module, &positional, vals, sp)
    }

    /// The positional arguments and the `argnums = [..]` keyword, if given.
    fn split_argnums(&self, which: &str, args: &[Arg]) -> Option<(Vec<Arg>, Option<Vec<usize>>)> {
        let mut positional = Vec::new();
        let mut argnums = None;
        for arg in args {
            match arg {
                Arg::Keyword(k, v, asp) if k == "argnums" && argnums.is_none() => {
                    let ints = self.ints(v, "`argnums`")?;
                    let mut list = Vec::new();
                    for i in ints {
                        match usize::try_from(i) {
                            Ok(u) if !list.contains(&u) => list.push(u),
                            _ => {
                                self.cx.error(*asp, format!("`{which}`: argnums lists argument numbers, each once and none negative; found {i}"));
                                return None;
                            }
                        }
                    }
                    argnums = Some(list);
                }
                Arg::Keyword(k, _, asp) => {
                    self.cx.error(*asp, format!("`{which}` takes one keyword argument, `argnums = [..]` (given once); found `{k}`"));
                    return None;
                }
                other => positional.push(other.clone()),
            }
        }
        Some((positional, argnums))
    }

    /// The module of the callee `name` at the arguments' shapes, and its import key.
    fn callee_module(
        &mut self,
        name: &str,
        vals: &[Val],
        sp: Sp,
        which: &str,
    ) -> Option<(String, Module)> {
        let callees = std::rc::Rc::clone(&self.callees);
        if let Some((attr, source)) = callees.generic.get(name) {
            return self.instantiate_callee(name, attr, source, &[], vals, sp);
        }
        match callees.modules.get(name) {
            Some(Some(module)) => Some((name.to_string(), module.clone())),
            Some(None) => None, // the callee failed to compile: its errors are reported there
            None => {
                self.cx.error(
                    sp,
                    format!(
                        "`{which}`: `{name}` is not a #[computation] function this body can call"
                    ),
                );
                None
            }
        }
    }

    /// The gradient module of `module` w.r.t. `wrt` (`value`: with the value first).
    fn differentiate(
        &self,
        name: &str,
        module: &Module,
        wrt: &[usize],
        value: bool,
        sp: Sp,
    ) -> Option<Module> {
        let built = if value {
            xla_autodiff::value_and_grad_module(module, Some(wrt))
        } else {
            xla_autodiff::grad_module(module, Some(wrt))
        };
        let mut m = match built {
            Ok(m) => m,
            Err(e) => {
                let which = if value { "value_and_grad" } else { "grad" };
                self.cx.error(sp, format!("`{which}` of `{name}`: {e}"));
                return None;
            }
        };
        if !value && wrt.len() == 1 {
            crate::grad::unwrap_root_tuple(&mut m);
        }
        Some(m)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use crate::check::check;
    use crate::ctxt::Ctxt;
    use crate::parse::parse;

    /// The result shape of `fn f(params) -> result { body }`, or the errors.
    fn result_of(params: &str, result: &str, body: &str) -> Result<String, Vec<String>> {
        let cx = Ctxt::new();
        let item = format!("fn f({params}) -> {result} {{ {body} }}");
        let c = parse(
            &cx,
            proc_macro2::TokenStream::new(),
            syn::parse_str(&item).unwrap(),
        );
        let checked = check(&cx, &c);
        let errors: Vec<String> = cx.into_errors().iter().map(|e| e.to_string()).collect();
        match checked {
            Some(ch) if errors.is_empty() => Ok(ch.result.to_string()),
            _ => Err(errors),
        }
    }

    const PT: &str = "p: Tensor<f32, 2, 3>, t: Tensor<f32, 2, 3>";

    #[test]
    fn grad_and_value_and_grad_of_a_layer() {
        let r = result_of(PT, "Tensor<f32, 2, 3>", "grad(nn::mse, p, t)");
        assert_eq!(r.unwrap(), "f32[2,3]");
        let r = result_of(
            PT,
            "(f32, Tensor<f32, 2, 3>, Tensor<f32, 2, 3>)",
            "value_and_grad(xla::nn::mse, p, t, argnums = [1, 0])",
        );
        assert_eq!(r.unwrap(), "(f32[], f32[2,3], f32[2,3])");
        // Inside a loop body (a computation of its own): gradient descent on the MSE.
        let r = result_of(
            PT,
            "Tensor<f32, 2, 3>",
            "let mut q = p; for _ in 0..3 { q = q - 0.1 * grad(nn::mse, q, t); } q",
        );
        assert_eq!(r.unwrap(), "f32[2,3]");
    }

    #[test]
    fn mistakes_are_errors_naming_the_rule() {
        let cases: &[(&str, &str, &str)] = &[
            (
                PT,
                "grad(nn::mse, p, t, argnums = [2])",
                "`grad(mse, ..)`: argnums names argument 2, but `mse` is called with 2 arguments",
            ),
            (
                PT,
                "grad(nn::mse, p, t, argnums = [0, 0])",
                "argnums lists argument numbers, each once and none negative; found 0",
            ),
            (PT, "grad(nn::mse, p, t, wrt = [0])", "takes one keyword argument, `argnums = [..]`"),
            (PT, "grad(p + t, p)", "take the #[computation] to differentiate first, by name"),
            (
                "x: Tensor<f32, 2, 3>, w: Tensor<f32, 3, 3>, b: Tensor<f32, 3>",
                "grad(nn::dense, x, w, b)",
                "`grad` of `dense`: grad needs a scalar floating-point result, but the entry's result is f32[2,3]",
            ),
            (
                "table: Tensor<f32, 4, 3>, ids: Tensor<i32, 2>",
                "grad(nn::embedding, table, ids, argnums = [1])",
                "`grad` of `embedding`",
            ),
        ];
        for (params, body, want) in cases {
            let errors = result_of(params, "Tensor<f32, 2, 3>", body).unwrap_err();
            assert!(
                errors.iter().any(|e| e.contains(want)),
                "{body}: {errors:?}"
            );
        }
    }
}
