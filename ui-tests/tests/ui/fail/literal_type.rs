use xla::computation;

#[computation]
fn f(x: Tensor<i32, 4>) -> Tensor<i32, 4> {
    x * 1.5
}

fn main() {}
