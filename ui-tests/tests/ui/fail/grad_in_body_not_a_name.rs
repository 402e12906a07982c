use xla::computation;

// The function to differentiate goes first, by name.
#[computation]
fn step(w: Tensor<f32, 3>, x: Tensor<f32, 4, 3>) -> Tensor<f32, 3> {
    grad(x.dot(w).sum(), w)
}

fn main() {}
