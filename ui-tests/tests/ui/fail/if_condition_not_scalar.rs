use xla::computation;

#[computation]
fn f(x: Tensor<f32, 4>) -> Tensor<f32, 4> {
    if x > 0.0 { x } else { -x }
}

fn main() {}
