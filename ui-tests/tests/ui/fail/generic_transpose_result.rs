use xla::computation;

#[computation]
fn f<const B: usize, const N: usize>(x: Tensor<f32, B, N>) -> Tensor<f32, B, N> {
    x.t()
}

fn main() {}
