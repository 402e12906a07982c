//! A ui pass case: this `#[computation]` crate compiles and its `main` runs to success.
use xla::computation;

/// A dense layer: `relu(x·w + b)`.
#[computation]
pub fn dense(
    x: Tensor<f32, 64, 784>,
    w: Tensor<f32, 784, 128>,
    b: Tensor<f32, 128>,
) -> Tensor<f32, 64, 128> {
    relu(x.dot(w) + b)
}

fn main() {
    assert!(dense::HLO.contains("dot(x.1, w.2)"));
    assert_eq!(dense::parameter_shapes().len(), 3);
}
