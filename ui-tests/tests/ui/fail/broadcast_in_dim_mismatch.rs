use xla::computation;

#[computation]
fn f(x: Tensor<f32, 3>) -> Tensor<f32, 4, 5> {
    x.broadcast_in_dim([4, 5], [1])
}

fn main() {}
