use xla::computation;

#[computation]
fn f<const N: i32>(x: Tensor<f32, 4>) -> Tensor<f32, 4> {
    x
}

fn main() {}
