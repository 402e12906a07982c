use xla::computation;

#[computation]
fn f(x: Tensor<f32, 3>, n: Tensor<i32, 3>) -> f32 {
    let (s, _) = reduce_together([x, n], [0.0], [0], |(a, b), (c, d)| (a + c, b + d));
    s
}

fn main() {}
