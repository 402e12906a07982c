//! Calls between computations, closures, loops and branches in a binary crate.
use xla::computation;

#[computation]
fn softmax(x: Tensor<f32, 4>) -> Tensor<f32, 4> {
    let e = (x - x.max()).exp();
    e / e.sum()
}

#[computation]
fn pipeline(x: Tensor<f32, 4>, p: bool) -> (Tensor<f32, 4>, f32) {
    let mut y = x;
    for i in 0..2 {
        y = y + i.convert::<f32>();
    }
    let probs = softmax(y);
    let z = if p {
        probs.reduce(0.0, [0], |a, b| a.max(b))
    } else {
        probs.sum()
    };
    (probs, z)
}

fn main() {
    let (probs, z) = pipeline::call(&[0.0, 0.0, 0.0, 0.0], false).unwrap();
    assert_eq!(probs, vec![0.25; 4]);
    assert!((z - 1.0).abs() < 1e-6);
    assert!(pipeline::HLO.contains("call("));
}
