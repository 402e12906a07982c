use xla::computation;

#[computation]
fn f<const B: usize, const N: usize>(x: Tensor<f32, B>) -> Tensor<f32, N, 3> {
    x.broadcast_in_dim([N, 3], [0])
}

fn main() {}
