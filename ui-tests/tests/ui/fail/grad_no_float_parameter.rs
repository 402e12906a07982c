use xla::computation;

#[computation(grad)]
fn total(n: Tensor<i32, 4>) -> f32 {
    n.convert::<f32>().sum()
}

fn main() {}
