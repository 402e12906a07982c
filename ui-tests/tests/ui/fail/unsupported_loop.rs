use xla::computation;

#[computation]
fn f(x: f32) -> f32 {
    let y = loop { break x; };
    y
}

fn main() {}
