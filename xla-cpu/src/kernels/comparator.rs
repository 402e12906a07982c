//! Sort comparators that order by the first operand alone, recognised so `sort` can key
//! once and sort natively instead of running the comparator per pair.
//!
//! JAX's `sort`, `argsort` and `sort_key_val` all emit one shape of comparator: the
//! parameters `(a0, b0, a1, b1, ...)`, and a root `compare(key(a0), key(b0))` with
//! `type=TOTALORDER` (floats) or a plain compare (integers), where `key` is the identity or
//! JAX's float canonicalisation `select(x != x, nan, select(x == 0, 0, x))` (every NaN the
//! same, `-0` equal to `+0`). The other operands ride along. Measured on an argsort of
//! f32[256,1024] (a ranking loss): 120 ms through the comparator network.

use crate::kernels::combiner::Combiner;
use xla_core::attrs::ComparisonDirection;
use xla_core::ir::{Computation, InstrId, Op};

/// How a key is derived from its operand before the compare.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Key {
    /// The value itself.
    Plain,
    /// NaN → the canonical NaN, `-0` → `+0` (JAX's `_canonicalize_float_for_sort`).
    Canonical,
}

/// The comparator `compare(key(p0), key(p1))` over parameters `params` (scalars), if
/// `comp` is one.
pub(crate) fn key_compare(comp: &Computation, params: &[InstrId]) -> Option<Combiner> {
    let (p0, p1) = (*params.first()?, *params.get(1)?);
    if !params.len().is_multiple_of(2) {
        return None;
    }
    let root = comp.root_instruction()?;
    let Op::Compare {
        direction,
        comparison_type,
    } = &root.op
    else {
        return None;
    };
    let [a, b] = root.operands.as_slice() else {
        return None;
    };
    let (ka, kb) = (key_of(comp, *a, p0)?, key_of(comp, *b, p1)?);
    (ka == kb).then_some(Combiner::KeyCompare(*direction, *comparison_type, ka))
}

/// How instruction `id` derives from parameter `p`, if it is one of the [`Key`] forms.
fn key_of(comp: &Computation, id: InstrId, p: InstrId) -> Option<Key> {
    if id == p {
        return Some(Key::Plain);
    }
    // select(ne(p, p), nan, select(eq(p, 0), 0, p))
    let (ne, nan, inner) = select_parts(comp, id)?;
    let (eq, zero, same) = select_parts(comp, inner)?;
    let ok = same == p
        && compares(comp, ne, ComparisonDirection::Ne, |x, y| x == p && y == p)
        && compares(comp, eq, ComparisonDirection::Eq, |x, y| {
            x == p && constant(comp, y).is_some_and(|c| c == 0.0)
        })
        && constant(comp, nan).is_some_and(f64::is_nan)
        && constant(comp, zero).is_some_and(|c| c == 0.0 && c.is_sign_positive());
    ok.then_some(Key::Canonical)
}

/// `(pred, on_true, on_false)` of a select.
fn select_parts(comp: &Computation, id: InstrId) -> Option<(InstrId, InstrId, InstrId)> {
    let i = comp.get(id)?;
    // `if let` rather than a `match` over `Op`: a new opcode must not need an arm here.
    if let (Op::Select, [p, t, f]) = (&i.op, i.operands.as_slice()) {
        return Some((*p, *t, *f));
    }
    None
}

/// Whether `id` is `compare(x, y)` in direction `dir` with `ok(x, y)`.
fn compares(
    comp: &Computation,
    id: InstrId,
    dir: ComparisonDirection,
    ok: impl Fn(InstrId, InstrId) -> bool,
) -> bool {
    comp.get(id).is_some_and(|i| {
        if let (Op::Compare { direction, .. }, [x, y]) = (&i.op, i.operands.as_slice()) {
            return *direction == dir && ok(*x, *y);
        }
        false
    })
}

/// The value of a scalar float constant.
fn constant(comp: &Computation, id: InstrId) -> Option<f64> {
    let i = comp.get(id)?;
    if let Op::Constant { literal } = &i.op {
        return literal.get_as_f64(&[]).ok().filter(|_| i.shape.is_scalar());
    }
    None
}

/// `x` as the key's compare sees it.
#[inline]
pub(crate) fn canonical(key: Key, x: f64) -> f64 {
    match key {
        Key::Plain => x,
        Key::Canonical if x.is_nan() => f64::NAN,
        Key::Canonical if x == 0.0 => 0.0,
        Key::Canonical => x,
    }
}
