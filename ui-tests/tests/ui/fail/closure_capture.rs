use xla::computation;

#[computation]
fn f(x: Tensor<f32, 2, 3>, scale: f32) -> Tensor<f32, 2> {
    x.reduce(0.0, [1], |acc, v| acc + v * scale)
}

fn main() {}
