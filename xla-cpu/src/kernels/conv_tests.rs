//! The convolution fast paths (the Rows and Cols products of `conv_rows`, the column gather
//! of `conv`) against the reference loop, on random dimension labels, windows (strides,
//! negative padding, lhs/rhs dilation, reversal) and feature/batch groups, with NaN, ±inf
//! and ±0 in the operands, and for identical results on 1 and 2 threads.

use super::contraction::{
    convolution, convolution_form, convolution_plan, convolution_reference, ConvPlan,
};
use super::conv_rows::{small, Form};
use super::conv_subpixel::conv_subpixel;
use crate::parallel::{Parallel, Threads};
use xla_core::attrs::{ConvConfig, ConvDimensionNumbers, PrecisionConfig, Window, WindowDim};
use xla_core::literal::ArrayData;
use xla_core::shape_inference::contraction as infer;
use xla_core::{Literal, Shape};

/// A small deterministic generator (64-bit LCG).
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.0 >> 33
    }
    fn below(&mut self, n: u64) -> i64 {
        (self.next() % n) as i64
    }
    fn unit(&mut self) -> f64 {
        (self.next() as f64 / (1u64 << 31) as f64) * 2.0 - 1.0
    }
    fn perm(&mut self, n: usize) -> Vec<i64> {
        let mut v: Vec<i64> = (0..n as i64).collect();
        for i in (1..n).rev() {
            v.swap(i, self.below(i as u64 + 1) as usize);
        }
        v
    }
}

/// Random values in [-1, 1); with `special`, about one in twelve is NaN, ±inf or ±0.
fn values(rng: &mut Rng, dims: &[i64], special: bool) -> Literal {
    let n: i64 = dims.iter().product();
    let specials = [f32::NAN, f32::INFINITY, f32::NEG_INFINITY, 0.0, -0.0];
    let v: Vec<f32> = (0..n)
        .map(|_| {
            if special && rng.below(12) == 0 {
                specials[rng.below(5) as usize]
            } else {
                rng.unit() as f32
            }
        })
        .collect();
    Literal::from_vec(dims, v).unwrap()
}

/// Dimension numbers from three permutations: (batch, feature, spatial...) of the lhs,
/// (input feature, output feature, spatial...) of the rhs, (batch, feature, spatial...) of
/// the output.
fn dnums(l: &[i64], r: &[i64], o: &[i64]) -> ConvDimensionNumbers {
    ConvDimensionNumbers {
        input_batch_dimension: l[0],
        input_feature_dimension: l[1],
        input_spatial_dimensions: l[2..].to_vec(),
        kernel_input_feature_dimension: r[0],
        kernel_output_feature_dimension: r[1],
        kernel_spatial_dimensions: r[2..].to_vec(),
        output_batch_dimension: o[0],
        output_feature_dimension: o[1],
        output_spatial_dimensions: o[2..].to_vec(),
    }
}

/// Dims placed by a permutation: dim `perm[i]` gets `sizes[i]`.
fn place(perm: &[i64], sizes: &[i64]) -> Vec<i64> {
    let mut d = vec![0; perm.len()];
    for (&p, &s) in perm.iter().zip(sizes) {
        d[p as usize] = s;
    }
    d
}

/// A random window dim over an lhs dim of `size`; `wide` makes the window cover the
/// (padded) lhs, as kernel gradients do.
fn window_dim(rng: &mut Rng, size: i64, wide: bool) -> WindowDim {
    let mut w = WindowDim::new(1 + rng.below(3));
    w.padding_low = rng.below(4) - 1;
    w.padding_high = rng.below(4) - 1;
    if wide {
        w.size = (size + w.padding_low + w.padding_high - rng.below(3)).max(1);
        return w;
    }
    w.stride = 1 + rng.below(2);
    w.base_dilation = 1 + rng.below(2);
    w.window_dilation = 1 + rng.below(2);
    w.window_reversal = rng.below(2) == 1;
    w
}

/// (lhs dims, rhs dims, config) of a random convolution with `ns` spatial dims.
fn random_case(rng: &mut Rng, ns: usize) -> (Vec<i64>, Vec<i64>, ConvConfig) {
    let (fgc, bgc) = match rng.below(4) {
        0 => (2 + rng.below(2), 1),
        1 => (1, 2),
        _ => (1, 1),
    };
    let (kic, ocg) = (1 + rng.below(4), 1 + rng.below(3));
    let (batch, oc) = (bgc * (1 + rng.below(3)), ocg * fgc * bgc);
    let wide = rng.below(3) == 0;
    let sizes: Vec<i64> = (0..ns).map(|_| 1 + rng.below(6)).collect();
    let win: Vec<WindowDim> = sizes.iter().map(|&s| window_dim(rng, s, wide)).collect();
    let (lp, rp, op) = (rng.perm(ns + 2), rng.perm(ns + 2), rng.perm(ns + 2));
    let ld = place(&lp, &[&[batch, kic * fgc][..], &sizes].concat());
    let ks: Vec<i64> = win.iter().map(|w| w.size).collect();
    let rd = place(&rp, &[&[kic, oc][..], &ks].concat());
    let c = ConvConfig {
        window: Window { dims: win },
        dnums: dnums(&lp, &rp, &op),
        feature_group_count: fgc,
        batch_group_count: bgc,
        precision: PrecisionConfig::default(),
    };
    (ld, rd, c)
}

/// The f32 result shape of convolving `ld` by `rd` under `c`.
fn out_shape(ld: &[i64], rd: &[i64], c: &ConvConfig) -> Result<Shape, xla_core::ShapeError> {
    let ty = xla_core::PrimitiveType::F32;
    infer::convolution(
        &Shape::array(ty, ld.to_vec()),
        &Shape::array(ty, rd.to_vec()),
        c,
        None,
    )
}

fn floats(l: &Literal) -> Vec<f32> {
    match l.array_data().unwrap() {
        ArrayData::F32(v) => v.clone(),
        other => panic!("expected f32, found {:?}", other.element_type()),
    }
}

/// Runs the fast paths on 1 and 2 threads and checks them against the reference: equal, or
/// both NaN, or within 1e-4 relative; and the two thread counts bit-identical.
fn check(l: &Literal, r: &Literal, c: &ConvConfig, out: &Shape, two: &Threads, what: &str) {
    let want = floats(&convolution_reference(l, r, c, out).unwrap());
    let got = floats(&convolution(l, r, c, out, Parallel::SEQ).unwrap());
    let got2 = floats(&convolution(l, r, c, out, two.parallel()).unwrap());
    compare(&got, &got2, &want, what);
}

/// `got` (1 thread) against the reference `want` (equal, both NaN, or within 1e-4
/// relative) and bit-identical to `got2` (2 threads).
fn compare(got: &[f32], got2: &[f32], want: &[f32], what: &str) {
    assert_eq!(want.len(), got.len(), "{what}");
    for (i, (&a, &b)) in got.iter().zip(want).enumerate() {
        let ok = a == b || (a.is_nan() && b.is_nan()) || (a - b).abs() <= 1e-4 * (1.0 + b.abs());
        assert!(ok, "{what}: element {i}: {a} vs reference {b}");
    }
    for (i, (&a, &b)) in got.iter().zip(got2).enumerate() {
        let ok = a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan());
        assert!(ok, "{what}: element {i}: {a} on 1 thread, {b} on 2");
    }
}

#[test]
fn random_layouts_match_reference() {
    let two = Threads::new(2);
    let mut rng = Rng(5);
    let (mut rows, mut cols, mut gather) = (0, 0, 0);
    for i in 0..400 {
        let ns = [1, 2, 2, 2, 3, 0][i % 6];
        let (ld, rd, c) = random_case(&mut rng, ns);
        let Ok(out) = out_shape(&ld, &rd, &c) else {
            continue;
        };
        let special = i % 3;
        let l = values(&mut rng, &ld, special == 1);
        let r = values(&mut rng, &rd, special == 2);
        match convolution_form(&l, &r, &c, &out).unwrap() {
            Some(Form::Rows) => rows += 1,
            Some(Form::Cols) => cols += 1,
            None => gather += 1,
        }
        let what = format!("case {i}: {ld:?} * {rd:?} {c:?}");
        check(&l, &r, &c, &out, &two, &what);
    }
    assert!(
        rows > 40 && cols > 40 && gather > 40,
        "{rows} {cols} {gather}"
    );
}

/// The forms Flax writes (NHWC forward `b01f_01io->b01f`, input gradient `b01f_01oi->b01f`
/// with a reversed kernel, kernel gradient `f01b_i01o->01bf`), large enough for several
/// blocks and both threads, then NCHW and a scattered output layout; with and without
/// NaN/±inf/±0.
#[test]
fn block_scale_layouts_match_reference() {
    let two = Threads::new(2);
    let mut rng = Rng(9);
    let pad = |size: i64, reverse: bool| {
        let mut w = WindowDim::new(size);
        (w.padding_low, w.padding_high, w.window_reversal) = (1, 1, reverse);
        w
    };
    let conv = |d: ConvDimensionNumbers, size: i64, reverse: bool| ConvConfig {
        window: Window {
            dims: vec![pad(size, reverse), pad(size, reverse)],
        },
        dnums: d,
        feature_group_count: 1,
        batch_group_count: 1,
        precision: PrecisionConfig::default(),
    };
    let cases = [
        (
            vec![2, 16, 16, 32],
            vec![3, 3, 32, 64],
            conv(dnums(&[0, 3, 1, 2], &[2, 3, 0, 1], &[0, 3, 1, 2]), 3, false),
            Some(Form::Rows),
        ),
        (
            vec![2, 16, 16, 64],
            vec![3, 3, 32, 64],
            conv(dnums(&[0, 3, 1, 2], &[3, 2, 0, 1], &[0, 3, 1, 2]), 3, true),
            Some(Form::Rows),
        ),
        (
            vec![8, 24, 24, 8],
            vec![8, 24, 24, 32],
            conv(
                dnums(&[3, 0, 1, 2], &[0, 3, 1, 2], &[2, 3, 0, 1]),
                24,
                false,
            ),
            Some(Form::Cols),
        ),
        // NCHW in and out: the output rows of one batch element written in place.
        (
            vec![2, 8, 10, 10],
            vec![8, 8, 3, 3],
            conv(dnums(&[0, 1, 2, 3], &[1, 0, 2, 3], &[0, 1, 2, 3]), 3, false),
            Some(Form::Rows),
        ),
        // Output spatial dims apart (`0b1f`): the output written through a scatter.
        (
            vec![2, 10, 10, 8],
            vec![3, 3, 8, 8],
            conv(dnums(&[0, 3, 1, 2], &[2, 3, 0, 1], &[1, 3, 0, 2]), 3, true),
            Some(Form::Rows),
        ),
    ];
    for (i, (ld, rd, c, form)) in cases.iter().enumerate() {
        let out = out_shape(ld, rd, c).unwrap();
        // A non-finite rhs sends the product back to the reference loop (three times the
        // work in a debug build): the three large cases leave that to the small ones.
        let variants = if i < 3 { 2 } else { 3 };
        for special in 0..variants {
            let l = values(&mut rng, ld, special == 1);
            let r = values(&mut rng, rd, special == 2);
            assert_eq!(convolution_form(&l, &r, c, &out).unwrap(), *form);
            let what = format!("case {i} special {special}: {ld:?} * {rd:?}");
            check(&l, &r, c, &out, &two, &what);
        }
    }
}

/// A fast path's kernel as `conv_gemm` calls it.
type Direct = for<'a> fn(&[f32], &[f32], &ConvPlan, Parallel<'a>) -> Option<Vec<f32>>;

/// The sub-pixel decomposition run directly; see [`check_direct`].
fn check_subpixel(
    l: &Literal,
    r: &Literal,
    c: &ConvConfig,
    out: &Shape,
    two: &Threads,
    what: &str,
) -> bool {
    check_direct(conv_subpixel::<f32>, (l, r), c, out, two, what)
}

/// A fast path run directly (no fallback behind it) on 1 and 2 threads and compared as
/// [`check`] does; false when it declined the convolution.
fn check_direct(
    run: Direct,
    (l, r): (&Literal, &Literal),
    c: &ConvConfig,
    out: &Shape,
    two: &Threads,
    what: &str,
) -> bool {
    let p = convolution_plan(l, r, c, out).unwrap();
    let (lv, rv) = (floats(l), floats(r));
    let Some(got) = run(&lv, &rv, &p, Parallel::SEQ) else {
        return false;
    };
    let got2 = run(&lv, &rv, &p, two.parallel()).unwrap();
    let want = floats(&convolution_reference(l, r, c, out).unwrap());
    compare(&got, &got2, &want, what);
    true
}

/// A random convolution with lhs dilation 2 or 3 on at least one spatial dim, strides 1-3
/// and rhs dilation 1-2 (with the random layouts, paddings, reversal and groups of
/// [`random_case`]).
fn dilated_case(rng: &mut Rng) -> (Vec<i64>, Vec<i64>, ConvConfig) {
    let ns = 1 + rng.below(3) as usize;
    let (ld, rd, mut c) = random_case(rng, ns);
    for w in &mut c.window.dims {
        if rng.below(4) != 0 {
            w.base_dilation = 2 + rng.below(2);
        }
        w.stride = 1 + rng.below(3);
        w.window_dilation = 1 + rng.below(2);
    }
    if let Some(w) = c.window.dims.first_mut() {
        w.base_dilation = w.base_dilation.max(2);
    }
    (ld, rd, c)
}

#[test]
fn subpixel_random_matches_reference() {
    let two = Threads::new(2);
    let mut rng = Rng(17);
    let mut ran = 0;
    for i in 0..300 {
        let (ld, rd, c) = dilated_case(&mut rng);
        let Ok(out) = out_shape(&ld, &rd, &c) else {
            continue;
        };
        if out.dims().contains(&0) {
            continue;
        }
        let special = i % 3;
        let l = values(&mut rng, &ld, special == 1);
        let r = values(&mut rng, &rd, special == 2);
        let what = format!("case {i}: {ld:?} * {rd:?} {c:?}");
        // Non-finite kernels included: the elements whose windows read fill are redone.
        assert!(
            check_subpixel(&l, &r, &c, &out, &two, &what),
            "{what}: declined"
        );
        ran += 1;
        check(&l, &r, &c, &out, &two, &what);
    }
    assert!(ran > 150, "{ran}");
}

/// The lhs-dilated convolutions of Flax's `ConvTranspose` (stride 2, NHWC, padding 2_1,
/// with 16 and with 1 output feature), the input gradient of a stride-2 convolution
/// (`b01f_01oi`, reversed kernel) and the kernel gradients of both (`f01b_i01o->01bf` over a
/// window covering the image), with and without NaN/±inf/±0.
#[test]
fn subpixel_flax_shapes_match_reference() {
    let two = Threads::new(2);
    let mut rng = Rng(23);
    let win = |size: i64, reverse: bool| {
        let mut w = WindowDim::new(size);
        (w.padding_low, w.padding_high, w.base_dilation) = (2, 1, 2);
        w.window_reversal = reverse;
        ConvConfig {
            window: Window {
                dims: vec![w.clone(), w],
            },
            dnums: dnums(&[0, 3, 1, 2], &[2, 3, 0, 1], &[0, 3, 1, 2]),
            feature_group_count: 1,
            batch_group_count: 1,
            precision: PrecisionConfig::default(),
        }
    };
    let kgrad = |size: i64| ConvConfig {
        dnums: dnums(&[3, 0, 1, 2], &[0, 3, 1, 2], &[2, 3, 0, 1]),
        ..win(size, false)
    };
    let ograd = ConvConfig {
        dnums: dnums(&[0, 3, 1, 2], &[3, 2, 0, 1], &[0, 3, 1, 2]),
        ..win(3, true)
    };
    let cases = [
        (vec![2, 7, 7, 32], vec![3, 3, 32, 16], win(3, false)),
        (vec![2, 14, 14, 16], vec![3, 3, 16, 1], win(3, false)),
        (vec![2, 7, 7, 32], vec![3, 3, 16, 32], ograd),
        (vec![2, 7, 7, 32], vec![2, 14, 14, 16], kgrad(14)),
        (vec![2, 14, 14, 16], vec![2, 28, 28, 1], kgrad(28)),
    ];
    for (i, (ld, rd, c)) in cases.iter().enumerate() {
        let out = out_shape(ld, rd, c).unwrap();
        for special in 0..3 {
            let l = values(&mut rng, ld, special == 1);
            let r = values(&mut rng, rd, special == 2);
            let what = format!("case {i} special {special}: {ld:?} * {rd:?} -> {out}");
            let ran = check_subpixel(&l, &r, c, &out, &two, &what);
            assert!(ran || special == 2, "{what}: declined");
            check(&l, &r, c, &out, &two, &what);
        }
    }
}

/// The direct kernels for one or two output features per product (`conv_small`): Rows
/// (NHWC forward with 20 input features, so lane remainders and merged tap runs; NCHW;
/// feature groups of one output feature; strides, padding, rhs dilation, reversal) and
/// Cols (kernel gradients with one or two output features over 20 or 5 batch elements,
/// contiguous or relaid out), with and without NaN/±inf/±0.
#[test]
fn small_features_match_reference() {
    let two = Threads::new(2);
    let mut rng = Rng(31);
    let dim = |size: i64, stride: i64, dil: i64, rev: bool| {
        let mut w = WindowDim::new(size);
        (w.padding_low, w.padding_high, w.stride) = (1, 2, stride);
        (w.window_dilation, w.window_reversal) = (dil, rev);
        w
    };
    let conv = |d: ConvDimensionNumbers, w: WindowDim, fgc: i64| ConvConfig {
        window: Window {
            dims: vec![w.clone(), w],
        },
        dnums: d,
        feature_group_count: fgc,
        batch_group_count: 1,
        precision: PrecisionConfig::default(),
    };
    let nhwc = dnums(&[0, 3, 1, 2], &[2, 3, 0, 1], &[0, 3, 1, 2]);
    let nchw = dnums(&[0, 1, 2, 3], &[1, 0, 2, 3], &[0, 1, 2, 3]);
    let kgrad = dnums(&[3, 0, 1, 2], &[0, 3, 1, 2], &[2, 3, 0, 1]);
    let cases = [
        (
            vec![3, 9, 9, 20],
            vec![3, 3, 20, 1],
            conv(nhwc.clone(), dim(3, 1, 1, false), 1),
        ),
        (
            vec![2, 9, 8, 20],
            vec![3, 3, 20, 2],
            conv(nhwc.clone(), dim(3, 2, 2, true), 1),
        ),
        (
            vec![2, 6, 9, 9],
            vec![1, 6, 3, 3],
            conv(nchw, dim(3, 1, 1, true), 1),
        ),
        (
            vec![2, 8, 8, 6],
            vec![3, 3, 2, 3],
            conv(nhwc, dim(3, 1, 2, false), 3),
        ),
        (
            vec![3, 8, 8, 20],
            vec![3, 8, 8, 1],
            conv(kgrad.clone(), dim(8, 1, 1, false), 1),
        ),
        (
            vec![3, 8, 8, 5],
            vec![3, 5, 5, 2],
            conv(kgrad, dim(5, 1, 2, true), 1),
        ),
    ];
    for (i, (ld, rd, c)) in cases.iter().enumerate() {
        let out = out_shape(ld, rd, c).unwrap();
        for special in 0..3 {
            let l = values(&mut rng, ld, special == 1);
            let r = values(&mut rng, rd, special == 2);
            let p = convolution_plan(&l, &r, c, &out).unwrap();
            assert!(small(&p), "case {i}: not the direct kernels");
            let form = convolution_form(&l, &r, c, &out).unwrap();
            let want = if i < 4 { Form::Rows } else { Form::Cols };
            assert_eq!(form, Some(want), "case {i}");
            let what = format!("case {i} special {special}: {ld:?} * {rd:?} -> {out}");
            check(&l, &r, c, &out, &two, &what);
        }
    }
}

/// Non-finite weights stay on the fast products (a 1×1 convolution whose kernel holds a NaN
/// used to fall back to the reference loop, 100× slower): without padding or lhs dilation
/// every tap reads a real input element, so the products are the reference's sums; with
/// them, the elements whose windows read fill are redone as the reference does them. NaN,
/// ±inf and ±0 in every kernel, in every other input; windows with and without fill.
#[test]
fn nonfinite_weights_stay_on_the_products() {
    use super::conv::conv_gemm;
    let two = Threads::new(2);
    let mut rng = Rng(29);
    let mut ran = 0;
    for i in 0..400 {
        let (ld, rd, mut c) = random_case(&mut rng, [1, 2, 2, 3][i % 4]);
        if i % 3 != 0 {
            for w in &mut c.window.dims {
                w.padding_low = w.padding_low.min(0);
                w.padding_high = w.padding_high.min(0);
                w.base_dilation = 1;
            }
        }
        let Ok(out) = out_shape(&ld, &rd, &c) else {
            continue;
        };
        if out.dims().contains(&0) {
            continue;
        }
        let l = values(&mut rng, &ld, i % 2 == 0);
        let r = values(&mut rng, &rd, true);
        let p = convolution_plan(&l, &r, &c, &out).unwrap();
        let what = format!("case {i}: {ld:?} * {rd:?} {c:?}");
        let (lv, rv) = (floats(&l), floats(&r));
        let got = conv_gemm(&lv, &rv, &p, Parallel::SEQ);
        let got = got.unwrap_or_else(|| panic!("{what}: the products declined"));
        let got2 = conv_gemm(&lv, &rv, &p, two.parallel()).unwrap();
        let want = floats(&convolution_reference(&l, &r, &c, &out).unwrap());
        compare(&got, &got2, &want, &what);
        ran += 1;
    }
    assert!(ran > 200, "{ran}");
}

/// Depthwise convolutions in channels-last layouts (`b01f`, kernel `[.., 1, C]`, feature
/// groups = C) run on `conv_depthwise`: bit for bit the reference (taps summed in window
/// order), NaN where it has NaN, with random windows (stride, padding, window dilation,
/// reversal), 1-3 spatial dims, NaN/±inf/±0 in input or kernel, at 1 and 2 threads.
#[test]
fn depthwise_matches_reference_bit_for_bit() {
    use super::conv_depthwise::conv_depthwise;
    let two = Threads::new(2);
    let mut rng = Rng(31);
    let mut ran = 0;
    for i in 0..120 {
        let ns = 1 + i % 3;
        let ch = 8 + rng.below(20);
        let batch = 1 + rng.below(3);
        let sizes: Vec<i64> = (0..ns).map(|_| 2 + rng.below(6)).collect();
        let win: Vec<WindowDim> = (0..ns)
            .map(|_| {
                let mut w = WindowDim::new(1 + rng.below(3));
                w.stride = 1 + rng.below(2);
                w.window_dilation = 1 + rng.below(2);
                w.padding_low = rng.below(3) - 1;
                w.padding_high = rng.below(3) - 1;
                w.window_reversal = rng.below(4) == 0;
                w
            })
            .collect();
        let ld = [&[batch][..], &sizes, &[ch]].concat();
        let ks: Vec<i64> = win.iter().map(|w| w.size).collect();
        let rd = [&ks[..], &[1, ch]].concat();
        let spatial: Vec<i64> = (1..=ns as i64).collect();
        let dn = ConvDimensionNumbers {
            input_batch_dimension: 0,
            input_feature_dimension: ns as i64 + 1,
            input_spatial_dimensions: spatial.clone(),
            kernel_input_feature_dimension: ns as i64,
            kernel_output_feature_dimension: ns as i64 + 1,
            kernel_spatial_dimensions: (0..ns as i64).collect(),
            output_batch_dimension: 0,
            output_feature_dimension: ns as i64 + 1,
            output_spatial_dimensions: spatial,
        };
        let c = ConvConfig {
            window: Window { dims: win },
            dnums: dn,
            feature_group_count: ch,
            batch_group_count: 1,
            precision: PrecisionConfig::default(),
        };
        let Ok(out) = out_shape(&ld, &rd, &c) else {
            continue;
        };
        if out.dims().contains(&0) {
            continue;
        }
        let l = values(&mut rng, &ld, i % 3 == 1);
        let r = values(&mut rng, &rd, i % 3 == 2);
        let p = convolution_plan(&l, &r, &c, &out).unwrap();
        let what = format!("case {i}: {ld:?} * {rd:?} {c:?}");
        let (lv, rv) = (floats(&l), floats(&r));
        let got = conv_depthwise(&lv, &rv, &p, Parallel::SEQ)
            .unwrap_or_else(|| panic!("{what}: not taken as depthwise"));
        let got2 = conv_depthwise(&lv, &rv, &p, two.parallel()).unwrap();
        let want = floats(&convolution_reference(&l, &r, &c, &out).unwrap());
        for (k, ((&a, &b), &w)) in got.iter().zip(&got2).zip(&want).enumerate() {
            let same = |x: f32| x.to_bits() == w.to_bits() || (x.is_nan() && w.is_nan());
            assert!(same(a) && same(b), "{what}: element {k}: {a} / {b} vs {w}");
        }
        check(&l, &r, &c, &out, &two, &what);
        ran += 1;
    }
    assert!(ran > 80, "{ran}");
}

/// The per-tap products (`conv_taps`) against the reference: random 1-D channels-last
/// convolutions (features innermost in lhs and output, batch inner or outer in the lhs,
/// any kernel layout; strides, dilations up to 17, negative and wide padding, reversal;
/// several blocks of rows) and pointwise 2-D ones (`b01f` and `01bf` inputs), with NaN,
/// ±inf and ±0 in either operand, on 1 and 2 threads.
#[test]
fn per_tap_products_match_reference() {
    use super::conv_taps::conv_taps;
    let two = Threads::new(2);
    let mut rng = Rng(23);
    let mut taken = 0;
    for i in 0..60 {
        let (batch, cin, cout) = (1 + rng.below(3), 8 + rng.below(13), 1 + rng.below(40));
        let special = i % 3;
        let (ld, rd, c) = if i % 5 == 4 {
            // Pointwise over two spatial dims; the lhs `b01f` or `01bf`.
            let (h, w) = (1 + rng.below(9), 1 + rng.below(40));
            let lp: Vec<i64> = if rng.below(2) == 0 {
                vec![0, 3, 1, 2]
            } else {
                vec![2, 3, 0, 1]
            };
            let ld = place(&lp, &[batch, cin, h, w]);
            let rp = rng.perm(4);
            let rd = place(&rp, &[cin, cout, 1, 1]);
            let c = ConvConfig {
                window: Window {
                    dims: vec![WindowDim::new(1), WindowDim::new(1)],
                },
                dnums: dnums(&lp, &rp, &[0, 3, 1, 2]),
                feature_group_count: 1,
                batch_group_count: 1,
                precision: PrecisionConfig::default(),
            };
            (ld, rd, c)
        } else {
            let t = 1 + rng.below(600);
            let mut w = WindowDim::new(1 + rng.below(3));
            w.stride = 1 + rng.below(3);
            w.window_dilation = [1, 2, 4, 16, 17][rng.below(5) as usize];
            w.padding_low = rng.below(20) - 2;
            w.padding_high = rng.below(20) - 2;
            w.window_reversal = rng.below(3) == 0;
            // The lhs `b0f` or `0bf`: features innermost either way.
            let lp: Vec<i64> = if rng.below(2) == 0 {
                vec![0, 2, 1]
            } else {
                vec![1, 2, 0]
            };
            let ld = place(&lp, &[batch, cin, t]);
            let rp = rng.perm(3);
            let rd = place(&rp, &[cin, cout, w.size]);
            let c = ConvConfig {
                window: Window { dims: vec![w] },
                dnums: dnums(&lp, &rp, &[0, 2, 1]),
                feature_group_count: 1,
                batch_group_count: 1,
                precision: PrecisionConfig::default(),
            };
            (ld, rd, c)
        };
        let Ok(out) = out_shape(&ld, &rd, &c) else {
            continue;
        };
        let l = values(&mut rng, &ld, special == 1);
        let r = values(&mut rng, &rd, special == 2);
        let what = format!("case {i}: {ld:?} * {rd:?} {c:?}");
        if check_direct(conv_taps::<f32>, (&l, &r), &c, &out, &two, &what) {
            taken += 1;
        }
        check(&l, &r, &c, &out, &two, &what);
    }
    assert!(taken >= 50, "{taken} of 60 convolutions ran per tap");
}

/// The per-tap kernel gradients (`conv_tap_grads`) against the reference: random
/// `f0b_i0o->0bf`-style convolutions (the window covering the sequence, window strides
/// standing for dilations, padding on either side, output layouts `0bf` and `b0f`, 8-40
/// batch elements and features), with NaN, ±inf and ±0 in either operand, on 1 and 2
/// threads.
#[test]
fn per_tap_kernel_gradients_match_reference() {
    use super::conv_tap_grads::conv_tap_grads;
    let two = Threads::new(2);
    let mut rng = Rng(31);
    let mut taken = 0;
    for i in 0..40 {
        let (kic, batch, cout) = (1 + rng.below(9), 8 + rng.below(33), 8 + rng.below(60));
        let t = 64 + rng.below(300);
        let dil = [1, 2, 8, 16][rng.below(4) as usize];
        let mut w = WindowDim::new(t - rng.below(3) * 4);
        w.stride = dil;
        w.padding_low = rng.below(2) * dil;
        w.padding_high = rng.below(2) * dil;
        // lhs `f0b`: features (contracted) outermost, batch innermost; rhs `i0o`.
        let ld = vec![kic, t, batch];
        let rd = vec![kic, w.size, cout];
        let op: Vec<i64> = if rng.below(2) == 0 {
            vec![1, 2, 0]
        } else {
            vec![0, 2, 1]
        };
        let c = ConvConfig {
            window: Window { dims: vec![w] },
            dnums: dnums(&[2, 0, 1], &[0, 2, 1], &op),
            feature_group_count: 1,
            batch_group_count: 1,
            precision: PrecisionConfig::default(),
        };
        let Ok(out) = out_shape(&ld, &rd, &c) else {
            continue;
        };
        let special = i % 3;
        let l = values(&mut rng, &ld, special == 1);
        let r = values(&mut rng, &rd, special == 2);
        let what = format!("case {i}: {ld:?} * {rd:?} {c:?}");
        if check_direct(conv_tap_grads::<f32>, (&l, &r), &c, &out, &two, &what) {
            taken += 1;
        }
        check(&l, &r, &c, &out, &two, &what);
    }
    assert!(taken >= 35, "{taken} of 40 kernel gradients ran per tap");
}
