use xla::computation;

/// The stride `S` passed through to `conv2d_same`, the result written as if there were no
/// stride: the shapes are in symbols, `S` among them.
#[computation]
fn down<const B: usize, const H: usize, const S: usize>(
    x: Tensor<f32, B, H, H, 3>,
    k: Tensor<f32, 3, 3, 3, 8>,
) -> Tensor<f32, B, H, H, 8> {
    nn::conv2d_same::<S, 1>(x, k)
}

fn main() {}
