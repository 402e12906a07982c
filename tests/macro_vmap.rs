//! `#[computation(vmap(x: 0))]`: `NAME::vmap(size)` and, with `grad`, per-example gradients
//! as `NAME::grad::vmap(size)`, run and compared with the unbatched computation per example.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use xla::computation;
use xla::cpu::Executable;
use xla::Literal;

/// A linear model's squared error on one example: `(w · x + b - y)²`.
#[computation(grad(w, b), vmap(x: 0, y: 0))]
pub fn sq_err(w: Tensor<f32, 3>, b: f32, x: Tensor<f32, 3>, y: f32) -> f32 {
    let e = (w * x).sum([0]) + b - y;
    e * e
}

fn lit(v: &[f32], dims: &[i64]) -> Literal {
    Literal::vec1(v).reshape(dims).unwrap()
}

#[test]
fn vmap_and_per_example_gradients() {
    assert_eq!(sq_err::VMAP_IN_AXES, &[None, None, Some(0), Some(0)]);
    let (w, b) = ([0.5f32, -1.0, 2.0], 0.25f32);
    let xs = [
        [1.0f32, 2.0, 3.0],
        [0.0, -1.0, 0.5],
        [2.0, 2.0, -2.0],
        [0.1, 0.2, 0.3],
    ];
    let ys = [1.0f32, -2.0, 0.5, 3.0];
    let flat: Vec<f32> = xs.iter().flatten().copied().collect();
    let args = [
        lit(&w, &[3]),
        Literal::scalar(b),
        lit(&flat, &[4, 3]),
        lit(&ys, &[4]),
    ];

    let losses = Executable::compile(&sq_err::vmap(4).unwrap())
        .unwrap()
        .execute(&args)
        .unwrap();
    let grads = Executable::compile(&sq_err::grad::vmap(4).unwrap())
        .unwrap()
        .execute(&args)
        .unwrap();
    let losses = losses.to_vec::<f32>().unwrap();
    let g = grads.tuple_elements().unwrap();
    let (gw, gb) = (g[0].to_vec::<f32>().unwrap(), g[1].to_vec::<f32>().unwrap());
    assert_eq!(g[0].shape().dims(), &[4, 3]);
    for (k, (x, y)) in xs.iter().zip(ys).enumerate() {
        let e: f32 = w.iter().zip(x).map(|(a, c)| a * c).sum::<f32>() + b - y;
        assert!((losses[k] - e * e).abs() < 1e-5, "loss {k}");
        assert!((gb[k] - 2.0 * e).abs() < 1e-5, "d/db {k}");
        for j in 0..3 {
            assert!(
                (gw[k * 3 + j] - 2.0 * e * x[j]).abs() < 1e-5,
                "d/dw {k},{j}"
            );
        }
    }
    assert!(matches!(
        sq_err::vmap(0),
        Err(xla::autodiff::VmapError::BadSize { size: 0 })
    ));
}
