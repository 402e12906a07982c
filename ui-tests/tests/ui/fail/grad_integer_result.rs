use xla::computation;

#[computation(grad)]
fn count(x: Tensor<f32, 8>) -> i32 {
    x.gt(0.0).convert::<i32>().sum()
}

fn main() {}
