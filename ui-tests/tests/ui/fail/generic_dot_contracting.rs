use xla::computation;

#[computation]
fn f<const B: usize>(x: Tensor<f32, B, 784>, w: Tensor<f32, B, 10>) -> Tensor<f32, B, 10> {
    x.dot(w)
}

fn main() {}
