use xla::computation;

#[computation(grad)]
fn f<const B: usize>(x: Tensor<f32, B>) -> Tensor<f32, B> {
    x.exp()
}

fn main() {}
