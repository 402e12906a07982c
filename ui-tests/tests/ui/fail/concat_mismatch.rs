use xla::computation;

#[computation]
fn f(a: Tensor<f32, 2, 3>, b: Tensor<f32, 2, 4>) -> Tensor<f32, 4, 3> {
    concat([a, b], 0)
}

fn main() {}
