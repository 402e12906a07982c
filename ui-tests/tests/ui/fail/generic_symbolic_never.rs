//! `{ N + 1 }` is never `N`: proved unequal on every residue class, a compile error.
use xla::computation;

#[computation]
fn f<const N: usize>(x: Tensor<f32, N>) -> Tensor<f32, { N + 1 }> {
    x
}

fn main() {}
