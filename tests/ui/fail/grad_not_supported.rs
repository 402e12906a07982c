use xla::computation;

#[computation(grad(w))]
fn loss(x: Tensor<f32, 8>, w: Tensor<f32, 8>) -> f32 {
    (x * w).sum()
}

fn main() {}
