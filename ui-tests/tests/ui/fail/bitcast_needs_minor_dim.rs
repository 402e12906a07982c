use xla::computation;

#[computation]
fn f(x: Tensor<u8, 3>) -> Tensor<f32> {
    x.bitcast::<f32>()
}

fn main() {}
