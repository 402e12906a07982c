use xla::computation;

#[computation]
fn f(x: Tensor<f32, 2, 3>) -> Tensor<f32, 2> {
    x.sum([2])
}

fn main() {}
