//! Complex multiply is XLA:CPU's to the bit (the schoolbook formula with one fused
//! multiply-add in each part), in c64 and c128: fixtures from real XLA
//! (`scripts/gen_complex_multiply_fixtures.py`, `testdata/xla_complex_multiply`) over a
//! grid of special values (±0, ±1, ±1e30, ±1e-30, ±inf, NaN, subnormals) in every part of
//! both operands and random values, fused and unfused, 1 and 2 threads. Any NaN matches
//! any NaN. Complex reductions (`jnp.sum`, `jnp.prod`) and dots are compared with real
//! XLA to a measured tolerance: XLA sums in a different order (see `docs/issue15_audit.md`).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod complex_xla;

use complex_xla::{check_elementwise, Parts};
use num_complex::Complex;
use xla_core::text::parse_module;
use xla_core::Literal;
use xla_cpu::Executable;

fn read(ty: &str, f: &str) -> Literal {
    complex_xla::read("xla_complex_multiply", ty, f)
}

fn dims(l: &Literal) -> String {
    let d: Vec<String> = l.shape().dims().iter().map(|d| d.to_string()).collect();
    d.join(",")
}

fn elementwise<T: Parts>(ty: &str) {
    let names = ["mul_a", "mul_b", "mul_out"];
    check_elementwise::<T>("xla_complex_multiply", ty, ("multiply", "*"), names);
}

#[test]
fn c64_multiply_matches_xla_bit_for_bit() {
    elementwise::<Complex<f32>>("c64");
}

#[test]
fn c128_multiply_matches_xla_bit_for_bit() {
    elementwise::<Complex<f64>>("c128");
}

/// Runs `hlo` on `args` (1 and 2 threads, fused) and returns, against `want`, how many
/// elements differ in their bits and the largest distance in units of `eps * |want|`.
fn measure<T: Parts>(what: &str, hlo: &str, args: &[Literal], want: &Literal) -> (usize, f64) {
    let mut exe = Executable::compile(&parse_module(hlo).unwrap()).unwrap();
    let want = want.data::<T>().unwrap();
    let (mut differ, mut worst) = (0, 0.0f64);
    for threads in [1, 2] {
        exe.set_threads(threads);
        let got = exe.execute(args).unwrap();
        let got = got.data::<T>().unwrap();
        assert_eq!(got.len(), want.len(), "{what}");
        for (g, w) in got.iter().zip(want) {
            differ += usize::from(!g.same(*w));
            worst = worst.max(g.rel_eps(*w));
        }
    }
    eprintln!(
        "{what}: {differ} of {} differ in bits, max {worst:.2} eps*|want|",
        2 * want.len()
    );
    (differ, worst)
}

const SIZES: [usize; 5] = [7, 64, 1000, 5000, 100003];

/// `reduce` with a complex add / multiply combiner: XLA's bits (its tree order, its
/// fused multiply), over one dimension of 7 to 100003 elements and each axis of a matrix.
fn reductions<T: Parts>(ty: &str) {
    let comps = format!(
        "add {{\n  x = {ty}[] parameter(0)\n  y = {ty}[] parameter(1)\n  ROOT r = {ty}[] add(x, y)\n}}\n\nmul {{\n  x = {ty}[] parameter(0)\n  y = {ty}[] parameter(1)\n  ROOT r = {ty}[] multiply(x, y)\n}}\n"
    );
    let module = |shape: &str, out: &str, dim: usize, comb: &str, init: &str| {
        format!(
            "HloModule m\n\n{comps}\nENTRY e {{\n  x = {ty}[{shape}] parameter(0)\n  i = {ty}[] constant({init})\n  ROOT r = {ty}[{out}] reduce(x, i), dimensions={{{dim}}}, to_apply={comb}\n}}\n"
        )
    };
    for n in SIZES {
        let x = read(ty, &format!("red_x{n}"));
        for (name, comb, init) in [("sum", "add", "(0, 0)"), ("prod", "mul", "(1, 0)")] {
            let hlo = module(&n.to_string(), "", 0, comb, init);
            let (differ, _) = measure::<T>(
                &format!("{ty} {name} of {n}"),
                &hlo,
                std::slice::from_ref(&x),
                &read(ty, &format!("{name}{n}")),
            );
            assert_eq!(differ, 0, "{ty} {name} of {n}: not XLA's bits");
        }
    }
    let x = read(ty, "red2_x");
    for ax in [0, 1] {
        let out = if ax == 0 { "130" } else { "96" };
        for (name, comb, init) in [("sum", "add", "(0, 0)"), ("prod", "mul", "(1, 0)")] {
            let hlo = module("96,130", out, ax, comb, init);
            let (differ, _) = measure::<T>(
                &format!("{ty} {name} of [96,130] over axis {ax}"),
                &hlo,
                std::slice::from_ref(&x),
                &read(ty, &format!("{name}2_ax{ax}")),
            );
            assert_eq!(
                differ, 0,
                "{ty} {name} of [96,130] over axis {ax}: not XLA's bits"
            );
        }
    }
}

const DOTS: [&str; 6] = ["vv", "mv", "vm", "mm_small", "mm64", "mm_rect"];

/// Complex `dot` within `tol` (in `eps * |want|` per element) of XLA: XLA computes
/// matrix products in Eigen's blocked, vectorised order, not copied here.
fn dots<T: Parts>(ty: &str, tol: f64) {
    for name in DOTS {
        let (a, b) = (
            read(ty, &format!("dot_{name}_a")),
            read(ty, &format!("dot_{name}_b")),
        );
        let want = read(ty, &format!("dot_{name}_out"));
        let ra = a.shape().dims().len();
        let hlo = format!(
            "HloModule m\n\nENTRY e {{\n  a = {ty}[{}] parameter(0)\n  b = {ty}[{}] parameter(1)\n  ROOT d = {ty}[{}] dot(a, b), lhs_contracting_dims={{{}}}, rhs_contracting_dims={{0}}\n}}\n",
            dims(&a),
            dims(&b),
            dims(&want),
            ra - 1
        );
        let (differ, worst) = measure::<T>(&format!("{ty} dot {name}"), &hlo, &[a, b], &want);
        // vector . vector is XLA's multiply and tree-ordered sum: its bits.
        assert!(name != "vv" || differ == 0, "{ty} dot vv: not XLA's bits");
        assert!(worst <= tol, "{ty} dot {name}: {worst} eps > {tol}");
    }
}

#[test]
fn c64_reductions_match_xla_bit_for_bit() {
    reductions::<Complex<f32>>("c64");
}

#[test]
fn c128_reductions_match_xla_bit_for_bit() {
    reductions::<Complex<f64>>("c128");
}

/// Measured on this fixture: at most 97 (c64 64x64) and 70 (c128 40x70 . 70x24), where an
/// output element is small next to its terms.
const DOT_TOL: f64 = 256.0;

#[test]
fn c64_dots_near_xla() {
    dots::<Complex<f32>>("c64", DOT_TOL);
}

#[test]
fn c128_dots_near_xla() {
    dots::<Complex<f64>>("c128", DOT_TOL);
}
