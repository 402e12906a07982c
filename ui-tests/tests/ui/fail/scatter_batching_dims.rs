use xla::computation;

#[computation]
fn f(x: Tensor<f32, 2, 3>, i: Tensor<i32, 2, 1>, u: Tensor<f32, 2>) -> Tensor<f32, 2, 3> {
    // input_batching_dims without its scatter_indices_batching_dims partner.
    x.scatter_general(i, u, [], [1], [1], 1, |a, b| a + b, input_batching_dims = [0])
}

fn main() {}
