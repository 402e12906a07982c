//! Size parameters: `fn dense<const B: usize>(x: Tensor<f32, B, 784>)`. A dimension is an
//! expression over the sizes (`B`, `{ H / 2 }`, `{ 2 * N }`, `{ N + 1 }`, `{ H - K + 1 }`)
//! evaluated in `i64` with Rust's `usize` semantics: `/` rounds toward zero (the floor, as
//! sizes are non-negative), `%` is the remainder; an overflow, a division by zero or a
//! negative value — of the dimension or of any part of it, as `H - K` underflows in a Rust
//! const — is an error naming the sizes.
//!
//! The same parser and checker run in two places:
//! * at compile time, on a **generic point**: every size gets a distinct prime that no
//!   program writes by accident, so a shape rule that fails there fails for every size
//!   (contracting `B` against 784) and is a compile error, with the numbers in the message
//!   written back as the symbols (`f32[B,784]`);
//! * at instantiation, with the sizes of the call: every rule runs again on real sizes, so a
//!   rule that holds only for some sizes (a 3×3 VALID window needs `H ≥ 3`) is checked
//!   there, once per size, and its error names the sizes.

use std::cell::RefCell;
use std::fmt;

pub mod affine;
mod two_points;

/// The values the sizes take at the generic point, in declaration order (primes far from
/// round numbers and powers of two, and far enough apart that `2*N+1` or `H/2` decode back
/// to one symbol).
pub const GENERIC_VALUES: [i64; 16] = [
    3049, 1459, 2351, 2843, 1259, 2441, 3347, 2753, 1609, 3251, 1993, 2179, 1321, 1723, 2039, 3119,
];

/// The values of the *integer* sizes (those no parameter's dim gives alone, such as a
/// stride or a dilation) in the second round of generic points, tried when the primes make
/// a dimension negative (`{ (H - D * (K - 1) - 1) / S + 1 }` with `D` and `K` near 2000):
/// small, as strides and paddings are. They are not written back as symbols in messages.
pub const SMALL_VALUES: [i64; 3] = [1, 2, 3];

/// A dimension expression over the size parameters.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DimExpr {
    /// An integer literal.
    Lit(i64),
    /// A size parameter, by its index in the declaration.
    Size(usize),
    /// `a op b`.
    Bin(DimOp, Box<DimExpr>, Box<DimExpr>),
}

/// The operators of a dimension expression.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DimOp {
    /// `+`.
    Add,
    /// `-`.
    Sub,
    /// `*`.
    Mul,
    /// `/` (rounds toward zero).
    Div,
    /// `%`.
    Rem,
}

/// The size parameters of one computation and the values they have in this check.
#[derive(Clone, Debug, Default)]
pub struct Sizes {
    /// The names, in declaration order.
    pub names: Vec<String>,
    /// The values (the generic point at compile time, the call's sizes at instantiation).
    pub values: Vec<i64>,
    /// True at compile time (the values are the generic point, messages are symbolised).
    pub generic: bool,
    /// The expressions evaluated so far, with their values (to write messages back in
    /// symbols) and whether one came out negative.
    seen: RefCell<Vec<(i64, String)>>,
    negative: std::cell::Cell<bool>,
    /// The sizes given a small value (not decoded in messages).
    small: Vec<bool>,
    /// Every dimension expression evaluated, once each (their normal forms decide how the
    /// rules are classified, see [`crate::preconditions`]).
    exprs: RefCell<Vec<DimExpr>>,
    /// Whole shapes written in symbols (a generic callee's result, `f32[3049,1,1,8]` as
    /// `f32[B,(H+S-1)/S,(H+S-1)/S,8]`), for dims whose numbers are too small to decode.
    shapes: RefCell<Vec<(String, String)>>,
}

impl Sizes {
    /// Sizes bound to `values` (at instantiation).
    pub fn bound(names: Vec<String>, values: Vec<i64>) -> Sizes {
        Sizes {
            names,
            values,
            generic: false,
            seen: RefCell::default(),
            negative: std::cell::Cell::new(false),
            small: Vec::new(),
            exprs: RefCell::default(),
            shapes: RefCell::default(),
        }
    }

    /// Sizes at the generic point, the values of [`GENERIC_VALUES`] taken from `offset`
    /// on (cyclically), so that a caller can retry with another assignment when an
    /// expression such as `{ H - K }` is negative for the first one.
    pub fn generic(names: Vec<String>, offset: usize) -> Sizes {
        Sizes::generic_with_small(names, offset, &[], false)
    }

    /// [`Sizes::generic`], except that the sizes named in `small` take the values of
    /// [`SMALL_VALUES`] (cyclically, from `offset` on).
    /// With `ones`, every small size is 1 (the last round: several dilations at once).
    pub fn generic_with_small(
        names: Vec<String>,
        offset: usize,
        small: &[String],
        ones: bool,
    ) -> Sizes {
        let n = GENERIC_VALUES.len();
        let small: Vec<bool> = names.iter().map(|s| small.contains(s)).collect();
        let mut j = offset;
        let values = (0..names.len())
            .map(|i| {
                if small.get(i).copied().unwrap_or(false) && ones {
                    return 1;
                }
                if small.get(i).copied().unwrap_or(false) {
                    j += 1;
                    return SMALL_VALUES
                        .get((j - 1) % SMALL_VALUES.len())
                        .copied()
                        .unwrap_or(2);
                }
                GENERIC_VALUES.get((i + offset) % n).copied().unwrap_or(1)
            })
            .collect();
        Sizes {
            names,
            values,
            generic: true,
            seen: RefCell::default(),
            negative: std::cell::Cell::new(false),
            small,
            exprs: RefCell::default(),
            shapes: RefCell::default(),
        }
    }

    /// Sizes at a generic point given by `values` (a residue class's base or a point one
    /// period further, see [`crate::preconditions`]): messages are symbolised as at
    /// [`Sizes::generic`].
    pub fn generic_at(names: Vec<String>, values: Vec<i64>) -> Sizes {
        Sizes {
            generic: true,
            ..Sizes::bound(names, values)
        }
    }

    /// The index of the size called `name`.
    pub fn index(&self, name: &str) -> Option<usize> {
        self.names.iter().position(|n| n == name)
    }

    /// `B = 32, H = 28`: the values, for messages.
    pub fn describe(&self) -> String {
        let pairs: Vec<String> = self
            .names
            .iter()
            .zip(&self.values)
            .map(|(n, v)| format!("{n} = {v}"))
            .collect();
        pairs.join(", ")
    }

    /// Parses a dimension written in a type or an integer list: a literal, a size name or
    /// a block `{ ... }` of `+ - * / %` over them. `None` when `e` is not of that form
    /// (the caller reports it); `Some(Err)` for a name that is not a size.
    pub fn parse(&self, e: &syn::Expr) -> Option<Result<DimExpr, String>> {
        match e {
            syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Int(i),
                ..
            }) => Some(
                i.base10_parse::<i64>()
                    .map(DimExpr::Lit)
                    .map_err(|e| e.to_string()),
            ),
            syn::Expr::Path(p) if p.qself.is_none() => {
                let ident = p.path.get_ident()?.to_string();
                Some(self.index(&ident).map(DimExpr::Size).ok_or_else(|| {
                    format!(
                        "`{ident}` is not a size parameter (declare it: `const {ident}: usize`)"
                    )
                }))
            }
            syn::Expr::Paren(p) => self.parse(&p.expr),
            syn::Expr::Group(g) => self.parse(&g.expr),
            syn::Expr::Block(b) => match b.block.stmts.as_slice() {
                [syn::Stmt::Expr(inner, None)] => self.parse(inner),
                _ => None,
            },
            syn::Expr::Binary(b) => {
                let op = match b.op {
                    syn::BinOp::Add(_) => DimOp::Add,
                    syn::BinOp::Sub(_) => DimOp::Sub,
                    syn::BinOp::Mul(_) => DimOp::Mul,
                    syn::BinOp::Div(_) => DimOp::Div,
                    syn::BinOp::Rem(_) => DimOp::Rem,
                    _ => return None,
                };
                let (l, r) = (self.parse(&b.left)?, self.parse(&b.right)?);
                Some(l.and_then(|l| r.map(|r| DimExpr::Bin(op, Box::new(l), Box::new(r)))))
            }
            _ => None,
        }
    }

    /// The value of `d` at these sizes, remembered (with its text) for symbolic messages.
    ///
    /// # Errors
    /// An overflow, a division by zero or a negative dimension, naming the expression (the
    /// caller names the sizes).
    pub fn eval(&self, d: &DimExpr) -> Result<i64, String> {
        if !self.exprs.borrow().contains(d) {
            self.exprs.borrow_mut().push(d.clone());
        }
        let text = self.show(d);
        let value = self.value(d).map_err(|e| match e {
            Bad::Overflow => format!("dimension `{text}` overflows or divides by zero"),
            Bad::Negative(sub, v) => {
                self.negative.set(true);
                match sub == *d {
                    true => format!("dimension `{text}` is {v}: a dimension cannot be negative"),
                    false => format!(
                        "dimension `{text}`: `{}` is {v}, and sizes are `usize` (no negative \
                         intermediate value)",
                        self.show(&sub)
                    ),
                }
            }
        })?;
        if !matches!(d, DimExpr::Lit(_)) {
            self.seen.borrow_mut().push((value, text));
        }
        Ok(value)
    }

    /// The value of `d`, every intermediate value checked as Rust checks `usize`
    /// arithmetic in a const: no overflow, no division by zero, nothing negative.
    fn value(&self, d: &DimExpr) -> Result<i64, Bad> {
        let v = match d {
            DimExpr::Lit(v) => Some(*v),
            DimExpr::Size(i) => self.values.get(*i).copied(),
            DimExpr::Bin(op, l, r) => {
                let (l, r) = (self.value(l)?, self.value(r)?);
                match op {
                    DimOp::Add => l.checked_add(r),
                    DimOp::Sub => l.checked_sub(r),
                    DimOp::Mul => l.checked_mul(r),
                    DimOp::Div => l.checked_div(r),
                    DimOp::Rem => l.checked_rem(r),
                }
            }
        };
        match v {
            None => Err(Bad::Overflow),
            Some(v) if v < 0 => Err(Bad::Negative(d.clone(), v)),
            Some(v) => Ok(v),
        }
    }

    /// Remembers that `value` is written `text` in messages (a generic callee's result dim
    /// in the caller's symbols, `(H+S-1)/S`), unless `value` is below 2 or is a literal
    /// dim the caller writes (then the number stays a number).
    pub fn note(&self, value: i64, text: String) {
        let literal = self
            .exprs
            .borrow()
            .iter()
            .any(|e| matches!(e, DimExpr::Lit(v) if *v == value));
        let known = self.seen.borrow().iter().any(|(v, _)| *v == value);
        if self.generic && value >= 2 && !literal && !known {
            self.seen.borrow_mut().push((value, text));
        }
    }

    /// Remembers that the shape printed `numbers` (`f32[3049,1,1,8]`) is written `symbols`
    /// (`f32[B,(H+S-1)/S,(H+S-1)/S,8]`) in messages: a generic callee's result, whose dims
    /// may be 0 or 1 at the generic point (a stride larger than the image), numbers that
    /// [`Sizes::note`] cannot claim for one symbol.
    pub fn note_shape(&self, numbers: String, symbols: String) {
        let mut shapes = self.shapes.borrow_mut();
        if self.generic && numbers != symbols && !shapes.iter().any(|(n, _)| *n == numbers) {
            shapes.push((numbers, symbols));
        }
    }

    /// The value of `d` at these sizes without remembering it (`None` when it has none).
    pub fn peek(&self, d: &DimExpr) -> Option<i64> {
        self.value(d).ok()
    }

    /// The dimension expressions evaluated so far, each once.
    pub fn exprs(&self) -> Vec<DimExpr> {
        self.exprs.borrow().clone()
    }

    /// True when a dimension came out negative (at the generic point: retry with another
    /// assignment of the values, see [`Sizes::generic`]).
    pub fn had_negative(&self) -> bool {
        self.negative.get()
    }

    /// `d` written with the size names (`H / 2`, `2 * N + 1`).
    pub fn show(&self, d: &DimExpr) -> String {
        Shown(self, d).to_string()
    }

    /// `message` with every number that is the value of a size (or of a dimension
    /// expression evaluated so far, or a small multiple or offset of a size) written as
    /// that symbol: `f32[3049,784]` becomes `f32[B,784]`. Unchanged outside the generic
    /// point.
    pub fn symbolise(&self, message: &str) -> String {
        if !self.generic {
            return message.to_string();
        }
        // A shape noted whole is replaced whole; the numbers around it one by one.
        let shapes = self.shapes.borrow();
        let first = shapes
            .iter()
            .filter_map(|(n, s)| message.find(n.as_str()).map(|i| (i, n, s)))
            .min_by_key(|(i, ..)| *i);
        if let Some((i, numbers, symbols)) = first {
            if let (Some(head), Some(tail)) = (message.get(..i), message.get(i + numbers.len()..)) {
                return format!(
                    "{}{symbols}{}",
                    self.symbolise_numbers(head),
                    self.symbolise(tail)
                );
            }
        }
        self.symbolise_numbers(message)
    }

    /// [`Sizes::symbolise`] number by number.
    fn symbolise_numbers(&self, message: &str) -> String {
        let mut out = String::with_capacity(message.len());
        let mut digits = String::new();
        let mut after_word = false;
        for c in message.chars().chain(std::iter::once('\0')) {
            if c.is_ascii_digit() {
                digits.push(c);
                continue;
            }
            if !digits.is_empty() {
                let symbol = digits
                    .parse::<i64>()
                    .ok()
                    .filter(|_| !after_word)
                    .and_then(|n| self.symbol(n));
                out.push_str(symbol.as_deref().unwrap_or(&digits));
                digits.clear();
            }
            after_word = c.is_alphanumeric() || c == '_' || c == '.';
            if c != '\0' {
                out.push(c);
            }
        }
        out
    }

    /// The symbolic form of `n`: the first of [`Sizes::candidates`].
    fn symbol(&self, n: i64) -> Option<String> {
        self.candidates(n).into_iter().next()
    }

    /// The symbolic forms that give `n` at these sizes, simplest first: a size, an
    /// expression evaluated so far, then `a*S+b` (small `a`), `S/d+b`, `a*(S/d)+b`,
    /// `S+T+b`, `S-T+b`, `a*S+b` (larger `a`), `a*S*T` (offsets `|b| ≤ 8`). One point
    /// cannot tell `H-1` from `2*(H/2)` at an odd `H`; [`Sizes::symbolise_against`] picks
    /// the first form that also gives a second point's number.
    pub(crate) fn candidates(&self, n: i64) -> Vec<String> {
        let large = |i: usize| !self.small.get(i).copied().unwrap_or(false);
        let mut out: Vec<String> = (0..self.values.len())
            .filter(|&i| large(i) && self.values.get(i) == Some(&n))
            .filter_map(|i| self.names.get(i).cloned())
            .collect();
        out.extend(
            self.seen
                .borrow()
                .iter()
                .filter(|(v, _)| *v == n)
                .map(|(_, t)| t.clone()),
        );
        let sizes: Vec<(&String, i64)> = self
            .names
            .iter()
            .zip(self.values.iter().copied())
            .enumerate()
            .filter(|(i, _)| large(*i))
            .map(|(_, p)| p)
            .collect();
        let near = |m: Option<i64>| m.map(|m| n - m).filter(|b| b.abs() <= 8);
        let scaled = |range: std::ops::RangeInclusive<i64>, out: &mut Vec<String>| {
            for a in range {
                for &(s, v) in &sizes {
                    out.extend(near(v.checked_mul(a)).map(|b| affine(s, a, 1, b)));
                }
            }
        };
        scaled(1..=4, &mut out);
        for d in 2..=4i64 {
            for &(s, v) in &sizes {
                out.extend(near(Some(v / d)).map(|b| affine(s, 1, d, b)));
            }
        }
        for a in 2..=4i64 {
            for d in 2..=4i64 {
                for &(s, v) in &sizes {
                    let base = format!("{a}*({s}/{d})");
                    out.extend(near((v / d).checked_mul(a)).map(|b| affine(&base, 1, 1, b)));
                }
            }
        }
        for &(s, v) in &sizes {
            for &(t, w) in &sizes {
                if s == t {
                    continue;
                }
                out.extend(near(v.checked_add(w)).map(|b| affine(&format!("{s}+{t}"), 1, 1, b)));
                out.extend(near(v.checked_sub(w)).map(|b| affine(&format!("{s}-{t}"), 1, 1, b)));
            }
        }
        scaled(5..=64, &mut out);
        for &(s, v) in &sizes {
            for &(t, w) in &sizes {
                let Some(vw) = v.checked_mul(w).filter(|p| *p != 0) else {
                    continue;
                };
                if n % vw == 0 && (1..=64).contains(&(n / vw)) {
                    out.push(affine(&format!("{s}*{t}"), n / vw, 1, 0));
                }
            }
        }
        out
    }

    /// The value of the form `text` (one of [`Sizes::candidates`]) at these sizes.
    pub(crate) fn value_of_text(&self, text: &str) -> Option<i64> {
        let e: syn::Expr = syn::parse_str(text).ok()?;
        let d = self.parse(&e)?.ok()?;
        self.peek(&d)
    }
}

/// Why a dimension expression has no value.
enum Bad {
    /// An overflow or a division by zero.
    Overflow,
    /// The first sub-expression that came out negative, and its value.
    Negative(DimExpr, i64),
}

/// `a*N/d+b` written simply: `N`, `2*N+1`, `N/2-1`.
fn affine(name: &str, a: i64, d: i64, b: i64) -> String {
    let mut s = match a {
        1 => name.to_string(),
        _ => format!("{a}*{name}"),
    };
    if d != 1 {
        s.push_str(&format!("/{d}"));
    }
    match b {
        0 => s,
        b if b > 0 => format!("{s}+{b}"),
        b => format!("{s}{b}"),
    }
}

/// Display of a dimension expression with the size names.
struct Shown<'a>(&'a Sizes, &'a DimExpr);

impl fmt::Display for Shown<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let Shown(sizes, d) = self;
        match d {
            DimExpr::Lit(v) => write!(f, "{v}"),
            DimExpr::Size(i) => match sizes.names.get(*i) {
                Some(name) => f.write_str(name),
                None => write!(f, "?{i}"),
            },
            DimExpr::Bin(op, l, r) => {
                let text = match op {
                    DimOp::Add => "+",
                    DimOp::Sub => "-",
                    DimOp::Mul => "*",
                    DimOp::Div => "/",
                    DimOp::Rem => "%",
                };
                // Parentheses only where precedence needs them: `H - K + 1`, `(H - 1) / 2`.
                let side = |e: &DimExpr, right: bool| match e {
                    DimExpr::Bin(inner, ..)
                        if precedence(*inner) < precedence(*op)
                            || (right && precedence(*inner) == precedence(*op)) =>
                    {
                        format!("({})", Shown(sizes, e))
                    }
                    _ => Shown(sizes, e).to_string(),
                };
                write!(f, "{}{text}{}", side(l, false), side(r, true))
            }
        }
    }
}

fn precedence(op: DimOp) -> u8 {
    match op {
        DimOp::Add | DimOp::Sub => 1,
        DimOp::Mul | DimOp::Div | DimOp::Rem => 2,
    }
}

#[cfg(test)]
mod tests;
