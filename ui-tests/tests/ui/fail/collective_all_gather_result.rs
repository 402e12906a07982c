use xla::computation;

// All-gather multiplies the gathered dimension by the group size (4 replicas): f32[8].
#[computation(replicas = 4)]
fn f(x: Tensor<f32, 2>) -> Tensor<f32, 4> {
    x.all_gather(0)
}

fn main() {}
