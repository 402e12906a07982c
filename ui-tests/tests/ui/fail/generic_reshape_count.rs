use xla::computation;

#[computation]
fn f<const B: usize>(x: Tensor<f32, B, 4>) -> Tensor<f32, B, 5> {
    x.reshape([B, 5])
}

fn main() {}
