//! `#[computation(grad(w, b))]`: the gradient modules, built by xla-autodiff from the checked
//! module **while the macro expands**, so that a computation without a gradient is a compile
//! error on the expression that has none.
//!
//! - `loss::grad`: the same parameters; the result is the gradient w.r.t. the one listed
//!   parameter, or the tuple of the gradients w.r.t. several, in the listed order;
//! - `loss::value_and_grad`: the same parameters; the result is the flat tuple
//!   `(value, gradients...)`.
//!
//! A bare `grad` lists every floating-point parameter, in parameter order.

use crate::ast::{Computation, TypeSpec};
use crate::check::Checked;
use crate::ctxt::{Ctxt, Sp};
use proc_macro2::Ident;
use xla_autodiff::{grad_module, value_and_grad_module, AutodiffError};
use xla_core::{Module, Op};

/// The gradient modules of a checked computation, and their result types (for `call`).
pub struct Gradients {
    /// `loss::grad`.
    pub grad: Module,
    /// `loss::value_and_grad`.
    pub value_and_grad: Module,
    /// The result type of `grad` as written in Rust terms.
    pub grad_type: Option<TypeSpec>,
    /// The result type of `value_and_grad`.
    pub value_and_grad_type: Option<TypeSpec>,
}

/// What the signature alone says about the gradients.
pub struct Signature {
    /// The parameter numbers to differentiate with respect to, in order.
    pub wrt: Vec<usize>,
    /// The result type of `grad`.
    pub grad: TypeSpec,
    /// The result type of `value_and_grad` (`None` when the result is not one tensor).
    pub value_and_grad: Option<TypeSpec>,
}

/// The listed parameters (every floating-point one for a bare `grad`) and the result types
/// of the gradient modules; `None` when a name or a type could not be resolved.
pub fn signature(c: &Computation) -> Option<Signature> {
    let (_, list) = c.options.grad.as_ref()?;
    let ty = |i: usize| c.params.get(i).and_then(|p| p.ty.as_ref());
    let wrt: Vec<usize> = match list {
        Some(names) => names
            .iter()
            .map(|n| c.params.iter().position(|p| p.name == *n))
            .collect::<Option<_>>()?,
        // A bare `grad`: every floating-point parameter (a tuple with a float leaf too).
        None => (0..c.params.len())
            .filter(|&i| ty(i).is_some_and(|t| t.leaves().iter().any(|l| l.elem.is_float())))
            .collect(),
    };
    let types: Vec<TypeSpec> = wrt.iter().map(|&i| ty(i).cloned()).collect::<Option<_>>()?;
    let grad = match &types[..] {
        [one] => one.clone(),
        _ => TypeSpec::Tuple(types.clone()),
    };
    let value_and_grad = match &c.result {
        Some(value @ TypeSpec::Tensor(_)) => {
            Some(TypeSpec::Tuple([vec![value.clone()], types].concat()))
        }
        _ => None,
    };
    Some(Signature {
        wrt,
        grad,
        value_and_grad,
    })
}

/// Builds both gradient modules; `None` after reporting why not to `cx`.
pub fn build(cx: &Ctxt, c: &Computation, checked: &Checked) -> Option<Gradients> {
    let (grad_sp, _) = c.options.grad.as_ref()?;
    let sig = signature(c)?;
    if sig.wrt.is_empty() {
        let name = &c.name;
        cx.error(
            *grad_sp,
            format!(
                "grad: `{name}` has no floating-point parameter to differentiate with respect to"
            ),
        );
        return None;
    }
    let report = |e: AutodiffError| report(cx, c, checked, *grad_sp, e);
    let grad = grad_module(&checked.module, Some(&sig.wrt))
        .map_err(report)
        .ok()?;
    let value_and_grad = value_and_grad_module(&checked.module, Some(&sig.wrt))
        .map_err(report)
        .ok()?;
    let name = c.name.to_string();
    let grad = finish(
        cx,
        *grad_sp,
        grad,
        &format!("{name}_grad"),
        sig.wrt.len() == 1,
    )?;
    let value_and_grad = finish(
        cx,
        *grad_sp,
        value_and_grad,
        &format!("{name}_value_and_grad"),
        false,
    )?;
    // The gradients run on the same devices as the computation.
    let (mut grad, mut value_and_grad) = (grad, value_and_grad);
    grad.config.replica_count = checked.module.config.replica_count;
    value_and_grad.config.replica_count = checked.module.config.replica_count;
    Some(Gradients {
        grad,
        value_and_grad,
        grad_type: Some(sig.grad),
        value_and_grad_type: sig.value_and_grad,
    })
}

/// Names the module, returns the bare gradient instead of a 1-tuple when `untuple`, and
/// verifies the result (an error here is a bug in xla-autodiff, reported on `grad`).
fn finish(cx: &Ctxt, sp: Sp, mut m: Module, name: &str, untuple: bool) -> Option<Module> {
    m.name = name.to_string();
    if untuple {
        unwrap_root_tuple(&mut m);
    }
    if let Err(e) = xla_core::verify::verify_module(&m) {
        cx.error(
            sp,
            format!("internal error: the gradient module `{name}` does not verify: {e}"),
        );
        return None;
    }
    Some(m)
}

/// Makes the entry's root the only element of its root tuple (and drops the tuple when
/// nothing else uses it).
pub(crate) fn unwrap_root_tuple(m: &mut Module) {
    let Some(entry) = m.computations.get_mut(m.entry.0) else {
        return;
    };
    let root = entry.root;
    let Some(element) = entry
        .get(root)
        .filter(|i| matches!(i.op, Op::Tuple))
        .and_then(|i| match &i.operands[..] {
            [one] => Some(*one),
            _ => None,
        })
    else {
        return;
    };
    entry.root = element;
    let used = entry
        .instructions
        .iter()
        .any(|i| i.operands.contains(&root));
    if !used && root.0 + 1 == entry.instructions.len() {
        entry.instructions.pop();
    }
}

/// An autodiff error as a diagnostic: on the expression that has no gradient, on the listed
/// parameter that cannot have one, or on `grad`.
fn report(cx: &Ctxt, c: &Computation, checked: &Checked, grad_sp: Sp, e: AutodiffError) {
    let name = &c.name;
    match &e {
        AutodiffError::NotDifferentiable { instruction, .. } => {
            let sp = checked.spans.get(instruction).copied().unwrap_or(grad_sp);
            cx.error(sp, format!("grad of `{name}`: {e}"));
        }
        AutodiffError::NotFloatParameter { index, shape } => {
            let param = c.params.get(*index).map(|p| &p.name);
            let sp = param.and_then(|p| listed(c, p)).unwrap_or(grad_sp);
            let param = param.map_or_else(|| format!("parameter {index}"), |p| format!("`{p}`"));
            cx.error(
                sp,
                format!("grad: {param} is {shape}: only floating-point parameters have gradients"),
            );
        }
        AutodiffError::NonScalarResult { .. } => {
            cx.error(grad_sp, format!("grad of `{name}`: {e}"));
        }
        AutodiffError::Malformed { .. }
        | AutodiffError::NoSuchParameter { .. }
        | AutodiffError::Build(_) => {
            cx.error(
                grad_sp,
                format!("internal error building the gradient of `{name}`: {e}"),
            );
        }
    }
}

/// The span of `param` in the `grad(...)` list.
fn listed(c: &Computation, param: &Ident) -> Option<Sp> {
    let (_, list) = c.options.grad.as_ref()?;
    list.as_ref()?.iter().find(|n| *n == param).map(Sp::of)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use crate::check::check;
    use crate::parse::parse;

    const LOSS: &str = "fn loss(x: Tensor<f32, 4, 3>, w: Tensor<f32, 3>, n: i32, b: f32) -> f32 {
        (x.dot(w) + b).sum() * n.convert::<f32>()
    }";

    fn gradients(attr: &str, item: &str) -> Result<Gradients, Vec<String>> {
        let cx = Ctxt::new();
        let c = parse(&cx, attr.parse().unwrap(), syn::parse_str(item).unwrap());
        let built = check(&cx, &c).and_then(|checked| build(&cx, &c, &checked));
        let errors: Vec<String> = cx.into_errors().iter().map(|e| e.to_string()).collect();
        built.filter(|_| errors.is_empty()).ok_or(errors)
    }

    fn result(m: &Module) -> String {
        m.entry_computation()
            .unwrap()
            .result_shape()
            .unwrap()
            .to_string()
    }

    #[test]
    fn result_shapes_by_listed_parameters() {
        let cases: &[(&str, &str, &str)] = &[
            // One listed parameter: the bare gradient.
            ("grad(w)", "f32[3]", "(f32[], f32[3])"),
            ("grad(b, w)", "(f32[], f32[3])", "(f32[], f32[], f32[3])"),
            // Bare `grad`: every floating-point parameter, in order (not `n`).
            (
                "grad",
                "(f32[4,3], f32[3], f32[])",
                "(f32[], f32[4,3], f32[3], f32[])",
            ),
        ];
        for (attr, grad, value_and_grad) in cases {
            let g = gradients(attr, LOSS).unwrap();
            assert_eq!(result(&g.grad), *grad, "{attr}");
            assert_eq!(result(&g.value_and_grad), *value_and_grad, "{attr}");
            assert_eq!(g.grad.name, "loss_grad");
            assert_eq!(g.value_and_grad.name, "loss_value_and_grad");
        }
    }

    #[test]
    fn errors_name_the_parameter_or_the_op() {
        let cases: &[(&str, &str, &str)] = &[
            ("grad(n)", LOSS, "grad: `n` is s32[]: only floating-point parameters have gradients"),
            (
                "grad",
                "fn f(x: Tensor<f32, 3>) -> Tensor<f32, 3> { x }",
                "grad of `f`: grad needs a scalar floating-point result, but the entry's result is f32[3]",
            ),
            (
                "grad",
                "fn f(m: f32) -> f32 { rng_uniform::<f32>(m, 1.0, [2]).sum() }",
                "(rng): random number generation has no gradient",
            ),
        ];
        for (attr, item, want) in cases {
            let errors = gradients(attr, item).err().unwrap();
            assert_eq!(errors.len(), 1, "{errors:?}");
            assert!(errors[0].contains(want), "{attr} {item}: {errors:?}");
        }
    }
}
