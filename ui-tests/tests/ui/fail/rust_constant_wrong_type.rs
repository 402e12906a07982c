use xla::computation;

#[computation]
fn f(x: Tensor<f64, 4>) -> Tensor<f64> {
    x.reduce(f32::NEG_INFINITY, [0], |a, b| a.max(b))
}

fn main() {}
