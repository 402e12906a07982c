use xla::computation;

#[computation]
fn f(p: Tensor<bool, 4>, a: Tensor<f32, 4>, b: Tensor<f32, 3>) -> Tensor<f32, 4> {
    p.select(a, b)
}

fn main() {}
