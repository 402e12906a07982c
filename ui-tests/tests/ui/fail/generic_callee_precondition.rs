use xla::computation;

#[computation]
fn valid3<const H: usize>(x: Tensor<f32, 1, 1, H, H>, k: Tensor<f32, 1, 1, 3, 3>) -> Tensor<f32, 1, 1, { H - 2 }, { H - 2 }> {
    x.conv(k, [1, 1])
}

/// A 1×1 image: the callee's `H - 2` is negative at H = 1.
#[computation]
fn f(x: Tensor<f32, 1, 1, 1, 1>, k: Tensor<f32, 1, 1, 3, 3>) -> Tensor<f32, 1, 1, 1, 1> {
    valid3(x, k)
}

fn main() {}
