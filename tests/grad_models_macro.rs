//! The whole models of `testdata/grad_models/` (written by `scripts/gen_grad_models.py`)
//! written as `#[computation(grad(...))]`s: their `::grad` modules, built at compile time,
//! give JAX's gradients (and the computations JAX's losses) on the fixture inputs.

#![allow(clippy::unwrap_used, clippy::panic)]

use std::path::PathBuf;
use xla::computation;
use xla::core::Literal;

/// 64-32-10 tanh MLP, softmax cross-entropy, batch 16.
#[computation(grad(w1, b1, w2, b2))]
fn mlp(
    w1: Tensor<f32, 64, 32>,
    b1: Tensor<f32, 32>,
    w2: Tensor<f32, 32, 10>,
    b2: Tensor<f32, 10>,
    x: Tensor<f32, 16, 64>,
    labels: Tensor<i32, 16>,
) -> f32 {
    let h = (x.dot(w1) + b1).tanh();
    let logits = h.dot(w2) + b2;
    let shifted = logits - logits.max([1]).broadcast_in_dim([16, 10], [0]);
    let lse = shifted.exp().sum([1]).log();
    let logp = shifted - lse.broadcast_in_dim([16, 10], [0]);
    let hit = labels.broadcast_in_dim([16, 10], [0]).eq(iota([16, 10], 1));
    (hit.convert::<f32>() * logp).sum() * -0.0625
}

/// Conv 3×3 SAME (1→4 channels), batch norm over N,H,W as jnp ops, ReLU, 2×2 max-pool,
/// dense → 10, softmax cross-entropy, batch 8.
#[computation(grad(k, gamma, beta, w, b))]
fn cnn(
    k: Tensor<f32, 4, 1, 3, 3>,
    gamma: Tensor<f32, 4>,
    beta: Tensor<f32, 4>,
    w: Tensor<f32, 64, 10>,
    b: Tensor<f32, 10>,
    x: Tensor<f32, 8, 1, 8, 8>,
    labels: Tensor<i32, 8>,
) -> f32 {
    let y = x.conv(k, [1, 1], SAME);
    let c = y - y.mean([0, 2, 3]).broadcast_in_dim([8, 4, 8, 8], [1]);
    let inv = ((c * c).mean([0, 2, 3]) + 0.00001).rsqrt();
    let yhat = c * inv.broadcast_in_dim([8, 4, 8, 8], [1]);
    let g = gamma.broadcast_in_dim([8, 4, 8, 8], [1]);
    let z = (yhat * g + beta.broadcast_in_dim([8, 4, 8, 8], [1])).relu();
    let p = z.max_pool([1, 1, 2, 2], [1, 1, 2, 2]);
    let logits = p.reshape([8, 64]).dot(w) + b;
    let shifted = logits - logits.max([1]).broadcast_in_dim([8, 10], [0]);
    let lse = shifted.exp().sum([1]).log();
    let logp = shifted - lse.broadcast_in_dim([8, 10], [0]);
    let hit = labels.broadcast_in_dim([8, 10], [0]).eq(iota([8, 10], 1));
    (hit.convert::<f32>() * logp).sum() * -0.125
}

/// The same CNN with XLA's `batch-norm-training` op.
#[computation(grad(k, gamma, beta, w, b))]
fn cnn_bn_op(
    k: Tensor<f32, 4, 1, 3, 3>,
    gamma: Tensor<f32, 4>,
    beta: Tensor<f32, 4>,
    w: Tensor<f32, 64, 10>,
    b: Tensor<f32, 10>,
    x: Tensor<f32, 8, 1, 8, 8>,
    labels: Tensor<i32, 8>,
) -> f32 {
    let y = x.conv(k, [1, 1], SAME);
    let bn = y.batch_norm_training(gamma, beta, 0.00001, 1);
    let z = bn.0.relu();
    let p = z.max_pool([1, 1, 2, 2], [1, 1, 2, 2]);
    let logits = p.reshape([8, 64]).dot(w) + b;
    let shifted = logits - logits.max([1]).broadcast_in_dim([8, 10], [0]);
    let lse = shifted.exp().sum([1]).log();
    let logp = shifted - lse.broadcast_in_dim([8, 10], [0]);
    let hit = labels.broadcast_in_dim([8, 10], [0]).eq(iota([8, 10], 1));
    (hit.convert::<f32>() * logp).sum() * -0.125
}

/// Gaussian-process negative log marginal likelihood, RBF kernel, 12 points.
#[computation(grad(log_ls, log_sf, log_sn))]
fn gp(log_ls: f64, log_sf: f64, log_sn: f64, x: Tensor<f64, 12>, y: Tensor<f64, 12>) -> f64 {
    let ls2 = (log_ls * 2.0).exp();
    let sf2 = (log_sf * 2.0).exp();
    let sn2 = (log_sn * 2.0).exp();
    let d = x.broadcast_in_dim([12, 12], [0]) - x.broadcast_in_dim([12, 12], [1]);
    let eye = iota([12, 12], 0).eq(iota([12, 12], 1)).convert::<f64>();
    let k = (d * d * (-0.5 / ls2)).exp() * sf2 + eye * sn2;
    let l = k.cholesky();
    let ycol = y.reshape([12, 1]);
    let v = l.solve_lower(ycol);
    let alpha = l.t().solve_upper(v);
    let logdet = (l * eye).sum([1]).log().sum();
    (ycol * alpha).sum() * 0.5 + logdet + 11.027262398456072
}

fn dir(model: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("testdata/grad_models")
        .join(model)
}

fn inputs(model: &str) -> Vec<Literal> {
    (0..)
        .map(|i| dir(model).join(format!("in{i}.npy")))
        .take_while(|p| p.exists())
        .map(|p| Literal::read_npy(&p).unwrap())
        .collect()
}

fn values(l: &Literal) -> Vec<f64> {
    if let Some(v) = l.data::<f32>() {
        return v.iter().map(|&x| f64::from(x)).collect();
    }
    l.data::<f64>().unwrap().to_vec()
}

fn close(model: &str, what: &str, got: &Literal, want: &Literal, tol: (f64, f64)) {
    let (g, w) = (values(got), values(want));
    assert_eq!(g.len(), w.len(), "{model} {what}: sizes");
    for (i, (x, y)) in g.iter().zip(&w).enumerate() {
        assert!(
            (x - y).abs() <= tol.1 + tol.0 * y.abs(),
            "{model} {what} element {i}: got {x}, JAX {y}"
        );
    }
}

/// Runs `loss` and `grad` on the fixture inputs and compares with `loss.npy`, `grad<k>.npy`.
fn check(model: &str, loss: Literal, grads: Literal, tol: (f64, f64)) {
    let want = Literal::read_npy(dir(model).join("loss.npy")).unwrap();
    close(model, "loss", &loss, &want, tol);
    let grads = grads.tuple_elements().unwrap().to_vec();
    for (k, g) in grads.iter().enumerate() {
        let want = Literal::read_npy(dir(model).join(format!("grad{k}.npy"))).unwrap();
        close(model, &format!("grad{k}"), g, &want, tol);
    }
    assert!(!dir(model).join(format!("grad{}.npy", grads.len())).exists());
}

const F32: (f64, f64) = (1e-4, 1e-5);

#[test]
fn mlp_macro_gradients_match_jax() {
    let a = inputs("mlp");
    check(
        "mlp",
        mlp::run(&a).unwrap(),
        mlp::grad::run(&a).unwrap(),
        F32,
    );
}

#[test]
fn cnn_macro_gradients_match_jax() {
    let a = inputs("cnn");
    check(
        "cnn",
        cnn::run(&a).unwrap(),
        cnn::grad::run(&a).unwrap(),
        F32,
    );
}

#[test]
fn cnn_bn_op_macro_gradients_match_jax() {
    let a = inputs("cnn_bn_op");
    let (loss, grads) = (
        cnn_bn_op::run(&a).unwrap(),
        cnn_bn_op::grad::run(&a).unwrap(),
    );
    check("cnn_bn_op", loss, grads, F32);
}

#[test]
fn gp_macro_gradients_match_jax() {
    let a = inputs("gp");
    check(
        "gp",
        gp::run(&a).unwrap(),
        gp::grad::run(&a).unwrap(),
        (1e-9, 1e-9),
    );
}

/// The macro's graphs as StableHLO (`print_stablehlo`), forward and gradient: the printed
/// texts are `testdata/macro_stablehlo/MODEL/macro.mlir` and `macro_grad.mlir`, which real XLA
/// compiles and runs to JAX's loss and gradients (`scripts/run_macro_stablehlo_on_xla.py`).
/// Here each is printed again (the same text) and read back and run by us.
/// `XLA_RS_WRITE_MODULES=1` writes the texts instead of comparing them.
#[test]
fn macro_graphs_print_as_stablehlo_that_real_xla_runs() {
    use xla::core::mlir::{parse_stablehlo, print_stablehlo};
    let write = std::env::var_os("XLA_RS_WRITE_MODULES").is_some();
    let models = [
        ("mlp", mlp::module(), mlp::grad::module(), F32),
        ("cnn", cnn::module(), cnn::grad::module(), F32),
        (
            "cnn_bn_op",
            cnn_bn_op::module(),
            cnn_bn_op::grad::module(),
            F32,
        ),
        ("gp", gp::module(), gp::grad::module(), (1e-9, 1e-9)),
    ];
    for (model, fwd, grad, tol) in models {
        let mut results = Vec::new();
        for (file, m) in [
            ("macro.mlir", fwd.unwrap()),
            ("macro_grad.mlir", grad.unwrap()),
        ] {
            let text = print_stablehlo(m).unwrap();
            let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
                .join("testdata/macro_stablehlo")
                .join(model)
                .join(file);
            if write {
                std::fs::write(&path, &text).unwrap();
            } else {
                let committed = std::fs::read_to_string(&path).unwrap();
                assert!(text == committed, "{model}/{file}: the printed text changed; rerun with XLA_RS_WRITE_MODULES=1 and the script");
            }
            let exe = xla::cpu::Executable::compile(&parse_stablehlo(&text).unwrap()).unwrap();
            results.push(exe.execute(&inputs(model)).unwrap());
        }
        let grads = results.pop().unwrap();
        check(model, results.pop().unwrap(), grads, tol);
    }
}
