//! Whole-model gradients against JAX: the `testdata/grad_models/` fixtures written by
//! `scripts/gen_grad_models.py` (MLP with softmax cross-entropy; CNN with conv, batch norm
//! as jnp ops and as XLA's `batch-norm-training`, ReLU, max-pool; Gaussian-process negative
//! log marginal likelihood through `cholesky` and `triangular-solve`). Each forward module is
//! parsed, differentiated with `grad_module` w.r.t. `meta.json`'s `wrt`, verified, run on
//! the CPU executor with the fixture inputs and compared with JAX's `grad<k>.npy` (and the
//! forward loss with `loss.npy`) under the fixture's tolerances.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::path::PathBuf;
use xla_autodiff::grad_module;
use xla_core::literal::ArrayData;
use xla_core::{Literal, Module};

/// The fixture models, one directory each under `testdata/grad_models/`.
const MODELS: [&str; 4] = ["mlp", "cnn", "cnn_bn_op", "gp"];

fn dir(model: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../testdata/grad_models")
        .join(model)
}

struct Fixture {
    module: Module,
    inputs: Vec<Literal>,
    wrt: Vec<usize>,
    rtol: f64,
    atol: f64,
    dir: PathBuf,
}

fn load(model: &str) -> Fixture {
    let dir = dir(model);
    let meta = common::read_meta(&dir);
    Fixture {
        module: common::read_module(&dir),
        inputs: common::read_inputs(&dir),
        wrt: meta.wrt,
        rtol: meta.rtol,
        atol: meta.atol,
        dir,
    }
}

fn flatten(l: Literal, out: &mut Vec<Literal>) {
    match l.tuple_elements() {
        Some(t) => t.iter().cloned().for_each(|e| flatten(e, out)),
        None => out.push(l),
    }
}

fn as_f64(d: &ArrayData) -> Vec<f64> {
    match d {
        ArrayData::F32(v) => v.iter().map(|&x| f64::from(x)).collect(),
        ArrayData::F64(v) => v.clone(),
        other => panic!("not a float array: {other:?}"),
    }
}

/// `Err` names the first element outside `atol + rtol·|want|`.
fn compare(got: &Literal, want: &Literal, rtol: f64, atol: f64) -> Result<(), String> {
    if got.shape().without_layout() != want.shape().without_layout() {
        return Err(format!(
            "shape {} vs expected {}",
            got.shape(),
            want.shape()
        ));
    }
    let g = as_f64(got.array_data().unwrap());
    let w = as_f64(want.array_data().unwrap());
    match g.iter().zip(&w).enumerate().find(|(_, (&x, &y))| {
        // Written as `ok` then `!ok` so that a NaN counts as a mismatch.
        let ok = (x - y).abs() <= atol + rtol * y.abs();
        !ok
    }) {
        Some((i, (x, y))) => Err(format!("element {i}: got {x}, JAX {y}")),
        None => Ok(()),
    }
}

fn run(m: &Module, args: &[Literal]) -> Vec<Literal> {
    xla_core::verify::verify_module(m).unwrap_or_else(|e| panic!("verify: {e}"));
    let out = xla_cpu::Executable::compile(m)
        .unwrap_or_else(|e| panic!("compile: {e}"))
        .execute(args)
        .unwrap_or_else(|e| panic!("execute: {e}"));
    let mut leaves = Vec::new();
    flatten(out, &mut leaves);
    leaves
}

fn check_grads(model: &str) {
    let f = load(model);
    let grad = grad_module(&f.module, Some(&f.wrt)).unwrap_or_else(|e| panic!("{model}: {e}"));
    let got = run(&grad, &f.inputs);
    assert_eq!(
        got.len(),
        f.wrt.len(),
        "{model}: one gradient per wrt entry"
    );
    for (k, g) in got.iter().enumerate() {
        let want = Literal::read_npy(f.dir.join(format!("grad{k}.npy"))).unwrap();
        if let Err(e) = compare(g, &want, f.rtol, f.atol) {
            panic!("{model}: gradient w.r.t. parameter {}: {e}", f.wrt[k]);
        }
    }
}

fn check_loss(model: &str) {
    let f = load(model);
    let got = run(&f.module, &f.inputs);
    let want = Literal::read_npy(f.dir.join("loss.npy")).unwrap();
    assert_eq!(got.len(), 1, "{model}: a scalar loss");
    if let Err(e) = compare(&got[0], &want, f.rtol, f.atol) {
        panic!("{model}: forward loss: {e}");
    }
}

#[test]
fn mlp_softmax_cross_entropy_gradients_match_jax() {
    check_grads("mlp");
}

#[test]
fn cnn_conv_batch_norm_max_pool_gradients_match_jax() {
    check_grads("cnn");
}

#[test]
fn cnn_with_the_batch_norm_training_op_gradients_match_jax() {
    check_grads("cnn_bn_op");
}

#[test]
fn gp_marginal_likelihood_through_cholesky_gradients_match_jax() {
    check_grads("gp");
}

#[test]
fn forward_losses_match_jax() {
    for model in MODELS {
        check_loss(model);
    }
}

/// Every model's gradient module prints to HLO text that parses back, verifies, and still
/// computes JAX's gradients.
#[test]
fn gradient_modules_round_trip_through_text() {
    for model in MODELS {
        let f = load(model);
        let grad = grad_module(&f.module, Some(&f.wrt)).unwrap();
        let text = xla_core::text::print_module(&grad);
        let back = xla_core::text::parse_module(&text)
            .unwrap_or_else(|e| panic!("{model}: printed gradient module does not parse: {e}"));
        let got = run(&back, &f.inputs);
        for (k, g) in got.iter().enumerate() {
            let want = Literal::read_npy(f.dir.join(format!("grad{k}.npy"))).unwrap();
            compare(g, &want, f.rtol, f.atol).unwrap_or_else(|e| panic!("{model}: {e}"));
        }
    }
}

/// The comparison is real: a gradient of another parameter, or a perturbed one, fails.
#[test]
fn comparison_detects_a_wrong_gradient() {
    let d = dir("gp");
    let g0 = Literal::read_npy(d.join("grad0.npy")).unwrap();
    let g1 = Literal::read_npy(d.join("grad1.npy")).unwrap();
    assert!(compare(&g0, &g0, 1e-9, 1e-9).is_ok());
    assert!(compare(&g1, &g0, 1e-9, 1e-9).is_err());
    let w = Literal::read_npy(dir("mlp").join("grad3.npy")).unwrap();
    let mut v = as_f64(w.array_data().unwrap());
    v[0] += 1e-3;
    let off = Literal::vec1(&v.iter().map(|&x| x as f32).collect::<Vec<f32>>());
    assert!(compare(&off, &w, 1e-4, 1e-5).is_err());
}

/// The fixtures stay small (the issue asks for well under 300 KB in all).
#[test]
fn fixtures_are_small() {
    let total: u64 = MODELS
        .iter()
        .flat_map(|m| std::fs::read_dir(dir(m)).unwrap())
        .map(|e| e.unwrap().metadata().unwrap().len())
        .sum();
    assert!(total < 150_000, "{total} bytes");
}
