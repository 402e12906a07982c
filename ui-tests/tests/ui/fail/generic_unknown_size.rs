use xla::computation;

#[computation]
fn f<const B: usize>(x: Tensor<f32, B, C>) -> Tensor<f32, B> {
    x.sum([1])
}

fn main() {}
