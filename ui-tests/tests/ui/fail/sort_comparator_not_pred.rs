use xla::computation;

#[computation]
fn f(x: Tensor<f32, 8>) -> Tensor<f32, 8> {
    x.sort(0, |a, b| a - b)
}

fn main() {}
