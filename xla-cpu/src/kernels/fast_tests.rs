//! The fast dot / convolution / cholesky / triangular-solve kernels checked against the
//! reference loops on seeded random inputs, and for identical results on 1 and 2 threads.

use super::contraction::{convolution, convolution_reference, dot, dot_reference};
use super::linalg::{cholesky, reference, triangular_solve};
use crate::parallel::{Parallel, Threads};
use half::{bf16, f16};
use num_complex::{Complex32, Complex64};
use xla_core::attrs::{
    ConvConfig, ConvDimensionNumbers, DotDims, PrecisionConfig, Transpose, TriangularSolveOptions,
    Window, WindowDim,
};
use xla_core::literal::ArrayData;
use xla_core::shape_inference::contraction as infer;
use xla_core::{Literal, PrimitiveType as P, Shape};

/// A small deterministic generator (64-bit LCG), values in [-1, 1).
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> f64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
    }
}

fn random(rng: &mut Rng, ty: P, dims: &[i64]) -> Literal {
    let n: i64 = dims.iter().product();
    let mut f = || rng.next();
    let v: Vec<f64> = (0..2 * n).map(|_| f()).collect();
    let re = |i: usize| v[2 * i];
    let im = |i: usize| v[2 * i + 1];
    let n = n as usize;
    let l = match ty {
        P::F32 => Literal::from_vec(dims, (0..n).map(|i| re(i) as f32).collect()),
        P::F64 => Literal::from_vec(dims, (0..n).map(re).collect()),
        P::F16 => Literal::from_vec(dims, (0..n).map(|i| f16::from_f64(re(i))).collect()),
        P::Bf16 => Literal::from_vec(dims, (0..n).map(|i| bf16::from_f64(re(i))).collect()),
        P::C64 => Literal::from_vec(
            dims,
            (0..n)
                .map(|i| Complex32::new(re(i) as f32, im(i) as f32))
                .collect(),
        ),
        P::C128 => Literal::from_vec(dims, (0..n).map(|i| Complex64::new(re(i), im(i))).collect()),
        P::S32 => Literal::from_vec(dims, (0..n).map(|i| (re(i) * 100.0) as i32).collect()),
        P::U8 => Literal::from_vec(dims, (0..n).map(|i| (im(i) * 200.0) as u8).collect()),
        _ => Literal::from_vec(dims, (0..n).map(|i| re(i) > 0.0).collect()),
    };
    l.unwrap()
}

/// Every element as (re, im) in f64.
fn values(l: &Literal) -> Vec<(f64, f64)> {
    let d = l.array_data().unwrap();
    match d {
        ArrayData::C64(v) => v.iter().map(|c| (c.re as f64, c.im as f64)).collect(),
        ArrayData::C128(v) => v.iter().map(|c| (c.re, c.im)).collect(),
        other => match super::elementwise::convert(other, P::F64).unwrap() {
            ArrayData::F64(v) => v.into_iter().map(|x| (x, 0.0)).collect(),
            _ => unreachable!(),
        },
    }
}

/// Asserts `a` and `b` agree: exactly for integer types, else within `tol` times the scale
/// (NaN matching NaN).
fn assert_close(a: &Literal, b: &Literal, tol: f64, what: &str) {
    assert_eq!(a.shape(), b.shape(), "{what}: shapes");
    let (x, y) = (values(a), values(b));
    let exact = !a.shape().element_type().is_float_or_complex();
    for (i, (p, q)) in x.iter().zip(&y).enumerate() {
        for (u, v) in [(p.0, q.0), (p.1, q.1)] {
            let ok = if exact {
                u == v
            } else {
                (u.is_nan() && v.is_nan()) || (u - v).abs() <= tol * (1.0 + v.abs())
            };
            assert!(ok, "{what}: element {i}: {p:?} vs {q:?}");
        }
    }
}

fn tol(ty: P) -> f64 {
    match ty {
        P::F16 => 1e-2,
        P::Bf16 => 2e-2,
        P::F32 | P::C64 => 1e-4,
        _ => 1e-10,
    }
}

pub(super) fn dd(lb: &[i64], lc: &[i64], rb: &[i64], rc: &[i64]) -> DotDims {
    DotDims {
        lhs_batch_dims: lb.to_vec(),
        lhs_contracting_dims: lc.to_vec(),
        rhs_batch_dims: rb.to_vec(),
        rhs_contracting_dims: rc.to_vec(),
    }
}

/// (lhs dims, rhs dims, dimension numbers).
#[allow(clippy::type_complexity)]
fn dot_cases() -> Vec<(Vec<i64>, Vec<i64>, DotDims)> {
    vec![
        (vec![7, 5], vec![5, 3], dd(&[], &[1], &[], &[0])),
        (vec![5, 7], vec![5, 3], dd(&[], &[0], &[], &[0])),
        (vec![7, 5], vec![3, 5], dd(&[], &[1], &[], &[1])),
        (vec![5, 7], vec![3, 5], dd(&[], &[0], &[], &[1])),
        (vec![70, 90], vec![90, 80], dd(&[], &[1], &[], &[0])),
        (vec![4, 6, 5], vec![4, 5, 3], dd(&[0], &[2], &[0], &[1])),
        (vec![6, 4, 5], vec![5, 3, 4], dd(&[1], &[2], &[2], &[0])),
        (
            vec![2, 3, 4, 5],
            vec![5, 4, 2, 6],
            dd(&[0], &[3, 2], &[2], &[0, 1]),
        ),
        (vec![3, 2, 4], vec![4, 2, 5], dd(&[1], &[2], &[1], &[0])),
        (vec![0, 5], vec![5, 3], dd(&[], &[1], &[], &[0])),
        (vec![4, 0], vec![0, 3], dd(&[], &[1], &[], &[0])),
        (vec![0, 2, 3], vec![0, 3, 2], dd(&[0], &[2], &[0], &[1])),
        (vec![5], vec![5], dd(&[], &[0], &[], &[0])),
        (vec![3, 5], vec![5], dd(&[], &[1], &[], &[0])),
        (vec![2, 3], vec![4], dd(&[], &[], &[], &[])),
        (
            vec![9, 130, 80],
            vec![9, 80, 150],
            dd(&[0], &[2], &[0], &[1]),
        ),
        (vec![300, 200], vec![200, 260], dd(&[], &[1], &[], &[0])),
        // Batch dims not leading: read in place with strides (attention's q.K and p.V).
        (vec![4, 16], vec![10, 4, 16], dd(&[0], &[1], &[1], &[2])),
        (vec![4, 10], vec![10, 4, 16], dd(&[0], &[1], &[1], &[0])),
        (vec![10, 4, 16], vec![4, 16, 7], dd(&[1], &[2], &[0], &[1])),
        (
            vec![2, 7, 3, 5],
            vec![3, 5, 2, 6],
            dd(&[0, 2], &[3], &[2, 0], &[1]),
        ),
        (vec![6, 3, 2, 5], vec![2, 5, 4], dd(&[2], &[3], &[0], &[1])),
        // Neither matrix dim contiguous: the transposing copy.
        (vec![5, 3, 4], vec![3, 6, 4], dd(&[2], &[1], &[2], &[0])),
    ]
}

fn seq() -> Parallel<'static> {
    Parallel::SEQ
}

#[test]
fn dot_matches_reference_and_thread_counts() {
    let two = Threads::new(2);
    let mut rng = Rng(7);
    for ty in [
        P::F32,
        P::F64,
        P::C64,
        P::C128,
        P::F16,
        P::Bf16,
        P::S32,
        P::U8,
        P::Pred,
    ] {
        for (ld, rd, d) in dot_cases() {
            let (l, r) = (random(&mut rng, ty, &ld), random(&mut rng, ty, &rd));
            let out = infer::dot(l.shape(), r.shape(), &d, None).unwrap();
            let what = format!("dot {ty:?} {ld:?} x {rd:?} {d:?}");
            let want = dot_reference(&l, &r, &d, &out).unwrap();
            let got = dot(&l, &r, &d, &out, seq()).unwrap();
            assert_close(&got, &want, tol(ty) * 10.0, &what);
            let got2 = dot(&l, &r, &d, &out, two.parallel()).unwrap();
            assert_eq!(got, got2, "{what}: 1 vs 2 threads");
        }
    }
}

fn window(k: &[i64], f: impl Fn(usize, &mut WindowDim)) -> Window {
    Window {
        dims: k
            .iter()
            .enumerate()
            .map(|(i, &s)| {
                let mut w = WindowDim::new(s);
                f(i, &mut w);
                w
            })
            .collect(),
    }
}

fn cfg(w: Window, dnums: ConvDimensionNumbers, fgc: i64, bgc: i64) -> ConvConfig {
    ConvConfig {
        window: w,
        dnums,
        feature_group_count: fgc,
        batch_group_count: bgc,
        precision: PrecisionConfig::default(),
    }
}

/// NHWC input, HWIO kernel, NHWC output (2 spatial dims).
fn nhwc() -> ConvDimensionNumbers {
    ConvDimensionNumbers {
        input_batch_dimension: 0,
        input_feature_dimension: 3,
        input_spatial_dimensions: vec![1, 2],
        kernel_input_feature_dimension: 2,
        kernel_output_feature_dimension: 3,
        kernel_spatial_dimensions: vec![0, 1],
        output_batch_dimension: 0,
        output_feature_dimension: 3,
        output_spatial_dimensions: vec![1, 2],
    }
}

/// `fb01_io01->fb01`, the kernel-gradient form.
fn fb01() -> ConvDimensionNumbers {
    ConvDimensionNumbers {
        input_batch_dimension: 1,
        input_feature_dimension: 0,
        input_spatial_dimensions: vec![2, 3],
        kernel_input_feature_dimension: 0,
        kernel_output_feature_dimension: 1,
        kernel_spatial_dimensions: vec![2, 3],
        output_batch_dimension: 1,
        output_feature_dimension: 0,
        output_spatial_dimensions: vec![2, 3],
    }
}

/// (lhs dims, rhs dims, config).
fn conv_cases() -> Vec<(Vec<i64>, Vec<i64>, ConvConfig)> {
    let n2 = ConvDimensionNumbers::nchw(2);
    let pad1 = |_: usize, w: &mut WindowDim| (w.padding_low, w.padding_high) = (1, 1);
    vec![
        (
            vec![2, 3, 6, 5],
            vec![4, 3, 3, 3],
            cfg(window(&[3, 3], pad1), n2.clone(), 1, 1),
        ),
        (
            vec![1, 2, 5, 5],
            vec![3, 2, 2, 2],
            cfg(window(&[2, 2], |_, _| {}), n2.clone(), 1, 1),
        ),
        (
            vec![2, 4, 7, 6],
            vec![6, 2, 3, 2],
            cfg(
                window(&[3, 2], |i, w| {
                    w.stride = 2;
                    w.padding_low = i as i64;
                    w.padding_high = 2 - i as i64;
                    w.window_dilation = 1 + i as i64;
                }),
                n2.clone(),
                2,
                1,
            ),
        ),
        (
            vec![2, 3, 4, 4],
            vec![2, 3, 3, 3],
            cfg(
                window(&[3, 3], |_, w| {
                    w.base_dilation = 2;
                    w.padding_low = 2;
                    w.padding_high = 2;
                    w.window_reversal = true;
                }),
                n2.clone(),
                1,
                1,
            ),
        ),
        (
            vec![2, 3, 6, 6],
            vec![2, 3, 3, 3],
            cfg(
                window(&[3, 3], |_, w| (w.padding_low, w.padding_high) = (-1, 2)),
                n2.clone(),
                1,
                1,
            ),
        ),
        (
            vec![3, 5, 6, 4],
            vec![2, 3, 4, 6],
            cfg(window(&[2, 3], pad1), nhwc(), 1, 1),
        ),
        (
            vec![3, 5, 6, 4],
            vec![2, 3, 2, 6],
            cfg(window(&[2, 3], pad1), nhwc(), 2, 1),
        ),
        (
            vec![4, 6, 7, 7],
            vec![4, 5, 7, 7],
            cfg(window(&[7, 7], pad1), fb01(), 1, 1),
        ),
        (
            vec![6, 4, 5, 5],
            vec![4, 4, 3, 3],
            cfg(window(&[3, 3], pad1), n2.clone(), 1, 2),
        ),
        (
            vec![4, 2, 5],
            vec![6, 2, 3],
            cfg(
                window(&[3], |_, w| w.stride = 2),
                ConvDimensionNumbers::nchw(1),
                1,
                1,
            ),
        ),
        (
            vec![3, 4],
            vec![5, 4],
            cfg(Window::default(), ConvDimensionNumbers::nchw(0), 1, 1),
        ),
        (
            vec![0, 3, 4, 4],
            vec![2, 3, 3, 3],
            cfg(window(&[3, 3], pad1), n2.clone(), 1, 1),
        ),
        (
            vec![2, 3, 4, 4],
            vec![0, 3, 3, 3],
            cfg(window(&[3, 3], pad1), n2.clone(), 1, 1),
        ),
        (
            vec![2, 0, 4, 4],
            vec![2, 0, 3, 3],
            cfg(window(&[3, 3], pad1), n2.clone(), 1, 1),
        ),
        (
            vec![2, 3, 2, 2],
            vec![2, 3, 3, 3],
            cfg(window(&[3, 3], |_, _| {}), n2.clone(), 1, 1),
        ),
        (
            vec![4, 16, 12, 12],
            vec![32, 16, 3, 3],
            cfg(window(&[3, 3], pad1), n2.clone(), 1, 1),
        ),
        (
            vec![8, 16, 16, 16],
            vec![32, 16, 3, 3],
            cfg(window(&[3, 3], pad1), n2.clone(), 1, 1),
        ),
        (
            vec![8, 16, 18, 18],
            vec![8, 32, 18, 18],
            cfg(window(&[18, 18], pad1), fb01(), 1, 1),
        ),
        // Windows larger than the output (the row gather).
        (
            vec![2, 4, 6, 6],
            vec![6, 4, 5, 5],
            cfg(window(&[5, 5], |_, _| {}), n2.clone(), 1, 1),
        ),
        (
            vec![4, 3, 6, 6],
            vec![4, 3, 5, 5],
            cfg(window(&[5, 5], |_, _| {}), n2.clone(), 1, 2),
        ),
        (
            vec![2, 4, 6, 6],
            vec![6, 2, 5, 4],
            cfg(window(&[5, 4], pad1), n2.clone(), 2, 1),
        ),
        (
            vec![2, 3, 3, 3],
            vec![2, 3, 4, 4],
            cfg(
                window(&[4, 4], |_, w| {
                    w.base_dilation = 2;
                    w.window_reversal = true;
                }),
                n2.clone(),
                1,
                1,
            ),
        ),
        (
            vec![2, 3, 9, 9],
            vec![2, 3, 4, 4],
            cfg(
                window(&[4, 4], |_, w| {
                    w.window_dilation = 2;
                    w.stride = 2;
                    w.padding_low = -1;
                }),
                n2,
                1,
                1,
            ),
        ),
    ]
}

#[test]
fn convolution_matches_reference_and_thread_counts() {
    let two = Threads::new(2);
    let mut rng = Rng(11);
    for ty in [P::F32, P::F64, P::C64, P::C128, P::F16, P::Bf16, P::S32] {
        for (ld, rd, c) in conv_cases() {
            let (l, r) = (random(&mut rng, ty, &ld), random(&mut rng, ty, &rd));
            let what = format!("conv {ty:?} {ld:?} * {rd:?} {c:?}");
            let out = infer::convolution(l.shape(), r.shape(), &c, None).unwrap();
            let want = convolution_reference(&l, &r, &c, &out).unwrap();
            let got = convolution(&l, &r, &c, &out, seq()).unwrap();
            assert_close(&got, &want, tol(ty) * 10.0, &what);
            let got2 = convolution(&l, &r, &c, &out, two.parallel()).unwrap();
            assert_eq!(got, got2, "{what}: 1 vs 2 threads");
        }
    }
}

/// A batch of `n x n` matrices `m mᴴ + n I` (positive definite) with NaN written into the
/// triangle a lower (or upper) factorisation must not read.
fn spd(rng: &mut Rng, ty: P, batch: &[i64], n: i64, lower: bool) -> Literal {
    let mut dims = batch.to_vec();
    dims.extend([n, n]);
    let m = values(&random(rng, P::C128, &dims));
    let complex = matches!(ty, P::C64 | P::C128);
    let nu = n as usize;
    let per = nu * nu;
    let mut v = vec![Complex64::new(0.0, 0.0); m.len()];
    for b in 0..m.len() / per.max(1) {
        for i in 0..nu {
            for j in 0..nu {
                let mut s = Complex64::new(if i == j { n as f64 } else { 0.0 }, 0.0);
                for k in 0..nu {
                    let (x, y) = (m[b * per + i * nu + k], m[b * per + j * nu + k]);
                    let (x, y) = if complex {
                        (Complex64::new(x.0, x.1), Complex64::new(y.0, -y.1))
                    } else {
                        (Complex64::new(x.0, 0.0), Complex64::new(y.0, 0.0))
                    };
                    s += x * y;
                }
                let outside = if lower { j > i } else { i > j };
                v[b * per + i * nu + j] = if outside {
                    Complex64::new(f64::NAN, 0.0)
                } else {
                    s
                };
            }
        }
    }
    let l = Literal::from_vec(&dims, v).unwrap();
    let d = super::elementwise::convert(l.array_data().unwrap(), ty).unwrap();
    Literal::from_array_data(Shape::array(ty, dims), d).unwrap()
}

#[test]
fn cholesky_matches_reference_and_thread_counts() {
    let two = Threads::new(2);
    let mut rng = Rng(3);
    for ty in [P::F32, P::F64, P::C64, P::C128, P::F16] {
        for (batch, n) in [
            (vec![], 1),
            (vec![], 6),
            (vec![3], 5),
            (vec![2, 2], 4),
            (vec![0], 3),
            (vec![2], 0),
            (vec![], 70),
            (vec![8], 150),
        ] {
            for lower in [true, false] {
                let a = spd(&mut rng, ty, &batch, n, lower);
                let what = format!("cholesky {ty:?} {batch:?} n={n} lower={lower}");
                let want = reference::cholesky(&a, lower, a.shape()).unwrap();
                let got = cholesky(&a, lower, a.shape(), seq()).unwrap();
                assert_close(&got, &want, tol(ty) * 10.0, &what);
                assert_eq!(
                    got,
                    cholesky(&a, lower, a.shape(), two.parallel()).unwrap(),
                    "{what}"
                );
            }
        }
    }
}

#[test]
fn cholesky_of_an_indefinite_matrix_is_nan() {
    let a = Literal::from_vec(&[2, 2], vec![1f32, 2., 2., 1.]).unwrap();
    let got = cholesky(&a, true, a.shape(), seq()).unwrap();
    assert!(got.data::<f32>().unwrap().iter().all(|x| x.is_nan()));
}

#[test]
fn triangular_solve_matches_reference_and_thread_counts() {
    let two = Threads::new(2);
    let mut rng = Rng(5);
    for ty in [P::F32, P::F64, P::C64, P::C128] {
        for (batch, m, other) in [
            (vec![], 4, 3),
            (vec![2], 5, 1),
            (vec![], 0, 2),
            (vec![3], 3, 0),
            (vec![], 60, 70),
            (vec![4], 150, 150),
        ] {
            for bits in 0..24u32 {
                if m >= 100 && bits % 5 != 0 {
                    continue; // a few of the options on the large case (the reference is slow)
                }
                let o = TriangularSolveOptions {
                    left_side: bits & 1 != 0,
                    lower: bits & 2 != 0,
                    unit_diagonal: bits & 4 != 0,
                    transpose_a: [
                        Transpose::NoTranspose,
                        Transpose::Transpose,
                        Transpose::Adjoint,
                    ][(bits >> 3) as usize],
                };
                // A well-conditioned triangle; the other triangle (and a unit diagonal) NaN.
                let a = triangle(&mut rng, ty, &batch, m, (o.lower, o.unit_diagonal));
                let mut bd = batch.clone();
                bd.extend(if o.left_side { [m, other] } else { [other, m] });
                let b = random(&mut rng, ty, &bd);
                let what = format!("triangular-solve {ty:?} {batch:?} m={m} {o:?}");
                let want = reference::triangular_solve(&a, &b, &o, b.shape()).unwrap();
                let got = triangular_solve(&a, &b, &o, b.shape(), seq()).unwrap();
                assert_close(&got, &want, tol(ty) * 100.0, &what);
                let got2 = triangular_solve(&a, &b, &o, b.shape(), two.parallel()).unwrap();
                assert_eq!(got, got2, "{what}");
            }
        }
    }
}

/// A batch of `n x n` triangles (`lower` or upper): off-diagonal entries in (-1/n, 1/n),
/// diagonal in [1, 2) or NaN when `unit`; NaN in the other triangle.
fn triangle(rng: &mut Rng, ty: P, batch: &[i64], n: i64, (lower, unit): (bool, bool)) -> Literal {
    let mut dims = batch.to_vec();
    dims.extend([n, n]);
    let nu = n as usize;
    let v: Vec<(f64, f64)> = values(&random(rng, P::C128, &dims));
    let v: Vec<Complex64> = v
        .iter()
        .enumerate()
        .map(|(e, &(x, y))| {
            let (i, j) = ((e / nu) % nu, e % nu);
            match (i == j, if lower { j < i } else { i < j }) {
                (true, _) if unit => Complex64::new(f64::NAN, f64::NAN),
                (true, _) => Complex64::new(1.0 + x.abs(), y),
                (false, true) => Complex64::new(x, y) / n as f64,
                (false, false) => Complex64::new(f64::NAN, f64::NAN),
            }
        })
        .collect();
    let l = Literal::from_vec(&dims, v).unwrap();
    let d = super::elementwise::convert(l.array_data().unwrap(), ty).unwrap();
    Literal::from_array_data(Shape::array(ty, dims), d).unwrap()
}

/// The bit-level bf16 conversions: every bf16 widens to the generic conversion's bits;
/// f32s around every rounding boundary (each bf16 value's halfway points, ±1 ulp, in both
/// signs) and the specials narrow by round-to-nearest-even (which the generic path through
/// f64 misses for some values of the smallest exponents), NaNs as the generic path does.
#[test]
fn bf16_bit_conversions_match_the_generic_ones() {
    use super::elementwise::{narrow_bf16, widen_bf16};
    use crate::scalar::Elem;
    for b in 0..=u16::MAX {
        let h = bf16::from_bits(b);
        let (fast, slow) = (widen_bf16(h), f32::from_elem(h));
        assert_eq!(fast.to_bits(), slow.to_bits(), "widen {b:#06x}");
    }
    let mut xs: Vec<u32> = vec![
        0x7f80_0001,
        0x7fc0_0001,
        0xffbf_ffff,
        0x7f7f_ffff,
        0x0000_0001,
    ];
    // NaNs: top payload bits in every pattern, both signs, signalling and quiet.
    xs.extend((0..1u32 << 16).map(|k| 0x7f80_0001 | (k << 7) | ((k & 1) << 31)));
    for b in 0..=u32::from(u16::MAX) {
        let half_way = (b << 16) | 0x8000;
        xs.extend([
            b << 16,
            half_way - 1,
            half_way,
            half_way + 1,
            (b << 16) | 0x7fff,
        ]);
    }
    for x in xs {
        let f = f32::from_bits(x);
        let fast = narrow_bf16(f).to_bits();
        if f.is_nan() {
            assert_eq!(fast, bf16::from_elem(f).to_bits(), "narrow {x:#010x}");
        } else {
            // Round to nearest even as `half` does it from f32 (the generic path through
            // f64 rounds some above-halfway cases of the smallest exponents down).
            assert_eq!(fast, bf16::from_f32(f).to_bits(), "narrow {x:#010x}");
        }
    }
}

/// `clamp` on bf16 picks its operands' bits instead of rounding f32 results back: the same
/// bits as the f32 formulation `from_f32(fmin(from_f32(fmax(x, lo)), hi))` (NaN quieted),
/// on 300,000 random bit-pattern triples (NaNs signalling and quiet, ±0, ±inf, subnormals)
/// with full-length and scalar bounds.
#[test]
fn bf16_clamp_matches_the_f32_formulation() {
    use super::elementwise::{clamp, fmax, fmin};
    let mut state = 7u64;
    let mut next = || {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let b = (state >> 40) as u16;
        // Every fourth value from a small set of specials.
        match (state >> 20) % 16 {
            0 => [
                0x7f80, 0xff80, 0x0000, 0x8000, 0x7fc1, 0x7f81, 0xffa0, 0x0001,
            ][b as usize % 8],
            _ => b,
        }
    };
    let n = 100_000;
    let old = |x: bf16, l: bf16, h: bf16| {
        let m = bf16::from_f32(fmax(x.to_f32(), l.to_f32()));
        bf16::from_f32(fmin(m.to_f32(), h.to_f32()))
    };
    for scalar_bounds in [false, true] {
        let x: Vec<bf16> = (0..n).map(|_| bf16::from_bits(next())).collect();
        let m = if scalar_bounds { 1 } else { n };
        let lo: Vec<bf16> = (0..m).map(|_| bf16::from_bits(next())).collect();
        let hi: Vec<bf16> = (0..m).map(|_| bf16::from_bits(next())).collect();
        let got = clamp(
            &ArrayData::Bf16(lo.clone()),
            &ArrayData::Bf16(x.clone()),
            &ArrayData::Bf16(hi.clone()),
        )
        .unwrap();
        let ArrayData::Bf16(got) = got else {
            panic!("not bf16")
        };
        for i in 0..n {
            let (l, h) = (lo[i % m], hi[i % m]);
            let want = old(x[i], l, h);
            assert_eq!(
                got[i].to_bits(),
                want.to_bits(),
                "clamp({l:?}, {:?}, {h:?})",
                x[i]
            );
        }
    }
}
