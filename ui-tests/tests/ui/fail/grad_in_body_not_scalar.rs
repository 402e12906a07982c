use xla::computation;

#[computation]
fn predict<const B: usize>(w: Tensor<f32, 3>, x: Tensor<f32, B, 3>) -> Tensor<f32, B> {
    x.dot(w)
}

// A gradient needs a scalar loss: `predict` returns f32[B] (checked at the generic point).
#[computation]
fn step<const B: usize>(w: Tensor<f32, 3>, x: Tensor<f32, B, 3>) -> Tensor<f32, 3> {
    w - 0.1 * grad(predict, w, x)
}

fn main() {}
