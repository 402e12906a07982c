use xla::computation;

#[computation]
fn f(x: Tensor<f32, 4>) -> Tensor<f32, 4> {
    x.relux()
}

fn main() {}
