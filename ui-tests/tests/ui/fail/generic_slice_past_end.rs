use xla::computation;

#[computation]
fn f<const B: usize>(x: Tensor<f32, B>) -> Tensor<f32, { B + 1 }> {
    x.slice([0..{ B + 1 }])
}

fn main() {}
