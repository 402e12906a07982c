use xla::computation;

#[computation]
fn f<const H: usize>(x: Tensor<f32, 1, 1, H, H>) -> Tensor<f32, 1, 1, { H / 2 + 1 }, { H / 2 }> {
    x.max_pool([1, 1, 2, 2], [1, 1, 2, 2])
}

fn main() {}
