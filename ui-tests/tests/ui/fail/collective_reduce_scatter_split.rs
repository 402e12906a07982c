use xla::computation;

#[computation(replicas = 4)]
fn f(x: Tensor<f32, 6>) -> Tensor<f32, 2> {
    x.reduce_scatter(0, |a, b| a + b)
}

fn main() {}
