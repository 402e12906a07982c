//! Which shape rules of a generic computation hold for every size, and which only for
//! some, decided symbolically where the dimensions are affine.
//!
//! **Symbolically.** Every dimension expression the function writes is put in affine normal
//! form ([`crate::sizes::affine`]): a sum of multiples of sizes, of floor-quotients by
//! constants and a constant. Each size then has a period `P` (the lcm of the divisors over
//! it, and of the strides the module's windows and slices divide by) such that, on each
//! residue class of the sizes modulo their periods, every dimension of the graph — the ones
//! written and the ones the shape rules compute from them by sums, differences and
//! divisions by those strides — is an affine function of the sizes. A rule compares two
//! such dimensions; their difference on a class is affine, so it is zero on the whole class
//! exactly when it is zero at the class's base and one and two periods further along each
//! size. The front end (the same parser and shape rules) runs at those points of every
//! class ([`periods`]):
//!
//! * every class holds: the rules hold for every size (proved, no precondition);
//! * some classes hold: a **precondition** naming the sizes, `H % 2 == 0`, listed in
//!   `PRECONDITIONS` and checked again at every instantiation;
//! * no class holds: a compile error, in symbols.
//!
//! When the rules hold at some points of a class but not at all of them, the difference is
//! not affine on the class (a period the normal forms did not see, or a rule that holds on
//! a hyperplane such as `N = 3` only): the classification falls back to sampling, below.
//!
//! The element-count rule of a reshape compares products of dims; along one size they are
//! polynomials of degree at most 2 in practice (a square image), which the three points
//! per size determine; a cross term of two sizes is not covered by these points.
//!
//! **Sampled**, when there is no normal form (a product of sizes `{ H * W }`, a division by
//! a size) or the function has integer sizes (strides, dilations): the check at the generic
//! point `p` (see [`crate::sizes`]) runs again at `p + δ·eᵢ` for every size `i` and `δ` in
//! [`STEPS`], as before; the preconditions and errors say that they were sampled and why.
//!
//! * A rule that holds at `p` and at every moved point is accepted.
//! * A rule that fails at `p` but holds at some moved point is a precondition.
//! * A rule that holds at `p` but fails at a moved point is a precondition too, listed.
//! * A rule that fails at `p` and at every moved point: a compile error, written in symbols.

pub mod periods;

use crate::ctxt::Ctxt;
use crate::instantiate::{front, Front};
use crate::sizes::affine::Residues;
use crate::sizes::Sizes;
use proc_macro2::TokenStream;

/// How far each size moves from the generic point.
pub const STEPS: [i64; 2] = [1, 2];

/// The front end's result at the generic point, or at a moved point when the rules fail at
/// the generic point only; and the preconditions found, each naming a size.
pub struct Classified {
    /// The front end's result to expand (its errors are compile errors).
    pub front: Front,
    /// `` needs `H % 2 == 0`: reshape: ... (fails at H = 3049) ``: the rules that hold
    /// only for some sizes.
    pub preconditions: Vec<String>,
}

/// Classifies the rules of the generic computation `item` (checked at the generic point as
/// `f`), as the module documentation says.
pub fn classify(attr: &TokenStream, item: &syn::ItemFn, f: Front) -> Classified {
    if f.deferred || f.cx.sizes().names.is_empty() {
        return Classified {
            front: f,
            preconditions: Vec::new(),
        };
    }
    let integer = crate::instantiate::integer_sizes(item);
    // The strides come from a checked module: the generic point's, or a moved point's
    // when the rules fail at the generic point.
    let probe = match f.checked {
        Some(_) => None,
        None => passing_moved_point(attr, item, &f),
    };
    let found = {
        let sizes = f.cx.sizes();
        let checked = f
            .checked
            .as_ref()
            .or(probe.as_ref().and_then(|g| g.checked.as_ref()));
        periods::residues(&sizes, &integer, checked)
    };
    let found = found.and_then(|classes| {
        let n = f.cx.sizes().names.len();
        periods::within_budget(classes, n, callee_calls(&f.computation))
    });
    let found = match found {
        Ok(classes) => by_classes(attr, item, f, &classes),
        Err(reason) => Err(Box::new((f, reason))),
    };
    match found {
        Ok(k) => k,
        Err(sampling) => {
            let (f, reason) = *sampling;
            let mut k = sampled(attr, item, f);
            let note = format!(" (sampled, not proved: {reason})");
            for p in &mut k.preconditions {
                p.push_str(&note);
            }
            k.front.cx.annotate_last(&note);
            k
        }
    }
}

/// The calls in the body of `c` to generic computations (each one instantiated again at
/// every point the classification runs the front end at).
fn callee_calls(c: &crate::ast::Computation) -> usize {
    use crate::ast::Walk;
    let mut calls = 0;
    c.body.walk(&mut |e| {
        if let Some(func) = crate::check::grad_call::called_computation(e) {
            calls += usize::from(c.options.generic_callees.iter().any(|(n, ..)| n == func));
        }
    });
    calls
}

/// The front end at the first point one or two steps from the generic point where the
/// rules pass.
fn passing_moved_point(attr: &TokenStream, item: &syn::ItemFn, f: &Front) -> Option<Front> {
    let point = f.cx.sizes().values.clone();
    (0..point.len()).find_map(|i| {
        STEPS.iter().find_map(|&step| {
            let g = front_at(attr, item, moved(&point, i, step)?);
            (g.checked.is_some() && !g.cx.has_errors()).then_some(g)
        })
    })
}

/// What the front end gave on one residue class.
struct Class {
    /// Every point of the class passed.
    holds: bool,
    /// Some points passed and some failed (the rule holds on a hyperplane only).
    mixed: bool,
    /// The first failing point's front, and the point.
    failure: Option<(Front, Vec<i64>)>,
    /// The second failing point's front.
    second: Option<Front>,
    /// A passing front.
    passing: Option<Front>,
}

/// The symbolic classification over the residue classes `all` (see the module
/// documentation); `Err` with the front at the generic point (parsed again) when the rules
/// hold at only some points of a class — a period the normal forms did not see — to be
/// sampled instead.
fn by_classes(
    attr: &TokenStream,
    item: &syn::ItemFn,
    f: Front,
    all: &Residues,
) -> Result<Classified, Box<(Front, String)>> {
    let (names, point) = {
        let s = f.cx.sizes();
        (s.names.clone(), s.values.clone())
    };
    let mut f = Some(f);
    let mut holding = Vec::new();
    let (mut failure, mut passing, mut mixed) = (None, None, false);
    // A second failure, from another class if one fails (another parity of `H` tells
    // `2*(H/2)` from `H-1`), else from the first failing class.
    let (mut other, mut second) = (None, None);
    for tuple in &all.classes {
        let base = all.base(&point, tuple);
        let class = run_class(attr, item, all, &base, &point, &mut f);
        if class.holds {
            holding.push(tuple.clone());
        }
        mixed |= class.mixed;
        if failure.is_none() {
            failure = class.failure;
            second = class.second;
        } else if other.is_none() {
            other = class.failure.map(|(g, _)| g);
        }
        passing = passing.or(class.passing);
    }
    if mixed {
        let (cx, c) = crate::instantiate::parse_at_generic_point(attr, item);
        let reason = "the rules hold at only some points of a residue class of the sizes";
        return Err(Box::new((front(cx, c), reason.to_string())));
    }
    let at = |v: &[i64]| Sizes::bound(names.clone(), v.to_vec()).describe();
    Ok(match (failure, passing) {
        (None, Some(front)) => Classified {
            front,
            preconditions: Vec::new(),
        },
        (Some((bad, point)), Some(front)) if !holding.is_empty() => {
            let condition = Residues {
                classes: holding,
                ..all.clone()
            }
            .describe(&names);
            let messages = symbolised(&bad);
            let message = messages.first().cloned().unwrap_or_default();
            Classified {
                front,
                preconditions: vec![format!(
                    "needs `{condition}`: {message} (fails at {})",
                    at(&point)
                )],
            }
        }
        (Some((bad, _)), _) => {
            if let Some(w) = other.or(second) {
                bad.cx.set_witness(w.cx.sizes().clone(), w.cx.messages());
            }
            Classified {
                front: bad,
                preconditions: Vec::new(),
            }
        }
        (None, None) => Classified {
            front: front_at(attr, item, point),
            preconditions: Vec::new(),
        },
    })
}

/// The front end at `base` and one and two periods further along each size; `f` is the
/// front at `point`, reused (taken) when `base` is `point`.
fn run_class(
    attr: &TokenStream,
    item: &syn::ItemFn,
    all: &Residues,
    base: &[i64],
    point: &[i64],
    f: &mut Option<Front>,
) -> Class {
    let mut points = vec![base.to_vec()];
    for i in 0..base.len() {
        for k in 1..=2 {
            let mut moved = base.to_vec();
            if let Some(v) = moved.get_mut(i) {
                *v = v.saturating_add(k * all.period(i));
            }
            points.push(moved);
        }
    }
    let mut class = Class {
        holds: true,
        mixed: false,
        failure: None,
        second: None,
        passing: None,
    };
    let mut passed_any = false;
    for values in points {
        let g = match (values == point, f.take()) {
            (true, Some(f)) => f,
            (_, taken) => {
                *f = taken;
                front_at(attr, item, values.clone())
            }
        };
        let ok = !g.deferred && g.checked.is_some() && !g.cx.has_errors();
        passed_any |= ok;
        class.holds &= ok;
        match ok {
            true if class.passing.is_none() => class.passing = Some(g),
            false if class.failure.is_none() => class.failure = Some((g, values)),
            false if class.second.is_none() => class.second = Some(g),
            _ => {}
        }
    }
    class.mixed = passed_any && !class.holds;
    class
}

/// The messages of `g`'s errors, in symbols.
fn symbolised(g: &Front) -> Vec<String> {
    let sizes = g.cx.sizes();
    g.cx.messages().iter().map(|m| sizes.symbolise(m)).collect()
}

/// The sampled classification (see the module documentation).
fn sampled(attr: &TokenStream, item: &syn::ItemFn, f: Front) -> Classified {
    let (names, point) = {
        let s = f.cx.sizes();
        (s.names.clone(), s.values.clone())
    };
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
    let cx = Ctxt::generic_at(values);
    let c = crate::parse::parse(&cx, attr.clone(), item.clone());
    front(cx, c)
}

#[cfg(test)]
mod tests;
