//! The affine normal form of a dimension expression: `Σ aᵢ·Sᵢ + Σ bⱼ·⌊Rⱼ / cⱼ⌋ + k`, a sum
//! of integer multiples of sizes and of *quotient terms* (the floor of an affine form by a
//! constant `c ≥ 2`, itself in normal form: coefficients in `0..c`, divided by their gcd
//! with `c`), plus a constant. `%` by a constant is `a - c·⌊a / c⌋`. A product of two sizes
//! or a division by a size has no such form ([`NotAffine`]).
//!
//! A form with quotient terms is **quasi-affine**: size `S` has a *period* `P` (the product
//! of the divisors over `S`) such that on every residue class of the sizes modulo their
//! periods the form is exactly affine. So two forms are compared symbolically
//! ([`compare`]): their difference, on each residue class, is an affine function whose
//! coefficients are read exactly (the form's value at the class's base and one period
//! further along each size); it is identically zero, a nonzero constant, or zero only on a
//! hyperplane. The classes where it is zero make the condition (`H % 2 == 0`).

use super::{DimExpr, DimOp};
use std::collections::BTreeMap;
use std::fmt;

/// A term of a normal form.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Atom {
    /// A size parameter, by index.
    Size(usize),
    /// `⌊form / c⌋`, `c ≥ 2`, the form reduced (coefficients and constant in `0..c`).
    Quot(Box<Affine>, i64),
}

/// `Σ coefficient·atom + constant`, atoms with a zero coefficient left out, so that two
/// equal forms are equal as values.
#[derive(Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub struct Affine {
    /// The coefficient of each atom (never zero).
    pub terms: BTreeMap<Atom, i64>,
    /// The constant.
    pub constant: i64,
}

/// Why an expression has no affine normal form: the sub-expression, written with the
/// sizes' indices (the caller shows it with the names).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NotAffine(pub DimExpr);

impl Affine {
    /// The constant `k`.
    pub fn constant(k: i64) -> Affine {
        Affine {
            terms: BTreeMap::new(),
            constant: k,
        }
    }

    fn atom(a: Atom) -> Affine {
        let mut f = Affine::default();
        f.terms.insert(a, 1);
        f
    }

    /// True when the form has no atom.
    pub fn is_constant(&self) -> bool {
        self.terms.is_empty()
    }

    /// `self + k·other`, `None` on overflow.
    pub fn add_scaled(&self, other: &Affine, k: i64) -> Option<Affine> {
        let mut out = self.clone();
        for (atom, c) in &other.terms {
            let slot = out.terms.entry(atom.clone()).or_insert(0);
            *slot = slot.checked_add(c.checked_mul(k)?)?;
            if *slot == 0 {
                out.terms.remove(atom);
            }
        }
        out.constant = out.constant.checked_add(other.constant.checked_mul(k)?)?;
        Some(out)
    }

    /// `k·self`, `None` on overflow.
    pub fn scale(&self, k: i64) -> Option<Affine> {
        Affine::constant(0).add_scaled(self, k)
    }

    /// `⌊self / c⌋` in normal form (`c ≥ 1`): the multiples of `c` are taken out of every
    /// coefficient, what is left is divided by its gcd with `c`.
    pub fn floor_div(&self, c: i64) -> Option<Affine> {
        if c == 1 {
            return Some(self.clone());
        }
        if c < 1 {
            return None;
        }
        let mut whole = Affine::constant(self.constant.div_euclid(c));
        let mut rest = Affine::constant(self.constant.rem_euclid(c));
        for (atom, a) in &self.terms {
            let (q, r) = (a.div_euclid(c), a.rem_euclid(c));
            whole = whole.add_scaled(&Affine::atom(atom.clone()), q)?;
            rest = rest.add_scaled(&Affine::atom(atom.clone()), r)?;
        }
        if rest.is_constant() {
            // `0 ≤ rest.constant < c`: the quotient is 0.
            return Some(whole);
        }
        // ⌊(g·u + r₀)/(g·c')⌋ = ⌊(u + ⌊r₀/g⌋)/c'⌋ with g the gcd of the coefficients and c.
        let g = rest.terms.values().fold(c, |g, &a| gcd(g, a));
        let mut reduced = Affine::constant(rest.constant.div_euclid(g));
        for (atom, a) in &rest.terms {
            reduced.terms.insert(atom.clone(), a / g);
        }
        let c = c / g;
        let quotient = match c {
            1 => reduced,
            _ => Affine::atom(Atom::Quot(Box::new(reduced), c)),
        };
        whole.add_scaled(&quotient, 1)
    }

    /// The value at `sizes` (floor division), `None` on overflow or a missing size.
    pub fn eval(&self, sizes: &[i64]) -> Option<i64> {
        let mut v = self.constant;
        for (atom, c) in &self.terms {
            let a = match atom {
                Atom::Size(i) => *sizes.get(*i)?,
                Atom::Quot(f, d) => f.eval(sizes)?.div_euclid(*d),
            };
            v = v.checked_add(a.checked_mul(*c)?)?;
        }
        Some(v)
    }

    /// For each size below `n`, the period of the form in that size: 1 when no quotient
    /// term involves it, else (a multiple of) the product of the divisors over it.
    pub fn periods(&self, n: usize) -> Vec<i64> {
        let mut p = vec![1i64; n];
        for atom in self.terms.keys() {
            if let Atom::Quot(f, c) = atom {
                let inner = f.periods(n);
                let used = f.sizes();
                for (i, slot) in p.iter_mut().enumerate() {
                    if used.contains(&i) {
                        let q = inner.get(i).copied().unwrap_or(1).saturating_mul(*c);
                        *slot = lcm(*slot, q);
                    }
                }
            }
        }
        p
    }

    /// The sizes the form involves.
    pub fn sizes(&self) -> Vec<usize> {
        let mut out = Vec::new();
        for atom in self.terms.keys() {
            match atom {
                Atom::Size(i) => out.push(*i),
                Atom::Quot(f, _) => out.extend(f.sizes()),
            }
        }
        out.sort_unstable();
        out.dedup();
        out
    }
}

/// The normal form of `d` (see the module documentation).
///
/// # Errors
/// [`NotAffine`] naming the first product of sizes or division by a size.
pub fn normalise(d: &DimExpr) -> Result<Affine, NotAffine> {
    let overflow = || NotAffine(d.clone());
    match d {
        DimExpr::Lit(v) => Ok(Affine::constant(*v)),
        DimExpr::Size(i) => Ok(Affine::atom(Atom::Size(*i))),
        DimExpr::Bin(op, l, r) => {
            let (a, b) = (normalise(l)?, normalise(r)?);
            match op {
                DimOp::Add => a.add_scaled(&b, 1).ok_or_else(overflow),
                DimOp::Sub => a.add_scaled(&b, -1).ok_or_else(overflow),
                DimOp::Mul => match (a.is_constant(), b.is_constant()) {
                    (true, _) => b.scale(a.constant).ok_or_else(overflow),
                    (_, true) => a.scale(b.constant).ok_or_else(overflow),
                    (false, false) => Err(NotAffine(d.clone())),
                },
                DimOp::Div | DimOp::Rem if !b.is_constant() || b.constant < 1 => {
                    Err(NotAffine(d.clone()))
                }
                DimOp::Div => a.floor_div(b.constant).ok_or_else(overflow),
                DimOp::Rem => {
                    let q = a.floor_div(b.constant).ok_or_else(overflow)?;
                    a.add_scaled(&q, -b.constant).ok_or_else(overflow)
                }
            }
        }
    }
}

/// How two normal forms compare over all sizes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Relation {
    /// Equal for every size.
    Always,
    /// Equal for no size.
    Never,
    /// Equal exactly on the residue classes of the condition (and nowhere else).
    When(Residues),
    /// Equal only on a hyperplane of some classes (`N == 3`), never on a whole class: for a
    /// generic computation, a mistake.
    OnlyAt,
}

/// A set of residue classes of the sizes: size `sizes[j]` modulo `periods[j]`, the tuples
/// of residues in `classes`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Residues {
    /// The sizes with a period above 1, by index.
    pub sizes: Vec<usize>,
    /// Their periods.
    pub periods: Vec<i64>,
    /// The residue tuples in the set.
    pub classes: Vec<Vec<i64>>,
}

/// The most residue classes [`compare`] and the macro enumerate; beyond, the caller falls
/// back to sampling.
pub const MAX_CLASSES: usize = 256;

impl Residues {
    /// Every residue tuple of `periods` (over the sizes whose period is above 1), `None`
    /// beyond [`MAX_CLASSES`].
    pub fn all(periods: &[i64]) -> Option<Residues> {
        let (sizes, periods): (Vec<usize>, Vec<i64>) = periods
            .iter()
            .enumerate()
            .filter(|(_, p)| **p > 1)
            .map(|(i, p)| (i, *p))
            .unzip();
        let count = periods.iter().try_fold(1usize, |n, p| {
            n.checked_mul(usize::try_from(*p).ok()?)
                .filter(|n| *n <= MAX_CLASSES)
        })?;
        let mut classes = Vec::with_capacity(count);
        for k in 0..count {
            let mut rest = k;
            let mut tuple = Vec::with_capacity(periods.len());
            for p in &periods {
                let p = usize::try_from(*p).ok()?;
                tuple.push(i64::try_from(rest % p).ok()?);
                rest /= p;
            }
            classes.push(tuple);
        }
        Some(Residues {
            sizes,
            periods,
            classes,
        })
    }

    /// `point` moved to the class `tuple` (the nearest point at or above it in that class).
    pub fn base(&self, point: &[i64], tuple: &[i64]) -> Vec<i64> {
        let mut out = point.to_vec();
        for ((i, p), r) in self.sizes.iter().zip(&self.periods).zip(tuple) {
            if let Some(v) = out.get_mut(*i) {
                *v += (r - v.rem_euclid(*p)).rem_euclid(*p);
            }
        }
        out
    }

    /// The period of size `i` (1 when it has none).
    pub fn period(&self, i: usize) -> i64 {
        self.sizes
            .iter()
            .position(|s| *s == i)
            .and_then(|j| self.periods.get(j).copied())
            .unwrap_or(1)
    }

    /// The condition in the sizes' names: `H % 2 == 0`, `H % 2 == 0 && W % 2 == 0`, or the
    /// residue tuples listed when the set is not a product of one set per size.
    pub fn describe(&self, names: &[String]) -> String {
        let name = |i: &usize| names.get(*i).cloned().unwrap_or_else(|| format!("?{i}"));
        let per_size: Vec<Vec<i64>> = (0..self.sizes.len())
            .map(|j| {
                let mut v: Vec<i64> = self
                    .classes
                    .iter()
                    .filter_map(|t| t.get(j))
                    .copied()
                    .collect();
                v.sort_unstable();
                v.dedup();
                v
            })
            .collect();
        let product: usize = per_size.iter().map(Vec::len).product();
        if product == self.classes.len() {
            let parts: Vec<String> = self
                .sizes
                .iter()
                .zip(&self.periods)
                .zip(&per_size)
                .filter(|((_, p), set)| set.len() < usize::try_from(**p).unwrap_or(0))
                .map(|((i, p), set)| one_size(&name(i), *p, set))
                .collect();
            return parts.join(" && ");
        }
        let names: Vec<String> = self.sizes.iter().map(name).collect();
        let periods: Vec<String> = self.periods.iter().map(ToString::to_string).collect();
        let tuples: Vec<String> = self
            .classes
            .iter()
            .map(|t| {
                let t: Vec<String> = t.iter().map(ToString::to_string).collect();
                format!("({})", t.join(", "))
            })
            .collect();
        format!(
            "({}) % ({}) in {{{}}}",
            names.join(", "),
            periods.join(", "),
            tuples.join(", ")
        )
    }
}

/// The residues `set` of one size modulo `p`, written simply: `H % 2 == 0` when the set is
/// one class of a divisor of `p`, else `H % 6 in {1, 3}`.
fn one_size(name: &str, p: i64, set: &[i64]) -> String {
    for q in (2..=p).filter(|q| p % q == 0) {
        if let Some(&r) = set.first() {
            let class: Vec<i64> = (0..p).filter(|v| v % q == r % q).collect();
            if class == set {
                return format!("{name} % {q} == {}", r % q);
            }
        }
    }
    let set: Vec<String> = set.iter().map(ToString::to_string).collect();
    format!("{name} % {p} in {{{}}}", set.join(", "))
}

/// How `a` and `b` compare over all sizes (`n` of them), exactly: see the module
/// documentation. `None` when the residue classes are too many or a value overflows.
pub fn compare(a: &Affine, b: &Affine, n: usize) -> Option<Relation> {
    let d = a.add_scaled(b, -1)?;
    let all = Residues::all(&d.periods(n))?;
    // A base far from 0, so that the neighbours stay positive.
    let origin = vec![0i64; n];
    let mut holds = Vec::new();
    let mut hyperplane = false;
    for tuple in &all.classes {
        let base = all.base(&origin, tuple);
        let at_base = d.eval(&base)?;
        let mut flat = true;
        for i in 0..n {
            let mut moved = base.clone();
            if let Some(v) = moved.get_mut(i) {
                *v += all.period(i);
            }
            flat &= d.eval(&moved)? == at_base;
        }
        match (flat, at_base == 0) {
            (true, true) => holds.push(tuple.clone()),
            (true, false) => {}
            (false, _) => hyperplane = true,
        }
    }
    Some(match holds.len() {
        0 if hyperplane => Relation::OnlyAt,
        0 => Relation::Never,
        k if k == all.classes.len() => Relation::Always,
        _ => Relation::When(Residues {
            classes: holds,
            ..all
        }),
    })
}

fn gcd(a: i64, b: i64) -> i64 {
    let (mut a, mut b) = (a.abs(), b.abs());
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

fn lcm(a: i64, b: i64) -> i64 {
    match gcd(a, b) {
        0 => 0,
        g => (a / g).saturating_mul(b),
    }
}

impl Affine {
    /// The form written with the sizes' names: `2*N + 1`, `(H + 1)/2 - 1`.
    pub fn show(&self, names: &[String]) -> String {
        Named(self, names).to_string()
    }
}

/// Display of a form with the sizes' names.
struct Named<'a>(&'a Affine, &'a [String]);

impl fmt::Display for Named<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let Named(form, names) = self;
        let mut first = true;
        for (atom, c) in &form.terms {
            let sign = match (first, *c < 0) {
                (true, true) => "-",
                (true, false) => "",
                (false, true) => " - ",
                (false, false) => " + ",
            };
            let k = c.abs();
            let coefficient = if k == 1 {
                String::new()
            } else {
                format!("{k}*")
            };
            match atom {
                Atom::Size(i) => match names.get(*i) {
                    Some(name) => write!(f, "{sign}{coefficient}{name}")?,
                    None => write!(f, "{sign}{coefficient}?{i}")?,
                },
                Atom::Quot(inner, d) => {
                    let inner = Named(inner, names).to_string();
                    match inner.contains(' ') {
                        true => write!(f, "{sign}{coefficient}({inner})/{d}")?,
                        false => write!(f, "{sign}{coefficient}{inner}/{d}")?,
                    }
                }
            }
            first = false;
        }
        match (first, form.constant) {
            (true, k) => write!(f, "{k}"),
            (false, 0) => Ok(()),
            (false, k) if k < 0 => write!(f, " - {}", -k),
            (false, k) => write!(f, " + {k}"),
        }
    }
}

#[cfg(test)]
#[path = "affine_tests.rs"]
mod tests;
