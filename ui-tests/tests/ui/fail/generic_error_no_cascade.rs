use xla::computation;

#[computation]
fn f<const B: usize>(x: Tensor<f32, B, 4>, w: Tensor<f32, 5, 2>) -> Tensor<f32, B, 2> {
    x.dot(w)
}

fn main() {
    // Uses of the failed computation add no errors of their own.
    let _ = f::call::<3>(&[0.0; 12], &[0.0; 10]);
    let _ = f::hlo(&[3]);
}
