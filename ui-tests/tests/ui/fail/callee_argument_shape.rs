use xla::computation;

#[computation]
fn layer(x: Tensor<f32, 2, 3>, w: Tensor<f32, 3, 4>) -> Tensor<f32, 2, 4> {
    x.dot(w)
}

#[computation]
fn twice(x: Tensor<f32, 2, 3>, w: Tensor<f32, 3, 4>) -> Tensor<f32, 2, 4> {
    let h = layer(x, w);
    layer(h, w)
}

fn main() {}
