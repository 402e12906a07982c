use xla::computation;

/// A 5×5 kernel dilated by 2 spans 9 rows: larger than the 4 rows padded by 1 to 6.
#[computation]
fn f<const B: usize>(x: Tensor<f32, B, 4, 4, 1>, k: Tensor<f32, 5, 5, 1, 1>) -> Tensor<f32, B, 1, 1, 1> {
    nn::conv2d::<1, 1, 2>(x, k)
}

fn main() {}
