use xla::computation;

#[computation]
fn f(x: Tensor<f32, 1, 4, 4, 2>, k: Tensor<f32, 3, 3, 2, 5>) -> Tensor<f32, 1, 2, 2, 5> {
    x.conv_general(k, stride = [1, 1])
}

fn main() {}
