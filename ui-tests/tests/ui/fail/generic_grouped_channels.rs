use xla::computation;

/// 6 channels do not split into 4 groups of 2.
#[computation]
fn f<const B: usize>(x: Tensor<f32, B, 8, 8, 6>, k: Tensor<f32, 3, 3, 2, 8>) -> Tensor<f32, B, 8, 8, 8> {
    nn::conv2d_grouped::<1, 1, 1, 4, 2>(x, k)
}

fn main() {}
