//! The residue classes a generic computation is checked on: each size's period is the lcm
//! of the divisors over it in the normal forms of the dimension expressions written
//! ([`crate::sizes::affine`]) and of the strides the checked module's shape rules divide
//! by (windows, slices). When an expression has no normal form (a product of sizes, a
//! division by a size), or the function has integer sizes (a stride or a dilation that is
//! a size), or the classes are too many, there is no period: the caller samples instead
//! and says why.

use crate::check::Checked;
use crate::sizes::affine::{normalise, Residues};
use crate::sizes::Sizes;

/// The residue classes of the sizes on which every dimension of the graph is affine, or
/// why there are none (to say in the preconditions and errors).
pub fn residues(
    sizes: &Sizes,
    integer_sizes: &[String],
    checked: Option<&Checked>,
) -> Result<Residues, String> {
    if let Some(s) = integer_sizes.first() {
        return Err(format!(
            "`{s}` is an integer size (no argument's shape gives it; as a stride or a \
             dilation, shape rules divide or multiply by it)"
        ));
    }
    let n = sizes.names.len();
    let mut periods = vec![1i64; n];
    for e in sizes.exprs() {
        let form = normalise(&e).map_err(|bad| {
            format!(
                "`{}` is not affine in the sizes (a product of sizes or a division by one)",
                sizes.show(&bad.0)
            )
        })?;
        for (slot, p) in periods.iter_mut().zip(form.periods(n)) {
            *slot = lcm(*slot, p);
        }
    }
    let strides = checked.map_or(1, |c| {
        module_strides(&xla_core::text::print_module(&c.module))
            .into_iter()
            .fold(1, lcm)
    });
    if strides > 1 {
        for slot in &mut periods {
            *slot = lcm(*slot, strides);
        }
    }
    Residues::all(&periods).ok_or_else(|| {
        format!(
            "the residue classes of the sizes' periods ({}) are more than {}",
            periods
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join(", "),
            crate::sizes::affine::MAX_CLASSES
        )
    })
}

/// The most front-end runs the classification makes on one function, counting each
/// instantiation of a generic callee as one more: `classes × (1 + 2n) × (1 + calls)` for
/// `n` sizes and `calls` calls to generic computations. 2,304 is the 256 classes of 4 sizes
/// (9 points each), so no function of up to 4 sizes without generic calls is cut. Measured with
/// `xla-dsl/examples/classify_cost` (README, "Generic sizes"): on a quiet
/// machine a front-end run costs 0.04–0.09 ms in a release build of the macro and 0.4 ms
/// in a debug build (CI's), ~1 ms per run and call for a function calling `xla::nn` layers
/// in debug; 4–7 times that at load 10–13, where 8 halved sizes (4,352 runs) took 3.3 s in
/// release. Beyond the budget, the rules are sampled instead.
pub const MAX_RUNS: usize = 2304;

/// `classes`, unless checking every one of them would take more than [`MAX_RUNS`]
/// front-end runs (then why not, to say in the preconditions and errors).
pub fn within_budget(classes: Residues, n: usize, calls: usize) -> Result<Residues, String> {
    let points = 1 + 2 * n;
    let runs = classes
        .classes
        .len()
        .saturating_mul(points)
        .saturating_mul(1 + calls);
    if runs <= MAX_RUNS {
        return Ok(classes);
    }
    let per_class = match calls {
        0 => format!("{points} points each"),
        c => format!(
            "{points} points each, {c} generic call{} per point",
            if c == 1 { "" } else { "s" }
        ),
    };
    Err(format!(
        "checking the {} residue classes of the sizes ({per_class}) takes {runs} runs of the \
         front end, more than the {MAX_RUNS} the macro allows",
        classes.classes.len()
    ))
}

/// The strides above 1 in HLO text: a window's `stride=2x1` and a slice's `[0:8:2]`.
pub fn module_strides(text: &str) -> Vec<i64> {
    let mut out = Vec::new();
    for part in text.split("stride=").skip(1) {
        let field = part.split(|c: char| c.is_whitespace() || c == '}').next();
        out.extend(
            field
                .unwrap_or("")
                .split('x')
                .filter_map(|v| v.parse::<i64>().ok()),
        );
    }
    for part in text.split("slice={").skip(1) {
        let body = part.split('}').next().unwrap_or("");
        for dim in body.split('[').skip(1) {
            let dim = dim.split(']').next().unwrap_or("");
            out.extend(
                dim.split(':')
                    .nth(2)
                    .and_then(|v| v.trim().parse::<i64>().ok()),
            );
        }
    }
    out.retain(|s: &i64| *s > 1);
    out.sort_unstable();
    out.dedup();
    out
}

fn lcm(a: i64, b: i64) -> i64 {
    let (mut x, mut y) = (a.abs(), b.abs());
    while y != 0 {
        (x, y) = (y, x % y);
    }
    match x {
        0 => 0,
        g => (a / g).saturating_mul(b),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn classes_beyond_the_run_budget_are_refused_with_the_count() {
        // 4 sizes with period 4: 256 classes, 9 points each, within the budget; with a
        // generic call per point, twice that.
        let all = Residues::all(&[4, 4, 4, 4]).unwrap();
        assert_eq!(all.classes.len(), 256);
        assert_eq!(within_budget(all.clone(), 4, 0).unwrap(), all);
        let why = within_budget(all, 4, 1).unwrap_err();
        assert!(why.contains("256 residue classes"), "{why}");
        assert!(
            why.contains("(9 points each, 1 generic call per point)"),
            "{why}"
        );
        assert!(
            why.contains(&format!(
                "4608 runs of the front end, more than the {MAX_RUNS}"
            )),
            "{why}"
        );
        // A generic call per point multiplies the runs.
        let some = Residues::all(&[4, 4]).unwrap();
        let why = within_budget(some.clone(), 2, 40).unwrap_err();
        assert!(
            why.contains(
                "16 residue classes of the sizes (5 points each, 40 generic calls per point) takes 3280 runs"
            ),
            "{why}"
        );
        assert_eq!(within_budget(some.clone(), 2, 3).unwrap(), some);
    }

    #[test]
    fn strides_are_read_from_windows_and_slices() {
        let text =
            "%r = f32[1,2]{1,0} reduce-window(%x, %z), window={size=3x3 stride=2x3 pad=0_0x0_0}\n\
                    %s = f32[4]{0} slice(%y), slice={[0:8:2], [1:3:1]}\n\
                    %t = f32[4]{0} slice(%y), slice={[0:4]}";
        assert_eq!(module_strides(text), vec![2, 3]);
    }
}
