use xla::computation;

#[computation]
fn f<const B: usize, const N: usize>(x: Tensor<f32, B>, y: Tensor<f32, N>) -> Tensor<f32, B> {
    x + y
}

fn main() {}
