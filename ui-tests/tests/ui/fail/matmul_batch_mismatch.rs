use xla::computation;

#[computation]
fn f(a: Tensor<f32, 4, 2, 3>, b: Tensor<f32, 5, 3, 2>) -> Tensor<f32, 4, 2, 2> {
    a.matmul(b)
}

fn main() {}
