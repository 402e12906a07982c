use xla::computation;

#[computation]
fn f(x: f32) -> f32 {
    if x > 0.0 { x } else { -x }
}

fn main() {}
