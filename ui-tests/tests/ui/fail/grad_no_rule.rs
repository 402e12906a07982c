use xla::computation;

// The gradient w.r.t. `mean` flows through `rng`, which has no gradient rule.
#[computation(grad(w, mean))]
fn noisy(w: Tensor<f32, 3>, mean: f32) -> f32 {
    let noise = rng_normal::<f32>(mean, 1.0, [3]);
    (w * noise).sum()
}

fn main() {}
