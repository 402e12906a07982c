//! The dense layer of the `#[computation]` docs, expanded in place: its HLO text and shapes.

use xla::computation;
use xla::core::{PrimitiveType::F32, Shape};

/// `relu(x·w + b)`.
#[computation]
pub fn dense(
    x: Tensor<f32, 64, 784>,
    w: Tensor<f32, 784, 128>,
    b: Tensor<f32, 128>,
) -> Tensor<f32, 64, 128> {
    let h = x.dot(w) + b;
    h.relu()
}

#[computation]
fn stats(x: Tensor<f32, 8, 3>) -> (Tensor<f32, 3>, Tensor<f32, 3>, f32) {
    let mean = x.mean([0]);
    let centered = x - mean;
    let var = (centered * centered).mean([0]);
    (mean, var, x.max())
}

#[test]
fn dense_signature() {
    assert_eq!(dense::NAME, "dense");
    assert_eq!(dense::PARAMETERS, ["x", "w", "b"]);
    assert_eq!(
        dense::parameter_shapes(),
        vec![
            Shape::array(F32, vec![64, 784]),
            Shape::array(F32, vec![784, 128]),
            Shape::array(F32, vec![128])
        ]
    );
    assert_eq!(dense::result_shape(), Shape::array(F32, vec![64, 128]));
}

#[test]
fn dense_hlo() {
    let hlo = dense::HLO;
    assert!(hlo.starts_with("HloModule dense, entry_computation_layout={(f32[64,784]{1,0}, f32[784,128]{1,0}, f32[128]{0})->f32[64,128]{1,0}}"), "{hlo}");
    for line in [
        "x.1 = f32[64,784]{1,0} parameter(0)",
        "dot(x.1, w.2), lhs_contracting_dims={1}, rhs_contracting_dims={0}",
        "broadcast(b.3), dimensions={1}",
        "f32[] constant(0)",
    ] {
        assert!(hlo.contains(line), "missing `{line}` in\n{hlo}");
    }
    assert!(hlo.contains("ROOT maximum."), "{hlo}");
}

#[test]
fn tuple_result_shapes() {
    let f32s = |d: &[i64]| Shape::array(F32, d.to_vec());
    assert_eq!(
        stats::result_shape(),
        Shape::tuple(vec![f32s(&[3]), f32s(&[3]), f32s(&[])])
    );
    assert!(stats::HLO.contains("to_apply=add_F32"), "{}", stats::HLO);
    assert!(stats::HLO.contains("to_apply=max_F32"), "{}", stats::HLO);
    assert!(stats::HLO.contains("tuple("), "{}", stats::HLO);
}
