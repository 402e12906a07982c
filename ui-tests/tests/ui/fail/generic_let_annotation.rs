use xla::computation;

#[computation]
fn f<const B: usize>(x: Tensor<f32, B, 784>, w: Tensor<f32, 784, 64>) -> Tensor<f32, B, 64> {
    let h: Tensor<f32, B, 128> = x.dot(w);
    h
}

fn main() {}
