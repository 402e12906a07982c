use xla::computation;

/// The result is written for stride 2, the call takes stride 1 (a 2×2 window, no padding).
#[computation]
fn pool<const B: usize, const H: usize>(
    x: Tensor<f32, B, H, H, 4>,
) -> Tensor<f32, B, { H / 2 }, { H / 2 }, 4> {
    nn::max_pool::<2, 1, 0>(x)
}

fn main() {}
