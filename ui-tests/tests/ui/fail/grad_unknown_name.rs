use xla::computation;

#[computation(grad(w, bias))]
fn loss(x: Tensor<f32, 8>, w: Tensor<f32, 8>, b: f32) -> f32 {
    (x * w).sum() + b
}

fn main() {
    // The stub modules keep this use free of follow-on errors.
    let _ = loss::grad::HLO;
}
