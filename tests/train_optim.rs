//! Host optimisers: SGD, momentum and Adam against hand-computed steps.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use xla::train::optim::{Adam, Sgd};
use xla::Literal;

#[test]
fn sgd_and_momentum_steps() {
    let mut p = vec![Literal::vec1(&[1.0f64, 2.0])];
    Sgd::new(0.1)
        .step(&mut p, &[Literal::vec1(&[0.5f64, -1.0])])
        .unwrap();
    assert_eq!(p[0].to_vec::<f64>().unwrap(), vec![1.0 - 0.05, 2.0 + 0.1]);
    // Momentum 0.9, constant gradient 1: v = 1 then 1.9; p = -0.1 then -0.29.
    let mut sgd = Sgd::with_momentum(0.1, 0.9);
    let mut p = vec![Literal::scalar(0.0f64)];
    let g = [Literal::scalar(1.0f64)];
    sgd.step(&mut p, &g).unwrap();
    assert!((p[0].to_scalar::<f64>().unwrap() + 0.1).abs() < 1e-15);
    sgd.step(&mut p, &g).unwrap();
    assert!((p[0].to_scalar::<f64>().unwrap() + 0.29).abs() < 1e-15);
}

#[test]
fn adam_first_step_is_lr_times_sign() {
    // After one step m̂ = g and v̂ = g², so the update is lr * g / (|g| + eps).
    let mut p = vec![Literal::vec1(&[0.0f32, 0.0, 0.0])];
    let g = [Literal::vec1(&[3.0f32, -0.001, 0.0])];
    Adam::new(0.001).step(&mut p, &g).unwrap();
    let got = p[0].to_vec::<f32>().unwrap();
    for (x, want) in got.iter().zip([-0.001f32, 0.001, 0.0]) {
        assert!((x - want).abs() < 1e-7, "{got:?}");
    }
}

#[test]
fn adam_minimises_a_quadratic() {
    // f(x, y) = (x - 3)² + 10 (y + 1)²
    let mut adam = Adam::new(0.05);
    let mut p = vec![Literal::vec1(&[0.0f64, 0.0])];
    for _ in 0..3000 {
        let v = p[0].to_vec::<f64>().unwrap();
        let g = Literal::vec1(&[2.0 * (v[0] - 3.0), 20.0 * (v[1] + 1.0)]);
        adam.step(&mut p, &[g]).unwrap();
    }
    let v = p[0].to_vec::<f64>().unwrap();
    assert!(
        (v[0] - 3.0).abs() < 1e-3 && (v[1] + 1.0).abs() < 1e-3,
        "{v:?}"
    );
}

#[test]
fn mismatched_gradients_are_errors() {
    let mut p = vec![Literal::from_vec(&[2, 2], vec![0f32; 4]).unwrap()];
    let err = Sgd::new(0.1)
        .step(&mut p, &[Literal::vec1(&[0f32; 4])])
        .unwrap_err();
    assert!(
        err.to_string()
            .contains("gradient 0 is f32[4], parameter is f32[2,2]"),
        "{err}"
    );
    let err = Adam::new(0.1).step(&mut p, &[]).unwrap_err();
    assert!(
        err.to_string().contains("1 parameters but 0 gradients"),
        "{err}"
    );
    let mut ints = vec![Literal::vec1(&[1i32])];
    assert!(Sgd::new(0.1)
        .step(&mut ints, &[Literal::vec1(&[1i32])])
        .is_err());
}
