use xla::computation;

#[computation]
fn f(x: Tensor<f32, 2, 3>, w: Tensor<f32, 4, 5>) -> Tensor<f32, 2, 5> {
    let a = x.dot(w);
    let b = x.reshape([7]);
    let c = x.frobnicate();
    a + b + c
}

fn main() {}
