use xla::computation;

#[computation]
fn f<const H: usize, const K: usize>(x: Tensor<f32, 1, 1, H, H>, k: Tensor<f32, 1, 1, K, K>) -> Tensor<f32, 1, 1, { H - K }, { H - K }> {
    x.conv(k, [1, 1])
}

fn main() {}
