//! A call to a generic `#[computation]` from another computation: the callee's sizes are
//! read from the arguments' shapes (at the caller's sizes: the generic point at compile
//! time, the real sizes at instantiation) and the callee is instantiated there, by the same
//! front end, so the sizes pass through (`f::<B>` calling `g` on a `[B, 784]` value) or are
//! fixed (`g` called on a `[32, 784]` value).

use super::graph::shape;
use super::{Checker, Val};
use crate::ast::TypeSpec;
use crate::ctxt::{Ctxt, Sp};
use xla_core::Module;

impl Checker<'_> {
    /// The callee `name` (written as `source` with attribute `attr`) instantiated at the
    /// sizes the argument values give, and the key it is imported under.
    pub(super) fn instantiate_callee(
        &mut self,
        name: &str,
        attr: &str,
        source: &str,
        given: &[i64],
        vals: &[Val],
        sp: Sp,
    ) -> Option<(String, Module)> {
        if source.is_empty() {
            return None; // the callee failed to compile: its errors are reported there
        }
        let item: syn::ItemFn = match syn::parse_str(source) {
            Ok(item) => item,
            Err(e) => {
                self.cx.error(
                    sp,
                    format!("the source of `{name}` does not parse (a bug in xla-rs): {e}"),
                );
                return None;
            }
        };
        let attr_tokens: proc_macro2::TokenStream = attr.parse().ok()?;
        // The callee's signature, read at its own generic point: which dims name a size.
        let signature = crate::parse::parse(&Ctxt::new(), attr_tokens, item);
        let sizes = self.bind_callee_sizes(name, &signature, given, vals, sp)?;
        let key = format!("{name}{sizes:?}");
        match crate::instantiate::instantiate(source, attr, &sizes) {
            Ok(instance) => Some((key, instance.module)),
            Err(message) => {
                let names: Vec<String> = signature.sizes.iter().map(ToString::to_string).collect();
                let at = crate::sizes::Sizes::bound(names, sizes).describe();
                self.cx.error(sp, format!("`{name}` at {at}: {message}"));
                None
            }
        }
    }

    /// Each size of the callee, read from the first argument dim written as that bare size;
    /// the sizes no dim gives alone take the turbofish's integers `given`, in order. A size
    /// read as two values, or a count of `given` that differs from the sizes left, is an
    /// error on the call.
    fn bind_callee_sizes(
        &mut self,
        name: &str,
        callee: &crate::ast::Computation,
        given: &[i64],
        vals: &[Val],
        sp: Sp,
    ) -> Option<Vec<i64>> {
        let mut bound: Vec<Option<(i64, String)>> = vec![None; callee.sizes.len()];
        for (param, val) in callee.params.iter().zip(vals) {
            let (Some(TypeSpec::Tensor(t)), Val::Tensor(op)) = (&param.ty, val) else {
                continue;
            };
            let got = shape(op)?;
            for (d, bare) in t.bare.iter().enumerate() {
                let (Some(s), Some(&value)) = (bare, got.dims().get(d)) else {
                    continue;
                };
                let slot = bound.get_mut(*s)?;
                let size = callee.sizes.get(*s)?;
                match slot {
                    None => *slot = Some((value, param.name.to_string())),
                    Some((first, from)) if *first != value => {
                        let message = format!(
                            "`{name}`: size `{size}` is {first} from `{from}` but {value} from `{}`",
                            param.name
                        );
                        self.cx.error(sp, message);
                        return None;
                    }
                    Some(_) => {}
                }
            }
        }
        self.fill_given(name, callee, bound, given, sp)
    }

    /// The bound sizes, the unbound ones taken from `given` in order.
    fn fill_given(
        &mut self,
        name: &str,
        callee: &crate::ast::Computation,
        bound: Vec<Option<(i64, String)>>,
        given: &[i64],
        sp: Sp,
    ) -> Option<Vec<i64>> {
        let unbound: Vec<String> = bound
            .iter()
            .zip(&callee.sizes)
            .filter(|(b, _)| b.is_none())
            .map(|(_, s)| s.to_string())
            .collect();
        if unbound.len() != given.len() {
            let message = match (unbound.is_empty(), given.is_empty()) {
                (true, _) => format!("`{name}`: every size is read from the arguments' shapes, so the call takes no integer turbofish (found {} integers)", given.len()),
                (false, true) => format!("`{name}`: size{} `{}` {} not the whole of any argument's dimension: give {} with a turbofish, `{name}::<{}>(..)`", if unbound.len() == 1 { "" } else { "s" }, unbound.join("`, `"), if unbound.len() == 1 { "is" } else { "are" }, if unbound.len() == 1 { "it" } else { "them" }, unbound.join(", ")),
                (false, false) => format!("`{name}::<..>`: the turbofish gives the sizes `{}` ({} integers), found {}", unbound.join("`, `"), unbound.len(), given.len()),
            };
            self.cx.error(sp, message);
            return None;
        }
        let mut given = given.iter();
        let mut sizes = Vec::new();
        for b in bound {
            match b {
                Some((v, _)) => sizes.push(v),
                None => sizes.push(*given.next()?),
            }
        }
        Some(sizes)
    }
}
