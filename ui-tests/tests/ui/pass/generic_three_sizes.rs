//! A ui pass case: this `#[computation]` crate compiles and its `main` runs to success.
use xla::computation;

/// A dense layer generic over the batch size, and the same layer at three fixed sizes.
#[computation]
fn dense<const B: usize>(
    x: Tensor<f32, B, 3>,
    w: Tensor<f32, 3, 2>,
    b: Tensor<f32, 2>,
) -> Tensor<f32, B, 2> {
    (x.dot(w) + b).tanh()
}

#[computation]
fn dense1(x: Tensor<f32, 1, 3>, w: Tensor<f32, 3, 2>, b: Tensor<f32, 2>) -> Tensor<f32, 1, 2> {
    (x.dot(w) + b).tanh()
}

#[computation]
fn dense4(x: Tensor<f32, 4, 3>, w: Tensor<f32, 3, 2>, b: Tensor<f32, 2>) -> Tensor<f32, 4, 2> {
    (x.dot(w) + b).tanh()
}

#[computation]
fn dense9(x: Tensor<f32, 9, 3>, w: Tensor<f32, 3, 2>, b: Tensor<f32, 2>) -> Tensor<f32, 9, 2> {
    (x.dot(w) + b).tanh()
}

fn bits(v: &[f32]) -> Vec<u32> {
    v.iter().map(|f| f.to_bits()).collect()
}

fn main() {
    let w = [0.5f32, -1.0, 0.25, 2.0, -0.75, 0.1];
    let b = [0.3f32, -0.2];
    let x: Vec<f32> = (0..27).map(|i| (i as f32 * 0.37).sin()).collect();
    assert_eq!(
        bits(&dense::call::<1>(&x[..3], &w, &b).unwrap()),
        bits(&dense1::call(&x[..3], &w, &b).unwrap())
    );
    assert_eq!(
        bits(&dense::call::<4>(&x[..12], &w, &b).unwrap()),
        bits(&dense4::call(&x[..12], &w, &b).unwrap())
    );
    assert_eq!(
        bits(&dense::call::<9>(&x, &w, &b).unwrap()),
        bits(&dense9::call(&x, &w, &b).unwrap())
    );
    assert_eq!(dense::SIZES, ["B"]);
}
