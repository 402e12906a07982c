use xla::computation;

#[computation]
fn f(x: Tensor<f32, 2, 3>) -> Tensor<f32, 2, 2> {
    x[(.., 2..4)]
}

fn main() {}
