use xla::computation;

#[computation(grad(x))]
fn f(x: f32) -> f32 {
    let mut y = x;
    while y < 10.0 {
        y = y * 2.0;
    }
    y
}

fn main() {}
