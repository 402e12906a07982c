use xla::computation;

#[computation]
fn f(k: Tensor<i32, 4>, v: Tensor<f32, 4>) -> Tensor<i32, 4> {
    let (a, _) = sort_together([k, v], 0, |a, b| a.lt(b));
    a
}

fn main() {}
