use xla::computation;

#[computation]
fn f(i: i32, x: Tensor<f32, 3>) -> Tensor<f32, 3> {
    match i {
        0 => x,
        1 => -x,
    }
}

fn main() {}
