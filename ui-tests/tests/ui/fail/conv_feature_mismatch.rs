use xla::computation;

#[computation]
fn f(x: Tensor<f32, 1, 3, 8, 8>, k: Tensor<f32, 16, 4, 3, 3>) -> Tensor<f32, 1, 16, 6, 6> {
    x.conv(k, [1, 1])
}

fn main() {}
