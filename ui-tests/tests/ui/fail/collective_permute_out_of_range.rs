use xla::computation;

#[computation(replicas = 2)]
fn f(x: Tensor<f32, 2>) -> Tensor<f32, 2> {
    x.collective_permute([(0, 1), (1, 2)])
}

fn main() {}
