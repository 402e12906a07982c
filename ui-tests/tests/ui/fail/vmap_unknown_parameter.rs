use xla::computation;

#[computation(vmap(x: 0, z: 0))]
fn scale(x: Tensor<f32, 8>, w: f32) -> Tensor<f32, 8> {
    x * w
}

fn main() {}
