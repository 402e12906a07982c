use xla::computation;

#[computation]
fn f<const H: usize>(x: Tensor<f32, H>) -> Tensor<f32, { H / 2 }, 2> {
    x.reshape([{ H / 2 }, 2])
}

fn main() {}
