use xla::computation;

#[computation]
fn pair<const B: usize>(x: Tensor<f32, B>, y: Tensor<f32, B>) -> Tensor<f32, B> {
    x * y
}

#[computation]
fn f(x: Tensor<f32, 3>, y: Tensor<f32, 4>) -> Tensor<f32, 3> {
    pair(x, y)
}

fn main() {}
