use xla::computation;

#[computation]
fn f(x: Tensor<f32, 2, 3, 4>) -> Tensor<f32, 8, 3> {
    x.collapse([0, 2])
}

fn main() {}
