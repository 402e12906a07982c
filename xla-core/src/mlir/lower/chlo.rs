//! `chlo` ops (and their `mhlo` twins) that JAX emits, decomposed into HLO with the formulas
//! of StableHLO's `chlo-legalize-to-stablehlo` (erfc, erf_inv, lgamma, digamma, sinh, cosh,
//! atan, atanh, is_inf, conj, the `broadcast_*` binary ops, ...). Ops with a native HLO
//! counterpart (erf, tan, top_k) are left to the other families. Narrow floats are computed
//! in f32 and converted back, as the legalisation does; `erfc` and `erf_inv` on f64 use the
//! legalisation's separate f64 polynomials (Cephes' erfc, Giles' erf_inv).

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
    let by_width = |f32: fn(&E<'_>, &XlaOp) -> XlaOp, f64: fn(&E<'_>, &XlaOp) -> XlaOp| {
        if ty == PrimitiveType::F64 {
            f64(&e, x)
        } else {
            upcast(&e, x, ty, f32)
        }
    };
    let v = match short {
        "erfc" => by_width(erfc32, erfc64),
        "erf_inv" => by_width(erf_inv32, erf_inv64),
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

/// erfc on f64 for `|x| >= 1` (Cephes): `exp(-x²) P(|x|)/Q(|x|)` below 8,
/// `exp(-x²) R(|x|)/S(|x|)` from 8, zero once `-x²` is below `-MAXLOG`, `2 - erfc(-x)` for
/// negative `x`.
fn erfc64_ge_one(e: &E<'_>, x: &XlaOp) -> XlaOp {
    const MAXLOG: f64 = 7.09782712893383996843E2;
    const P: [f64; 9] = [
        2.46196981473530512524E-10,
        5.64189564831068821977E-1,
        7.46321056442269912687E0,
        4.86371970985681366614E1,
        1.96520832956077098242E2,
        5.26445194995477358631E2,
        9.34528527171957607540E2,
        1.02755188689515710272E3,
        5.57535335369399327526E2,
    ];
    const Q: [f64; 9] = [
        1.00000000000000000000E0,
        1.32281951154744992508E1,
        8.67072140885989742329E1,
        3.54937778887819891062E2,
        9.75708501743205489753E2,
        1.82390916687909736289E3,
        2.24633760818710981792E3,
        1.65666309194161350182E3,
        5.57535340817727675546E2,
    ];
    const R: [f64; 6] = [
        5.64189583547755073984E-1,
        1.27536670759978104416E0,
        5.01905042251180477414E0,
        6.16021097993053585195E0,
        7.40974269950448939160E0,
        2.97886665372100240670E0,
    ];
    const S: [f64; 7] = [
        1.00000000000000000000E0,
        2.26052863220117276590E0,
        9.39603524938001434673E0,
        1.20489539808096656605E1,
        1.70814450747565897222E1,
        9.60896809063285878198E0,
        3.36907645100081516050E0,
    ];
    let z = e.u(U::Neg, &e.mul(x, x));
    let exp_z = e.u(U::Exp, &z);
    let ax = e.u(U::Abs, x);
    let below8 = e.div(&e.mul(&exp_z, &e.poly(&ax, &P)), &e.poly(&ax, &Q));
    let from8 = e.div(&e.mul(&exp_z, &e.poly(&ax, &R)), &e.poly(&ax, &S));
    let approx = e.sel(&e.cmp(D::Lt, &ax, &e.c(x, 8.0)), &below8, &from8);
    let zero = e.c(x, 0.0);
    let clamped = e.sel(&e.cmp(D::Lt, &z, &e.c(x, -MAXLOG)), &zero, &approx);
    let reflected = e.sub(&e.c(x, 2.0), &clamped);
    e.sel(&e.cmp(D::Lt, x, &zero), &reflected, &clamped)
}

/// erfc on f64: `1 - x T(x²)/U(x²)` for `|x| < 1` (Cephes' erf), [`erfc64_ge_one`] from 1.
fn erfc64(e: &E<'_>, x: &XlaOp) -> XlaOp {
    const T: [f64; 5] = [
        9.60497373987051638749E0,
        9.00260197203842689217E1,
        2.23200534594684319226E3,
        7.00332514112805075473E3,
        5.55923013010394962768E4,
    ];
    const UC: [f64; 6] = [
        1.00000000000000000000E0,
        3.35617141647503099647E1,
        5.21357949780152679795E2,
        4.59432382970980127987E3,
        2.26290000613890934246E4,
        4.92673942608635921086E4,
    ];
    let x2 = e.mul(x, x);
    let erf = e.div(&e.mul(x, &e.poly(&x2, &T)), &e.poly(&x2, &UC));
    let one = e.c(x, 1.0);
    let small = e.sub(&one, &erf);
    let large = erfc64_ge_one(e, x);
    e.sel(&e.cmp(D::Lt, &e.u(U::Abs, x), &one), &small, &large)
}

/// erf_inv on f64 (Giles): in `w = -log1p(-x²)`, a degree-22 polynomial in `w - 3.125`
/// below 6.25, degree 18 in `√w - 3.25` below 16, degree 16 in `√w - 5` beyond.
fn erf_inv64(e: &E<'_>, x: &XlaOp) -> XlaOp {
    const LT625: [f64; 23] = [
        -3.6444120640178196996e-21,
        -1.685059138182016589e-19,
        1.2858480715256400167e-18,
        1.115787767802518096e-17,
        -1.333171662854620906e-16,
        2.0972767875968561637e-17,
        6.6376381343583238325e-15,
        -4.0545662729752068639e-14,
        -8.1519341976054721522e-14,
        2.6335093153082322977e-12,
        -1.2975133253453532498e-11,
        -5.4154120542946279317e-11,
        1.051212273321532285e-09,
        -4.1126339803469836976e-09,
        -2.9070369957882005086e-08,
        4.2347877827932403518e-07,
        -1.3654692000834678645e-06,
        -1.3882523362786468719e-05,
        0.0001867342080340571352,
        -0.00074070253416626697512,
        -0.0060336708714301490533,
        0.24015818242558961693,
        1.6536545626831027356,
    ];
    const LT16: [f64; 19] = [
        2.2137376921775787049e-09,
        9.0756561938885390979e-08,
        -2.7517406297064545428e-07,
        1.8239629214389227755e-08,
        1.5027403968909827627e-06,
        -4.013867526981545969e-06,
        2.9234449089955446044e-06,
        1.2475304481671778723e-05,
        -4.7318229009055733981e-05,
        6.8284851459573175448e-05,
        2.4031110387097893999e-05,
        -0.0003550375203628474796,
        0.00095328937973738049703,
        -0.0016882755560235047313,
        0.0024914420961078508066,
        -0.0037512085075692412107,
        0.005370914553590063617,
        1.0052589676941592334,
        3.0838856104922207635,
    ];
    const GT16: [f64; 17] = [
        -2.7109920616438573243e-11,
        -2.5556418169965252055e-10,
        1.5076572693500548083e-09,
        -3.7894654401267369937e-09,
        7.6157012080783393804e-09,
        -1.4960026627149240478e-08,
        2.9147953450901080826e-08,
        -6.7711997758452339498e-08,
        2.2900482228026654717e-07,
        -9.9298272942317002539e-07,
        4.5260625972231537039e-06,
        -1.9681778105531670567e-05,
        7.5995277030017761139e-05,
        -0.00021503011930044477347,
        -0.00013871931833623122026,
        1.0103004648645343977,
        4.8499064014085844221,
    ];
    let w = e.u(U::Neg, &e.u(U::Log1p, &e.mul(x, &e.u(U::Neg, x))));
    let lt625 = e.cmp(D::Lt, &w, &e.c(x, 6.25));
    let lt16 = e.cmp(D::Lt, &w, &e.c(x, 16.0));
    let at = |t: &[f64], i: usize| e.c(x, t.get(i).copied().unwrap_or(0.0));
    let coeff = |i: usize| {
        let mut c = at(&LT625, i);
        if i < 19 {
            c = e.sel(&lt625, &c, &at(&LT16, i));
        }
        if i < 17 {
            c = e.sel(&lt16, &c, &at(&GT16, i));
        }
        c
    };
    let shift = e.sel(&lt16, &e.c(x, 3.25), &e.c(x, 5.0));
    let w = e.sel(
        &lt625,
        &e.sub(&w, &e.c(x, 3.125)),
        &e.sub(&e.u(U::Sqrt, &w), &shift),
    );
    let mut p = coeff(0);
    for i in 1..23 {
        let next = e.add(&coeff(i), &e.mul(&p, &w));
        p = match i {
            1..=16 => next,
            17..=18 => e.sel(&lt16, &next, &p),
            _ => e.sel(&lt625, &next, &p),
        };
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
