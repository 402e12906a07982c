use xla::computation;

#[computation]
fn f(a: Tensor<f32, 2, 2>, b: Tensor<f32, 2, 1>) -> Tensor<f32, 2, 1> {
    a.triangular_solve(b, DOWN)
}

fn main() {}
