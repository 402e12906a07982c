//! Elementwise rules: unary and binary ops, select, clamp, convert. Kinks follow JAX:
//! `abs'(0) = 1`, `sign' = floor' = round' = 0`, max/min ties split the gradient 0.5/0.5.

use super::{unbroadcast_scalar, Cts, Cx};
use crate::backward::Ct;
use crate::error::AutodiffError;
use xla_core::builder::XlaOp;
use xla_core::ir::{BinaryOp, UnaryOp};

/// The gradient of a unary op.
pub(super) fn unary(cx: &Cx<'_>, op: UnaryOp, g: &XlaOp) -> Result<Cts, AutodiffError> {
    let (b, x, y) = (cx.b, cx.x(0), cx.out.clone());
    let complex_in = cx.s(0).element_type().is_complex();
    let d = match op {
        UnaryOp::Abs if complex_in => {
            let one = b.full_like(&y, 1);
            let denom = b.select(b.eq(&y, b.zeros_like(&y)), &one, &y);
            let scale = b.div(g, denom);
            b.complex(b.mul(&scale, b.real(&x)), b.neg(b.mul(&scale, b.imag(&x))))
        }
        UnaryOp::Abs => b.select(b.ge(&x, b.zeros_like(&x)), g, b.neg(g)),
        UnaryOp::Cbrt => b.div(g, b.mul(&y, &y) * 3.0f64),
        UnaryOp::Cos => b.neg(b.mul(g, b.sin(&x))),
        UnaryOp::Sin => b.mul(g, b.cos(&x)),
        UnaryOp::Tan => b.mul(g, b.mul(&y, &y) + 1.0f64),
        UnaryOp::Erf => {
            let k = 2.0 / std::f64::consts::PI.sqrt();
            b.mul(g, b.exp(b.neg(b.mul(&x, &x))) * k)
        }
        UnaryOp::Exp => b.mul(g, &y),
        UnaryOp::Expm1 => b.mul(g, &y + 1.0f64),
        UnaryOp::Log => b.div(g, &x),
        UnaryOp::Log1p => b.div(g, &x + 1.0f64),
        UnaryOp::Logistic => b.mul(g, b.mul(&y, b.sub(b.full_like(&y, 1), &y))),
        UnaryOp::Neg => b.neg(g),
        UnaryOp::Rsqrt => b.mul(g, b.div(&y, &x) * -0.5f64),
        UnaryOp::Sqrt => b.div(g * 0.5f64, &y),
        UnaryOp::Tanh => b.mul(g, b.sub(b.full_like(&y, 1), b.mul(&y, &y))),
        UnaryOp::Real => b.complex(g, b.zeros_like(g)),
        UnaryOp::Imag => b.complex(b.zeros_like(g), b.neg(g)),
        UnaryOp::Ceil
        | UnaryOp::Floor
        | UnaryOp::RoundNearestAfz
        | UnaryOp::RoundNearestEven
        | UnaryOp::Sign => return Ok(vec![None]),
        UnaryOp::Clz | UnaryOp::IsFinite | UnaryOp::Not | UnaryOp::Popcnt => {
            return Err(cx.nd("integer and predicate ops have no gradient"))
        }
    };
    Ok(vec![Ct::some(d)])
}

/// The gradient of a binary op: `(d lhs, d rhs)`.
pub(super) fn binary(cx: &Cx<'_>, op: BinaryOp, g: &XlaOp) -> Result<Cts, AutodiffError> {
    let (b, x, y, z) = (cx.b, cx.x(0), cx.x(1), cx.out.clone());
    let (dx, dy) = match op {
        BinaryOp::Add => (g.clone(), g.clone()),
        BinaryOp::Sub => (g.clone(), b.neg(g)),
        BinaryOp::Mul => (b.mul(g, &y), b.mul(g, &x)),
        BinaryOp::Div => (b.div(g, &y), b.neg(b.div(b.mul(g, &x), b.mul(&y, &y)))),
        BinaryOp::Pow => {
            let dx = b.mul(g, b.mul(&y, b.pow(&x, b.sub(&y, b.full_like(&y, 1)))));
            let safe_x = b.select(b.eq(&x, b.zeros_like(&x)), b.full_like(&x, 1), &x);
            (dx, b.mul(g, b.mul(b.log(safe_x), &z)))
        }
        BinaryOp::Rem => {
            let q = b.div(&x, &y);
            let trunc = b.mul(b.sign(&q), b.floor(b.abs(&q)));
            (g.clone(), b.neg(b.mul(g, trunc)))
        }
        BinaryOp::Max | BinaryOp::Min => {
            let (one, half) = (b.full_like(&z, 1), b.full_like(&z, 0.5f64));
            let zero = b.zeros_like(&z);
            let share = |a: &XlaOp, other: &XlaOp| {
                let tie = b.select(b.eq(other, &z), &half, &one);
                b.mul(g, b.select(b.eq(a, &z), tie, &zero))
            };
            (share(&x, &y), share(&y, &x))
        }
        BinaryOp::Atan2 => {
            let r2 = b.add(b.mul(&x, &x), b.mul(&y, &y));
            (b.div(b.mul(g, &y), &r2), b.neg(b.div(b.mul(g, &x), &r2)))
        }
        BinaryOp::Complex => (b.real(g), b.neg(b.imag(g))),
        BinaryOp::And
        | BinaryOp::Or
        | BinaryOp::Xor
        | BinaryOp::ShiftLeft
        | BinaryOp::ShiftRightArithmetic
        | BinaryOp::ShiftRightLogical => {
            return Err(cx.nd("bitwise ops on integers have no gradient"))
        }
    };
    Ok(vec![Ct::some(dx), Ct::some(dy)])
}

/// `select(p, a, b)`: the cotangent goes to the chosen side.
pub(super) fn select(cx: &Cx<'_>, g: &XlaOp) -> Result<Cts, AutodiffError> {
    let (b, p) = (cx.b, cx.x(0));
    let zero = b.zeros_like(g);
    let t = cx.wants(1).then(|| b.select(&p, g, &zero));
    let f = cx.wants(2).then(|| b.select(&p, &zero, g));
    let shape = cx.shape;
    let t = t.map(|t| unbroadcast_scalar(b, &t, &cx.s(1), shape));
    let f = f.map(|f| unbroadcast_scalar(b, &f, &cx.s(2), shape));
    Ok(vec![None, t.map(Ct::Array), f.map(Ct::Array)])
}

/// `clamp(lo, x, hi)` as JAX: `x` gets `g` strictly inside, `lo` where `lo > x` (and
/// `lo < hi`), `hi` where `hi < x`.
pub(super) fn clamp(cx: &Cx<'_>, g: &XlaOp) -> Result<Cts, AutodiffError> {
    let b = cx.b;
    let shape = cx.shape;
    let full = |i: usize| {
        let v = cx.x(i);
        if cx.s(i).is_scalar() && !shape.is_scalar() {
            b.broadcast(&v, shape.dims())
        } else {
            v
        }
    };
    let (lo, x, hi) = (full(0), cx.x(1), full(2));
    let zero = b.zeros_like(g);
    let dlo = b.select(b.and(b.gt(&lo, &x), b.lt(&lo, &hi)), g, &zero);
    let dx = b.select(b.and(b.gt(&x, &lo), b.lt(&x, &hi)), g, &zero);
    let dhi = b.select(b.lt(&hi, &x), g, &zero);
    Ok(vec![
        cx.wants(0)
            .then(|| Ct::Array(unbroadcast_scalar(b, &dlo, &cx.s(0), shape))),
        Ct::some(dx),
        cx.wants(2)
            .then(|| Ct::Array(unbroadcast_scalar(b, &dhi, &cx.s(2), shape))),
    ])
}

/// `convert`: the cotangent converted back (complex to real keeps the real part).
pub(super) fn convert(cx: &Cx<'_>, g: &XlaOp) -> Result<Cts, AutodiffError> {
    let (b, from, to) = (cx.b, cx.s(0).element_type(), cx.shape.element_type());
    if !from.is_float_or_complex() {
        return Ok(vec![None]);
    }
    let g = match (to.is_complex(), from.is_complex()) {
        (true, false) => b.real(g),
        (false, true) => b.complex(g, b.zeros_like(g)),
        _ => g.clone(),
    };
    Ok(vec![Ct::some(b.convert_element_type(g, from))])
}
