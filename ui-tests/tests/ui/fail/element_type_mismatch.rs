use xla::computation;

#[computation]
fn f(x: Tensor<f32, 4>, y: Tensor<f64, 4>) -> Tensor<f32, 4> {
    x * y
}

fn main() {}
