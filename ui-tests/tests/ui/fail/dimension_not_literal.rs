use xla::computation;

const N: usize = 4;

#[computation]
fn f(x: Tensor<f32, N>) -> f32 {
    x.sum()
}

fn main() {}
