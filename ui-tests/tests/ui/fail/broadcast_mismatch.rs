use xla::computation;

#[computation]
fn f(x: Tensor<f32, 2, 3>, b: Tensor<f32, 2>) -> Tensor<f32, 2, 3> {
    x + b
}

fn main() {}
