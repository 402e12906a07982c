use xla::computation;

#[computation]
fn f(x: Tensor<f32, 3, 3>, i: Tensor<i32, 2, 2>) -> Tensor<f32, 2> {
    x.gather_general(i, [], [0, 1], [0, 1], 1, [1])
}

fn main() {}
