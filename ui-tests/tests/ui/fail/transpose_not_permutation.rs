use xla::computation;

#[computation]
fn f(x: Tensor<f32, 2, 3>) -> Tensor<f32, 3, 2> {
    x.transpose([1, 1])
}

fn main() {}
