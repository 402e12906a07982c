use xla::computation;

#[computation]
fn f(x: Tensor<f32, 4>) -> Tensor<f32, 4> {
    softplus(x)
}

fn main() {}
