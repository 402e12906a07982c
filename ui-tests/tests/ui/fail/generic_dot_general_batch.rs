use xla::computation;

#[computation]
fn f<const B: usize, const N: usize>(x: Tensor<f32, B, 2, 3>, y: Tensor<f32, N, 3, 4>) -> Tensor<f32, B, 2, 4> {
    x.dot_general(y, [2], [1], [0], [0])
}

fn main() {}
