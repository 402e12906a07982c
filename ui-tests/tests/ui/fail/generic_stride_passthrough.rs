use xla::computation;

/// The caller's own integer `S` passes through, but the result is written with `H / S`
/// where SAME gives `(H + S - 1) / S`.
#[computation]
fn f<const B: usize, const H: usize, const S: usize>(
    x: Tensor<f32, B, H, H, 3>,
    k: Tensor<f32, 3, 3, 3, 8>,
) -> Tensor<f32, B, { H / S }, { H / S }, 8> {
    nn::conv2d_same::<S, 1>(x, k)
}

fn main() {}
