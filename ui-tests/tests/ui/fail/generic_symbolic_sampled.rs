//! `{ H * W }` has no affine normal form: the rules are sampled, and the error says so.
use xla::computation;

#[computation]
fn f<const H: usize, const W: usize>(x: Tensor<f32, H, W>) -> Tensor<f32, { H * W + 1 }> {
    x.reshape([{ H * W }])
}

fn main() {}
