//! One function generic over a whole shape (`S: Shape`) runs at ranks 1, 2 and 3, from Rust
//! and from a computation in this crate, and gives the bits of the fixed-rank version.
#![allow(clippy::unwrap_used)]

use xla::computation;
use xla::Literal;

/// `p - lr·g` on a parameter of any shape.
#[computation]
fn sgd<S: Shape>(p: Tensor<f32, S>, g: Tensor<f32, S>, lr: f32) -> Tensor<f32, S> {
    p - lr * g
}

#[computation]
fn sgd_fixed(p: Tensor<f32, 2, 3, 2>, g: Tensor<f32, 2, 3, 2>, lr: f32) -> Tensor<f32, 2, 3, 2> {
    p - lr * g
}

/// A kernel and a bias stepped by the same `sgd`.
#[computation]
fn both(
    k: Tensor<f32, 2, 3, 2>,
    gk: Tensor<f32, 2, 3, 2>,
    b: Tensor<f32, 4>,
    gb: Tensor<f32, 4>,
) -> (Tensor<f32, 2, 3, 2>, Tensor<f32, 4>) {
    (sgd(k, gk, 0.25), sgd(b, gb, 0.25))
}

#[test]
fn one_shape_generic_function_at_three_ranks_gives_the_fixed_versions_bits() {
    let values = |n: usize, k: f32| {
        (0..n)
            .map(|i| (i as f32 * 0.37 + k).sin())
            .collect::<Vec<f32>>()
    };
    for dims in [vec![12i64], vec![3, 4], vec![2, 3, 2]] {
        let p = Literal::from_vec(&dims, values(12, 0.5)).unwrap();
        let g = Literal::from_vec(&dims, values(12, 1.5)).unwrap();
        let got = sgd::apply(p.clone(), g.clone(), Literal::scalar(0.25f32)).unwrap();
        assert_eq!(got.shape().dims(), dims.as_slice());
        let want = sgd_fixed::run(&[
            Literal::from_vec(&[2, 3, 2], values(12, 0.5)).unwrap(),
            Literal::from_vec(&[2, 3, 2], values(12, 1.5)).unwrap(),
            Literal::scalar(0.25f32),
        ])
        .unwrap();
        assert_eq!(got.data::<f32>().unwrap(), want.data::<f32>().unwrap());
    }
    let k = Literal::from_vec(&[2, 3, 2], values(12, 0.5)).unwrap();
    let gk = Literal::from_vec(&[2, 3, 2], values(12, 1.5)).unwrap();
    let b = Literal::from_vec(&[4], values(4, 0.5)).unwrap();
    let gb = Literal::from_vec(&[4], values(4, 1.5)).unwrap();
    let out = both::run(&[k.clone(), gk.clone(), b, gb]).unwrap();
    let parts = out.tuple_elements().unwrap();
    let want = sgd_fixed::run(&[k, gk, Literal::scalar(0.25f32)]).unwrap();
    assert_eq!(parts[0].data::<f32>().unwrap(), want.data::<f32>().unwrap());
}
