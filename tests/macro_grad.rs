//! Gradients of `#[computation]`s (`loss::grad`, `loss::value_and_grad`), built at compile
//! time by xla-autodiff, checked against hand-derived values and central finite differences
//! of the f64 computations themselves.

#![allow(clippy::unwrap_used)]

use xla::computation;
use xla::core::Literal;

/// `sum((x·w + b)²)`.
#[computation(grad(w, b))]
fn sq(x: Tensor<f64, 2, 3>, w: Tensor<f64, 3>, b: f64) -> f64 {
    let y = x.dot(w) + b;
    (y * y).sum()
}

/// One listed parameter: `grad` returns the bare gradient.
#[computation(grad(w))]
fn sq_w(x: Tensor<f64, 2, 3>, w: Tensor<f64, 3>, b: f64) -> f64 {
    let y = x.dot(w) + b;
    (y * y).sum()
}

/// A dense layer and softmax cross-entropy against one-hot labels `y`, averaged over rows.
#[computation(grad(w, b))]
fn cross_entropy(
    x: Tensor<f64, 4, 5>,
    w: Tensor<f64, 5, 3>,
    b: Tensor<f64, 3>,
    y: Tensor<f64, 4, 3>,
) -> f64 {
    let z = x.dot(w) + b;
    let zc = z - z.max([1]).broadcast_in_dim([4, 3], [0]);
    let lse = zc.exp().sum([1]).log();
    let logp = zc - lse.broadcast_in_dim([4, 3], [0]);
    -(y * logp).sum() / 4.0
}

/// Convolution, batch norm (training), tanh, 2×2 max pool; bare `grad`: every parameter.
#[computation(grad)]
fn conv_net(
    x: Tensor<f64, 2, 1, 6, 6>,
    k: Tensor<f64, 2, 1, 3, 3>,
    scale: Tensor<f64, 2>,
    offset: Tensor<f64, 2>,
) -> f64 {
    let h = x.conv(k, [1, 1]);
    let n = h.batch_norm_training(scale, offset, 0.001, 1).0;
    let p = n.tanh().max_pool([1, 1, 2, 2], [1, 1, 2, 2]);
    (p * p).sum()
}

/// A `for` loop and an `if`: acc = x·(w³ + w² + w + 1); then `sum(acc)·w` or `-sum(acc²)`.
#[computation(grad)]
fn looped(x: Tensor<f64, 3>, w: f64) -> f64 {
    let mut acc = x;
    for _ in 0..3 {
        acc = acc * w + x;
    }
    if acc.sum() > 0.0 {
        acc.sum() * w
    } else {
        -(acc * acc).sum()
    }
}

/// Central finite differences of `f` w.r.t. every element of argument `j`.
fn numeric_grad(f: &dyn Fn(&[Vec<f64>]) -> f64, args: &[Vec<f64>], j: usize) -> Vec<f64> {
    let h = 1e-6;
    (0..args[j].len())
        .map(|i| {
            let mut plus = args.to_vec();
            plus[j][i] += h;
            let mut minus = args.to_vec();
            minus[j][i] -= h;
            (f(&plus) - f(&minus)) / (2.0 * h)
        })
        .collect()
}

fn assert_close(got: &[f64], want: &[f64], tol: f64, what: &str) {
    assert_eq!(got.len(), want.len(), "{what}");
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        assert!(
            (g - w).abs() <= tol * (1.0 + w.abs()),
            "{what}[{i}]: got {g}, want {w}"
        );
    }
}

/// Deterministic pseudo-random values in [-1, 1) (a small LCG, no ties for max pool).
fn values(n: usize, seed: u64) -> Vec<f64> {
    let mut s = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    (0..n)
        .map(|_| {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((s >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
        })
        .collect()
}

#[test]
fn squared_error_by_hand() {
    let x = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0];
    let (gw, gb) = sq::grad::call(&x, &[1.0, 0.0, 0.0], 0.5).unwrap();
    // y = [1.5, 4.5]; dL/dy = 2y = [3, 9]; dL/dw = xᵀ·[3, 9] = [39, 51, 63]; dL/db = 12.
    assert_eq!(gw, vec![39.0, 51.0, 63.0]);
    assert_eq!(gb, 12.0);
    let (value, gw2, gb2) = sq::value_and_grad::call(&x, &[1.0, 0.0, 0.0], 0.5).unwrap();
    assert_eq!(value, 1.5 * 1.5 + 4.5 * 4.5);
    assert_eq!((gw2, gb2), (gw.clone(), gb));
    // One listed parameter: the bare gradient, not a 1-tuple.
    assert_eq!(sq_w::grad::call(&x, &[1.0, 0.0, 0.0], 0.5).unwrap(), gw);
    assert_eq!(sq_w::grad::result_shape().to_string(), "f64[3]");
    assert_eq!(
        sq_w::value_and_grad::result_shape().to_string(),
        "(f64[], f64[3])"
    );
    assert_eq!(sq::grad::result_shape().to_string(), "(f64[3], f64[])");
}

#[test]
fn run_and_apply_take_literals() {
    let x = Literal::from_vec(&[2, 3], vec![1.0f64, 2.0, 3.0, 4.0, 5.0, 6.0]).unwrap();
    let w = Literal::from_vec(&[3], vec![1.0f64, 0.0, 0.0]).unwrap();
    let out = sq::grad::apply(x.clone(), w.clone(), Literal::scalar(0.5f64)).unwrap();
    let parts = out.tuple_elements().unwrap();
    assert_eq!(parts[0].data::<f64>().unwrap(), &[39.0, 51.0, 63.0]);
    assert_eq!(parts[1].data::<f64>().unwrap(), &[12.0]);
    let out = sq_w::grad::run(&[x, w, Literal::scalar(0.5f64)]).unwrap();
    assert_eq!(out.data::<f64>().unwrap(), &[39.0, 51.0, 63.0]);
    assert!(sq::grad::run(&[]).is_err());
}

#[test]
fn gradient_hlo_parses_and_verifies() {
    for (name, hlo) in [
        ("sq_grad", sq::grad::HLO),
        ("sq_value_and_grad", sq::value_and_grad::HLO),
        ("sq_w_grad", sq_w::grad::HLO),
        ("cross_entropy_grad", cross_entropy::grad::HLO),
        ("conv_net_grad", conv_net::grad::HLO),
        ("looped_value_and_grad", looped::value_and_grad::HLO),
    ] {
        assert!(hlo.starts_with(&format!("HloModule {name}")), "{hlo}");
        let m = xla::core::text::parse_module(hlo).unwrap();
        xla::core::verify::verify_module(&m).unwrap();
    }
    assert_eq!(sq::grad::NAME, "sq_grad");
    assert_eq!(sq::grad::PARAMETERS, ["x", "w", "b"]);
    assert_eq!(sq::grad::parameter_shapes(), sq::parameter_shapes());
}

#[test]
fn cross_entropy_against_hand_derivation_and_finite_differences() {
    let (x, w, b) = (values(20, 1), values(15, 2), values(3, 3));
    let labels = [0usize, 2, 1, 2];
    let mut y = vec![0.0; 12];
    for (r, &l) in labels.iter().enumerate() {
        y[r * 3 + l] = 1.0;
    }
    let (gw, gb) = cross_entropy::grad::call(&x, &w, &b, &y).unwrap();
    // By hand: dL/dz = (softmax(z) - y) / 4; dL/dw = xᵀ·dz; dL/db = column sums of dz.
    let mut dz = [0.0; 12];
    for r in 0..4 {
        let z: Vec<f64> = (0..3)
            .map(|c| b[c] + (0..5).map(|k| x[r * 5 + k] * w[k * 3 + c]).sum::<f64>())
            .collect();
        let total: f64 = z.iter().map(|v| v.exp()).sum();
        for c in 0..3 {
            dz[r * 3 + c] = (z[c].exp() / total - y[r * 3 + c]) / 4.0;
        }
    }
    let want_w: Vec<f64> = (0..15)
        .map(|i| (0..4).map(|r| x[r * 5 + i / 3] * dz[r * 3 + i % 3]).sum())
        .collect();
    let want_b: Vec<f64> = (0..3)
        .map(|c| (0..4).map(|r| dz[r * 3 + c]).sum())
        .collect();
    assert_close(&gw, &want_w, 1e-12, "dw by hand");
    assert_close(&gb, &want_b, 1e-12, "db by hand");
    let f = |a: &[Vec<f64>]| cross_entropy::call(&a[0], &a[1], &a[2], &a[3]).unwrap();
    let args = [x.clone(), w.clone(), b.clone(), y.clone()];
    assert_close(&gw, &numeric_grad(&f, &args, 1), 1e-7, "dw numeric");
    assert_close(&gb, &numeric_grad(&f, &args, 2), 1e-7, "db numeric");
    let (value, gw2, gb2) = cross_entropy::value_and_grad::call(&x, &w, &b, &y).unwrap();
    assert_eq!(value, cross_entropy::call(&x, &w, &b, &y).unwrap());
    assert_eq!((gw2, gb2), (gw, gb));
}

#[test]
fn conv_batch_norm_max_pool_against_finite_differences() {
    let args = [
        values(72, 4),
        values(18, 5),
        vec![1.0, 0.5],
        vec![0.1, -0.2],
    ];
    let (gx, gk, gscale, goffset) =
        conv_net::grad::call(&args[0], &args[1], &args[2], &args[3]).unwrap();
    let f = |a: &[Vec<f64>]| conv_net::call(&a[0], &a[1], &a[2], &a[3]).unwrap();
    for (j, got) in [gx, gk, gscale, goffset].iter().enumerate() {
        assert_close(
            got,
            &numeric_grad(&f, &args, j),
            1e-6,
            &format!("argument {j}"),
        );
    }
}

#[test]
fn loop_and_branch_by_hand_and_finite_differences() {
    // Both branches: sum(x) > 0 takes `sum(acc)·w`, otherwise `-sum(acc²)`.
    for (x, w) in [(vec![0.5, -1.0, 2.0], 0.7), (vec![-0.5, 1.0, -2.0], 1.3)] {
        let (gx, gw) = looped::grad::call(&x, w).unwrap();
        let c = w * w * w + w * w + w + 1.0;
        let dc = 3.0 * w * w + 2.0 * w + 1.0;
        let s: f64 = x.iter().sum();
        let s2: f64 = x.iter().map(|v| v * v).sum();
        let (want_x, want_w): (Vec<f64>, f64) = if s * c > 0.0 {
            (vec![c * w; 3], s * (c + w * dc))
        } else {
            (
                x.iter().map(|v| -2.0 * c * c * v).collect(),
                -2.0 * c * dc * s2,
            )
        };
        assert_close(&gx, &want_x, 1e-12, "dx by hand");
        assert_close(&[gw], &[want_w], 1e-12, "dw by hand");
        let f = |a: &[Vec<f64>]| looped::call(&a[0], a[1][0]).unwrap();
        let args = [x.clone(), vec![w]];
        assert_close(&gx, &numeric_grad(&f, &args, 0), 1e-6, "dx numeric");
        assert_close(&[gw], &numeric_grad(&f, &args, 1), 1e-6, "dw numeric");
    }
}

/// The layer of the task's example, in f32 and at full size.
#[computation(grad(w, b))]
fn dense_loss(x: Tensor<f32, 64, 784>, w: Tensor<f32, 784, 10>, b: Tensor<f32, 10>) -> f32 {
    (x.dot(w) + b).relu().sum()
}

#[test]
fn dense_layer_f32_by_hand() {
    // x = 1, w = 0.001, b = [0, -1, 0, ...]: z = 0.784 + b, so column 1 is negative (relu
    // passes no gradient) and every other entry passes 1: dL/dw[k][c] = 64 (sum of x over
    // rows) for c ≠ 1, dL/db[c] = 64 for c ≠ 1.
    let (x, w) = (vec![1.0f32; 64 * 784], vec![0.001f32; 784 * 10]);
    let mut b = vec![0.0f32; 10];
    b[1] = -1.0;
    let (gw, gb) = dense_loss::grad::call(&x, &w, &b).unwrap();
    let col = |c: usize| if c == 1 { 0.0 } else { 64.0 };
    assert_eq!(gb, (0..10).map(col).collect::<Vec<f32>>());
    assert_eq!(gw, (0..7840).map(|i| col(i % 10)).collect::<Vec<f32>>());
    let (value, _, _) = dense_loss::value_and_grad::call(&x, &w, &b).unwrap();
    assert!((value - 64.0 * 9.0 * 0.784).abs() < 1e-2, "{value}");
    assert_eq!(
        dense_loss::value_and_grad::result_shape().to_string(),
        "(f32[], f32[784,10], f32[10])"
    );
}

/// A computation called from a differentiated one.
#[computation]
fn layer(x: Tensor<f64, 2, 3>, w: Tensor<f64, 3, 2>) -> Tensor<f64, 2, 2> {
    x.dot(w).tanh()
}

#[computation(grad)]
fn layered(x: Tensor<f64, 2, 3>, w: Tensor<f64, 3, 2>) -> f64 {
    let h = layer(x, w);
    (h * h).sum()
}

#[test]
fn gradient_through_a_call() {
    let args = [values(6, 7), values(6, 8)];
    let (gx, gw) = layered::grad::call(&args[0], &args[1]).unwrap();
    let f = |a: &[Vec<f64>]| layered::call(&a[0], &a[1]).unwrap();
    assert_close(&gx, &numeric_grad(&f, &args, 0), 1e-7, "dx numeric");
    assert_close(&gw, &numeric_grad(&f, &args, 1), 1e-7, "dw numeric");
}
