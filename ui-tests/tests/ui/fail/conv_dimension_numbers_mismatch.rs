use xla::computation;

#[computation]
fn f(x: Tensor<f32, 1, 4, 4, 2>, k: Tensor<f32, 3, 3, 2, 5>) -> Tensor<f32, 1, 2, 2, 5> {
    // NCHW labels on an NHWC input: 4 input features against the kernel's 2.
    x.conv_general(k, strides = [1, 1], dimension_numbers = "bf01_01io->bf01")
}

fn main() {}
