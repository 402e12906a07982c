use xla::computation;

#[computation]
fn mlp(x: Tensor<f32, 64, 784>, w1: Tensor<f32, 784, 128>, w2: Tensor<f32, 128, 10>) -> Tensor<f32, 64, 10> {
    let h = x.dot(w1).relu();
    x.dot(w2)
}

fn main() {}
