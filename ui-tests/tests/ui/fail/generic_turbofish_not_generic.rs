use xla::computation;

#[computation]
fn f(x: Tensor<f32, 4>) -> Tensor<f32, 4> {
    relu::<2>(x)
}

fn main() {}
