use xla::computation;

#[computation(grad(w, steps))]
fn loss(w: Tensor<f32, 8>, steps: i32) -> f32 {
    (w * steps.convert::<f32>()).sum()
}

fn main() {}
