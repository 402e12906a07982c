use xla::computation;

// grad needs a scalar result: the gradient of a vector is a Jacobian.
#[computation(grad(w))]
fn scores(x: Tensor<f32, 8>, w: Tensor<f32, 8>) -> Tensor<f32, 8> {
    x * w
}

fn main() {}
