use xla::computation;

#[computation]
fn f<T>(x: Tensor<f32, 4>) -> Tensor<f32, 4> {
    x
}

fn main() {}
