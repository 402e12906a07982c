use xla::computation;

/// The result is written for padding 1 (`H` rows out), but the call pads 0.
#[computation]
fn keep<const B: usize, const H: usize, const W: usize>(
    x: Tensor<f32, B, H, W, 3>,
    k: Tensor<f32, 3, 3, 3, 8>,
) -> Tensor<f32, B, H, W, 8> {
    nn::conv2d::<1, 0, 1>(x, k)
}

fn main() {}
