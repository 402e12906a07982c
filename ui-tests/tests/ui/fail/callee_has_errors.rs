// The callee's mistake is reported once; its caller adds nothing.
use xla::computation;

#[computation]
fn layer(x: Tensor<f32, 2, 3>, w: Tensor<f32, 4, 4>) -> Tensor<f32, 2, 4> {
    x.dot(w)
}

#[computation]
fn twice(x: Tensor<f32, 2, 3>, w: Tensor<f32, 4, 4>) -> Tensor<f32, 2, 4> {
    layer(x, w).relu()
}

fn main() {
    let _ = twice::HLO;
}
