use xla::computation;

#[computation]
fn loss<const B: usize>(w: Tensor<f32, 3>, x: Tensor<f32, B, 3>) -> f32 {
    x.dot(w).sum()
}

// `argnums` names an argument `loss` is not called with.
#[computation]
fn step<const B: usize>(w: Tensor<f32, 3>, x: Tensor<f32, B, 3>) -> Tensor<f32, 3> {
    grad(loss, w, x, argnums = [2])
}

fn main() {}
