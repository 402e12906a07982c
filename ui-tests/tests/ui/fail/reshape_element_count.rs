use xla::computation;

#[computation]
fn f(x: Tensor<f32, 2, 3>) -> Tensor<f32, 4, 2> {
    x.reshape([4, 2])
}

fn main() {}
