//! A ui pass case: this `#[computation]` crate compiles and its `main` runs to success.
use xla::computation;

/// A max-reduction started at `f32::NEG_INFINITY`, and constants from `std::f32::consts`.
#[computation]
fn constants(x: Tensor<f32, 2, 3>) -> (Tensor<f32, 2>, Tensor<f32, 2, 3>, f64, i32) {
    let m = x.reduce(f32::NEG_INFINITY, [1], |a, b| a.max(b));
    let y = x * std::f32::consts::PI + f32::EPSILON;
    let z = std::f64::consts::E + f64::MAX / f64::MAX;
    (m, y, z, i32::MIN)
}

fn main() {
    let x = [1.0f32, -2.0, 3.0, -4.0, -5.0, -6.0];
    let (m, y, z, i) = constants::call(&x).unwrap();
    assert_eq!(m, vec![3.0, -4.0]);
    let expected: Vec<f32> = x
        .iter()
        .map(|v| v * std::f32::consts::PI + f32::EPSILON)
        .collect();
    assert_eq!(y, expected);
    assert_eq!(z, std::f64::consts::E + 1.0);
    assert_eq!(i, i32::MIN);
    // An infinite initial value: a reduction over a dim of size zero would give it back.
    assert!(constants::HLO.contains("constant(-inf)"));
}
