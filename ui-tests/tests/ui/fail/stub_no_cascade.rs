// One mistake inside the computation; the uses of `f` below add no further errors.
use xla::computation;

#[computation]
fn f(x: Tensor<f32, 4>) -> Tensor<f32, 4> {
    x.dot(x)
}

fn main() {
    let _ = f::HLO;
    let _ = f::parameter_shapes();
    let _ = f::module();
}
