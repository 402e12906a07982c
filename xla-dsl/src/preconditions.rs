//! Which shape rules of a generic computation hold for every size, and which only for
//! some: the check at the generic point `p` (see [`crate::sizes`]) runs again — the same
//! parser and shape rules — at `p + δ·eᵢ` for every size `i` and `δ` in [`STEPS`].
//!
//! * A rule that holds at `p` and at every moved point is accepted. For the dimension
//!   expressions that are affine in the sizes (`B`, `{ 2 * N }`, `{ N + 1 }`,
//!   `{ H - K + 1 }`), this is a proof, not a sample: two affine functions of `n` sizes
//!   that agree at `p` and at `p + eᵢ` for every `i` agree everywhere. With floor division
//!   by 2 of one size (`{ H / 2 }`), the moves by 1 and 2 cover both parities.
//! * A rule that fails at `p` but holds at some moved point holds only for some sizes: it
//!   is a **precondition** (`{ H / 2 }` reshaped from `H` needs `H` even), not a compile
//!   error; it is listed, naming the size, and checked again at every instantiation.
//! * A rule that holds at `p` but fails at a moved point is a precondition too, listed.
//! * A rule that fails at `p` and at every moved point fails for every size (as far as
//!   these points tell): a compile error, written in symbols.

use crate::ctxt::Ctxt;
use crate::instantiate::{front, Front};
use crate::sizes::Sizes;
use proc_macro2::TokenStream;

/// How far each size moves from the generic point.
pub const STEPS: [i64; 2] = [1, 2];

/// The front end's result at the generic point, or at a moved point when the rules fail at
/// the generic point only; and the preconditions found, each naming a size.
pub struct Classified {
    /// The front end's result to expand (its errors are compile errors).
    pub front: Front,
    /// `` `H`: reshape: ... (fails at H = 3050) ``: the rules that hold only for some sizes.
    pub preconditions: Vec<String>,
}

/// Classifies the rules of the generic computation `item` (checked at the generic point as
/// `f`), as the module documentation says.
pub fn classify(attr: &TokenStream, item: &syn::ItemFn, f: Front) -> Classified {
    let (names, point) = {
        let s = f.cx.sizes();
        (s.names.clone(), s.values.clone())
    };
    if f.deferred || names.is_empty() {
        return Classified {
            front: f,
            preconditions: Vec::new(),
        };
    }
    let passed = f.checked.is_some() && !f.cx.has_errors();
    if passed {
        let mut preconditions = Vec::new();
        for (i, name) in names.iter().enumerate() {
            if let Some((moved, messages)) = first_failure(attr, item, &names, &point, i) {
                let message = messages.first().cloned().unwrap_or_default();
                preconditions.push(format!("`{name}`: {message} (fails at {moved})"));
            }
        }
        return Classified {
            front: f,
            preconditions,
        };
    }
    // Failing at the generic point: a precondition if some moved point passes.
    for (i, name) in names.iter().enumerate() {
        for step in STEPS {
            let Some(values) = moved(&point, i, step) else {
                continue;
            };
            let g = front_at(attr, item, values.clone());
            if g.checked.is_some() && !g.cx.has_errors() && !g.deferred {
                let at = Sizes::bound(names.clone(), values).describe();
                let sizes = f.cx.sizes();
                let preconditions =
                    f.cx.messages()
                        .iter()
                        .map(|m| format!("`{name}`: {} (holds at {at})", sizes.symbolise(m)))
                        .collect();
                drop(sizes);
                return Classified {
                    front: g,
                    preconditions,
                };
            }
        }
    }
    Classified {
        front: f,
        preconditions: Vec::new(),
    }
}

/// The first moved point of size `i` where a rule fails (`H = 3050` with the sizes), and
/// the messages there.
fn first_failure(
    attr: &TokenStream,
    item: &syn::ItemFn,
    names: &[String],
    point: &[i64],
    i: usize,
) -> Option<(String, Vec<String>)> {
    STEPS.iter().find_map(|&step| {
        let values = moved(point, i, step)?;
        let g = front_at(attr, item, values.clone());
        let messages = g.cx.messages();
        (!g.deferred && (g.checked.is_none() || !messages.is_empty())).then(|| {
            let at = Sizes::bound(names.to_vec(), values).describe();
            (at, messages)
        })
    })
}

/// `point` with size `i` moved by `step`.
fn moved(point: &[i64], i: usize, step: i64) -> Option<Vec<i64>> {
    let mut values = point.to_vec();
    let v = values.get_mut(i)?;
    *v = v.checked_add(step)?;
    Some(values)
}

/// The front end at `values` (as at an instantiation).
fn front_at(attr: &TokenStream, item: &syn::ItemFn, values: Vec<i64>) -> Front {
    let cx = Ctxt::bound(values);
    let c = crate::parse::parse(&cx, attr.clone(), item.clone());
    front(cx, c)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    /// The preconditions and the compile errors of `src`.
    fn classify_src(src: &str) -> (Vec<String>, Vec<String>) {
        let item: syn::ItemFn = syn::parse_str(src).unwrap();
        let attr = TokenStream::new();
        let (cx, c) = crate::instantiate::parse_at_generic_point(&attr, &item);
        let k = classify(&attr, &item, front(cx, c));
        let errors = k
            .front
            .cx
            .into_errors()
            .iter()
            .map(ToString::to_string)
            .collect();
        (k.preconditions, errors)
    }

    #[test]
    fn affine_rules_are_proved_for_every_size() {
        for src in [
            "fn f<const N: usize>(x: Tensor<f32, N>) -> Tensor<f32, { 2 * N }> { concat([x, x], 0) }",
            "fn f<const B: usize, const I: usize>(x: Tensor<f32, B, I>, w: Tensor<f32, I, 3>) -> Tensor<f32, B, 3> { x.dot(w) }",
            "fn f<const H: usize>(x: Tensor<f32, H, 1>) -> Tensor<f32, { H / 2 }, 1> { x.max_pool([2, 1], [2, 1]) }",
        ] {
            assert_eq!(classify_src(src), (vec![], vec![]), "{src}");
        }
    }

    #[test]
    fn a_rule_failing_at_the_generic_point_only_is_a_precondition() {
        // `{ H / 2 }` rows of 2 from `H` elements: only even `H`.
        let (pre, errors) = classify_src(
            "fn f<const H: usize>(x: Tensor<f32, H>) -> Tensor<f32, { H / 2 }, 2> { x.reshape([{ H / 2 }, 2]) }",
        );
        assert!(errors.is_empty(), "{errors:?}");
        assert_eq!(pre.len(), 1, "{pre:?}");
        assert!(
            pre[0].starts_with("`H`: reshape: cannot reshape f32[H]"),
            "{pre:?}"
        );
        assert!(pre[0].ends_with("(holds at H = 3050)"), "{pre:?}");
    }

    #[test]
    fn a_rule_holding_at_the_generic_point_only_is_a_precondition() {
        // `(H - 1) / 2` rows (a 3-wide window, stride 2) equal `H / 2` for odd `H` only.
        let (pre, errors) = classify_src(
            "fn f<const H: usize>(x: Tensor<f32, H, 1>) -> Tensor<f32, { H / 2 }, 1> { x.max_pool([3, 1], [2, 1]) }",
        );
        assert!(errors.is_empty(), "{errors:?}");
        assert_eq!(pre.len(), 1, "{pre:?}");
        assert!(pre[0].starts_with("`H`: "), "{pre:?}");
        assert!(pre[0].ends_with("(fails at H = 3050)"), "{pre:?}");
    }

    #[test]
    fn a_rule_failing_for_every_size_is_a_compile_error() {
        let (pre, errors) = classify_src(
            "fn f<const B: usize>(x: Tensor<f32, B, 784>, w: Tensor<f32, B, 10>) -> Tensor<f32, 784, 10> { x.dot(w) }",
        );
        assert!(pre.is_empty(), "{pre:?}");
        assert_eq!(errors.len(), 1, "{errors:?}");
        assert!(errors[0].contains("f32[B,784]"), "{errors:?}");
    }
}
