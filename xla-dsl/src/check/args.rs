//! Reading the arguments of a method: tensors, integer lists, slices, paddings, tensor lists
//! and integer literals, each with an error naming what was expected.

use super::{Checker, Val};
use crate::ast::{Arg, Expr, ExprKind, Lit, LitValue, SliceSpec};
use crate::ctxt::Sp;
use xla_core::builder::Padding;
use xla_core::ir::PadDim;

/// The padding of a window op: `SAME`, `VALID` or explicit `(low, high)` pairs.
pub enum WindowPadding {
    /// `SAME` or `VALID`.
    Named(Padding),
    /// One `(low, high)` per dimension.
    Explicit(Vec<(i64, i64)>),
}

/// What kind of argument `arg` is, for error messages.
fn kind(arg: &Arg) -> &'static str {
    match arg {
        Arg::Expr(_) => "a tensor expression",
        Arg::Ints(..) => "a list of integers",
        Arg::Slices(..) => "a list of ranges",
        Arg::Pads(..) => "a list of paddings",
        Arg::List(..) => "a list of tensors",
        Arg::IntLists(..) => "a list of integer lists",
        Arg::Closure(..) => "a closure",
        Arg::Str(..) => "a string",
        Arg::Keyword(..) => "a keyword argument",
    }
}

/// Where the argument is.
pub fn span(arg: &Arg) -> Sp {
    match arg {
        Arg::Expr(e) => e.span,
        Arg::Ints(_, sp)
        | Arg::Slices(_, sp)
        | Arg::Pads(_, sp)
        | Arg::List(_, sp)
        | Arg::IntLists(_, sp)
        | Arg::Str(_, sp)
        | Arg::Keyword(_, _, sp) => *sp,
        Arg::Closure(c) => c.span,
    }
}

/// The operations that take keyword arguments (`name = value`), for error messages.
pub const KEYWORD_OPS: &str =
    "`conv_general`, `gather_general`, `scatter_general`, `groups =` of the collectives and `argnums` of `grad`/`value_and_grad`";

impl Checker<'_> {
    /// The arguments of `n` bound to its parameters `params`: positional arguments fill
    /// them in order, then keyword arguments `name = value` by name; the first `required`
    /// must be given, the others are `None` when absent.
    pub(super) fn bind<'b, const N: usize>(
        &self,
        n: &str,
        args: &'b [Arg],
        params: [&str; N],
        required: usize,
        sp: Sp,
    ) -> Option<[Option<&'b Arg>; N]> {
        let mut bound: [Option<&'b Arg>; N] = [None; N];
        let mut ok = true;
        let mut seen_keyword = false;
        let mut next = 0;
        for arg in args {
            match arg {
                Arg::Keyword(name, value, asp) => {
                    seen_keyword = true;
                    ok &= self.bind_keyword(n, &params, &mut bound, name, value, *asp);
                }
                _ if seen_keyword => {
                    self.cx.error(
                        span(arg),
                        format!("`{n}`: a positional argument cannot follow a keyword argument"),
                    );
                    ok = false;
                }
                _ => match bound.get_mut(next) {
                    Some(slot) => {
                        *slot = Some(arg);
                        next += 1;
                    }
                    None => {
                        self.cx.error(
                            span(arg),
                            format!("`{n}` takes at most {N} arguments ({})", params.join(", ")),
                        );
                        ok = false;
                    }
                },
            }
        }
        for (slot, name) in bound.iter().zip(params).take(required) {
            if slot.is_none() && ok {
                self.cx.error(
                    sp,
                    format!(
                        "`{n}`: missing argument `{name}` (the arguments are {})",
                        params.join(", ")
                    ),
                );
                ok = false;
            }
        }
        ok.then_some(bound)
    }

    fn bind_keyword<'b, const N: usize>(
        &self,
        n: &str,
        params: &[&str; N],
        bound: &mut [Option<&'b Arg>; N],
        name: &proc_macro2::Ident,
        value: &'b Arg,
        asp: Sp,
    ) -> bool {
        let key = name.to_string();
        let Some(i) = params.iter().position(|p| *p == key) else {
            self.cx.error(
                Sp::of(name),
                format!(
                    "`{n}` has no argument `{key}`; its arguments are {}",
                    params.join(", ")
                ),
            );
            return false;
        };
        match bound.get_mut(i) {
            Some(slot @ None) => {
                *slot = Some(value);
                true
            }
            _ => {
                self.cx
                    .error(asp, format!("`{n}`: argument `{key}` is given twice"));
                false
            }
        }
    }

    /// Reports keyword arguments given to `n`, which takes none.
    pub(super) fn no_keywords(&self, n: &str, args: &[Arg]) -> Option<()> {
        let mut ok = true;
        for arg in args {
            if let Arg::Keyword(_, _, sp) = arg {
                self.cx.error(*sp, format!("`{n}` takes no keyword arguments (keyword arguments are for {KEYWORD_OPS})"));
                ok = false;
            }
        }
        ok.then_some(())
    }

    /// A string literal argument.
    pub(super) fn string(&self, arg: &Arg, what: &str) -> Option<String> {
        match arg {
            Arg::Str(v, _) => Some(v.clone()),
            other => self.wrong_arg(other, &format!("{what} as a string literal")),
        }
    }

    fn wrong_arg<T>(&self, arg: &Arg, expected: &str) -> Option<T> {
        self.cx.error(
            span(arg),
            format!("expected {expected}, found {}", kind(arg)),
        );
        None
    }

    /// A tensor argument.
    pub(super) fn val(&mut self, arg: &Arg) -> Option<Val> {
        match arg {
            Arg::Expr(e) => self.expr(e),
            other => self.wrong_arg(other, "a tensor"),
        }
    }

    /// A list-of-integers argument.
    pub(super) fn ints(&self, arg: &Arg, what: &str) -> Option<Vec<i64>> {
        match arg {
            Arg::Ints(v, _) => Some(v.clone()),
            other => self.wrong_arg(
                other,
                &format!("{what} as a list of integer literals, e.g. `[1, 0]`"),
            ),
        }
    }

    /// One range or index per dimension (a list of integers is a list of indices).
    pub(super) fn slices(&self, arg: &Arg) -> Option<Vec<SliceSpec>> {
        match arg {
            Arg::Slices(v, _) => Some(v.clone()),
            Arg::Ints(v, _) => Some(
                v.iter()
                    .map(|&i| SliceSpec {
                        start: Some(i),
                        end: Some(i + 1),
                        step: 1,
                        index: true,
                    })
                    .collect(),
            ),
            other => self.wrong_arg(other, "one range or index per dimension, e.g. `[.., 1..3]`"),
        }
    }

    /// One `(low, high[, interior])` padding per dimension.
    pub(super) fn pads(&self, arg: &Arg) -> Option<Vec<PadDim>> {
        match arg {
            Arg::Pads(v, _) => Some(
                v.iter()
                    .map(|&(low, high, interior)| PadDim {
                        low,
                        high,
                        interior,
                    })
                    .collect(),
            ),
            other => self.wrong_arg(
                other,
                "one `(low, high)` or `(low, high, interior)` padding per dimension",
            ),
        }
    }

    /// A list of tensors `[a, b]`.
    pub(super) fn list(&mut self, arg: &Arg) -> Option<Vec<Val>> {
        match arg {
            Arg::List(exprs, _) => {
                let vals: Vec<Option<Val>> = exprs.iter().map(|e| self.expr(e)).collect();
                vals.into_iter().collect()
            }
            Arg::Expr(e) => self.expr(e).map(|v| vec![v]),
            other => self.wrong_arg(other, "a list of tensors, e.g. `[a, b]`"),
        }
    }

    /// An integer literal (a dimension number).
    pub(super) fn int_scalar(&self, arg: &Arg, what: &str) -> Option<i64> {
        match arg {
            Arg::Expr(e) => match &e.kind {
                ExprKind::Lit(Lit {
                    value: LitValue::Int(i),
                    ty: None,
                }) => i64::try_from(*i).ok(),
                _ => self.wrong_arg(arg, &format!("{what} as an integer literal")),
            },
            other => self.wrong_arg(other, &format!("{what} as an integer literal")),
        }
    }

    /// `SAME`, `VALID` or `[(low, high), ...]`.
    pub(super) fn window_padding(&self, arg: &Arg) -> Option<WindowPadding> {
        match arg {
            Arg::Expr(e) => match &e.kind {
                ExprKind::Var(v) if v == "SAME" || v == "same" => {
                    Some(WindowPadding::Named(Padding::Same))
                }
                ExprKind::Var(v) if v == "VALID" || v == "valid" => {
                    Some(WindowPadding::Named(Padding::Valid))
                }
                _ => self.wrong_arg(arg, "the padding: `SAME`, `VALID` or `[(low, high), ...]`"),
            },
            Arg::Pads(p, _) if p.iter().all(|&(_, _, interior)| interior == 0) => Some(
                WindowPadding::Explicit(p.iter().map(|&(lo, hi, _)| (lo, hi)).collect()),
            ),
            other => self.wrong_arg(
                other,
                "the padding: `SAME`, `VALID` or `[(low, high), ...]`",
            ),
        }
    }

    /// A float literal (an epsilon).
    pub(super) fn float_scalar(&self, arg: &Arg, what: &str) -> Option<f64> {
        match arg {
            Arg::Expr(Expr {
                kind:
                    ExprKind::Lit(Lit {
                        value: LitValue::Float(f),
                        ..
                    }),
                ..
            }) => Some(*f),
            Arg::Expr(Expr {
                kind:
                    ExprKind::Lit(Lit {
                        value: LitValue::Int(i),
                        ..
                    }),
                ..
            }) => Some(*i as f64),
            other => self.wrong_arg(other, &format!("{what} as a number literal")),
        }
    }

    /// `first, [strides]` and an optional padding (`VALID` when omitted) of the window op
    /// `n`; `first` names the first argument in the error.
    pub(super) fn with_padding<'b>(
        &self,
        args: &'b [Arg],
        n: &str,
        first: &str,
        sp: Sp,
    ) -> Option<(&'b Arg, &'b Arg, WindowPadding)> {
        let (a, strides, padding) = match args {
            [a, s] => (a, s, None),
            [a, s, p] => (a, s, Some(p)),
            _ => {
                let found = args.len();
                self.cx.error(sp, format!("`{n}` takes {first}, the strides and optionally the padding (`SAME`, `VALID` or `[(low, high), ...]`), found {found} arguments"));
                return None;
            }
        };
        let padding = match padding {
            None => Some(WindowPadding::Named(Padding::Valid)),
            Some(p) => self.window_padding(p),
        };
        Some((a, strides, padding?))
    }

    /// `t.get(i)` / `t.0`: element `i` of a tuple.
    pub(super) fn tuple_get(&mut self, t: Val, args: &[Arg], sp: Sp) -> Option<Val> {
        let [i] = self.arity("get", args, ["index"], sp)?;
        let i = match i {
            Arg::Ints(v, _) if v.len() == 1 => v.first().copied(),
            other => self.int_scalar(other, "the tuple index"),
        }?;
        let t = self.tensor(t, None, sp)?;
        self.val_op(sp, |b| b.get_tuple_element(&t, i))
    }
}
