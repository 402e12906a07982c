use xla::computation;

#[computation(replicas = 2)]
fn f(x: Tensor<f32, 4>) -> Tensor<f32, 8> {
    x.all_gather(1)
}

fn main() {}
