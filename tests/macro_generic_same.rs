//! A generic computation instantiated at three sizes gives, bit for bit, what the same
//! function written at each fixed size gives: values and gradients (`grad` of a generic
//! computation is generic).
#![allow(clippy::unwrap_used)]

use xla::computation;

#[computation(grad(w, b))]
fn loss<const B: usize>(x: Tensor<f32, B, 4>, w: Tensor<f32, 4>, b: f32, y: Tensor<f32, B>) -> f32 {
    let e = (x.dot(w) + b).tanh() - y;
    (e * e).mean()
}

macro_rules! fixed {
    ($name:ident, $b:literal) => {
        #[computation(grad(w, b))]
        fn $name(x: Tensor<f32, $b, 4>, w: Tensor<f32, 4>, b: f32, y: Tensor<f32, $b>) -> f32 {
            let e = (x.dot(w) + b).tanh() - y;
            (e * e).mean()
        }
    };
}
fixed!(loss1, 1);
fixed!(loss3, 3);
fixed!(loss8, 8);

fn data(n: usize) -> (Vec<f32>, Vec<f32>, Vec<f32>) {
    let x = (0..n * 4)
        .map(|i| ((i * 7 % 11) as f32 - 5.0) / 3.0)
        .collect();
    let w = vec![0.3, -0.2, 0.5, 0.1];
    let y = (0..n).map(|i| (i as f32 * 0.37).sin()).collect();
    (x, w, y)
}

#[test]
fn three_sizes_match_the_fixed_size_versions_bit_for_bit() {
    let b = 0.25f32;
    let (x, w, y) = data(1);
    assert_eq!(
        loss::call::<1>(&x, &w, b, &y).unwrap().to_bits(),
        loss1::call(&x, &w, b, &y).unwrap().to_bits()
    );
    let (gw, gb) = loss::grad::call::<1>(&x, &w, b, &y).unwrap();
    let (fw, fb) = loss1::grad::call(&x, &w, b, &y).unwrap();
    assert_eq!((bits(&gw), gb.to_bits()), (bits(&fw), fb.to_bits()));

    let (x, w, y) = data(3);
    assert_eq!(
        loss::call::<3>(&x, &w, b, &y).unwrap().to_bits(),
        loss3::call(&x, &w, b, &y).unwrap().to_bits()
    );
    let (gw, gb) = loss::grad::call::<3>(&x, &w, b, &y).unwrap();
    let (fw, fb) = loss3::grad::call(&x, &w, b, &y).unwrap();
    assert_eq!((bits(&gw), gb.to_bits()), (bits(&fw), fb.to_bits()));

    let (x, w, y) = data(8);
    let v = loss::value_and_grad::call::<8>(&x, &w, b, &y).unwrap();
    let f = loss8::value_and_grad::call(&x, &w, b, &y).unwrap();
    assert_eq!(
        (v.0.to_bits(), bits(&v.1), v.2.to_bits()),
        (f.0.to_bits(), bits(&f.1), f.2.to_bits())
    );
    // The HLO is the fixed-size HLO with the sizes substituted (names aside).
    let generic = loss::hlo(&[8])
        .unwrap()
        .replace("HloModule loss", "HloModule loss8")
        .replace("ENTRY loss.", "ENTRY loss8.");
    assert_eq!(generic, loss8::HLO);
    // The gradient is non-zero: the comparison is not of two zeros.
    assert!(v.1.iter().any(|g| *g != 0.0));
}

fn bits(v: &[f32]) -> Vec<u32> {
    v.iter().map(|f| f.to_bits()).collect()
}

#[test]
fn sizes_are_read_from_the_arguments_for_the_gradient_too() {
    let (x, w, y) = data(3);
    let lit = |dims: &[i64], v: &[f32]| xla::Literal::from_vec(dims, v.to_vec()).unwrap();
    let out = loss::grad::apply(
        lit(&[3, 4], &x),
        lit(&[4], &w),
        xla::Literal::scalar(0.25f32),
        lit(&[3], &y),
    )
    .unwrap();
    let parts = out.tuple_elements().unwrap();
    let (fw, _) = loss3::grad::call(&x, &w, 0.25, &y).unwrap();
    assert_eq!(parts[0].data::<f32>().unwrap(), &fw[..]);
}
