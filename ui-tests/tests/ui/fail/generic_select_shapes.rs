use xla::computation;

#[computation]
fn f<const B: usize, const N: usize>(p: Tensor<bool, B>, a: Tensor<f32, B>, b: Tensor<f32, N>) -> Tensor<f32, B> {
    p.select(a, b)
}

fn main() {}
