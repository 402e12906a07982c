use xla::computation;

#[computation]
fn f(x: Tensor<f32, 3>) -> Tensor<f32, 3> {
    let mut y = x;
    while y < 10.0 {
        y = y * 2.0;
    }
    y
}

fn main() {}
