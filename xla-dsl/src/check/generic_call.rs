//! A call to a generic `#[computation]` from another computation: the callee's sizes are
//! read from the arguments' shapes (at the caller's sizes: the generic point at compile
//! time, the real sizes at instantiation) and the callee is instantiated there, by the same
//! front end, so the sizes pass through (`f::<B>` calling `g` on a `[B, 784]` value) or are
//! fixed (`g` called on a `[32, 784]` value).

use super::graph::shape;
use super::{Checker, Val};
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
        // A shape-generic callee (`fn adam<S: Shape>`) at the ranks of the arguments: an
        // ordinary size-generic function from here on (see `crate::shapes`).
        let (expanded, ranks) = self.expand_shapes(name, source, vals, sp)?;
        let source = expanded.as_deref().unwrap_or(source);
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
        let signature_cx = Ctxt::new();
        let output = item.sig.output.clone();
        let signature = crate::parse::parse(&signature_cx, attr_tokens, item);
        let sizes = self.bind_callee_sizes(name, &signature, given, vals, sp)?;
        let key = format!("{name}{ranks}{sizes:?}");
        match crate::instantiate::instantiate(source, attr, &sizes) {
            Ok(instance) => {
                self.note_callee_dims(&signature_cx, &sizes);
                self.note_callee_result(&signature_cx, &output, &sizes, &instance.result_shape);
                Some((key, instance.module))
            }
            Err(message) => {
                let names: Vec<String> = signature.sizes.iter().map(ToString::to_string).collect();
                let at = self.callee_at(&names, &sizes);
                self.cx.error(sp, format!("`{name}` {at}: {message}"));
                None
            }
        }
    }

    /// The source of a shape-generic callee at the ranks of the arguments `vals`, and the
    /// ranks as text for its key (`None` and empty for a callee without shape parameters);
    /// a rank the arguments give inconsistently is an error on the call.
    fn expand_shapes(
        &mut self,
        name: &str,
        source: &str,
        vals: &[Val],
        sp: Sp,
    ) -> Option<(Option<String>, String)> {
        let arg_ranks: Vec<Option<usize>> = vals
            .iter()
            .map(|v| match v {
                Val::Tensor(op) => shape(op).map(|s| s.rank()),
                Val::Weak(_) => None,
            })
            .collect();
        match crate::shapes::expand_source(source, &arg_ranks) {
            Ok(Some((expanded, ranks))) => Some((Some(expanded), format!("@{ranks:?}"))),
            Ok(None) => Some((None, String::new())),
            Err(message) => {
                self.cx.error(sp, format!("`{name}`: {message}"));
                None
            }
        }
    }

    /// At the caller's generic point, the callee's dimension expressions at these sizes,
    /// written in the caller's symbols (the sizes that are numbers put in and the form
    /// simplified), so that messages about the callee's result read `f32[B,(H+S-1)/S,8]`
    /// or `f32[B,H-1,4]` rather than the number the generic values give.
    fn note_callee_dims(&self, signature: &Ctxt, values: &[i64]) {
        use crate::sizes::DimExpr;
        let caller = self.cx.sizes();
        if !caller.generic {
            return;
        }
        let symbols = self.callee_symbols(values);
        for d in signature.sizes().exprs() {
            if !matches!(d, DimExpr::Bin(..)) {
                continue;
            }
            let Some((v, Some(text))) = symbols.text(&d) else {
                continue;
            };
            caller.note(v, text);
        }
    }

    /// At the caller's generic point, the callee's result shape (`result`, its type written
    /// `output` in the callee's signature) noted whole in the caller's symbols: `f32[B,(H+S-1)/S,8]` even
    /// where the dims are 0 or 1 at the generic point (a stride `S` above `H`), which
    /// [`Checker::note_callee_dims`] cannot claim.
    fn note_callee_result(
        &self,
        signature: &Ctxt,
        output: &syn::ReturnType,
        values: &[i64],
        result: &xla_core::Shape,
    ) {
        if !self.cx.sizes().generic {
            return;
        }
        let syn::ReturnType::Type(_, ty) = output else {
            return;
        };
        let symbols = self.callee_symbols(values);
        let types = match (ty.as_ref(), result.tuple_elements()) {
            (syn::Type::Tuple(t), Some(shapes)) => t.elems.iter().zip(shapes).collect(),
            (syn::Type::Tuple(_), None) | (_, Some(_)) => Vec::new(),
            (ty, None) => vec![(ty, result)],
        };
        for (ty, shape) in types {
            let Some(dims) = type_dims(&signature.sizes(), ty) else {
                continue;
            };
            if dims.len() != shape.rank() {
                continue;
            }
            let texts: Option<Vec<String>> = dims
                .iter()
                .map(|d| {
                    let (v, text) = symbols.text(d)?;
                    Some(text.unwrap_or_else(|| v.to_string()))
                })
                .collect();
            let Some(texts) = texts else { continue };
            let numbers = shape.to_string();
            let Some(open) = numbers.find('[') else {
                continue;
            };
            let head = numbers.get(..open).unwrap_or_default();
            let symbolic = format!("{head}[{}]", texts.join(","));
            self.cx.sizes().note_shape(numbers, symbolic);
        }
    }

    /// Each callee size at `values`: a number, or the caller's symbol for its value.
    fn callee_symbols(&self, values: &[i64]) -> CalleeSymbols {
        let caller = self.cx.sizes();
        let symbols: Vec<Option<String>> = values
            .iter()
            .map(|v| {
                let s = caller.symbolise(&v.to_string());
                let plain = s.chars().all(|c| c.is_alphanumeric() || c == '_');
                match (s.parse::<i64>().is_ok(), plain) {
                    (true, _) => None,
                    (false, true) => Some(s),
                    (false, false) => Some(format!("({s})")),
                }
            })
            .collect();
        CalleeSymbols {
            symbols,
            values: values.to_vec(),
        }
    }

    /// `at H = 4, S = 1 for any B`: the callee's sizes for a message. At the caller's
    /// generic point a size that is the caller's size of the same name is free (any value),
    /// not `B = B`.
    fn callee_at(&self, names: &[String], values: &[i64]) -> String {
        let caller = self.cx.sizes();
        let (free, fixed): (Vec<_>, Vec<_>) = names
            .iter()
            .zip(values)
            .partition(|(n, v)| caller.generic && caller.symbolise(&v.to_string()) == **n);
        let fixed: Vec<String> = fixed.iter().map(|(n, v)| format!("{n} = {v}")).collect();
        let free: Vec<&str> = free.iter().map(|(n, _)| n.as_str()).collect();
        match (fixed.is_empty(), free.is_empty()) {
            (false, true) => format!("at {}", fixed.join(", ")),
            (false, false) => format!("at {} for any {}", fixed.join(", "), free.join(", ")),
            (true, _) => format!("for any {}", free.join(", ")),
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
            let (Some(ty), Val::Tensor(op)) = (&param.ty, val) else {
                continue;
            };
            let got = shape(op)?;
            // Each tensor of a tuple parameter against the same leaf of the argument.
            let leaves = ty.leaves().into_iter().zip(shape_leaves(&got));
            let dims = leaves.flat_map(|(t, got)| t.bare.iter().zip(got.dims()));
            for (bare, &value) in dims {
                let Some(s) = bare else {
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

/// `d` with the sizes that have no symbol (`None` in `symbols`) replaced by their values.
fn put_numbers(
    d: &crate::sizes::DimExpr,
    symbols: &[Option<String>],
    values: &[i64],
) -> crate::sizes::DimExpr {
    use crate::sizes::DimExpr;
    match d {
        DimExpr::Size(i) => match (symbols.get(*i), values.get(*i)) {
            (Some(None), Some(v)) => DimExpr::Lit(*v),
            _ => d.clone(),
        },
        DimExpr::Lit(_) => d.clone(),
        DimExpr::Bin(op, l, r) => DimExpr::Bin(
            *op,
            Box::new(put_numbers(l, symbols, values)),
            Box::new(put_numbers(r, symbols, values)),
        ),
    }
}

/// A callee's sizes at one call: each one's value, and its symbol in the caller's terms
/// (`None` where the value is a number the caller does not name).
struct CalleeSymbols {
    symbols: Vec<Option<String>>,
    values: Vec<i64>,
}

impl CalleeSymbols {
    /// The value of the callee's dimension `d` at this call, and its text in the caller's
    /// symbols (`None` when it is a constant there).
    fn text(&self, d: &crate::sizes::DimExpr) -> Option<(i64, Option<String>)> {
        let names: Vec<String> = self
            .symbols
            .iter()
            .map(|s| s.clone().unwrap_or_default())
            .collect();
        let at = crate::sizes::Sizes::bound(names.clone(), self.values.clone());
        let v = at.peek(d)?;
        let d = put_numbers(d, &self.symbols, &self.values);
        let text = match crate::sizes::affine::normalise(&d) {
            Ok(form) if form.is_constant() => None,
            Ok(form) => Some(form.show(&names).replace(' ', "")),
            Err(_) => Some(at.show(&d)),
        };
        Some((v, text))
    }
}

/// The dims of the tensor type `ty` (`Tensor<f32, B, { H / S }, 8>`) as expressions over
/// the sizes of `sizes`; `None` for anything else.
fn type_dims(sizes: &crate::sizes::Sizes, ty: &syn::Type) -> Option<Vec<crate::sizes::DimExpr>> {
    let syn::Type::Path(p) = ty else { return None };
    let last = p.path.segments.last()?;
    let syn::PathArguments::AngleBracketed(args) = &last.arguments else {
        return None;
    };
    args.args
        .iter()
        .skip(1)
        .map(|arg| {
            let expr = match arg {
                syn::GenericArgument::Const(e) => e.clone(),
                syn::GenericArgument::Type(syn::Type::Path(p)) => syn::Expr::Path(syn::ExprPath {
                    attrs: Vec::new(),
                    qself: None,
                    path: p.path.clone(),
                }),
                _ => return None,
            };
            sizes.parse(&expr)?.ok()
        })
        .collect()
}

/// The arrays of `shape`, depth first (an array is its own one leaf).
pub(crate) fn shape_leaves(shape: &xla_core::Shape) -> Vec<&xla_core::Shape> {
    match shape.tuple_elements() {
        Some(elems) => elems.iter().flat_map(shape_leaves).collect(),
        None => vec![shape],
    }
}
