use xla::computation;

#[computation]
fn f<const B: usize>(x: Tensor<f32, B, 4>, w: Tensor<f32, 4, 2>, b: Tensor<f32, 2>) -> Tensor<f32, B, 2> {
    nn::denze(x, w, b)
}

fn main() {}
