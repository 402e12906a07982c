use xla::computation;

#[computation]
fn f<const B: usize, const N: usize>(x: Tensor<f32, B, 3>, y: Tensor<f32, N, 3>) -> Tensor<f32, B, 6> {
    concat([x, y], 1)
}

fn main() {}
