use xla::computation;

#[computation]
fn f(x: Tensor<f32, 4, 4>) -> Tensor<f32, 4, 4> {
    let mut acc = x;
    for _ in 0..3 {
        acc = acc.sum([0]);
    }
    acc
}

fn main() {}
