//! `chlo` ops (and their `mhlo` twins) that JAX emits, decomposed into HLO with the formulas
//! of StableHLO's `chlo-legalize-to-stablehlo` (erfc, erf_inv, lgamma, digamma, sinh, cosh,
//! atan, atanh, is_inf, conj, the `broadcast_*` binary ops, ...). Ops with a native HLO
//! counterpart (erf, tan, top_k) are left to the other families. Narrow floats are computed
//! in f32 and converted back, as the legalisation does; `erfc` and `erf_inv` on f64 (which
//! XLA computes with separate f64 polynomials) are reported as unsupported.

// The coefficients are XLA's, digit for digit.
#![allow(clippy::excessive_precision)]

use super::{check, err, shape_of, LResult};
use crate::attrs::{BinaryOp, ComparisonDirection, UnaryOp};
use crate::builder::{XlaBuilder, XlaOp};
use crate::mlir::ast::OpAst;
use crate::mlir::MlirErrorKind;
use crate::types::PrimitiveType;
use UnaryOp as U;

/// A small expression helper over one builder.
struct E<'a> {
    b: &'a XlaBuilder,
}

impl E<'_> {
    fn u(&self, op: UnaryOp, x: &XlaOp) -> XlaOp {
        self.b.unary_op(op, x)
    }
    fn bin(&self, op: BinaryOp, x: &XlaOp, y: &XlaOp) -> XlaOp {
        self.b.binary_op(op, x, y, &[])
    }
    fn add(&self, x: &XlaOp, y: &XlaOp) -> XlaOp {
        self.bin(BinaryOp::Add, x, y)
    }
    fn sub(&self, x: &XlaOp, y: &XlaOp) -> XlaOp {
        self.bin(BinaryOp::Sub, x, y)
    }
    fn mul(&self, x: &XlaOp, y: &XlaOp) -> XlaOp {
        self.bin(BinaryOp::Mul, x, y)
    }
    fn div(&self, x: &XlaOp, y: &XlaOp) -> XlaOp {
        self.bin(BinaryOp::Div, x, y)
    }
    /// A constant of `x`'s shape and type.
    fn c(&self, x: &XlaOp, v: f64) -> XlaOp {
        self.b.full_like(x, v)
    }
    fn cmp(&self, dir: ComparisonDirection, x: &XlaOp, y: &XlaOp) -> XlaOp {
        self.b.compare_op(dir, false, x, y, &[])
    }
    fn sel(&self, p: &XlaOp, t: &XlaOp, f: &XlaOp) -> XlaOp {
        self.b.select(p, t, f)
    }
    /// `coeffs[0]`, then `poly * x + coeffs[i]` (Horner, highest power first).
    fn poly(&self, x: &XlaOp, coeffs: &[f64]) -> XlaOp {
        let mut it = coeffs.iter();
        let mut p = self.c(x, it.next().copied().unwrap_or(0.0));
        for &k in it {
            p = self.add(&self.mul(&p, x), &self.c(x, k));
        }
        p
    }
}

/// Lowers a chlo op, if this module knows it.
pub(crate) fn lower(b: &XlaBuilder, op: &OpAst, ops: &[XlaOp]) -> LResult<Option<Vec<XlaOp>>> {
    let short = op.short_name();
    if let Some(name) = short.strip_prefix("broadcast_") {
        return broadcast_binary(b, op, name, ops);
    }
    let [x] = ops else {
        return Ok(None);
    };
    let e = E { b };
    let ty = shape_of(op, x)?.element_type();
    let f32_only = |f: fn(&E<'_>, &XlaOp) -> XlaOp| -> LResult<XlaOp> {
        if ty == PrimitiveType::F64 {
            return Err(err(
                op,
                MlirErrorKind::Type,
                format!(
                    "{} on f64 is not supported yet (f16, bf16 and f32 are)",
                    op.name
                ),
            ));
        }
        Ok(upcast(&e, x, ty, f))
    };
    let v = match short {
        "erfc" => f32_only(erfc32)?,
        "erf_inv" => f32_only(erf_inv32)?,
        "lgamma" => upcast(&e, x, ty, lgamma),
        "digamma" => upcast(&e, x, ty, digamma),
        "cosh" => upcast(&e, x, ty, cosh),
        "sinh" => upcast(&e, x, ty, sinh),
        "atan" => e.bin(BinaryOp::Atan2, x, &e.c(x, 1.0)),
        "atanh" => atanh(&e, x),
        "asinh" => upcast(&e, x, ty, asinh),
        "acosh" => upcast(&e, x, ty, acosh),
        "asin" => asin(&e, x),
        "acos" => acos(&e, x),
        "is_inf" => e.cmp(
            ComparisonDirection::Eq,
            &e.u(U::Abs, x),
            &e.c(x, f64::INFINITY),
        ),
        "is_pos_inf" => e.cmp(ComparisonDirection::Eq, x, &e.c(x, f64::INFINITY)),
        "is_neg_inf" => e.cmp(ComparisonDirection::Eq, x, &e.c(x, f64::NEG_INFINITY)),
        "conj" if ty.is_complex() => {
            let (re, im) = (e.u(U::Real, x), e.u(U::Imag, x));
            b.binary_op(BinaryOp::Complex, &re, &e.u(U::Neg, &im), &[])
        }
        "conj" => x.clone(),
        "square" => e.mul(x, x),
        _ => return Ok(None),
    };
    Ok(Some(vec![check(b, op, v)?]))
}

/// `chlo.broadcast_add` and friends: numpy broadcasting (the lower-rank operand aligned to
/// the trailing dims unless `broadcast_dimensions` says otherwise).
fn broadcast_binary(
    b: &XlaBuilder,
    op: &OpAst,
    name: &str,
    ops: &[XlaOp],
) -> LResult<Option<Vec<XlaOp>>> {
    let bin = match name {
        "add" => BinaryOp::Add,
        "subtract" => BinaryOp::Sub,
        "multiply" => BinaryOp::Mul,
        "divide" => BinaryOp::Div,
        "maximum" => BinaryOp::Max,
        "minimum" => BinaryOp::Min,
        "power" => BinaryOp::Pow,
        "remainder" => BinaryOp::Rem,
        "and" => BinaryOp::And,
        "or" => BinaryOp::Or,
        "xor" => BinaryOp::Xor,
        "atan2" => BinaryOp::Atan2,
        "complex" => BinaryOp::Complex,
        "shift_left" => BinaryOp::ShiftLeft,
        "shift_right_arithmetic" => BinaryOp::ShiftRightArithmetic,
        "shift_right_logical" => BinaryOp::ShiftRightLogical,
        _ => return Ok(None),
    };
    let [l, r] = ops else {
        return Err(err(
            op,
            MlirErrorKind::Syntax,
            format!("{} takes two operands", op.name),
        ));
    };
    let rank = |v: &XlaOp| shape_of(op, v).map(|s| s.as_array().map_or(0, |a| a.dims.len()));
    let (rl, rr) = (rank(l)?, rank(r)?);
    let dims = match super::attrs::opt_ints(op, &["broadcast_dimensions"])? {
        Some(d) => d,
        None if rl == rr || rl == 0 || rr == 0 => Vec::new(),
        None => {
            let (lo, hi) = (rl.min(rr), rl.max(rr));
            (hi - lo..hi)
                .map(|d| i64::try_from(d).unwrap_or(0))
                .collect()
        }
    };
    let v = b.binary_op(bin, l, r, &dims);
    Ok(Some(vec![check(b, op, v)?]))
}

/// Computes `f` in f32 for narrower floats and converts back (`materializeWithUpcast`).
fn upcast(e: &E<'_>, x: &XlaOp, ty: PrimitiveType, f: fn(&E<'_>, &XlaOp) -> XlaOp) -> XlaOp {
    if matches!(ty, PrimitiveType::F16 | PrimitiveType::Bf16) {
        let wide = e.b.convert_element_type(x, PrimitiveType::F32);
        let r = f(e, &wide);
        return e.b.convert_element_type(&r, ty);
    }
    f(e, x)
}

use ComparisonDirection as D;

fn erfc32(e: &E<'_>, x: &XlaOp) -> XlaOp {
    const P: [f64; 9] = [
        2.326819970068386E-2,
        -1.387039388740657E-1,
        3.687424674597105E-1,
        -5.824733027278666E-1,
        6.210004621745983E-1,
        -4.944515323274145E-1,
        3.404879937665872E-1,
        -2.741127028184656E-1,
        5.638259427386472E-1,
    ];
    const R: [f64; 8] = [
        -1.047766399936249E+1,
        1.297719955372516E+1,
        -7.495518717768503E+0,
        2.921019019210786E+0,
        -1.015265279202700E+0,
        4.218463358204948E-1,
        -2.820767439740514E-1,
        5.641895067754075E-1,
    ];
    const T: [f64; 7] = [
        7.853861353153693E-5,
        -8.010193625184903E-4,
        5.188327685732524E-3,
        -2.685381193529856E-2,
        1.128358514861418E-1,
        -3.761262582423300E-1,
        1.128379165726710E+0,
    ];
    let one = e.c(x, 1.0);
    let x2 = e.mul(x, x);
    let z = e.u(U::Neg, &x2);
    let ax = e.u(U::Abs, x);
    let rx2 = e.div(&one, &x2);
    let scale = e.mul(&e.u(U::Exp, &z), &e.div(&one, &ax));
    let two = e.c(x, 2.0);
    let poly = e.sel(
        &e.cmp(D::Lt, &ax, &two),
        &e.poly(&rx2, &P),
        &e.poly(&rx2, &R),
    );
    let approx = e.mul(&scale, &poly);
    let approx = e.sel(
        &e.cmp(D::Lt, &z, &e.c(x, -88.72283905206835)),
        &e.c(x, 0.0),
        &approx,
    );
    let ge_one = e.sel(
        &e.cmp(D::Lt, x, &e.c(x, 0.0)),
        &e.sub(&two, &approx),
        &approx,
    );
    let erf_small = e.mul(x, &e.poly(&x2, &T));
    let lt_one = e.sub(&one, &erf_small);
    e.sel(&e.cmp(D::Lt, &ax, &one), &lt_one, &ge_one)
}

fn erf_inv32(e: &E<'_>, x: &XlaOp) -> XlaOp {
    const LT5: [f64; 9] = [
        2.81022636e-08,
        3.43273939e-07,
        -3.5233877e-06,
        -4.39150654e-06,
        0.00021858087,
        -0.00125372503,
        -0.00417768164,
        0.246640727,
        1.50140941,
    ];
    const GT5: [f64; 9] = [
        -0.000200214257,
        0.000100950558,
        0.00134934322,
        -0.00367342844,
        0.00573950773,
        -0.0076224613,
        0.00943887047,
        1.00167406,
        2.83297682,
    ];
    let w = e.u(U::Neg, &e.u(U::Log1p, &e.mul(x, &e.u(U::Neg, x))));
    let lt = e.cmp(D::Lt, &w, &e.c(x, 5.0));
    let coeff = |i: usize| {
        e.sel(
            &lt,
            &e.c(x, LT5.get(i).copied().unwrap_or(0.0)),
            &e.c(x, GT5.get(i).copied().unwrap_or(0.0)),
        )
    };
    let w = e.sel(
        &lt,
        &e.sub(&w, &e.c(x, 2.5)),
        &e.sub(&e.u(U::Sqrt, &w), &e.c(x, 3.0)),
    );
    let mut p = coeff(0);
    for i in 1..9 {
        p = e.add(&coeff(i), &e.mul(&p, &w));
    }
    let result = e.mul(&p, x);
    let at_one = e.cmp(D::Eq, &e.u(U::Abs, x), &e.c(x, 1.0));
    e.sel(&at_one, &e.mul(x, &e.c(x, f64::INFINITY)), &result)
}

const LANCZOS_GAMMA: f64 = 7.0;
const LANCZOS_BASE: f64 = 0.999_999_999_999_809_9;
const LANCZOS: [f64; 8] = [
    676.520368121885098567009190444019,
    -1259.13921672240287047156078755283,
    771.3234287776530788486528258894,
    -176.61502916214059906584551354,
    12.507343278686904814458936853,
    -0.13857109526572011689554707,
    9.984369578019570859563e-6,
    1.50563273514931155834e-7,
];

/// `(need_to_reflect, z, log_t, t)` shared by lgamma and digamma.
fn lanczos_setup(e: &E<'_>, x: &XlaOp) -> (XlaOp, XlaOp, XlaOp, XlaOp) {
    let half = e.c(x, 0.5);
    let reflect = e.cmp(D::Lt, x, &half);
    let z = e.sel(&reflect, &e.u(U::Neg, x), &e.sub(x, &e.c(x, 1.0)));
    let lph = e.c(x, LANCZOS_GAMMA + 0.5);
    let t = e.add(&lph, &z);
    let log_t = e.add(
        &e.c(x, (LANCZOS_GAMMA + 0.5).ln()),
        &e.u(U::Log1p, &e.div(&z, &lph)),
    );
    (reflect, z, log_t, t)
}

fn lgamma(e: &E<'_>, x: &XlaOp) -> XlaOp {
    let (reflect, z, log_t, t) = lanczos_setup(e, x);
    let half = e.c(x, 0.5);
    let one = e.c(x, 1.0);
    let mut a = e.c(x, LANCZOS_BASE);
    for (i, &k) in LANCZOS.iter().enumerate() {
        a = e.add(&a, &e.div(&e.c(x, k), &e.add(&z, &e.c(x, (i + 1) as f64))));
    }
    let r = e.mul(&e.sub(&e.add(&z, &half), &e.div(&t, &log_t)), &log_t);
    let lg = e.add(
        &e.add(&e.c(x, (2f64.ln() + std::f64::consts::PI.ln()) / 2.0), &r),
        &e.u(U::Log, &a),
    );
    let ax = e.u(U::Abs, x);
    let frac = e.sub(&ax, &e.u(U::Floor, &ax));
    let frac = e.sel(&e.cmp(D::Lt, &half, &frac), &e.sub(&one, &frac), &frac);
    let denom = e.u(
        U::Log,
        &e.u(U::Sin, &e.mul(&e.c(x, std::f64::consts::PI), &frac)),
    );
    let refl = e.sub(&e.sub(&e.c(x, std::f64::consts::PI.ln()), &denom), &lg);
    let refl = e.sel(&e.u(U::IsFinite, &denom), &refl, &e.u(U::Neg, &denom));
    let lg = e.sel(&reflect, &refl, &lg);
    let is_inf = e.cmp(D::Eq, &ax, &e.c(x, f64::INFINITY));
    e.sel(&is_inf, &e.c(x, f64::INFINITY), &lg)
}

fn digamma(e: &E<'_>, x: &XlaOp) -> XlaOp {
    let (reflect, z, log_t, t) = lanczos_setup(e, x);
    let zero = e.c(x, 0.0);
    let mut a = e.c(x, LANCZOS_BASE);
    let mut a_prime = zero.clone();
    for (i, &k) in LANCZOS.iter().enumerate() {
        let zt = e.add(&z, &e.c(x, (i + 1) as f64));
        a_prime = e.sub(&a_prime, &e.div(&e.c(x, k), &e.mul(&zt, &zt)));
        a = e.add(&a, &e.div(&e.c(x, k), &zt));
    }
    let dg = e.sub(
        &e.add(&log_t, &e.div(&a_prime, &a)),
        &e.div(&e.c(x, LANCZOS_GAMMA), &t),
    );
    let reduced = e.add(x, &e.u(U::Abs, &e.u(U::Floor, &e.add(x, &e.c(x, 0.5)))));
    let pi = e.c(x, std::f64::consts::PI);
    let pr = e.mul(&pi, &reduced);
    let refl = e.sub(
        &dg,
        &e.div(&e.mul(&pi, &e.u(U::Cos, &pr)), &e.u(U::Sin, &pr)),
    );
    let dg = e.sel(&reflect, &refl, &dg);
    let pole =
        e.b.and(e.cmp(D::Le, x, &zero), e.cmp(D::Eq, x, &e.u(U::Floor, x)));
    e.sel(&pole, &e.c(x, f64::NAN), &dg)
}

/// `exp(x + log(1/2)) ± exp(log(1/2) - x)`.
fn half_exps(e: &E<'_>, x: &XlaOp) -> (XlaOp, XlaOp) {
    let lh = e.u(U::Log, &e.c(x, 0.5));
    (e.u(U::Exp, &e.add(x, &lh)), e.u(U::Exp, &e.sub(&lh, x)))
}

fn cosh(e: &E<'_>, x: &XlaOp) -> XlaOp {
    let (p, m) = half_exps(e, x);
    e.add(&p, &m)
}

fn sinh(e: &E<'_>, x: &XlaOp) -> XlaOp {
    let (p, m) = half_exps(e, x);
    let large = e.sub(&p, &m);
    let one = e.c(x, 1.0);
    let em1 = e.u(U::Expm1, x);
    let small = e.mul(&e.c(x, 0.5), &e.add(&em1, &e.div(&em1, &e.add(&em1, &one))));
    e.sel(&e.cmp(D::Lt, &e.u(U::Abs, x), &one), &small, &large)
}

fn atanh(e: &E<'_>, x: &XlaOp) -> XlaOp {
    let v = e.mul(
        &e.sub(&e.u(U::Log1p, x), &e.u(U::Log1p, &e.u(U::Neg, x))),
        &e.c(x, 0.5),
    );
    e.sel(
        &e.cmp(D::Gt, &e.u(U::Abs, x), &e.c(x, 1.0)),
        &e.c(x, f64::NAN),
        &v,
    )
}

/// `sign(x) * log1p(a + a²/(1 + sqrt(1 + a²)))`, `log(a) + log 2` for huge `a = |x|`.
fn asinh(e: &E<'_>, x: &XlaOp) -> XlaOp {
    let a = e.u(U::Abs, x);
    let one = e.c(x, 1.0);
    let a2 = e.mul(&a, &a);
    let small = e.u(
        U::Log1p,
        &e.add(
            &a,
            &e.div(&a2, &e.add(&one, &e.u(U::Sqrt, &e.add(&one, &a2)))),
        ),
    );
    let large = e.add(&e.u(U::Log, &a), &e.c(x, std::f64::consts::LN_2));
    let v = e.sel(&e.cmp(D::Gt, &a, &e.c(x, 1e18)), &large, &small);
    e.mul(&e.u(U::Sign, x), &v)
}

/// `log(x + sqrt((x + 1)(x - 1)))`, `log(x) + log 2` for huge x.
fn acosh(e: &E<'_>, x: &XlaOp) -> XlaOp {
    let one = e.c(x, 1.0);
    let s = e.u(U::Sqrt, &e.mul(&e.add(x, &one), &e.sub(x, &one)));
    let small = e.u(U::Log, &e.add(x, &s));
    let large = e.add(&e.u(U::Log, x), &e.c(x, std::f64::consts::LN_2));
    e.sel(&e.cmp(D::Gt, x, &e.c(x, 1e18)), &large, &small)
}

/// `2 atan2(x, 1 + sqrt(1 - x²))`.
fn asin(e: &E<'_>, x: &XlaOp) -> XlaOp {
    let one = e.c(x, 1.0);
    let s = e.u(U::Sqrt, &e.sub(&one, &e.mul(x, x)));
    e.mul(&e.c(x, 2.0), &e.bin(BinaryOp::Atan2, x, &e.add(&one, &s)))
}

/// `2 atan2(sqrt(1 - x²), 1 + x)`, pi at -1.
fn acos(e: &E<'_>, x: &XlaOp) -> XlaOp {
    let one = e.c(x, 1.0);
    let s = e.u(U::Sqrt, &e.sub(&one, &e.mul(x, x)));
    let v = e.mul(&e.c(x, 2.0), &e.bin(BinaryOp::Atan2, &s, &e.add(&one, x)));
    e.sel(
        &e.cmp(D::Ne, x, &e.c(x, -1.0)),
        &v,
        &e.c(x, std::f64::consts::PI),
    )
}
