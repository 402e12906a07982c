use xla::computation;

#[computation]
fn f(i: u8, x: Tensor<f32, 3>) -> Tensor<f32, 3> {
    match i {
        0 => x,
        _ => -x,
    }
}

fn main() {}
